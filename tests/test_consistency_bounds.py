"""Issue 29: the consistency search is bounded in memory and in time, grounding included: bounds
too big to ground are refused at once, and a search still grounding at its time limit is stopped."""

from __future__ import annotations

import subprocess
import sys
import time

from batch_inputs import ROOT


def consistency(*args: str, timeout: float = 300):
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "pybridge", "consistency", "--game", "berserk", *args],
                            capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    return result, time.monotonic() - started


def test_bounds_too_big_to_ground_are_refused_before_grounding(tmp_path):
    result, seconds = consistency("--values", "1000", "-o", str(tmp_path / "found"), timeout=120)
    assert result.returncode == 2, result.stderr
    message = result.stderr.strip()
    assert message.startswith("error: these bounds") and "CCG_JUDGE_CONSISTENCY_MB" in message
    assert "\n" not in message
    assert seconds < 60


def test_the_time_limit_covers_grounding(tmp_path):
    """values 20 with 2 cards grounds for about half a minute (2.8 GB before issue 29)."""
    result, seconds = consistency("--values", "20", "--cards", "2", "--time-limit", "3", "-o",
                                  str(tmp_path / "found"))
    assert result.returncode == 0, result.stderr
    assert "not decided" in result.stdout
    assert seconds < 3 + 20, "stopped at its limit, with the start of two processes around it"
