"""tests/durations.json, the record that puts the longest tests first (tests/conftest.py): every
test it names still exists, a run orders the tests by it, and --record-durations writes it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from longest_first import DURATIONS, recorded_durations

ROOT = Path(__file__).resolve().parent.parent
RECORD_AGAIN = "record it again: python -m pytest -n 2 --record-durations tests/durations.json"


def test_every_recorded_test_exists():
    """A renamed or deleted test would lose its place at the front without a word: refused here."""
    seconds = recorded_durations()
    assert seconds, f"{DURATIONS.name} records no test; {RECORD_AGAIN}"
    for node in seconds:
        module, _, name = node.partition("::")
        function = re.sub(r"\[.*\]$", "", name).split("::")[-1]
        source = ROOT / module
        assert source.is_file() and re.search(rf"^\s*(?:async )?def {function}\(", source.read_text(encoding="utf-8"),
                                              re.MULTILINE), f"{DURATIONS.name} names {node}, which is no test; {RECORD_AGAIN}"


def collected(*args: str) -> list[str]:
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return [line for line in run.stdout.splitlines() if "::" in line]


def test_the_longest_recorded_module_is_collected_first_and_its_longest_test_leads():
    seconds = recorded_durations()
    longest = max(seconds, key=seconds.get)
    module = longest.split("::")[0]
    order = collected("tests/test_function_length.py", module)  # the short module named first
    assert order[0] == longest, order[:3]
    short = [n for n in order if n.startswith("tests/test_function_length.py")]
    assert short and order[-len(short):] == short, "a module's tests stay together, after the long ones"


def test_a_run_records_the_tests_that_took_long_enough(tmp_path):
    record = tmp_path / "durations.json"
    run = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "tests/test_function_length.py",
                          "--record-durations", str(record), "--record-from", "0"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    seconds = json.loads(record.read_text(encoding="utf-8"))["seconds"]
    ran = [line.split()[0] for line in run.stdout.splitlines() if line.endswith("]") and " PASSED " in line]
    assert ran and sorted(seconds) == sorted(ran) and all(s >= 0 for s in seconds.values())
