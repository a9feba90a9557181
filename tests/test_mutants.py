"""Mutants of the rules base: derived from the AST, written as a one-place change
of a copy, judged by the rulings (and the consistency search), scored."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from clingo import ast

from pybridge.game.encodings import asp_root
from pybridge.tools.mutants import (OPERATORS, Baselines, Outcome, Score, Settings, _run_all, derive_mutants,
                                    judge_mutant, sample, score_text, write_mutant)
from pybridge.tools.rulings import run_ruling

ROOT = Path(__file__).resolve().parent.parent
FIRST_TURN = ROOT / "tests" / "rulings" / "berserk" / "107"


@pytest.fixture(scope="module")
def every_mutant():
    return derive_mutants()


def one(mutants, file: str, operator: str, starts: str):
    return next(m for m in mutants if m.file == file and m.operator == operator and m.original.startswith(starts))


def test_every_kind_is_derived_with_stable_unique_ids(every_mutant):
    assert {m.operator for m in every_mutant} == set(OPERATORS)
    assert len({m.id for m in every_mutant}) == len(every_mutant)
    assert [m.id for m in derive_mutants()] == [m.id for m in every_mutant]
    assert not any(m.file.endswith(("generator.lp", "invariants.lp", "main.lp")) for m in every_mutant)
    assert sample(every_mutant, 5, 7) == sample(every_mutant, 5, 7) != sample(every_mutant, 5, 8)


def test_a_mutant_changes_its_statement_and_nothing_else(tmp_path, every_mutant):
    mutant = one(every_mutant, "core/effects.lp", "swap-comparison", "ignored(E1,E2,conservativeness)")
    write_mutant(mutant, asp_root(), tmp_path / "asp")
    before = (asp_root() / mutant.file).read_text(encoding="utf-8")
    changed = (tmp_path / "asp" / mutant.file).read_text(encoding="utf-8")
    assert changed == before[:mutant.start] + mutant.mutated + before[mutant.end:]
    statements = []
    ast.parse_string(changed, lambda s: statements.append(str(s)) if s.ast_type == ast.ASTType.Rule else None)
    assert mutant.mutated in statements and mutant.original not in statements
    assert "% --- " in changed  # banners kept


def settings(rulings: list[Path]) -> Settings:
    paths = [str(p) for p in rulings]
    return Settings(paths, {p: "berserk" for p in paths}, {}, consistency=False)


def test_a_ruling_catches_a_dropped_prohibition(every_mutant):
    mutant = one(every_mutant, "berserk/107_strike_and_first_turn.lp", "drop-rule", 'forbidden(P,A,"107.5-1")')
    outcome = judge_mutant(mutant, settings(sorted(FIRST_TURN.glob("*.yaml"))), asp_root())
    assert (outcome.status, outcome.by) == ("caught", "ruling")
    assert "107.5" in outcome.detail


def test_a_mutant_no_ruling_reaches_survives(every_mutant):
    mutant = one(every_mutant, "berserk/512_zero_and_x.lp", "drop-rule", 'forbidden(P,cast_x(S,T,0),"512.3.1")')
    outcome = judge_mutant(mutant, settings(sorted(FIRST_TURN.glob("*.yaml"))[:2]), asp_root())
    assert outcome.status == "survived"


def test_a_mutant_that_does_not_ground_is_stillborn(every_mutant):
    # Negating the only positive literal that binds X leaves X unsafe.
    mutant = next(m for m in every_mutant if m.operator == "negate-literal" and m.file == "core/players.lp"
                  and m.mutated.startswith("opponent(P,Q) :- not player(P)"))
    outcome = judge_mutant(mutant, settings([]), asp_root())
    assert outcome.status == "stillborn" and "unsafe" in outcome.detail


def test_a_mutant_past_its_time_is_caught_by_the_time_limit_with_its_real_seconds(every_mutant):
    # A worker process that imports the bridge and judges a ruling takes well over half a second.
    mutant = one(every_mutant, "berserk/107_strike_and_first_turn.lp", "drop-rule", 'forbidden(P,A,"107.5-1")')
    said = []
    [outcome] = _run_all([mutant], settings(sorted(FIRST_TURN.glob("*.yaml"))), asp_root(), 1, 0.5, said.append)
    assert (outcome.status, outcome.by) == ("caught", "time limit")
    assert outcome.seconds >= 0.5 and "still running after 0.5 s" in outcome.detail
    assert f"({outcome.seconds:.1f} s)" in said[-1] and "(0.0 s)" not in said[-1]


def test_a_ruling_out_of_solver_time_decides_nothing(monkeypatch):
    monkeypatch.setenv("CCG_JUDGE_TIME_LIMIT", "0.000001")  # grounding alone takes longer
    result = run_ruling(sorted(FIRST_TURN.glob("*.yaml"))[0])
    assert not result.passed and result.timed_out and "time limit" in result.error


def test_a_mutant_whose_rulings_only_ran_out_of_solver_time_is_caught_by_the_time_limit(monkeypatch, every_mutant):
    monkeypatch.setenv("CCG_JUDGE_TIME_LIMIT", "20")  # judge_mutant sets it; restored after the test
    mutant = one(every_mutant, "berserk/512_zero_and_x.lp", "drop-rule", 'forbidden(P,cast_x(S,T,0),"512.3.1")')
    out_of_time = settings(sorted(FIRST_TURN.glob("*.yaml"))[:2])
    out_of_time.solver_seconds = 0.000001
    outcome = judge_mutant(mutant, out_of_time, asp_root())
    assert (outcome.status, outcome.by) == ("caught", "time limit")
    assert "solver ran past" in outcome.detail and outcome.seconds > 0


def test_the_score_says_how_many_only_the_time_limit_caught(every_mutant):
    four = every_mutant[:4]
    outcomes = [Outcome(four[0].id, "caught", "ruling", seconds=3.0),
                Outcome(four[1].id, "caught", "time limit", seconds=301.2),
                Outcome(four[2].id, "caught", "ruling", seconds=2.0),
                Outcome(four[3].id, "survived", seconds=90.0)]
    score = Score(len(every_mutant), 4, 1, outcomes, {m.id: m for m in four}, 400.0)
    assert score.score == 0.75 and score.score_without_time_limit == 2 / 3
    assert ("mutation score: 75% (3 of 4); 1 of them caught only by a time limit, which a busy machine's runs "
            "reach too: without them 67% (2 of 3)") in score_text(score)
    assert score.as_json()["score_without_time_limit"] == 2 / 3
    untimed = Score(len(every_mutant), 4, 1, [o for o in outcomes if o.by != "time limit"],
                    {m.id: m for m in four}, 100.0)
    assert "mutation score: 67% (2 of 3)\n" in score_text(untimed)


def _score(command: list[str]) -> dict:
    """The command's JSON score: standard output holds it alone (progress lines go to standard error)."""
    run = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=900)  # a loaded machine
    assert run.returncode in (0, 1), run.stderr  # 1: a mutant survived; 2 would be a refused option
    return json.loads(run.stdout)


def test_the_command_scores_and_reads_the_equivalent_mutants(tmp_path):
    command = [sys.executable, "-m", "pybridge", "mutants", "--sample", "3", "--seed", "5", "--jobs", "2",
               "--rulings", str(FIRST_TURN), "--no-consistency", "--operator", "drop-rule", "--format", "json"]
    # No mutant marked is a file with an empty list: a path that does not exist is refused (exit 2,
    # nothing on standard output), which is what left this test's JSON unparsed in the merged suite.
    none = tmp_path / "none.yaml"
    none.write_text("equivalent: []\n", encoding="utf-8")
    first = _score(command + ["--equivalent", str(none)])
    assert first["sampled"] == 3 and first["caught"] + first["survived"] + first["stillborn"] == 3
    survivors = [o["mutant"] for o in first["outcomes"] if o["status"] == "survived"]
    assert survivors, "this draw (rules outside chapter 107 dropped) should leave a survivor to mark"
    marked = tmp_path / "equivalent.yaml"
    marked.write_text(json.dumps({"equivalent": [{"id": survivors[0], "reason": "test"}]}), encoding="utf-8")
    second = _score(command + ["--equivalent", str(marked)])
    assert second["equivalent"] == 1 and second["survived"] == first["survived"] - 1


def test_the_unmutated_rules_are_searched_only_for_what_a_survivor_violates_and_once():
    said: list[str] = []
    baselines = Baselines(said.append)
    both = ["core:clash-unresolved", "core:value-below-zero"]
    # The quick bounds find the seeds' known gap (tests/test_consistency.py) and nothing below zero.
    assert baselines("berserk", both) == ["core:clash-unresolved"]
    assert len(said) == 1 and "searched for core:clash-unresolved, core:value-below-zero" in said[0]
    assert baselines("berserk", ["core:value-below-zero"]) == [] and len(said) == 1  # known: no search again
