"""`ccg-judge facts` + plain clingo on asp/<game>/main.lp reproduces exactly
the judgement atoms `ccg-judge check --json` reports, for every ruling file — and clingo says
nothing while it does: no "info" and no "warning" (issue 33). Such a line means the rules handed
the grounder something they did not mean — an aggregate given a weight that is no number ("tuple
ignored: per(1,chip)" on Камнедрев's board: an amount named per chip reached the sum of the
modifiers), an operation on a non-number — and it reaches whoever reruns a situation with plain
clingo. The same run of the whole program serves both checks."""

import json
import subprocess
import sys
from pathlib import Path

import clingo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_consistency import planted

from pybridge.api import check, facts_text
from pybridge.game.catalogue import load_game
from pybridge.input.situation import load_situation
from pybridge.tools.rulings import ruling_files

ROOT = Path(__file__).resolve().parent.parent
FILES = ruling_files([ROOT / "tests" / "rulings"])


def plain_clingo_run(game: str, facts: str, tmp_path: Path, asp_root: Path = ROOT / "asp") -> tuple[list[str], str]:
    """The atoms of plain clingo's one answer on the whole program, and what it said on stderr."""
    facts_file = tmp_path / "situation.lp"
    facts_file.write_text(facts, encoding="utf-8")
    entry = asp_root / game / load_game(game).entry
    run = subprocess.run(
        [sys.executable, "-m", "clingo", str(entry), str(facts_file), "--outf=2", "--models=0"],
        capture_output=True, text=True, timeout=120,
    )
    output = json.loads(run.stdout)
    assert output["Result"] == "SATISFIABLE", run.stderr
    witnesses = output["Call"][0]["Witnesses"]
    assert len(witnesses) == 1, "the verdict layer must have exactly one answer set"
    return sorted(witnesses[0]["Value"]), run.stderr


def plain_clingo(game: str, facts: str, tmp_path: Path) -> list[str]:
    atoms, said = plain_clingo_run(game, facts, tmp_path)
    assert said == "", f"clingo said, grounding the whole program:\n{said}"
    return atoms


def clingo_library_run(game: str, facts: str) -> list[str]:
    """The atoms of the one answer of the whole program on the facts, from clingo's own library in
    this process (no pybridge code; a process each, as python -m clingo, cost a third more): every
    ruling is judged so, and test_cli_check_json_matches_plain_clingo runs the clingo program."""
    said: list[str] = []
    ctl = clingo.Control(["--models=0"], logger=lambda code, message: said.append(message))
    ctl.load(str(ROOT / "asp" / game / load_game(game).entry))
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    answers: list[list[str]] = []
    result = ctl.solve(on_model=lambda model: answers.append(sorted(str(s) for s in model.symbols(shown=True))))
    assert result.satisfiable and len(answers) == 1, "the verdict layer must have exactly one answer set"
    assert said == [], "clingo said, grounding the whole program:\n" + "\n".join(said)
    return answers[0]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_plain_clingo_reproduces_the_verdicts(path):
    situation = load_situation(path)
    assert clingo_library_run(situation.game, facts_text(situation)) == check(situation, atoms=True).atoms


# The rule the sum of the modifiers was fed by before (a step's amount per chip, as the step term
# has it): it also took the named amount per(N, W), which the grounder cannot rule out.
COUNTED_PER_CHIP = ("card_count(W), step_term(C, F, I, modify(V, M)), M != 0,\n"
                    "    step_param(C, F, I, by, N), N >= -99, N <= 99, per_count(C, F, I, K), M = N * K,\n")
NAMED_TOO = "card_count(W), step_term(C, F, I, modify(V, M)), M != 0,\n"
KAMNEDREV = ROOT / "tests" / "rulings" / "berserk" / "cards" / "kamnedrev-strike-per-chip.yaml"


def test_the_check_can_fail_an_amount_named_per_chip_in_the_sum_is_heard(tmp_path):
    root = planted(tmp_path, "berserk/ability_steps.lp", COUNTED_PER_CHIP, NAMED_TOO)
    situation = load_situation(KAMNEDREV)
    _, said = plain_clingo_run("berserk", facts_text(situation), tmp_path, asp_root=root)
    assert "info: tuple ignored" in said and "per(1,chip)" in said, said


def test_cli_check_json_matches_plain_clingo(tmp_path):
    example = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"
    facts = subprocess.run([sys.executable, "-m", "pybridge", "facts", str(example)],
                           capture_output=True, text=True, check=True).stdout
    report = subprocess.run([sys.executable, "-m", "pybridge", "check", str(example), "--format", "json", "--atoms"],
                            capture_output=True, text=True, check=True).stdout
    assert plain_clingo("berserk", facts, tmp_path) == json.loads(report)["atoms"]


def test_constants_and_numbers_made_once_are_clingos_own_and_the_memo_stays_bounded(monkeypatch):
    from clingo import Function, Number

    from pybridge.ground import facts

    monkeypatch.setattr(facts, "_MADE_AT_MOST", 10)
    monkeypatch.setattr(facts, "_MADE", {})
    made = [facts.constant(f"w{i}") for i in range(25)] + [facts.number(i) for i in range(-3, 25)]
    expected = [Function(f"w{i}") for i in range(25)] + [Number(i) for i in range(-3, 25)]
    assert [t.symbol for t in made] == expected
    assert [t.text for t in made] == [str(e) for e in expected]
    assert len(facts._MADE) <= 10
    assert facts.constant("w3").symbol == Function("w3") and facts.number(-3).symbol == Number(-3)


# A term of the kinds facts are made of, as (the facts module's term, clingo's own Symbol).
_WORDS = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)


def _leaf():
    from clingo import Function, Number, String

    from pybridge.ground import facts
    return st.one_of(
        st.text(max_size=12).map(lambda s: (facts.string(s), String(s))),
        _WORDS.map(lambda w: (facts.constant(w), Function(w))),
        st.integers(-10**6, 10**6).map(lambda n: (facts.number(n), Number(n))))


def _compound(children):
    from clingo import Function, Tuple_

    from pybridge.ground import facts
    args = st.lists(children, max_size=4)
    return st.one_of(
        st.tuples(_WORDS, args).map(lambda x: (facts.function(x[0], [a for a, _ in x[1]]),
                                               Function(x[0], [b for _, b in x[1]]))),
        args.map(lambda xs: (facts.tuple_([a for a, _ in xs]), Tuple_([b for _, b in xs]))))


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.deferred(_leaf), _compound, max_leaves=12))
def test_a_term_prints_as_clingo_prints_its_symbol(pair):
    made, symbol = pair
    assert made.text == str(symbol)
    assert made.symbol == symbol


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_the_facts_text_and_shape_are_those_of_their_symbols(path):
    from pybridge.ground import specialise
    from pybridge.ground.facts import situation_facts
    from pybridge.ground.solve import render
    from pybridge.input.viewpoint import project

    made = situation_facts(project(load_situation(path)))
    symbols = list(made)
    assert made.text == render(symbols)
    assert made.key == specialise.facts_key(symbols)


def test_a_number_is_known_by_its_type_as_well_as_its_value(monkeypatch):
    """True == 1 in Python, but a situation built in code may hold either: each is what clingo's
    Number makes of it, and neither takes the other's place in the memo."""
    from clingo import Number

    from pybridge.ground import facts

    monkeypatch.setattr(facts, "_MADE", {})
    assert facts.number(True).text == "1" and facts.number(True).symbol == Number(1)
    assert facts.number(1).text == "1" and facts.constant("true").text == "true"
    assert facts.term(True).text == "true" and facts.term(1).text == "1"
    for value, error in ((2.5, TypeError), (2 ** 40, OverflowError)):  # what clingo refuses, refused
        with pytest.raises(error):
            facts.number(value)
