"""Issue 29's batch reproducers: every input line gets exactly one answer, the input is never
overwritten, and text from the input cannot act on a terminal or a spreadsheet."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import pytest
import yaml

from batch_inputs import ROOT, RUSH

RULINGS = ROOT / "tests" / "rulings" / "berserk"
OBLIGED = RULINGS / "532" / "532.5-revealed-card.yaml"


def cli(*args, stdin=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "pybridge", *map(str, args)], input=stdin, capture_output=True,
                          timeout=timeout, cwd=ROOT)


def rush_line() -> bytes:
    data = yaml.safe_load(RUSH.read_text(encoding="utf-8"))
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def jsonl_rows(stdout: bytes) -> list[dict]:
    return [json.loads(line) for line in stdout.decode("utf-8").splitlines()]


def tiny(**extra) -> dict:
    """A valid Berserk situation with no card: nothing to judge."""
    return {"game": "berserk", "viewpoint": "p1", "players": [{"id": "p1", "first": True}, {"id": "p2"}],
            "turn": {"number": 1, "active": "p1", "stage": "main"}, **extra}


def test_a_line_that_is_not_utf8_costs_only_that_line(tmp_path):
    lines = [rush_line()] * 40
    lines[19] = lines[19].replace(b'"p1"', b'"p\xff1"', 1)
    source = tmp_path / "forty.jsonl"
    source.write_bytes(b"\n".join(lines) + b"\n")
    result = cli("batch", source, "--jobs", "1")
    rows = jsonl_rows(result.stdout)
    situations = list(dict.fromkeys(r["situation"] for r in rows))
    assert situations == [f"{source}:{n}" for n in range(1, 41)]
    (bad,) = [r for r in rows if "error" in r]
    assert bad["situation"] == f"{source}:20"
    assert bad["error"]["message"].startswith("not UTF-8 text")
    assert result.returncode == 1


def test_the_output_may_not_be_an_input(tmp_path):
    source = tmp_path / "x.jsonl"
    source.write_bytes(rush_line() + b"\n")
    before = source.read_bytes()
    result = cli("batch", source, "-o", source, "--jobs", "1")
    assert result.returncode == 2, result.stderr
    assert b"also an input" in result.stderr and b"Traceback" not in result.stderr
    assert source.read_bytes() == before


def test_the_output_may_not_lie_inside_an_input_folder(tmp_path):
    folder = tmp_path / "in"
    (folder / "deep").mkdir(parents=True)
    (folder / "a.jsonl").write_bytes(rush_line() + b"\n")
    result = cli("batch", folder, "-o", folder / "deep" / "out.jsonl", "--jobs", "1", timeout=60)
    assert result.returncode == 2, result.stderr
    assert b"inside the input folder" in result.stderr
    assert not (folder / "deep" / "out.jsonl").exists()


def test_an_unwritable_output_is_refused_before_any_work(tmp_path):
    source = tmp_path / "x.jsonl"
    source.write_bytes(rush_line() + b"\n")
    for output in (tmp_path / "no-such-folder" / "out.jsonl", source / "out.jsonl"):
        result = cli("batch", source, "-o", output, "--jobs", "1", timeout=60)
        assert result.returncode == 2
        message = result.stderr.decode().strip()
        assert message.startswith(f"error: {output}: ") and "\n" not in message


def test_a_situation_with_no_verdict_gets_a_row(tmp_path):
    source = tmp_path / "empty.jsonl"
    source.write_text(json.dumps(tiny()) + "\n" + json.dumps({"id": "named", **tiny()}) + "\n", encoding="utf-8")
    result = cli("batch", source, "--jobs", "1")
    assert result.returncode == 0, result.stderr
    assert jsonl_rows(result.stdout) == [{"situation": f"{source}:1", "verdict": None},
                                         {"situation": "named", "verdict": None}]
    as_csv = cli("batch", source, "--jobs", "1", "--format", "csv")
    table = list(csv.DictReader(io.StringIO(as_csv.stdout.decode())))
    assert [(r["situation"], r["verdict"], r["error_message"]) for r in table] == [
        (f"{source}:1", "", ""), ("named", "", "")]


def test_an_error_row_keeps_the_records_id(tmp_path):
    broken = tiny(cards=[{"id": "x", "card": "Эльф-всадниц", "controller": "p1"}])
    source = tmp_path / "ids.jsonl"
    source.write_text(json.dumps({"id": "my record", **broken}, ensure_ascii=False) + "\n", encoding="utf-8")
    (row,) = jsonl_rows(cli("batch", source, "--jobs", "1").stdout)
    assert row["situation"] == "my record"
    assert (row["error"]["file"], row["error"]["field"]) == (f"{source}:1", "cards[0].card")


@pytest.mark.parametrize("bad", ["a\nb", "a\x1b[31mred", "x\u202egnp.exe", "line\u2028sep"])
def test_a_record_id_that_could_forge_a_line_is_refused(tmp_path, bad):
    source = tmp_path / "ids.jsonl"
    source.write_text(json.dumps({"id": bad, **tiny()}) + "\n", encoding="utf-8")
    (row,) = jsonl_rows(cli("batch", source, "--jobs", "1").stdout)
    assert row["situation"] == f"{source}:1"
    assert row["error"]["field"] == "id" and "U+" in row["error"]["message"]


def test_text_from_the_input_is_neutralised_in_rows(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    odd_name = folder / "a\u202eb.json"
    odd_name.write_text(json.dumps(tiny()), encoding="utf-8")
    records = tmp_path / "formulas.jsonl"
    formulas = ["=HYPERLINK(\"http://x\")", "+1+1", "-2", "@SUM(A1)"]
    records.write_text("".join(json.dumps({"id": f, **tiny()}) + "\n" for f in formulas), encoding="utf-8")
    as_jsonl = cli("batch", folder, records, "--jobs", "1")
    text = as_jsonl.stdout.decode()
    assert "\u202e" not in text and "\\u202e" in text
    assert [r["situation"] for r in jsonl_rows(as_jsonl.stdout)] == [str(odd_name), *formulas]
    as_csv = cli("batch", folder, records, "--jobs", "1", "--format", "csv").stdout.decode()
    assert "\u202e" not in as_csv
    cells = [r["situation"] for r in csv.DictReader(io.StringIO(as_csv))]
    assert cells[1:] == ["'" + f for f in formulas]


def test_rows_carry_obligation_consequences_certainty_edition_and_options(tmp_path):
    result = cli("batch", OBLIGED, "--jobs", "1", "--option", "edition=515", "--option",
                 "range_metric=manhattan")
    (row,) = jsonl_rows(result.stdout)
    assert row["verdict"] == "legal" and row["obliged"] is True and row["obliged_by"] == ["card-text"]
    assert row["consequences"] and row["certainty"] == "every"
    assert row["edition"] == "515" and row["options"]["range_metric"] == "manhattan"
    as_csv = cli("batch", OBLIGED, "--jobs", "1", "--format", "csv").stdout.decode()
    (cell,) = csv.DictReader(io.StringIO(as_csv))
    assert cell["obliged"] == "yes" and cell["consequences"] and cell["edition"] == "531"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
@pytest.mark.parametrize("command", ["check", "batch", "diff", "test"])
def test_a_fifo_is_refused_not_read(tmp_path, command):
    fifo = tmp_path / "situation.yaml"
    os.mkfifo(fifo)
    args = {"check": ["check", fifo], "batch": ["batch", fifo, "--jobs", "1"],
            "diff": ["diff", fifo, "--option", "edition=515", "--option", "edition=531"], "test": ["test", fifo]}[command]
    result = cli(*args, timeout=60)
    out = (result.stdout + result.stderr).decode()
    assert "FIFO, not a regular file" in out and "Traceback" not in out
    assert result.returncode != 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
@pytest.mark.parametrize("command", ["batch", "test"])
def test_a_fifo_inside_a_folder_is_refused_not_read(tmp_path, command):
    os.mkfifo(tmp_path / "situation.yaml")
    (tmp_path / "good.yaml").write_text(OBLIGED.read_text(encoding="utf-8"), encoding="utf-8")
    args = ["batch", tmp_path, "--jobs", "1"] if command == "batch" else ["test", tmp_path]
    result = cli(*args, timeout=60)
    out = (result.stdout + result.stderr).decode()
    assert "FIFO, not a regular file" in out
    assert result.returncode != 0


def test_the_matrix_table_neutralises_its_cells_as_batch_does():
    from pybridge.tools.matrix import Cell, csv_text

    verdict = {"player": "=p1", "action": "shot(@x, y)", "pair_action": "shot(@x, y)", "verdict": "legal",
               "cites": ["107.2"], "certainty": "every"}
    table = list(csv.DictReader(io.StringIO(csv_text([Cell("+a\u202e", "-b", "s", [verdict])]))))
    assert [(r["a"], r["b"], r["player"], r["action"]) for r in table] == [
        ("'+a\\u202e", "'-b", "'=p1", "shot(@x, y)")]
