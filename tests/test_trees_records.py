"""The graph's modes record only the rules whose instances the graph cannot find by itself.

explain (one verdict's graph) leaves unrecorded every rule whose body the graph can match against the
answer: plain atoms, their negations and comparisons, every variable bound before a negation or a
comparison needs it. trees (every verdict's graph) leaves unrecorded only those whose head pins the
instance down. The reports are the same as with every rule recorded and its records read."""

from __future__ import annotations

from pathlib import Path

import clingo
import pytest

from pybridge import api
from pybridge.errors import JudgeError
from pybridge.game.catalogue import load_game
from pybridge.game.encodings import entry_file
from pybridge.ground import solve, specialise
from pybridge.ground.compiler import GRAPH_MODES, compile_game
from pybridge.input.situation import load_situation, situation_from_data
from pybridge.report.render import to_json
from pybridge.tools.rulings import ruling_files
from pybridge.why.graph import Graph
from pybridge.why.justify import Cites
from judged import judged

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ruling_files([ROOT / "tests" / "rulings"])


def _compile(path: Path, mode: str = "trees", **options):
    return compile_game("test", path, mode=mode, clause_kind=lambda clause: "rule",
                        principle_of_banner=lambda clause: None, **options)


# rule -> (recorded in trees mode, recorded in explain mode)
RULES = {
    "plain(X, Y) :- p(X), q(X, Y), not r(Y).": (False, False),
    "constant(X) :- p(X), q(X, a), not r(\"s\").": (False, False),
    "tuple(X) :- p(X), q(X, (X, 1)).": (False, False),
    "open(X) :- p(X), q(X, Y).": (True, False),  # Y is not the head's: matched, not pinned
    "compared(X) :- p(X), q(X, Y), X < 3.": (True, False),
    "assigned(X, D) :- p(X), q(X, Y), D = Y - X.": (True, False),  # the equation binds D
    "reversed(D) :- Y + 1 = D, q(1, Y).": (True, False),  # ... whichever side it is on
    "negated_open(X) :- p(X), not q(X, Y), r(Y).": (True, False),  # r binds Y before the negation
    "computed_head(X + 1) :- p(X).": (True, False),  # rebuilt and compared
    "anonymous(X) :- p(X), not q(X, _).": (True, True),  # "for no value": nothing binds it
    "later_test(X) :- p(X), X + Y = 3, q(X, Y).": (True, False),  # a test once q binds Y
    "twice(X) :- p(X), not not r(X).": (True, True),
    "summed(X, S) :- p(X), S = #sum { Y : q(X, Y) }.": (True, True),
    "arithmetic(X) :- p(X), q(X, X + 1).": (True, True),
    "pooled(X) :- p(X), q(X, (1; 2)).": (True, True),
    "interval(X) :- p(X), q(X, 1..2).": (True, True),
    "top(X) :- p(X), q(X, #sup).": (True, True),
    "external(X) :- p(X), q(X, @f(X)).": (True, True),
    "classical(X) :- p(X), -r(X).": (True, True),
    "conditional(X) :- p(X), q(X, Y) : r(Y).": (True, True),
    "interval_head(1..X) :- p(X).": (True, True),
}


@pytest.mark.parametrize("mode", sorted(GRAPH_MODES))
def test_which_rules_each_mode_records(tmp_path, mode):
    path = tmp_path / "rules.lp"
    path.write_text("\n".join(RULES) + "\np(1). q(1, 2). r(3).\n", encoding="utf-8")
    compiled = _compile(path, mode)
    recorded = {r.text.split("(")[0]: r.recorded for r in compiled.rules if ":-" in r.text}
    column = 0 if mode == "trees" else 1
    assert recorded == {text.split("(")[0]: expected[column] for text, expected in RULES.items()}
    assert all(r.recorded for r in _compile(path, mode, record_every_rule=True).rules if ":-" in r.text)


def test_a_choice_or_an_external_is_among_the_other_heads(tmp_path):
    path = tmp_path / "rules.lp"
    path.write_text("{ chosen(X) } :- p(X).\nleft(X); right(X) :- p(X).\n#external outside(1).\n"
                    "plain(X) :- p(X).\np(1).\n", encoding="utf-8")
    assert _compile(path, "explain").other_heads == {("chosen", 1), ("left", 1), ("right", 1), ("outside", 1)}


# Small programs: every derived atom's derivations, found by matching (explain mode) and read from
# records (every rule recorded), side by side.
PROGRAMS = {
    "joins": """
        p(1). p(2). p(3). q(1, 2). q(2, 2). q(3, 5). r(2). s(a, 1). s(b, 1). t(1, 1). t(2, 3).
        two(X, Y) :- q(X, Y), q(Y, Y).
        diff(X, D) :- q(X, Y), D = Y - X.
        back(D) :- Y + 1 = D, q(_, Y).
        same(X) :- t(X, X).
        below(X) :- p(X), q(X, Y), Y < 4, not r(X).
        negated_open(X) :- p(X), not t(X, Y), q(X, Y).
        by_head(s(K)) :- s(K, _).
        kind(a, one). kind(b, one). kind(c, two).
        named(K, N) :- kind(K, N), s(K, _).
        looked(K, N) :- s(K, _), kind(K, N).
        undefined(X) :- s(X, _), Y = X + 1, p(Y).
        succ(X + 1) :- p(X), q(X, _).
        counted(X, N) :- p(X), N = #count { Y : q(X, Y) }, q(X, _).
        range(1..X) :- p(X), r(X).
        chosen(X) :- p(X), X > 1.
        uses_chosen(X) :- chosen(X), p(X).
        w(1, a). w(1, b). w(2, b). barred(b).
        free(X) :- w(X, Y), not barred(Y).
        pair(X) :- p(X), t(Y, Y).
        lab(a, 1 + 1). lab(b, 3).
        labelled(K) :- p(X), lab(K, X).
        number_of(X) :- p(X), lab(_, X).
        gap(X) :- q(X, Y), D = Y - X, D > 0.
        tag(K, big) :- s(K, N), N > 5.
        tag(K, small) :- s(K, N), N <= 5.
        has_tag(K) :- s(K, _), tag(K, T).
        e(1, 10). e(1, 20). e(2, 10).
        shared(X, N) :- e(X, Y), N = #count { Z : e(Z, Y) }.
    """,
    "arithmetic": """
        q(1, 2). q(1, 5). q(2, 2). q(1, -2). big(100000). lab(a, 1 + 1). lab(b, 3).
        dup :- q(X, X + 1).
        negative_constant(X) :- q(X, -2).
        summed_constant(X) :- q(X, 1 + 1).
        square(X * X) :- big(X).
        positive(X) :- big(X), X * X > 0.
        inverse(X) :- q(X, _), X ** -1 = 0.
        two :- lab(a, X), X = 2.
        any_lab(X) :- lab(_, X).
        #const n = 3.
        named(n) :- big(_).
        via_named(X) :- named(X).
        some_named :- named(X).
        some_negative :- q(X, -2).
        lab(a, 3).
        m(5). m(a). m(1). k(9).
        skipped(Y) :- m(X), k(Y), not q(X + 1, 2).
    """,
    "shows": """
        q(1, 2). q(3, 4). t(7). -p(2).
        #show p/1. #show -p/1.
        p(X) :- q(X, _).
        v(X) :- p(X).
        #show s/1. #show s(X) : t(X).
        s(X) :- q(X, 2).
        w(X) :- s(X).
        some_p :- p(X).
        some_s :- s(X).
    """,
    "pooled": """
        p(a; b). p(X) :- q(X). q(c). r(1..2; 5).
        some(X) :- p(X).
        via_range(X) :- r(X), X > 1.
    """,
    "recursion": """
        edge(1, 2). edge(2, 3). edge(3, 1). edge(3, 4).
        path(X, Y) :- edge(X, Y).
        path(X, Z) :- edge(X, Y), path(Y, Z).
        loop(X) :- path(X, X).
        out(X) :- path(1, X), not loop(X).
    """,
}


def _answer(compiled, facts: str):
    """A real run of a small program, with its model open (as solve gives the graph)."""
    control = clingo.Control(["--models=2", "--warn=none"])
    control.add("base", [], compiled.text)
    control.add("base", [], facts)
    control.ground([("base", [])])
    answer = solve.Answer(shown={}, compiled=compiled, given=[], control=control)
    answer._handle, answer._model = solve._hold_model(control)
    for atom in answer._model.symbols(shown=True):
        answer.shown.setdefault(atom.name, []).append(atom)
    return answer


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_matching_finds_what_the_records_say(tmp_path, name):
    path = tmp_path / "rules.lp"
    path.write_text(PROGRAMS[name], encoding="utf-8")
    matched, recorded = _compile(path, "explain"), _compile(path, "trees", record_every_rule=True)
    assert sum(not r.recorded for r in matched.rules if ":-" in r.text) >= {"joins": 10, "shows": 3, "pooled": 3}.get(name, 4)
    game = load_game("berserk")  # only its clause catalogue is read, for cites
    graphs = []
    for compiled in (matched, recorded):
        answer = _answer(compiled, "")
        graph = Graph(answer, game, Cites(game, {}))
        atoms = sorted(a.symbol for a in answer.control.symbolic_atoms
                       if not a.symbol.name.startswith("_") and (a.is_fact or answer._model.contains(a.symbol)))
        graphs.append({str(a): [(r.text.split(" :- ")[0], {k: str(v) for k, v in b.items()})
                                for r, b in graph.supports(a)] for a in atoms})
        answer.close()
    assert graphs[0] == graphs[1]
    derived = {atom: found for atom, found in graphs[0].items() if found}
    assert len(derived) > (5 if name == "shows" else 10)
    if name == "arithmetic":  # undefined and overflowing arithmetic as clingo has it
        assert graphs[0]["dup"] == [("dup", {"X": "1"})]
        assert [b["X"] for _, b in graphs[0]["negative_constant(1)"]] == ["1"]
        assert [b["X"] for _, b in graphs[0]["summed_constant(1)"]] == ["1"]
        assert [b["X"] for _, b in graphs[0]["square(1410065408)"]] == ["100000"]  # 10**10, wrapped
        assert [b["Anon1__"] for _, b in graphs[0]["inverse(1)"]] == ["-2", "2", "5"]
        assert graphs[0]["any_lab(2)"] == [("any_lab(X)", {"Anon1__": "a", "X": "2"})]
        assert [b["X"] for _, b in graphs[0]["via_named(3)"]] == ["3"]
        assert [b["X"] for _, b in graphs[0]["some_named"]] == ["3"]  # a head with a #const
        assert [b["X"] for _, b in graphs[0]["some_negative"]] == ["1"]
        assert graphs[0]["lab(a,3)"] == [("lab(a,3).", {})]  # lab(a, 1 + 1) is lab(a, 2)
        assert [b["X"] for _, b in graphs[0]["skipped(9)"]] == ["5"]  # m(a): a + 1 is undefined
    if name == "shows":  # -p(2) and s(7) are shown under the names p and s too
        assert [b["X"] for _, b in graphs[0]["v(1)"]] == ["1"] and "v(2)" not in graphs[0]
        assert [b["X"] for _, b in graphs[0]["w(1)"]] == ["1"] and "w(7)" not in graphs[0]
        assert [b["X"] for _, b in graphs[0]["some_p"]] == ["1", "3"]
        assert [b["X"] for _, b in graphs[0]["some_s"]] == ["1"]
    if name == "pooled":  # a pooled fact beside a rule of its predicate is a fact of each of its terms
        assert graphs[0]["p(a)"] == [("p(a).", {})] and graphs[0]["p(c)"] == [("p(X)", {"X": "c"})]
        assert [b["X"] for _, b in graphs[0]["some(b)"]] == ["b"]
        assert [b["X"] for _, b in graphs[0]["via_range(5)"]] == ["5"]
    if name == "joins":  # some of them, spelt out
        assert graphs[0]["diff(1,1)"] == [("diff(X,D)", {"D": "1", "X": "1", "Y": "2"})]
        assert graphs[0]["same(1)"] == [("same(X)", {"X": "1"})] and "same(2)" not in graphs[0]
        assert graphs[0]["named(a,one)"] == [("named(K,N)", {"Anon1__": "1", "K": "a", "N": "one"})]
        assert graphs[0]["succ(2)"] == [("succ((X+1))", {"Anon1__": "2", "X": "1"})]
        assert [b["Y"] for _, b in graphs[0]["negated_open(3)"]] == ["5"]
        assert [b for _, b in graphs[0]["counted(1,1)"]] == [{"Anon1__": "2", "N": "1", "X": "1"}]
        assert [b["X"] for _, b in graphs[0]["range(1)"]] == ["2"]
        assert [b["Y"] for _, b in graphs[0]["free(1)"]] == ["a"] and "free(2)" not in graphs[0]
        assert [b["Y"] for _, b in graphs[0]["pair(1)"]] == ["1"]
        assert [b["X"] for _, b in graphs[0]["labelled(a)"]] == ["2"]
        assert [b["Anon1__"] for _, b in graphs[0]["number_of(3)"]] == ["b"]
        assert [b["D"] for _, b in graphs[0]["gap(1)"]] == ["1"] and "gap(2)" not in graphs[0]
        assert [b["T"] for _, b in graphs[0]["has_tag(a)"]] == ["small"]
        assert [b["Y"] for _, b in graphs[0]["shared(1,2)"]] == ["10"]


# Made once a worker: the tests of one situation file run together whatever their module
# (tests/conftest.py), so a module fixture was made again at each change of module (2,261 s of a run).
@pytest.fixture(scope="session")
def every_rule_recorded():
    made = {}
    for game in ("berserk", "mtg"):
        g = load_game(game)
        made[game] = compile_game(game, entry_file(game, g.entry), mode="trees", clause_kind=g.clause_kind,
                                  principle_of_banner=g.principle_of, witnesses=solve.witnesses(g),
                                  defeaters=frozenset(g.defeaters), record_every_rule=True)
    return made


@pytest.mark.parametrize("game, mode", [(g, m) for g in ("berserk", "mtg") for m in sorted(GRAPH_MODES)])
def test_the_rules_bases_have_rules_the_graph_matches(game, mode, every_rule_recorded):
    """What the comparisons below cover: a good share of each game's rules goes unrecorded."""
    landed = sum(r.recorded for r in solve.program(game, mode).rules)
    assert sum(r.recorded for r in every_rule_recorded[game].rules) - landed > (40 if mode == "trees" else 200)


def _with_every_rule_recorded(monkeypatch, every_rule_recorded):
    """Judge with both graph modes' programs replaced by one recording every rule (whose records the
    graph reads, in bulk)."""
    landed = solve.program

    def program(game, mode, absent=frozenset()):
        return every_rule_recorded[game] if mode in GRAPH_MODES else landed(game, mode, absent)

    monkeypatch.setattr(solve, "program", program)


def _explained(situation, actions) -> list[str]:
    """Each action's explain report (one solve for all: api.explain_each), or its error."""
    try:
        found = api.explain_each(situation, actions)
    except JudgeError as exc:  # the situation itself (a limit, say)
        return [f"error: {exc.message}"] * len(actions)
    return [f"error: {r.message}" if isinstance(r, JudgeError) else to_json(r) for r in found]


@pytest.mark.parametrize("path", RULINGS[1::60], ids=lambda p: str(p.relative_to(ROOT / "tests" / "rulings")))
def test_one_solve_explains_each_action_as_explain_does(path):
    """The comparisons here explain a ruling's actions from one solve: each report as explain gives
    it alone."""
    situation = load_situation(path)
    actions = _actions(situation, path)
    alone = []
    for action in actions:
        try:
            alone.append(to_json(api.explain(situation, action)))
        except JudgeError as exc:
            alone.append(f"error: {exc.message}")
    assert _explained(situation, actions) == alone


@pytest.mark.parametrize("path", RULINGS[::3], ids=lambda p: str(p.relative_to(ROOT / "tests" / "rulings")))
def test_the_trees_report_is_as_with_every_rule_recorded(path, every_rule_recorded, monkeypatch):
    situation = load_situation(path)

    def judge():
        specialise.forget()
        return to_json(api.check(situation, trees=True))

    matched = judge()
    _with_every_rule_recorded(monkeypatch, every_rule_recorded)
    assert judge() == matched


def _actions(situation, path: Path | None = None) -> list[str]:
    """Every action check lists, and one it does not: the first card at itself."""
    listed = [v.action for v in (judged(path) if path else api.check(situation)).verdicts]
    card = situation.cards[0].id if situation.cards else None
    return listed + ([f"strike_attack({card}, {card})"] if card and situation.game == "berserk" else [])


@pytest.mark.parametrize("path", RULINGS, ids=lambda p: str(p.relative_to(ROOT / "tests" / "rulings")))
def test_explain_is_as_with_every_rule_recorded(path, every_rule_recorded, monkeypatch):
    situation = load_situation(path)
    actions = _actions(situation, path)
    matched = _explained(situation, actions)
    _with_every_rule_recorded(monkeypatch, every_rule_recorded)
    assert _explained(situation, actions) == matched


@pytest.mark.parametrize("cards, hidden", [(30, 3), (60, 8)])
def test_explain_on_a_board_is_as_with_every_rule_recorded(cards, hidden, every_rule_recorded, monkeypatch):
    import sys
    sys.path.insert(0, str(ROOT / "bench"))
    from boards import board

    situation = situation_from_data(board(cards, hidden))
    actions = _actions(situation)[::7]
    matched = _explained(situation, actions)
    _with_every_rule_recorded(monkeypatch, every_rule_recorded)
    assert _explained(situation, actions) == matched
