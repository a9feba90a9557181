"""Every clause id used in asp/ is catalogued, every rule sits under a clause
banner, and the command reports what no ruling covers."""

import subprocess
import sys
from pathlib import Path

import pytest

from pybridge.game.encodings import known_games
from pybridge.tools.lint import lint

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("game", known_games())
def test_every_id_used_is_catalogued_and_every_rule_has_a_clause(game):
    result = lint(game, [ROOT / "tests" / "rulings"])
    assert result.unknown_ids == {}
    assert result.rules_without_clause == []
    assert result.uncovered == [], "every catalogued clause needs a ruling"


def test_lint_counts_uncovered_clauses():
    result = lint("berserk", [ROOT / "tests" / "rulings" / "berserk" / "107"])
    assert "107.2" not in result.uncovered and "107.5" not in result.uncovered
    assert "532.6" in result.uncovered  # not covered by the 107 rulings alone


def test_lint_command_exit_status():
    run = subprocess.run([sys.executable, "-m", "pybridge", "lint", "--game", "berserk"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stdout
    assert "berserk: 0 unknown ids, 0 rules without a clause, 0 clauses without a ruling" in run.stdout
