"""The specialiser leaves out only rules that cannot fire: the report is the same, byte for byte,
with the whole program and with the specialised one, and the abstract interpretation it rests on
keeps and drops exactly what its reading says."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import clingo
import pytest
from clingo import ast

from pybridge import api
from pybridge.api import project
from pybridge.game.catalogue import load_game
from pybridge.ground import solve, specialise
from pybridge.ground.compiler import of_the_layer
from pybridge.ground.facts import situation_facts
from pybridge.ground.terms import parse_program
from pybridge.input.situation import load_situation, situation_from_data
from pybridge.report.render import to_json
from pybridge.tools.rulings import ruling_files
from judged import judged

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
    specialised = to_json(judged(path), indent=None)  # the shipped settings: the specialiser on
    # The full graphs too, on an eighth of them (a graph of the whole program costs as much again as
    # the check; tests/test_trees_records.py compares the graphs of a third with every rule recorded).
    eighth = RULINGS.index(path) % 8 == 0
    specialised_trees = to_json(judged(path, trees=True), indent=None) if eighth else None
    situation = load_situation(path)
    assert _report(situation, monkeypatch, enabled=False) == specialised
    if eighth:
        assert _report(situation, monkeypatch, enabled=False, trees=True) == specialised_trees


@pytest.mark.parametrize("cards,hidden", BOARDS)
def test_generated_boards_get_the_same_report(cards, hidden, monkeypatch):
    situation = situation_from_data(board(cards, hidden))
    assert _report(situation, monkeypatch, enabled=True) == _report(situation, monkeypatch, enabled=False)


def _set_one_boards():
    """tests/boards.py (random boards of set-1 cards), loaded under a name of its own: bench/ has a
    boards module too."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("set_one_boards", ROOT / "tests" / "boards.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SET_ONE_BOARDS = 16


@pytest.mark.parametrize("number", range(SET_ONE_BOARDS))
def test_generated_set_one_boards_get_the_same_report(number, monkeypatch):
    """Random boards of set-1 cards (composed abilities, hidden cards, wounds, any stage): the
    specialised program answers as the whole program does."""
    situation = situation_from_data(_set_one_boards().board(33, number, most_cards=12))
    assert _report(situation, monkeypatch, enabled=True) == _report(situation, monkeypatch, enabled=False)


def test_a_defeater_takes_the_near_misses_into_the_same_run(monkeypatch):
    """A viewer's own hidden card with a `while` feature silences it (532.4, a defeater): the near
    misses go into the why layer of the one run, and the report is the whole program's."""
    situation = situation_from_data(board(30, 3))
    runs = []
    real = solve._run
    monkeypatch.setattr(solve, "_run", lambda *a, **k: runs.append(real(*a, **k)) or runs[-1])
    answer = solve.solve("berserk", situation_facts(project(situation), load_game("berserk")))
    answer.close()
    assert len(runs) == 1 and answer.near and answer.shown.get("constant_silenced")
    runs.clear()
    assert _report(situation, monkeypatch, enabled=True) == _report(situation, monkeypatch, enabled=False)
    assert [near for _, _, near in runs] == [True, True]


def test_the_specialised_program_is_smaller():
    """Not a timing: the statements handed to clingo for an ordinary board are under half the program."""
    situation = situation_from_data(board(30, 3))
    game = load_game(situation.game)
    facts = solve.Facts(situation_facts(project(situation), game))
    compiled = solve.program(situation.game, "check")
    kept = solve._statements(compiled, facts, near=False)
    assert 0 < len(kept) < len(solve._parsed(compiled.text)) / 2


def test_a_check_leaves_out_the_near_misses_no_cite_reads():
    """Not a timing: on a board whose defeater takes the near misses in, a check grounds of them
    only those a verdict's cites read, fewer than the specialiser alone keeps; the graph's modes keep
    them all (the graph reads the near misses' atoms itself)."""
    situation = situation_from_data(board(30, 3))
    facts = solve.Facts(situation_facts(project(situation), load_game(situation.game)))
    for mode in ("check", "trees"):
        compiled = solve.program(situation.game, mode)
        program = solve._shapes(compiled, near=True)
        may_fire = specialise.kept(program, facts.key).statements
        size = solve._count(compiled.text)
        near_kept = [i for i in solve._kept(compiled, facts, near=True) if i >= size]
        near_firing = [i for i in may_fire if i >= size]
        if mode == "check":
            assert 0 < len(near_kept) < len(near_firing) / 2
        else:
            assert near_kept == near_firing


def test_the_why_layer_keeps_only_what_the_ground_rules_feed():
    """Not a timing: with the rules ground, the why layer keeps the statements whose premises have
    atoms there (a record with no instance feeds nothing), fewer than the abstract fixpoint alone
    keeps; and a ground program with every predicate present keeps what the fixpoint keeps. (In the
    graph's modes, whose layer no roots slice, a check's slice being read_by_roots' own.)"""
    situation = situation_from_data(board(30, 3))
    facts = solve.Facts(situation_facts(project(situation), load_game(situation.game)))
    compiled = solve.program(situation.game, "trees")
    ctl = clingo.Control(["--warn=none"])
    solve._add(ctl, compiled, facts, solve.RULES, first=False)
    ctl.add("base", [], facts.text)
    ctl.ground([("base", [])])
    layer = set(solve._in_part(compiled, solve._kept(compiled, facts, near=True), solve.WHY_NEAR))
    fed = set(solve._in_part(compiled, solve._kept(compiled, facts, near=True, present=solve._has_atoms(ctl)),
                             solve.WHY_NEAR))
    assert fed < layer and len(fed) < len(layer) / 2
    program = solve._shapes(compiled, near=True)
    present, made = solve._has_atoms(ctl), {sig for i in fed for sig, _ in program.heads[i]}
    for i in layer - fed:  # each left out has a premise nothing feeds
        assert any(not present(gate[0]) and gate[0] not in made for gate in program.gates[i])
    everything = solve._kept(compiled, facts, near=True, present=lambda sig: True)
    assert everything == solve._kept(compiled, facts, near=True)


def test_a_statement_grounded_after_the_rest_is_fed_only_by_atoms_or_kept_heads():
    statements: list[ast.AST] = []
    ast.parse_string("""
        _c_a(X) :- a(X).
        _c_b(X) :- b(X).
        _c_ab(X) :- _c_a(X), _c_b(X).
        _c_loop(X) :- _c_a(X).
        _c_loop(X) :- _c_loop(X), a(X).
        r(X) :- b(X).
    """, statements.append)
    program = specialise.Program(specialise.shapes(statements))
    later = specialise.LaterPart(program, range(1, len(statements) - 1))  # #program base. and r/1 are not of it
    fed = later.fed(lambda sig: sig == ("a", 1))
    assert [str(statements[i]) for i in sorted(fed)] == [
        "_c_a(X) :- a(X).", "_c_loop(X) :- _c_a(X).", "_c_loop(X) :- _c_loop(X); a(X)."]
    assert later.fed(lambda sig: True) == set(range(1, len(statements) - 1))


@pytest.mark.parametrize("game", ["berserk", "mtg"])
def test_the_why_layer_reads_its_own_atoms_only_as_plain_premises(game):
    """What specialise.read_by_roots rests on: a statement of the why layer reads the layer's atoms
    only as plain positive premises (the shapes' gates), never in a negation, an aggregate or a
    condition, and no statement outside the layer reads them."""
    def layer_atoms(node, out):
        if node.ast_type == ast.ASTType.SymbolicAtom and node.symbol.ast_type == ast.ASTType.Function:
            if of_the_layer(node.symbol.name):
                out.append((node.symbol.name, len(node.symbol.arguments)))
            return
        for key in node.child_keys:
            child = getattr(node, key)
            for item in ([child] if isinstance(child, ast.AST) else child or ()):
                layer_atoms(item, out)

    compiled = solve.program(game, "check")
    for text in (compiled.text, compiled.near_text):
        statements = parse_program(text)
        shapes = specialise.text_shapes(text)
        assert len(shapes) == len(statements)
        for statement, shape in zip(statements, shapes):
            if statement.ast_type != ast.ASTType.Rule:
                continue
            read: list = []
            for literal in statement.body:
                layer_atoms(literal, read)
            if not read:
                continue
            heads = [name for name, _, _ in shape[1]]
            assert heads and all(of_the_layer(name) for name in heads), str(statement)
            gates = {(name, arity) for name, arity, _ in shape[0]}
            assert set(read) <= gates, str(statement)


@pytest.mark.parametrize("mode", ["check", "trees"])
@pytest.mark.parametrize("near", [False, True])
@pytest.mark.parametrize("cards,hidden", [(10, 0), (30, 3)])
def test_a_first_run_grounds_the_same_statements_from_text(cards, hidden, near, mode):
    """A program's first run in a process hands clingo the text of the kept statements: parsed, it
    is the same statements in the same order as the parsed ones later runs hand it, each on the line
    it has in the compiled program (so clingo's messages name the same place)."""
    situation = situation_from_data(board(cards, hidden))
    facts = solve.Facts(situation_facts(project(situation), load_game(situation.game)))
    compiled = solve.program(situation.game, mode)
    assert solve._a_statement_a_line(compiled, near)
    parts = solve._statements_text(compiled, facts, near)
    from_text = [statement for part in parts for statement in parse_program(part)]
    parsed = solve._statements(compiled, facts, near)
    assert [str(s) for s in from_text] == [str(s) for s in parsed]
    assert [s.location.begin.line for s in from_text] == [s.location.begin.line for s in parsed]
    assert len(parts) == (2 if near else 1) and len(parsed) > 100


def test_the_statement_count_of_a_compiled_text():
    for mode in ("check", "trees"):
        compiled = solve.program("berserk", mode)
        for text in (compiled.text, compiled.near_text):
            assert solve._count(text) == len(parse_program(text))
    assert solve._count("a.\nb.") == solve._count("a.\nb.\n") == len(parse_program("a.\nb.")) == 3


def test_a_program_printed_over_several_lines_is_not_run_from_text():
    """Line n must be statement n + 1 for the text path: where it is not, the parsed path runs."""
    compiled = solve.program("berserk", "check")
    assert solve._a_statement_a_line(compiled, near=True)
    broken = dataclasses.replace(compiled, text=compiled.text.replace(":- ", ":-\n  ", 1))
    assert not solve._a_statement_a_line(broken, near=False)


@pytest.mark.parametrize("path", RULINGS[::9] + [None], ids=lambda p: "board" if p is None else p.name)
def test_the_report_is_the_same_from_text_and_from_parsed_statements(path, monkeypatch):
    situation = load_situation(path) if path is not None else situation_from_data(board(30, 8))
    reports = []
    for parsed in (False, True):
        monkeypatch.setattr(solve, "_run_before", lambda compiled, parsed=parsed: parsed)
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


SMALL = "p(a).\nq(X) :- p(X).\n#show q/1.\nr(X) :- q(X), not s(X).\n"


def test_shapes_read_per_line_are_the_shapes_of_the_parsed_text(monkeypatch):
    monkeypatch.setattr(specialise, "_by_line", {})
    texts = [SMALL] + [t for game in ("berserk", "mtg") for mode in ("check", "trees")
                       for c in (solve.program(game, mode),) for t in (c.text, c.near_text)]
    parsed = [specialise.shapes(parse_program(text)) for text in texts]
    for _ in range(2):  # the second time every line is remembered
        assert [specialise.text_shapes(text) for text in texts] == parsed


def test_shapes_survive_the_memory_starting_afresh(monkeypatch):
    """Lines remembered before the memory is cleared are not lost to the compile that clears it."""
    monkeypatch.setattr(specialise, "_by_line", {})
    specialise.text_shapes(SMALL)
    specialise._by_line.update((f"filler{i}.", None) for i in range(200_001))
    grown = SMALL + "t(X) :- r(X).\n"
    assert specialise.text_shapes(grown) == specialise.shapes(parse_program(grown))
    assert len(specialise._by_line) == 1  # started afresh with the new line


def test_a_statement_over_two_lines_is_read_from_the_whole_text(monkeypatch):
    monkeypatch.setattr(specialise, "_by_line", {})
    text = "p(a).\nq(X) :-\n  p(X).\n"
    assert specialise.text_shapes(text) == specialise.shapes(parse_program(text))
    assert len(specialise.text_shapes(text)) == 3  # #program base., p(a)., the rule


def _round_robin_kept(program: specialise.Program, key: frozenset) -> tuple[int, ...]:
    """The reference fixpoint: every statement, again and again, until nothing grows; then the
    statements that fire at the fixpoint. specialise's worklist must keep exactly these."""
    state: dict = {}

    def grow(sig, values) -> bool:
        current = state.get(sig)
        if current is None:
            state[sig] = [None if v is None else set(v) for v in values]
            return True
        grew = False
        for k, v in enumerate(values):
            if current[k] is not None and (v is None or not v <= current[k]):
                current[k] = None if v is None else current[k] | v
                grew = True
        return grew

    def fires(i):
        bound: dict = {}
        for sig, constants, variables in program.gates[i]:
            current = state.get(sig)
            if current is None or any(current[k] is not None and v not in current[k] for k, v in constants):
                return None
            for k, name in variables:
                have = current[k]
                if name not in bound:
                    bound[name] = have
                elif have is not None:
                    bound[name] = have if bound[name] is None else bound[name] & have
                    if not bound[name]:
                        return None
        return bound

    for name, arity, arguments in key:
        grow((name, arity), [None if a is None else {a} for a in arguments])
    grew = True
    while grew:
        grew = False
        for i in range(program.size):
            bound = None if program.held[i] else fires(i)
            for sig, arguments in (program.heads[i] if bound is not None else ()):
                values = [bound.get(a[1]) if type(a) is tuple else (None if a is None else {a}) for a in arguments]
                grew |= grow(sig, [None if v is None else set(v) for v in values])
    return tuple(i for i in range(program.size) if i in program.always or not program.held[i] and fires(i) is not None)


@pytest.mark.parametrize("path", RULINGS[::7] + [None], ids=lambda p: "board" if p is None else p.name)
def test_the_worklist_keeps_what_a_round_robin_fixpoint_keeps(path):
    """On the program as a run indexes it (its why layer held out of the fixpoint) and on the program
    with its near misses, nothing held."""
    situation = load_situation(path) if path is not None else situation_from_data(board(60, 8))
    facts = solve.Facts(situation_facts(project(situation), load_game(situation.game)))
    for mode in ("check", "trees"):
        compiled = solve.program(situation.game, mode)
        for program in (solve._shapes(compiled, near=False), solve._shapes(compiled, near=True)):
            assert specialise._kept(program, facts.key)[0].statements == _round_robin_kept(program, facts.key)


@pytest.mark.parametrize("path", RULINGS[::10] + [None], ids=lambda p: "board" if p is None else p.name)
def test_holding_the_why_layer_out_leaves_the_rules_as_they_were(path):
    """No rule reads a check's why layer, so the fixpoint with the layer held out keeps the same rules
    as with it in, and none of the layer; going on from it with the layer awake keeps the layer's
    statements the whole fixpoint keeps, and with only some awake, the ones of those it keeps."""
    situation = load_situation(path) if path is not None else situation_from_data(board(60, 8))
    facts = solve.Facts(situation_facts(project(situation), load_game(situation.game)))
    compiled = solve.program(situation.game, "check")
    layer = compiled.layer
    whole = specialise._kept(specialise.Program(compiled.shapes), facts.key)[0].statements
    held = solve._shapes(compiled, near=False)
    assert specialise._kept(held, facts.key)[0].statements == tuple(i for i in whole if i not in layer)
    fired_layer = tuple(i for i in whole if i in layer)
    assert fired_layer  # the layer would have fired
    assert specialise.going_on(held, facts.key, held, sorted(layer)) == fired_layer
    some = sorted(layer)[::2]  # half of it asleep: what fires of the rest fires in the whole too
    assert set(specialise.going_on(held, facts.key, held, some)) <= set(fired_layer) & set(some)
    # the program with its near misses goes on from the held fixpoint and wakes the layer it held
    near = solve._shapes(compiled, near=True)
    near.results.clear()
    assert specialise.kept(near, facts.key).statements == _round_robin_kept(near, facts.key)


@pytest.mark.parametrize("path", RULINGS[::10] + [None], ids=lambda p: "board" if p is None else p.name)
def test_going_on_from_the_program_alone_reaches_the_fixpoint_made_whole(path):
    """The program with its near misses, from the fixpoint of the program alone (as check asks of
    them in turn), keeps what it keeps from scratch, and so does the round-robin fixpoint."""
    situation = load_situation(path) if path is not None else situation_from_data(board(60, 8))
    facts = solve.Facts(situation_facts(project(situation), load_game(situation.game)))
    for mode in ("check", "trees"):
        compiled = solve.program(situation.game, mode)
        alone = specialise.Program(compiled.shapes)
        extended = specialise.Program(compiled.near_shapes, extends=alone)
        base, reached = specialise._kept(alone, facts.key)
        went_on, went_on_fixpoint = specialise._kept(extended, facts.key, reached)
        fresh, fresh_fixpoint = specialise._kept(extended, facts.key)
        assert went_on.statements == fresh.statements == _round_robin_kept(extended, facts.key)
        assert went_on.predicates == fresh.predicates and went_on_fixpoint == fresh_fixpoint
        assert len(went_on.statements) > len(base.statements)  # the near misses kept something


def test_only_the_latest_fixpoints_of_a_program_alone_are_kept():
    """A fixpoint is a few hundred kilobytes on a large board: the program alone keeps its latest few
    for the near misses to go on from, and the program with them keeps none."""
    compiled = solve.program("berserk", "check")
    alone = specialise.Program(compiled.shapes)
    extended = specialise.Program(compiled.near_shapes, extends=alone)
    keys = [solve.Facts(situation_facts(project(situation_from_data(board(n, h))), load_game("berserk"))).key
            for n, h in [(10, 0), (10, 3), (30, 0), (30, 3), (60, 0), (60, 3)]]
    assert len(set(keys)) == len(keys)
    for key in keys:
        assert specialise.kept(extended, key) == specialise._kept(extended, key)[0]
    assert list(alone.fixpoints) == keys[-specialise.FIXPOINTS_KEPT:] and not extended.fixpoints
    assert len(alone.results) == len(extended.results) == len(keys)
    specialise.forget()
    assert not alone.fixpoints and not alone.results and not extended.results


def test_a_statement_with_neither_gate_nor_head_is_kept():
    """A constraint on negated atoms alone (no positive premise, no head) can always fire."""
    text = "p(a).\n:- not q.\nq :- p(b).\nr(X) :- p(X).\n"
    statements = parse_program(text)
    program = specialise.Program(specialise.shapes(statements))
    kept = specialise._kept(program, frozenset())[0].statements
    assert kept == _round_robin_kept(program, frozenset())
    assert [str(statements[i]) for i in kept if i] == ["p(a).", "#false :- not q.", "r(X) :- p(X)."]


@pytest.mark.parametrize("game, mode", [("berserk", "check"), ("berserk", "trees"), ("mtg", "trees")])
def test_an_index_extended_by_the_near_misses_is_the_index_built_whole(game, mode):
    compiled = solve.program(game, mode)
    assert compiled.shapes and compiled.near_shapes
    base = specialise.Program(compiled.shapes)
    whole = specialise.Program(compiled.shapes + compiled.near_shapes)
    extended = specialise.Program(compiled.near_shapes, extends=base)
    for table in ("size", "always", "gates", "heads", "rank", "on_new", "on_value", "on_any", "on_top"):
        assert getattr(extended, table) == getattr(whole, table), table
    assert specialise.Program(compiled.shapes).on_any == base.on_any  # the base's own index is left as it was


def test_a_first_run_from_text_and_a_later_one_say_the_same_messages(caplog, monkeypatch):
    """The first run hands clingo text, which it names <block>; later runs hand it statements parsed
    from text it names <string>. Same statements, same lines: the messages are the same."""
    import logging

    situation = load_situation(RULINGS[0])
    monkeypatch.setattr(solve, "_ran", {})  # as in a new process
    said = []
    with caplog.at_level(logging.INFO, logger=solve.log.name):
        for _ in range(2):
            caplog.clear()
            api.check(situation)
            said.append([record.getMessage() for record in caplog.records if record.name == solve.log.name])
    first, later = said
    assert first and first == later
    assert any("<string>:" in message for message in first) and not any("<block>" in m for m in first)


@pytest.mark.parametrize("game, mode", [("berserk", "check"), ("berserk", "trees"), ("mtg", "check")])
def test_the_ranks_kept_with_a_compiled_program_are_the_ranks_its_index_finds(game, mode):
    compiled = solve.program(game, mode)
    base = specialise.Program(compiled.shapes)
    assert compiled.ranks == base.rank and len(set(base.rank)) > 10
    assert compiled.near_ranks == specialise.Program(compiled.near_shapes, extends=base).rank
    # a rank list that does not fit the statements is not taken
    assert specialise.Program(compiled.shapes, rank=compiled.ranks[:-1]).rank == base.rank


@pytest.mark.parametrize("game, mode", [("berserk", "check"), ("mtg", "explain")])
def test_an_index_read_back_from_its_data_is_the_index_built(game, mode):
    import marshal

    compiled = solve.program(game, mode)
    built = specialise.Program(compiled.shapes, rank=compiled.ranks)
    read = specialise.Program.from_state(marshal.loads(marshal.dumps(built.state())))
    for name in specialise.Program.STATE_FIELDS:
        assert getattr(read, name) == getattr(built, name), name
    facts = situation_facts(project(load_situation(ROOT / "examples" / "berserk" / "first-turn-rush.yaml")),
                            load_game("berserk")) if game == "berserk" else None
    if facts is not None:  # and it keeps the same statements, and extends alike
        assert specialise.kept(read, facts.key) == specialise.kept(built, facts.key)
        near = compiled.near_shapes
        assert specialise.Program(near, extends=read).rank == specialise.Program(near, extends=built).rank


def test_an_index_that_is_not_one_is_refused():
    with pytest.raises(ValueError):
        specialise.Program.from_state((1, 2, 3))
    with pytest.raises(ValueError):
        specialise.Program.from_state((3, frozenset(), [], [], {}, {}, {}, {}, []))
