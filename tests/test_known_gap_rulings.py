"""Ruling files the rules do not meet yet, each a known gap with its reason: each is reported as an
expected failure while it fails, and fails the suite the day the rules meet it, until the file moves
under tests/rulings."""

from pathlib import Path

import pytest

from pybridge.tools.rulings import ruling_files, run_ruling

KNOWN_GAPS = Path(__file__).parent / "known_gaps"
FILES = ruling_files([KNOWN_GAPS])

# Why each file fails today: the rule at fault, so whoever fixes it finds the ruling waiting.
REASONS: dict[str, str] = {}


def test_every_known_gap_has_a_reason():
    assert sorted(str(p.relative_to(KNOWN_GAPS)) for p in FILES) == sorted(REASONS)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(KNOWN_GAPS)) for p in FILES])
def test_known_gap_ruling(path):
    """The file loads and judges (an error is a failure, not the gap); it fails its expectations, as
    its reason says — once it passes, it belongs under tests/rulings."""
    result = run_ruling(path)
    assert result.error is None, result.error
    assert result.problems, f"{path.name} now passes: move it under tests/rulings and drop its reason here"
    pytest.xfail(REASONS[str(path.relative_to(KNOWN_GAPS))] + f" ({result.problems[0]})")
