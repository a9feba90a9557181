"""The compiler's passes, each on a small program of its own (pybridge.ground.compiler).

The whole compiler is held to the rulings by the ruling runner and to its earlier output by
bench/identical.py; these tests say what each pass does, on programs small enough to read."""

from __future__ import annotations

from pathlib import Path

import pytest

from pybridge.ground import compiler

PROGRAM = """\
% --- 1.1 ----------------------------------------------------------------
card(C) :- in_play(C).
% --- 1.2 ----------------------------------------------------------------
flyer(C) :- card(C), feature(C, flying).
% --- 1.3 ----------------------------------------------------------------
candidate(P, shot(A, T), "1.3") :- controls(P, A), card(T), T != A.
% --- 1.4 ----------------------------------------------------------------
forbidden(P, shot(A, T), "1.4") :- candidate(P, shot(A, T), _), flyer(T), not set_aside(T).
% --- 1.5 ----------------------------------------------------------------
count(N) :- N = #count { C : card(C) }.
wing(C, X) :- feature(C, X).
rests_on(flyer, wing).
#show forbidden/3.
"""


def _statements(tmp_path: Path, text: str = PROGRAM) -> list[compiler.Statement]:
    path = tmp_path / "main.lp"
    path.write_text(text, encoding="utf-8")
    return compiler.parse_rules(path)


def _rule_clause(clause: str) -> str:
    return "rule"


def _table(tmp_path: Path, text: str = PROGRAM, *, every: bool = False) -> compiler.RuleTable:
    statements = _statements(tmp_path, text)
    citeable = compiler.citing({}, _rule_clause, lambda clause: None)
    return compiler.name_rules(statements, citeable, record_every_rule=every)


def test_parse_rules_puts_each_statement_under_its_banner(tmp_path):
    statements = _statements(tmp_path)
    clauses = [s.clause for s in statements if "flyer(C) :-" in str(s.node)]
    assert clauses == ["1.2"]
    assert all(s.node.ast_type.name != "Comment" for s in statements)


def test_citing_resolves_principles_and_drops_vocabulary_clauses():
    kinds = {"1.1": "rule", "vocab": "vocabulary", "9.9": "rule"}
    citeable = compiler.citing({"latest": "9.9"}, kinds.__getitem__,
                               lambda clause: "latest" if clause == "core:latest" else None)
    assert citeable("1.1") == "1.1"
    assert citeable("vocab") is None
    assert citeable("core:latest") == "9.9"
    assert citeable(None) is None


def test_name_rules_names_rules_of_one_atom_and_keeps_the_rest_as_text(tmp_path):
    table = _table(tmp_path)
    heads = [r.signature for r in table.rules]
    assert heads == [("card", 1), ("flyer", 1), ("candidate", 3), ("forbidden", 3), ("count", 1), ("wing", 2), ("rests_on", 2)]
    texts = [item for kind, item in table.order if kind == "text"]
    assert texts == ["#program base.", "#show forbidden/3."]
    flyer = table.rules[1]
    assert flyer.clauses == ("1.2",) and flyer.variables == ("C",)
    assert [p.name for p in flyer.positive] == ["card", "feature"]
    assert [str(n) for n in table.rules[3].negative] == ["set_aside(T)"]
    assert table.by_signature[("flyer", 1)] == [flyer]


def test_name_rules_tells_which_rules_the_graph_can_match(tmp_path):
    table = _table(tmp_path)
    count = next(r.index for r in table.rules if r.signature == ("count", 1))
    flyer = next(r.index for r in table.rules if r.signature == ("flyer", 1))
    assert flyer in table.joined and flyer in table.pinned  # plain body, every variable in the head
    assert count not in table.joined  # an aggregate: only a record says which instance holds
    assert not _table(tmp_path, every=True).joined


def test_add_support_rules_adds_why_only_rules_for_rests_on(tmp_path):
    statements = _statements(tmp_path)
    table = _table(tmp_path)
    before = len(table.rules)
    compiler.add_support_rules(statements, table)
    added = table.rules[before:]
    assert [r.text for r in added] == ["flyer(V0) rests on wing(V0,V1)"]
    assert added[0].support_only and added[0] in table.by_signature[("flyer", 1)]
    assert ("rule", added[0].index) not in table.order  # never a rule of the program


def test_live_rules_drops_what_rests_on_an_absent_witness(tmp_path):
    statements = _statements(tmp_path)
    table = _table(tmp_path)
    absent, live = compiler.live_rules(statements, table, frozenset({("feature", 2)}))
    assert ("flyer", 1) in absent  # its only rule rests on the absent feature/2
    assert all(r.signature != ("flyer", 1) for r in live)
    assert ("forbidden", 3) in absent
    _, everything = compiler.live_rules(statements, table, frozenset())
    assert len(everything) == len(table.rules)


def _analysis(tmp_path: Path) -> tuple[compiler.RuleTable, compiler.CiteAnalysis]:
    statements = _statements(tmp_path)
    table = _table(tmp_path)
    compiler.add_support_rules(statements, table)
    absent, live = compiler.live_rules(statements, table, frozenset())
    return table, compiler.CiteAnalysis(table, live, {}, compiler.DEFEATERS, absent)


def test_cite_analysis_reach_exact_and_near(tmp_path):
    table, analysis = _analysis(tmp_path)
    assert analysis.reach[("flyer", 1)] == {"1.1", "1.2", "1.5"}  # 1.5: it rests on wing/2 too
    assert analysis.exact[("card", 1)] == frozenset({"1.1"})
    assert ("flyer", 1) not in analysis.exact  # its two rules (its own, the why-only one) cite apart
    # forbidden/3 rests on `not set_aside(T)`: a defeater can override it, so it can be near-missed
    assert ("forbidden", 3) in analysis.near
    assert ("flyer", 1) not in analysis.near
    assert ("forbidden", 3) in analysis.cited and ("candidate", 3) in analysis.cited
    forbidden = table.by_signature[("forbidden", 3)][0]
    assert analysis.static_clauses(forbidden) == {"1.4"}
    assert analysis.edges(forbidden) == [1]  # flyer's cites vary: they pass through the premise
    candidate = table.by_signature[("candidate", 3)][0]
    assert analysis.static_clauses(candidate) == {"1.3", "1.1"}  # card/1's exact cites folded in
    assert analysis.near_static(candidate, 1) == {"1.3"}  # but for its card premise, the faulty one


def test_mark_recorded_by_mode(tmp_path):
    table, analysis = _analysis(tmp_path)
    count = next(r.index for r in table.rules if r.signature == ("count", 1))
    explain = compiler.mark_recorded(table, analysis, "explain")
    assert [r.index for r in explain if r.recorded] == [count]
    trees = compiler.mark_recorded(table, analysis, "trees")
    assert {r.index for r in explain if r.recorded} <= {r.index for r in trees if r.recorded}
    assert all(not r.recorded for r in compiler.mark_recorded(table, analysis, "check") if r.support_only)


def test_program_lines_split_a_recorded_rule_into_record_and_head(tmp_path):
    table, analysis = _analysis(tmp_path)
    rules = compiler.mark_recorded(table, analysis, "explain")
    lines = compiler.program_lines(table, rules)
    count = next(r for r in rules if r.signature == ("count", 1))
    assert count.recorded
    assert f"{count.record}(N) :- N = #count {{ C: card(C) }}." in lines
    assert f"count(N) :- {count.record}(N)." in lines
    assert "flyer(C) :- card(C); feature(C,flying)." in lines


@pytest.mark.parametrize("mode", ["check", "trees", "explain"])
def test_cite_rules_only_in_check_mode(tmp_path, mode):
    table, analysis = _analysis(tmp_path)
    rules = compiler.mark_recorded(table, analysis, mode)
    lines = compiler.cite_rules(analysis, rules, analysis.cited, mode)
    if mode == "check":
        forbidden = [line for line in lines if line.startswith("_c_forbidden_3(")]
        # its own clause is read off the atom; what it cites beyond it comes through its flyer premise
        assert forbidden and all("_c_flyer_1(T, Cite__)" in line for line in forbidden)
        # a recorded rule's own clauses are read off its record: its body is grounded once
        assert '_c_flyer_1(C, "1.2") :- _w1(C).' in lines and rules[1].recorded
        assert not any("feature(C,flying)" in line for line in lines)
    else:
        assert lines == []


def test_verdict_lines_declare_what_is_generated():
    lines = compiler.verdict_lines("check", compiler.DEFEATERS, frozenset({("witness", 1)}), {("forbidden", 3)})
    assert "#show _v/3." in lines and "#show witness/1." in lines and "#show set_aside/1." in lines
    assert "#defined _nmc_forbidden_3/4." in lines
    trees = compiler.verdict_lines("trees", compiler.DEFEATERS, frozenset(), set())
    assert "#show _v/3." not in trees and not any(line.startswith("_v(") for line in trees)


OUTSIDE = """\
% --- 2.1 ----------------------------------------------------------------
#defined warded/1.
warded(C) :- charm(C).
% --- 2.2 ----------------------------------------------------------------
colour(red; green).
% --- 2.3 ----------------------------------------------------------------
colour(blue).
% --- 2.4 ----------------------------------------------------------------
forbidden(P, shot(A, T), "2.4") :- candidate(P, shot(A, T), _), warded(T), colour(red).
forbidden(P, shot(A, T), "2.4") :- candidate(P, shot(A, T), _), colour(T).
"""


def test_one_clause_for_every_atom_only_where_the_rules_alone_make_them(tmp_path):
    statements = _statements(tmp_path, OUTSIDE)
    table = compiler.name_rules(statements, compiler.citing({}, _rule_clause, lambda clause: None))
    absent, live = compiler.live_rules(statements, table, frozenset())
    analysis = compiler.CiteAnalysis(table, live, {}, compiler.DEFEATERS, absent)
    # warded/1's one rule cites 2.1, but the situation may give warded facts, which cite nothing
    assert not analysis.made_by_rules_alone(("warded", 1))
    assert analysis.shared(("warded", 1)) is None and ("warded", 1) not in analysis.exact
    # colour/1's one rule of one atom cites 2.3, but its pooled facts (not rules of one atom) are
    # written under 2.2: red and green must not cite 2.3
    assert not analysis.made_by_rules_alone(("colour", 1)) and ("colour", 1) in table.other_heads
    assert analysis.shared(("colour", 1)) is None and ("colour", 1) not in analysis.exact
    rules = compiler.mark_recorded(table, analysis, "check")
    lines = compiler.cite_rules(analysis, rules, analysis.cited | {("warded", 1)}, "check")
    assert [line for line in lines if line.startswith("_c_warded_1(")] == ['_c_warded_1(C, "2.1") :- _w0(C).']
    assert rules[0].recorded and rules[0].signature == ("warded", 1)  # its instances, read off its record
    assert not any(line.startswith("_c_warded_1(X0") for line in lines), "no pattern rule over every atom"
    assert [line for line in lines if line.startswith("_c_colour_1(")] == ['_c_colour_1(blue, "2.3").']
