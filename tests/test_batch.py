"""ccg-judge batch: real worker processes, the real solver, a few small situations."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import pytest

from batch_inputs import ROOT, expected_rows, write_inputs
from pybridge.tools import batch


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return write_inputs(tmp_path_factory.mktemp("inputs"))


@pytest.fixture(scope="module")
def reference(inputs):
    """The rows of the good situations, each checked alone in this process."""
    return expected_rows(inputs[1])


@pytest.fixture(scope="module")
def two_workers(inputs):
    """The batch on two workers, one situation per chunk."""
    return run_batch(inputs[0], jobs=2, chunk=1)


def run_batch(paths, *, jobs=2, chunk=1, recycle=batch.DEFAULT_RECYCLE, settings=batch.Settings()):
    summary = batch.Summary()
    with batch.LocalPool(jobs, recycle=recycle) as pool:
        outcomes = list(batch.run(batch.tasks_from_paths(paths), settings, pool, chunk=chunk, summary=summary))
    return outcomes, summary


def verdict_rows(outcomes):
    return [row for outcome in outcomes for row in batch.rows(outcome) if "error" not in row]


def test_rows_follow_the_input_and_equal_single_checks(inputs, reference, two_workers):
    _, expected = inputs
    outcomes, summary = two_workers
    assert [o.situation for o in outcomes] == [name for name, _ in expected]
    assert [o.error is not None for o in outcomes] == [data is None for _, data in expected]
    assert verdict_rows(outcomes) == reference
    assert summary.situations == len(expected)
    assert summary.errors == sum(data is None for _, data in expected)
    assert summary.verdicts == len(reference)


def test_the_order_does_not_depend_on_jobs_or_chunks(inputs, two_workers):
    one, _ = run_batch(inputs[0], jobs=1, chunk=3)
    assert one == two_workers[0]


def test_errors_name_file_field_and_message(inputs, two_workers):
    paths, _ = inputs
    errors = {o.situation: o.error for o in two_workers[0] if o.error}
    jsonl = paths[1]
    assert errors[f"{jsonl}:4"]["file"] == f"{jsonl}:4"
    assert errors[f"{jsonl}:4"]["message"].startswith("not valid JSON")
    unknown = errors[f"{jsonl}:5"]
    assert (unknown["file"], unknown["field"]) == (f"{jsonl}:5", "cards[0].card")
    assert "Эльф-всадник" in unknown["message"]  # the nearest valid name
    missing = errors[paths[2]]
    assert missing["message"] == "file not found"


def test_a_record_id_must_be_text(tmp_path):
    record = {"id": 7, "game": "berserk"}
    (tmp_path / "ids.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    (outcome,), _ = run_batch([tmp_path / "ids.jsonl"], jobs=1)
    assert outcome.error["field"] == "id"


def test_trees_add_the_verdicts_justification(inputs):
    paths, expected = inputs
    outcomes, _ = run_batch(paths, settings=batch.Settings(trees=True))
    assert verdict_rows(outcomes) == expected_rows(expected, trees=True)


def test_recycled_workers_answer_the_same(inputs, reference):
    outcomes, summary = run_batch(inputs[0], jobs=2, chunk=1, recycle=2)
    assert verdict_rows(outcomes) == reference
    assert len(summary.workers) >= 4, "each worker retires after two situations"
    assert all(w.checked <= 2 for w in summary.workers.values())


def test_a_killed_worker_fails_its_call_and_is_replaced(inputs):
    paths, expected = inputs
    first = next(batch.tasks_from_paths(paths))
    with batch.LocalPool(1) as pool:
        with pytest.raises(batch.WorkerDied):
            pool.submit(os._exit, 9).result(timeout=120)
        (outcome,), sample = pool.submit(batch.check_chunk, [first], batch.Settings()).result(timeout=120)
    assert outcome.error is None and outcome.verdicts
    assert sample.pid != os.getpid()


# --------------------------------------------------------------------------
# The command line


def cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "pybridge", *map(str, args)], input=stdin, capture_output=True,
                          text=True, timeout=600, cwd=ROOT)


def test_command_writes_jsonl_csv_and_a_summary(inputs, reference):
    paths, expected = inputs
    as_jsonl = cli("batch", *paths, "--jobs", "2")
    assert as_jsonl.returncode == 1, as_jsonl.stderr  # some situations have errors
    rows = [json.loads(line) for line in as_jsonl.stdout.splitlines()]
    assert [r for r in rows if "error" not in r] == reference
    assert [r["situation"] for r in rows if "error" in r] == [name for name, data in expected if data is None]
    # Piped: no progress bar, only the summary.
    assert as_jsonl.stderr.strip().splitlines() == [
        f"{len(expected)} situations, {len(reference)} verdicts, 3 with errors; "
        + as_jsonl.stderr.split("errors; ")[1].strip()]

    as_csv = cli("batch", *paths, "--jobs", "1", "--format", "csv")
    table = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert [batch.csv_row(r) for r in rows] == table


def test_command_reads_stdin_and_exits_0_without_errors(inputs, tmp_path):
    _, expected = inputs
    good = [data for _, data in expected if data is not None][:3]
    lines = "".join(json.dumps(g, ensure_ascii=False) + "\n" for g in good)
    result = cli("batch", "-", "--jobs", "1", stdin=lines)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    names = [(f"<stdin>:{i + 1}", g) for i, g in enumerate(good)]
    assert rows == expected_rows(names)


def test_dask_without_the_extra_says_how_to_install_it(inputs):
    paths, _ = inputs
    blocked = ("import sys; sys.modules['dask'] = None; sys.argv = ['ccg-judge', 'batch', '--executor', 'dask', "
               + repr(paths[0]) + "]; from pybridge.cli import main; main()")
    result = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 2
    assert "pip install 'ccg-judge[dask]'" in result.stderr
