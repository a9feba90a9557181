"""Issue 29: an output that cannot be written, a file of equivalent mutants that is not one, and a
Dask scheduler that cannot be reached are each one line of error, given before any work."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from batch_inputs import ROOT, RUSH


def cli(*args, timeout=120):
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "pybridge", *map(str, args)], capture_output=True, text=True,
                            timeout=timeout, cwd=ROOT)
    return result, time.monotonic() - started


def one_line_error(result, source: str | None = None) -> str:
    assert result.returncode == 2, result.stderr
    message = result.stderr.strip()
    assert "\n" not in message and "Traceback" not in message and "internal error" not in message, message
    assert message.startswith(f"error: {source}: " if source else "error: "), message
    return message


def test_matrix_refuses_an_unwritable_table_before_judging_a_pair(tmp_path):
    template = tmp_path / "template.yaml"
    template.write_text(RUSH.read_text(encoding="utf-8"), encoding="utf-8")
    unwritable = tmp_path / "missing" / "table.md"
    result, seconds = cli("matrix", "--cards", "all", "--template", template, "-o", unwritable, "--jobs", "1")
    assert "folder does not exist" in one_line_error(result, str(unwritable))
    assert seconds < 30, "refused before the pairs were judged"


def test_consistency_refuses_an_output_folder_it_cannot_make(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    result, seconds = cli("consistency", "--game", "berserk", "-o", blocker / "found")
    assert "is a file, not a folder" in one_line_error(result, str(blocker / "found"))
    assert seconds < 30


@pytest.mark.parametrize("text", ["equivalent: [unclosed\n", "- just a list\n", "equivalent: [3]\n"])
def test_mutants_refuses_a_file_of_equivalents_that_is_not_one(tmp_path, text):
    marked = tmp_path / "equivalent.yaml"
    marked.write_text(text, encoding="utf-8")
    result, seconds = cli("mutants", "--equivalent", marked, "--sample", "1", "--no-consistency")
    assert "equivalent" in one_line_error(result, str(marked))
    assert seconds < 30, "refused before any mutant was judged"


def test_an_unreachable_dask_scheduler_is_one_line(tmp_path):
    pytest.importorskip("distributed")
    source = tmp_path / "one.jsonl"
    source.write_text("{}\n", encoding="utf-8")
    result, _ = cli("batch", source, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1", timeout=90)
    assert "cannot reach the Dask scheduler" in one_line_error(result)
