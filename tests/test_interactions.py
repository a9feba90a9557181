"""ccg-judge interactions on real catalogue cards, real clingo and real worker processes: known
interactions appear with their clauses, plain creatures show none, the cache judges again only
what an edit touched, and the Dask executor gives the same rows."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pybridge.game.catalogue import load_game
from pybridge.tools import interactions, matrix
from pybridge.tools.batch import Settings

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "examples" / "berserk" / "interactions"
SHOOTER, SHOT_PROOF, PLAIN, OTHER_PLAIN = "Арбалетчик", "Пеший латник", "Кочевник", "Торментор"
FLYER, DISCHARGER = "Вилохвост", "Посвященный Дзара"


def run_cli(tmp_path: Path, cards: list[str], templates: list[str], *extra: str, cache: str = "cache.jsonl"):
    outputs = [tmp_path / "report.jsonl", tmp_path / "report.csv", tmp_path / "report.html"]
    command = [sys.executable, "-m", "pybridge", "interactions", "--cards", "name=" + ",".join(cards), "--jobs", "2",
               "--cache", str(tmp_path / cache)]
    for template in templates:
        command += ["--template", str(TEMPLATES / template)]
    for output in outputs:
        command += ["-o", str(output)]
    result = subprocess.run(command + list(extra), capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in outputs[0].read_text(encoding="utf-8").splitlines()]
    return rows, result.stderr


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("interactions")
    rows, stderr = run_cli(folder, [SHOOTER, SHOT_PROOF, PLAIN, FLYER, DISCHARGER],
                           ["range-2.yaml", "face-to-face.yaml"])
    return folder, rows, stderr


def test_protection_from_shots_shows_against_a_shooter(report):
    _, rows, _ = report
    found = [r for r in rows if r["a"] == SHOOTER and r["b"] == SHOT_PROOF and r["stand_in"] == "B"
             and r["template"] == "range-2.yaml"]
    assert found, "the shot-proof card's protection made no difference"
    assert {r["action"] for r in found} == {"shot(A, B)"}
    assert any(r["change"] == "consequence" and r["real"] == "no_effect(B, shot)" for r in found)
    assert all("531.1" in r["clauses"] for r in found)
    assert all(r["features"] == ["protection:shot"] for r in found)


def test_a_shooter_can_shoot_where_its_stand_in_cannot(report):
    _, rows, _ = report
    found = [r for r in rows if r["a"] == SHOOTER and r["b"] == PLAIN and r["template"] == "range-2.yaml"]
    assert [(r["stand_in"], r["action"], r["change"], r["real"], r["plain"]) for r in found] == [
        ("A", "shot(A, B)", "action", "legal", "no such action")]
    assert "feature:shot" in found[0]["clauses"] and found[0]["features"] == ["shot"]


def test_a_flyer_is_placed_in_the_flying_zone_not_an_error(report):
    _, rows, stderr = report
    assert "0 cards not placeable, 0 kinds of error" in stderr and "not placed:" not in stderr
    assert any(r["a"] == DISCHARGER and r["b"] == FLYER and "model:flyer-range" in r["clauses"] for r in rows)


def test_plain_creatures_show_no_difference(tmp_path):
    rows, stderr = run_cli(tmp_path, [PLAIN, OTHER_PLAIN], ["face-to-face.yaml", "range-2.yaml"])
    assert rows == []
    assert "0 differences" in stderr


def test_csv_has_the_join_keys_and_html_is_small(report):
    folder, rows, _ = report
    with (folder / "report.csv").open(encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == len(rows)
    assert {"a", "b", "template", "kind"} <= set(table[0])
    assert (folder / "report.html").stat().st_size < 5_000_000


def test_unplaceable_card_is_one_line_with_its_reason():
    game = load_game("berserk")
    unknown = next(name for name, entry in game.cards.items() if not (entry.get("properties") or {}).get("type"))
    templates = interactions.load_templates([TEMPLATES / "face-to-face.yaml"])
    work = interactions.plan(templates, [unknown, PLAIN], game, Settings())
    assert list(work.unplaced) == [("face-to-face.yaml", unknown)]
    assert "type is not known" in work.unplaced["face-to-face.yaml", unknown]


def test_stand_in_keeps_the_body_and_drops_the_text():
    entry = load_game("berserk").cards[SHOT_PROOF]
    plain = interactions.stand_in(entry)
    assert plain["properties"] == {k: v for k, v in entry["properties"].items() if k in interactions.STAND_IN_PROPERTIES}
    assert set(plain) == {"name", "properties"}


def test_matrix_places_a_flyer_in_the_flying_zone():
    template = matrix.load_template(ROOT / "examples" / "berserk" / "matrix-face-to-face.yaml")
    (pair, task), = list(matrix.pairs(template, [FLYER]))
    placed = {c["id"]: c for c in task.data["cards"]}
    assert placed["a"]["zone"] == "flying" and "cell" not in placed["a"]


def test_editing_one_card_changes_only_the_keys_of_its_situations():
    cards = [SHOOTER, SHOT_PROOF, PLAIN]
    game = load_game("berserk")
    templates = interactions.load_templates([TEMPLATES / "range-2.yaml"])
    first = interactions.plan(templates, cards, game, Settings())
    edited = dict(game.cards)
    edited[SHOT_PROOF] = {**edited[SHOT_PROOF], "properties": {**edited[SHOT_PROOF]["properties"], "health": 99}}
    changed = type(game)(**{f: getattr(game, f) for f in game.__struct_fields__ if f != "cards"}, cards=edited)
    second = interactions.plan(templates, cards, changed, Settings())
    new = set(second.situations) - set(first.situations)
    touched = {task.source for key, task in second.situations.items() if key in new}
    assert touched and all(SHOT_PROOF in source for source in touched)
    untouched = [t.source for k, t in second.situations.items() if SHOT_PROOF not in t.source]
    assert untouched and all(k in first.situations for k, t in second.situations.items() if SHOT_PROOF not in t.source)


def test_a_second_run_judges_nothing(report):
    folder, rows, _ = report
    again, stderr = run_cli(folder, [SHOOTER, SHOT_PROOF, PLAIN, FLYER, DISCHARGER], ["range-2.yaml", "face-to-face.yaml"])
    assert again == rows
    assert ", 0 judged now" in stderr


def test_dask_rows_equal_the_local_rows(tmp_path):
    cards, templates = [SHOOTER, SHOT_PROOF, PLAIN], ["range-2.yaml"]
    local, _ = run_cli(tmp_path, cards, templates, cache="local.jsonl")
    on_dask, _ = run_cli(tmp_path, cards, templates, "--executor", "dask", cache="dask.jsonl")
    assert on_dask == local and local


def test_parquet_has_the_rows(report):
    pyarrow = pytest.importorskip("pyarrow.parquet", reason="Parquet output needs the parquet extra (pyarrow)")
    folder, rows, _ = report
    subprocess.run([sys.executable, "-m", "pybridge", "interactions", "--cards",
                    "name=" + ",".join([SHOOTER, SHOT_PROOF, PLAIN, FLYER, DISCHARGER]), "--jobs", "1",
                    "--template", str(TEMPLATES / "range-2.yaml"), "--template", str(TEMPLATES / "face-to-face.yaml"),
                    "--cache", str(folder / "cache.jsonl"), "-o", str(folder / "report.parquet")],
                   check=True, capture_output=True, timeout=600, cwd=ROOT)
    table = pyarrow.read_table(folder / "report.parquet").to_pylist()
    assert [(r["a"], r["b"], r["action"], r["change"]) for r in table] == [
        (r["a"], r["b"], r["action"], r["change"]) for r in rows]


def test_the_python_entry_gives_the_command_s_rows(report):
    _, rows, _ = report
    result = interactions.run_interactions([TEMPLATES / "range-2.yaml"], [f"name={SHOOTER},{SHOT_PROOF}"], jobs=1)
    expected = [r for r in rows if r["template"] == "range-2.yaml" and {r["a"], r["b"]} <= {SHOOTER, SHOT_PROOF}]
    assert [d.row() for d in result.differences] == [{k: v for k, v in r.items() if k not in ("text", "plain_text")}
                                                      for r in expected]


def test_a_card_with_only_unmodelled_features_is_its_own_stand_in(tmp_path):
    """The default skips the stand-in of a card whose features its catalogue entry lists as
    unmodelled; judged anyway, such a card shows no difference from its stand-in."""
    cards = load_game("berserk").cards
    name = next(n for n, e in cards.items()  # a squad-building card: nothing of it is on the board
                if interactions.card_features(e, with_unmodelled=True) and interactions.is_plain(e))
    rows, stderr = run_cli(tmp_path, [name, SHOOTER, SHOT_PROOF], ["face-to-face.yaml", "range-2.yaml"],
                           "--judge-unmodelled")
    assert "0 kinds of error" in stderr
    assert [r for r in rows if r["replaced"] == name] == []


def test_a_poison_immune_card_against_a_poisoner(tmp_path):
    rows, stderr = run_cli(tmp_path, ["Test poisoner", "Степной волколак"], ["range-2.yaml"],
                           "--extra-cards", str(ROOT / "tests" / "interactions" / "poisoner.yaml"))
    immune = [r for r in rows if r["a"] == "Test poisoner" and r["b"] == "Степной волколак" and r["stand_in"] == "B"]
    assert immune, stderr
    assert {(r["change"], r["real"], r["plain"]) for r in immune} >= {("consequence", "—", "gets_marker(B, poison)")}
    assert all(r["features"] == ["protection:poison"] for r in immune)
    assert any(c.startswith("531") for r in immune for c in r["clauses"])


def test_a_range_bonus_brings_a_target_into_reach(tmp_path):
    rows, _ = run_cli(tmp_path, [DISCHARGER, PLAIN], ["moved-range-2.yaml", "range-2.yaml"])
    moved = [r for r in rows if r["a"] == DISCHARGER and r["b"] == PLAIN and r["template"] == "moved-range-2.yaml"]
    assert [(r["action"], r["real"], r["plain"]) for r in moved] == [("discharge(A, B)", "legal", "no such action")]
    assert "feature:range-bonus" in moved[0]["clauses"] and "range_bonus" in moved[0]["features"]
    still = [r for r in rows if r["a"] == DISCHARGER and r["b"] == PLAIN and r["template"] == "range-2.yaml"]
    assert [(r["action"], r["real"]) for r in still] == [("discharge(A, B)", "illegal")]
    assert "feature:range-bonus" not in still[0]["clauses"]


def test_extra_cards_file_errors_name_the_field(tmp_path):
    bad = tmp_path / "extra.yaml"
    bad.write_text("cards:\n  - {name: Вайл, properties: {type: creature}}\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "pybridge", "interactions", "--cards", "name=Вайл",
                             "--template", str(TEMPLATES / "range-2.yaml"), "--extra-cards", str(bad)],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "cards[0].name" in result.stderr and "catalogue already" in result.stderr


def test_a_hidden_b_makes_no_difference_its_identity_would_show(tmp_path):
    """Under b-hidden the asking player sees B face down: replacing it by its stand-in changes
    nothing they see (no row with B replaced), while what A may assume about it (532.6) shows."""
    rows, _ = run_cli(tmp_path, [DISCHARGER, SHOT_PROOF, PLAIN], ["b-hidden.yaml"])
    assert rows and all(r["stand_in"] == "A" for r in rows)
    assert any("532.6" in r["clauses"] for r in rows)
    assert all(SHOT_PROOF not in line for r in rows if r["b"] == SHOT_PROOF and r["a"] != SHOT_PROOF
               for line in r["text"] + r["plain_text"])
