"""The benchmark scripts run: each on a tiny input, in a real process, to its table.

No timing is asserted (the machine may be loaded); what is held is that the script ends well,
prints a row for every configuration it was asked for, and that every configuration judged
every situation. bench/batch.py once crashed unseen (its summary's subclass
broke when the batch summary became a msgspec Struct)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str, timeout: int = 240) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_batch_bench_runs_every_configuration_on_a_tiny_input():
    out = _run("bench/batch.py", "--sizes", "4", "--repeat", "1", "--jobs", "2", "--cards", "10")
    rows = {line.split("|")[1].strip(): line for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| configuration")}
    names = set(rows)
    assert "ccg-judge batch --jobs 2, workers on glibc" in names, out
    assert {"naive loop of api.check (1 process)", "plain clingo on the dumped facts (1 process)",
            "plain clingo on the dumped facts (2 processes at once)"} <= names, out
    for name, row in rows.items():
        cells = [c.strip() for c in row.split("|")[1:-1]]
        assert cells[1] == "4", row  # every situation judged
        assert float(cells[2]) > 0, row
        assert re.fullmatch(r"\d+ ms", cells[3]), row
    assert "ccg-judge batch --jobs 2, workers on glibc: x" in out, out  # set against plain clingo
