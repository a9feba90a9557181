"""The specialiser leaves out only rules that cannot fire: the report is the same, byte for byte,
with the whole program and with the specialised one, and the abstract interpretation it rests on
keeps and drops exactly what its reading says."""

from __future__ import annotations

import sys
from pathlib import Path

import clingo
import pytest
from clingo import ast

from pybridge import api, solve, specialise
from pybridge.api import project
from pybridge.catalogue import load_game
from pybridge.facts import situation_facts
from pybridge.report import to_json
from pybridge.rulings import ruling_files
from pybridge.situation import load_situation, situation_from_data

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from boards import board  # noqa: E402

RULINGS = ruling_files([ROOT / "tests" / "rulings"])
BOARDS = [(10, 0), (30, 3), (60, 3), (120, 8)]


def _report(situation, monkeypatch, *, enabled: bool, trees: bool = False) -> str:
    monkeypatch.setattr(specialise, "ENABLED", enabled)
    specialise.forget()
    return to_json(api.check(situation, trees=trees), indent=None)


@pytest.mark.parametrize("path", RULINGS, ids=lambda p: str(p.relative_to(ROOT / "tests" / "rulings")))
def test_every_ruling_gets_the_same_report(path, monkeypatch):
    situation = load_situation(path)
    whole = _report(situation, monkeypatch, enabled=False)
    assert _report(situation, monkeypatch, enabled=True) == whole
    if RULINGS.index(path) % 4 == 0:  # the full graphs too, on a quarter of them
        assert (_report(situation, monkeypatch, enabled=True, trees=True)
                == _report(situation, monkeypatch, enabled=False, trees=True))


@pytest.mark.parametrize("cards,hidden", BOARDS)
def test_generated_boards_get_the_same_report(cards, hidden, monkeypatch):
    situation = situation_from_data(board(cards, hidden))
    assert _report(situation, monkeypatch, enabled=True) == _report(situation, monkeypatch, enabled=False)


def test_the_specialised_program_is_smaller():
    """Not a timing: the statements handed to clingo for an ordinary board are under half the program."""
    situation = situation_from_data(board(30, 3))
    game = load_game(situation.game)
    facts = solve.Facts(situation_facts(project(situation), game))
    compiled = solve.program(situation.game, "check")
    kept = solve._statements(compiled, facts, near=False)
    assert 0 < len(kept) < len(solve._parsed(compiled.text)) / 2


@pytest.mark.parametrize("mode", ["check", "trees"])
@pytest.mark.parametrize("near", [False, True])
@pytest.mark.parametrize("cards,hidden", [(10, 0), (30, 3)])
def test_a_first_run_grounds_the_same_statements_as_text(cards, hidden, near, mode):
    """A program's first run in a process goes to clingo as the text of the kept statements: the
    same statements, in the same order, as the parsed ones later runs hand it (spacing aside)."""
    situation = situation_from_data(board(cards, hidden))
    facts = solve.Facts(situation_facts(project(situation), load_game(situation.game)))
    compiled = solve.program(situation.game, mode)
    as_text = solve._statements_text(compiled, facts, near).split("\n")
    parsed = [str(s) for s in solve._statements(compiled, facts, near) if str(s) != "#program base."]
    squeeze = lambda lines: ["".join(line.split()) for line in lines if line != "#program base."]  # noqa: E731
    assert squeeze(as_text) == squeeze(parsed)
    assert len(parsed) > 100


@pytest.mark.parametrize("path", RULINGS[::9] + [None], ids=lambda p: "board" if p is None else p.name)
def test_the_report_is_the_same_from_text_and_from_parsed_statements(path, monkeypatch):
    situation = load_situation(path) if path is not None else situation_from_data(board(30, 8))
    reports = []
    for parsed in (False, True):
        monkeypatch.setattr(solve, "_parsed_already", lambda compiled, parsed=parsed: parsed)
        specialise.forget()
        reports.append((to_json(api.check(situation), indent=None), to_json(api.check(situation, trees=True))))
    assert reports[0] == reports[1]


@pytest.mark.parametrize("path", RULINGS[::3] + [None], ids=lambda p: "board" if p is None else p.name)
def test_the_facts_read_from_text_have_the_shape_their_symbols_have(path):
    situation = load_situation(path) if path is not None else situation_from_data(board(60, 8))
    facts = situation_facts(project(situation), load_game(situation.game))
    assert specialise.text_key(solve.render(facts)) == specialise.facts_key(facts)


def test_text_with_tricky_strings_and_numbers():
    facts = [clingo.Function("p", [clingo.String('a"b,c(1)'), clingo.Number(-12)]),
             clingo.Function("q", [clingo.Function("f", [clingo.Number(3), clingo.String("")]), clingo.Tuple_([])]),
             clingo.Function("r", [clingo.Tuple_([clingo.Function("x"), clingo.Function("g", [clingo.Function("y")])])]),
             clingo.Function("s"), clingo.Function("t", [clingo.Function("x2"), clingo.String("12")])]
    assert specialise.text_key(solve.render(facts)) == specialise.facts_key(facts)
    assert ("p", 2, ('"', "#")) in specialise.facts_key(facts)  # any string, any number


# --- the abstract interpretation on a program of its own ---------------------------------------

PROGRAM = """
p(a). p(c).
dropped_constant(X) :- p(X), r(X, b).
dropped_join(X) :- p(X), t(X).
kept_anonymous :- p(_), t(_).
kept_negation(X) :- p(X), not w(X).
kept_aggregate(N) :- N = #count { X : w(X) }.
k(a; b).
kept_pool :- k(b).
n(X) :- p(X).
kept_chain :- n(c).
dropped_chain :- n(b).
:- w(a).
kept_number :- num(3).
kept_string :- str("x").
dropped_string :- str(x).
kept_function :- e(modify(strike, 1)).
dropped_function :- e(set(strike, 1)).
{ chosen(X) : p(X) }.
kept_choice :- chosen(a).
"""


def _kept_heads(facts: list[clingo.Symbol]) -> set[str]:
    statements: list[ast.AST] = []
    ast.parse_string(PROGRAM, statements.append)
    program = specialise.Program(specialise.shapes(statements))
    kept = specialise.kept(program, specialise.facts_key(facts)).statements
    return {str(statements[i]).split(":-")[0].strip().rstrip(".") for i in kept}


def test_a_rule_is_dropped_only_when_its_body_cannot_hold():
    # any number matches any number, any string any string: their values never gate
    facts = [clingo.Function("t", [clingo.Function("b")]), clingo.Function("num", [clingo.Number(5)]),
             clingo.Function("str", [clingo.String("z")]),
             clingo.Function("e", [clingo.Function("modify", [clingo.Function("range"), clingo.Number(2)])])]
    heads = _kept_heads(facts)
    for kept in ("kept_anonymous", "kept_negation(X)", "kept_aggregate(N)", "kept_pool", "kept_chain",
                 "kept_number", "kept_string", "kept_function", "kept_choice", "n(X)"):
        assert kept in heads, kept
    for dropped in ("dropped_constant(X)", "dropped_join(X)", "dropped_chain", "dropped_string",
                    "dropped_function", "#false"):  # the constraint ":- w(a)"
        assert dropped not in heads, dropped


def test_a_head_it_cannot_read_turns_it_off_for_the_program():
    statements: list[ast.AST] = []
    ast.parse_string("p(a). q(X) :- p(X).", statements.append)
    assert specialise.shapes(statements)
    unreadable = ast.SymbolicAtom(ast.SymbolicTerm(statements[1].head.location, clingo.Number(1)))
    broken = statements[2].update(head=statements[2].head.update(atom=unreadable))
    assert specialise.shapes(statements[:2] + [broken]) == []


def test_facts_that_feed_a_rule_keep_it():
    facts = [clingo.Function("r", [clingo.Function("c"), clingo.Function("b")]),
             clingo.Function("t", [clingo.Function("a")]), clingo.Function("w", [clingo.Function("a")]),
             clingo.Function("str", [clingo.Function("x")])]
    heads = _kept_heads(facts)
    assert {"dropped_constant(X)", "dropped_join(X)", "dropped_string", "#false"} <= heads
