"""Verdicts and their justification graphs: every verdict cites clauses and has its reasons; every
expanded graph bottoms out in situation facts; a verdict's cites are exactly the cited clauses of its
graph (read off the report's nodes here, independently of how ccg-judge gathers them); and check,
which reads cites from the why layer without building the graph, agrees with it."""

from pathlib import Path

import pytest

from pybridge.api import explain
from pybridge.game.catalogue import load_game
from pybridge.tools.rulings import ruling_files
from pybridge.why.justify import Report, Verdict
from judged import judged

ROOT = Path(__file__).resolve().parent.parent
FILES = ruling_files([ROOT / "tests" / "rulings"])
VERDICT_ROOTS = ("candidate/3", "legal/2")  # the verdict's own roots: a reason's cites are its own


def graph_cites(report: Report, verdict: Verdict) -> set[str]:
    """The clauses the derivations on the verdict's graph name, walked from its reasons: its
    candidates and the conditions it met (legal); its blocking prohibitions (illegal); the prohibitions lifted and what lifted them,
    its witness treatment and what overrode a prohibition it escaped (legal)."""
    roots = [r.node for r in verdict.reasons if r.role in ("granted", "met")]
    if verdict.verdict == "illegal":
        roots += [r.node for r in verdict.reasons if r.role == "blocked"]
        # and what would have lifted a blocking prohibition but was overridden: illegal <- is_blocked
        # <- blocked, whose derivation rests on the prohibition not being lifted
        for d in report.nodes[verdict.node].derivations:
            for p in d.premises:
                for blocked in (report.nodes[b] for d2 in report.nodes[p].derivations for b in d2.premises):
                    roots += [a for d3 in blocked.derivations for a in d3.absent]
    else:
        lifted = [r for r in verdict.reasons if r.role in ("lifted", "waived")]
        roots += [r.node for r in lifted] + [r.by_node for r in lifted if r.by_node]
        roots += [t.node for t in verdict.treatment]
        legal = report.nodes[verdict.node]
        roots += [a for d in legal.derivations for a in d.absent]
    found, seen, stack = set(), set(), [r for r in roots if r]
    while stack:
        ident = stack.pop()
        if ident in seen:
            continue
        seen.add(ident)
        node = report.nodes[ident]
        for d in node.derivations + node.overridden_by:
            found.update(d.cites)
            stack.extend(p for p in d.premises + d.absent if report.nodes[p].predicate not in VERDICT_ROOTS)
    return found


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_cites_are_the_clauses_of_the_graph(path):
    fast, full = judged(path), judged(path, trees=True)
    assert [(v.player, v.action, v.verdict, v.cites) for v in fast.verdicts] == \
        [(v.player, v.action, v.verdict, v.cites) for v in full.verdicts]
    for verdict in full.verdicts:
        assert set(verdict.cites) == graph_cites(full, verdict), verdict.action
        for consequence in verdict.consequences:
            walked = {c for d in full.nodes[consequence.node].derivations for c in d.cites}
            assert walked <= set(consequence.cites), consequence.effect
    assert [[c.cites for c in v.consequences] for v in fast.verdicts] == \
        [[c.cites for c in v.consequences] for v in full.verdicts]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_verdict_is_justified_down_to_facts(path):
    report = judged(path, trees=True)
    game = load_game(report.game)
    for verdict in report.verdicts:
        assert verdict.cites and all(c in game.clauses for c in verdict.cites), verdict.action
        granted = [r for r in verdict.reasons if r.role == "granted"]
        assert granted, f"{verdict.action} has no candidate clause"
        if verdict.verdict == "illegal":
            assert any(r.role == "blocked" for r in verdict.reasons), f"{verdict.action}: illegal without a reason"
        for reason in verdict.reasons:
            stack, seen = [reason.node], set()
            while stack:
                ident = stack.pop()
                if ident in seen:
                    continue
                seen.add(ident)
                node = report.nodes[ident]
                if node.kind == "derived":
                    assert node.expanded and node.derivations, f"{node.atom} has no derivation"
                    for d in node.derivations:
                        assert d.rule is not None and str(d.rule) in report.rules
                        stack.extend(d.premises)


def test_explain_shows_bindings_premises_and_absent_atoms():
    report = explain(ROOT / "examples/berserk/first-turn-rush.yaml", "strike_attack(elf, foe)")
    verdict = report.verdicts[0]
    assert verdict.verdict == "legal"
    lifted = next(r for r in verdict.reasons if r.role == "lifted")
    assert (lifted.clause, lifted.by, lifted.principle) == ("107.5-1", "107.5-2", "exception")
    exempt = report.nodes[lifted.by_node]
    derivation = exempt.derivations[0]
    assert derivation.bindings == {"A": "strike_attack(elf, foe)", "C": "elf", "K": "strike_attack", "P": "p1"}
    premises = [report.nodes[p].atom for p in derivation.premises]
    assert "has_feature(elf, rush)" in premises
    rush = report.nodes[derivation.premises[premises.index("has_feature(elf, rush)")]]
    in_force = next(report.nodes[p] for p in rush.derivations[0].premises
                    if report.nodes[p].atom.startswith("in_force"))
    assert [report.nodes[a].atom for a in in_force.derivations[0].absent] == ["set_aside(rush-from-spell)"]
    assert report.nodes[in_force.derivations[0].premises[0]].kind == "fact"


def test_an_action_check_does_not_list_is_explained_as_not_possible():
    """Defending in one's own turn is no action of 107.3: the definition it fails is cited."""
    report = explain(ROOT / "tests/rulings/berserk/107/107.2-own-target.yaml", "strike_attack(friend, vail)")
    verdict = report.verdicts[0]
    assert (verdict.verdict, verdict.cites) == ("impossible", ["107.2"])
    node = report.nodes[verdict.reasons[0].node]
    failed = [report.nodes[a].atom for d in node.overridden_by for a in d.absent]
    assert failed == ["opponent(p1, p1)"]


def test_a_prohibition_with_several_grounds_lists_each():
    """Every failed condition of a clause is a separate derivation of the same prohibition."""
    report = explain(ROOT / "tests/rulings/berserk/513/axe-rule-only-the-named-condition.yaml",
                     "strike_attack(vail, foe)")
    blocked = next(r for r in report.verdicts[0].reasons if r.role == "blocked")
    conditions = sorted(report.nodes[d.premises[0]].atom for d in report.nodes[blocked.node].derivations)
    assert conditions == ["violation(p1, strike_attack(vail, foe), 107.2, once_per_turn)",
                          "violation(p1, strike_attack(vail, foe), 107.2, open)"]
