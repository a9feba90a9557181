"""terms.ident: a Symbol's int identity agrees with clingo's own equality, however the Symbol was made."""

from __future__ import annotations

import itertools

import clingo
from clingo import Function, Number, String, Tuple_

from pybridge.ground.terms import builder, ident, read, signature_of, text, unify

# The same terms three ways: built in Python, parsed from text, and read off a model.
TEXTS = ['a', 'b', '"a"', '"p1"', '1', '-3', 'f(1)', 'f(1,"x")', 'f("x",1)', '(1,2)', '(1,)', 'f(g(h))',
         'strike_attack("c1","c2")', '-f(1)']
BUILT = [Function("a"), Function("b"), String("a"), String("p1"), Number(1), Number(-3), Function("f", [Number(1)]),
         Function("f", [Number(1), String("x")]), Function("f", [String("x"), Number(1)]),
         Tuple_([Number(1), Number(2)]), Tuple_([Number(1)]), Function("f", [Function("g", [Function("h")])]),
         Function("strike_attack", [String("c1"), String("c2")]), Function("f", [Number(1)], False)]


def _from_model() -> list[clingo.Symbol]:
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], "".join(f"t({i},{t}).\n" for i, t in enumerate(TEXTS)))
    ctl.ground([("base", [])])
    found: dict[int, clingo.Symbol] = {}
    ctl.solve(on_model=lambda m: found.update((s.arguments[0].number, s.arguments[1]) for s in m.symbols(atoms=True)))
    return [found[i] for i in range(len(TEXTS))]


def test_equal_symbols_have_equal_idents_however_made():
    parsed = [clingo.parse_term(t) for t in TEXTS]
    for made in (parsed, _from_model()):
        for a, b in zip(BUILT, made):
            assert a == b and ident(a) == ident(b), (str(a), str(b))


def test_different_symbols_have_different_idents():
    for a, b in itertools.combinations(BUILT, 2):
        assert (a == b) == (ident(a) == ident(b)), (str(a), str(b))
    assert len({ident(s) for s in BUILT}) == len(BUILT)


def test_text_reads_terms_as_people_do():
    assert [text(s) for s in BUILT[:5]] == ["a", "b", "a", "p1", "1"]
    assert text(clingo.parse_term('f("x",(1,),(2,3))')) == "f(x, (1,), (2, 3))"


def test_read_gives_a_symbols_parts():
    assert read(clingo.parse_term('f("x",1)')) == ("f", "f", (String("x"), Number(1)))
    assert read(clingo.parse_term("(1,2)")) == ("f", "", (Number(1), Number(2)))
    assert read(Number(-3)) == ("n", -3, ())
    assert read(String("p1")) == ("s", "p1", ())
    assert read(clingo.Infimum) == ("?", None, ())
    assert signature_of(clingo.parse_term('candidate("p1",shot("a","b"),"107.2")')) == ("candidate", 3)


def test_unify_binds_variables_and_refuses_what_differs():
    atom = clingo.parse_term('strike("c1",2,(1,"x"))')
    pattern = ["f", "strike", [["v", "C"], ["n", 2], ["t", [["n", 1], ["v", "S"]]]]]
    bindings: dict = {}
    assert unify(pattern, atom, bindings)
    assert bindings == {"C": String("c1"), "S": String("x")}
    assert not unify(["f", "strike", [["v", "C"], ["n", 3], ["v", "_"]]], atom, {})
    assert not unify(["f", "strike", [["v", "C"], ["v", "C"], ["v", "D"]]], atom, {})  # C twice, two values
    assert unify(["f", "p", [["v", "C"], ["v", "C"]]], clingo.parse_term('p("a","a")'), {})
    assert not unify(["s", "c1"], Number(1), {}) and not unify(["n", 1], String("1"), {})


def test_a_built_term_is_made_once_and_is_clingos_own():
    """terms.builder makes a compound term once per process: building it again under equal bindings
    gives the same Symbol, equal to the one clingo makes, and other arguments another."""
    build = builder(["f", "strike", [["v", "C"], ["t", [["n", 1], ["v", "S"]]]]])
    first = build({"C": String("c1"), "S": Function("x")})
    assert first == clingo.parse_term('strike("c1",(1,x))')
    assert build({"C": String("c1"), "S": Function("x")}) is first
    assert build({"C": String("c2"), "S": Function("x")}) != first


def test_arithmetic_is_clingos():
    """terms.builder computes as clingo does: towards zero, on 32-bit integers that wrap around, a
    negative power 0 (and of 0 undefined), division by zero undefined."""
    from pybridge.ground.terms import Unbuildable, builder, pattern
    from clingo import ast

    cases = ["-7 / 2", "-7 \\ 2", "7 \\ -2", "2 ** 31", "2147483647 + 1", "65536 * 65536", "100000 * 100000",
             "2 ** -1", "1 ** -1", "(-1) ** -2", "3 ** 40", "0 ** 0", "|-2147483647 - 1|", "-(-2147483647 - 1)",
             "6 & 3", "6 ? 3", "6 ^ 3", "0 ** -1", "1 / 0", "1 \\ 0"]
    program = " ".join(f"v({i}, {c})." for i, c in enumerate(cases))
    control = clingo.Control(["--warn=none"])
    control.add("base", [], program)
    control.ground([("base", [])])
    clingos = {a.symbol.arguments[0].number: a.symbol.arguments[1] for a in control.symbolic_atoms.by_signature("v", 2)}
    ours = {}
    for i, case in enumerate(cases):
        found: list = []
        ast.parse_string(f"v({case}).", found.append)
        term = found[1].head.atom.symbol.arguments[0]
        try:
            ours[i] = builder(pattern(term))({})
        except Unbuildable:
            pass
    assert ours == clingos
    assert set(range(len(cases))) - set(ours) == {17, 18, 19}  # 0 ** -1, 1 / 0, 1 \ 0: undefined
