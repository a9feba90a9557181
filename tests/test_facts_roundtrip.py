"""`ccg-judge facts` + plain clingo on asp/<game>/main.lp reproduces exactly
the judgement atoms `ccg-judge check --json` reports, for every ruling file."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pybridge.api import check, facts_text
from pybridge.catalogue import load_game
from pybridge.rulings import ruling_files
from pybridge.situation import load_situation

ROOT = Path(__file__).resolve().parent.parent
FILES = ruling_files([ROOT / "tests" / "rulings"])


def plain_clingo(game: str, facts: str, tmp_path: Path) -> list[str]:
    facts_file = tmp_path / "situation.lp"
    facts_file.write_text(facts, encoding="utf-8")
    entry = ROOT / "asp" / game / load_game(game).entry
    run = subprocess.run(
        [sys.executable, "-m", "clingo", str(entry), str(facts_file), "--outf=2", "--models=0"],
        capture_output=True, text=True, timeout=120,
    )
    output = json.loads(run.stdout)
    assert output["Result"] == "SATISFIABLE", run.stderr
    witnesses = output["Call"][0]["Witnesses"]
    assert len(witnesses) == 1, "the verdict layer must have exactly one answer set"
    return sorted(witnesses[0]["Value"])


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_plain_clingo_reproduces_the_verdicts(path, tmp_path):
    situation = load_situation(path)
    assert plain_clingo(situation.game, facts_text(situation), tmp_path) == check(situation, atoms=True).atoms


def test_cli_check_json_matches_plain_clingo(tmp_path):
    example = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"
    facts = subprocess.run([sys.executable, "-m", "pybridge", "facts", str(example)],
                           capture_output=True, text=True, check=True).stdout
    report = subprocess.run([sys.executable, "-m", "pybridge", "check", str(example), "--json", "--atoms"],
                            capture_output=True, text=True, check=True).stdout
    assert plain_clingo("berserk", facts, tmp_path) == json.loads(report)["atoms"]


def test_constants_and_numbers_made_once_are_clingos_own_and_the_memo_stays_bounded(monkeypatch):
    from clingo import Function, Number

    from pybridge import facts

    monkeypatch.setattr(facts, "_MADE_AT_MOST", 10)
    monkeypatch.setattr(facts, "_MADE", {})
    made = [facts.constant(f"w{i}") for i in range(25)] + [facts.number(i) for i in range(-3, 25)]
    assert made == [Function(f"w{i}") for i in range(25)] + [Number(i) for i in range(-3, 25)]
    assert len(facts._MADE) <= 10
    assert facts.constant("w3") == Function("w3") and facts.number(-3) == Number(-3)
