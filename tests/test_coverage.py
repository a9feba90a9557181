"""Coverage: the clauses on the derivations of the rulings' reports, not the ids
the ruling files name; `lint --strict` fails on a clause that never fires."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from pybridge.api import check
from pybridge.input.situation import load_situation
from pybridge.tools.coverage import clauses_fired, coverage
from pybridge.tools.lint import lint

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "tests" / "rulings"
EXAMPLE = RULINGS / "berserk" / "107" / "107.5-example-1.yaml"


def test_the_clauses_fired_include_the_whole_derivation():
    report = check(load_situation(EXAMPLE), trees=True)
    fired = clauses_fired(report)
    cited = {c for v in report.verdicts for c in v.cites}
    assert cited <= fired
    # A strike attack is offered by 107.2 to a creature: the premise comes from the vocabulary.
    assert {"107.2", "model:vocabulary", "107.5-1"} <= fired
    assert "model:vocabulary" not in cited


def test_a_named_clause_that_never_fires_is_reported(tmp_path):
    data = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    data["ruling"]["clauses"].append("509.3")  # named, but nothing in this situation defends
    (tmp_path / "named.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    shutil.copy(RULINGS / "berserk" / "509" / "509.3-once-per-turn.yaml", tmp_path / "fires.yaml")
    found = coverage([tmp_path / "named.yaml"]).games["berserk"]
    assert "509.3" in found.named_not_fired and "107.5-1" in found.fired
    both = coverage([tmp_path]).games["berserk"]
    assert "509.3" in both.fired and "509.3" not in both.never_fired
    assert both.fired["509.3"] == [str(tmp_path / "fires.yaml")]


def test_a_part_covers_its_clause_and_an_invariance_its_clauses():
    found = coverage([RULINGS / "berserk" / "107", RULINGS / "berserk" / "109"]).games["berserk"]
    assert "107.5" in found.covered and "107.5" not in found.fired  # through 107.5-1
    assert {"109", "109.1", "109.2"} <= found.covered  # the invariance check passed


def test_lint_strict_fails_on_a_clause_that_never_fires():
    result = lint("berserk", [RULINGS / "berserk" / "107"], fired=True)
    assert "509.3" in result.never_fired and "107.2" not in result.never_fired
    assert not any(c.startswith(("core:", "model:")) for c in result.never_fired)
    run = subprocess.run([sys.executable, "-m", "pybridge", "lint", "--game", "berserk", "--strict",
                          "--rulings", str(RULINGS / "berserk" / "107")],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 1
    assert "berserk: clause 509.3 is on no ruling's derivation (it never fires)" in run.stdout


def test_the_command_reports_files_that_are_not_rulings(tmp_path):
    (tmp_path / "bad.yaml").write_text("just: text\n", encoding="utf-8")
    shutil.copy(EXAMPLE, tmp_path / "good.yaml")
    run = subprocess.run([sys.executable, "-m", "pybridge", "coverage", str(tmp_path)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 2
    assert run.stdout.startswith("berserk: ") and "error: " in run.stdout and "bad.yaml" in run.stdout
