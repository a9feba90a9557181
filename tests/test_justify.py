"""Justification trees are complete: every verdict cites clauses, every tree
bottoms out in situation facts, and bindings name the action's cards."""

from pathlib import Path

import pytest

from pybridge.api import check, explain
from pybridge.justify import Node
from pybridge.rulings import ruling_files

ROOT = Path(__file__).resolve().parent.parent
FILES = ruling_files([ROOT / "tests" / "rulings"])


def leaves(node: Node):
    if not node.premises:
        yield node
    for premise in node.premises:
        yield from leaves(premise)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_verdict_is_justified_down_to_facts(path):
    report = check(path)
    for verdict in report.verdicts:
        assert verdict.cites, f"{verdict.action} has no cited clause"
        reasons = verdict.granted_by + verdict.blocked_by
        assert verdict.granted_by and (verdict.verdict == "legal" or verdict.blocked_by)
        for reason in reasons:
            for ground in reason.grounds:
                assert ground.kind == "derived" and ground.clause is not None
                for leaf in leaves(ground):
                    assert leaf.kind in ("fact", "derived"), f"{leaf.atom} has no derivation"


def test_explain_shows_bindings_premises_and_absent_atoms():
    verdict = explain(ROOT / "examples/berserk/first-turn-rush.yaml", "strike_attack(elf, veteran)")
    assert verdict.verdict == "illegal"
    assert [r.clause.id for r in verdict.blocked_by] == ["107.2"]
    # 107.2 names the condition that fails: the ground is that violation.
    ground = verdict.blocked_by[0].grounds[0].premises[0]
    assert ground.atom == "violation(p1, strike_attack(elf, veteran), 107.2, enemy_target)"
    assert ground.bindings == {"A": "elf", "P": "p1", "T": "veteran"}
    assert [p.atom for p in ground.premises][-1] == "controller(veteran, p1)"
    assert ground.premises[-1].kind == "fact"
    lifted = verdict.lifted[0]
    assert (lifted.clause.id, lifted.by.id) == ("107.5-1", "107.5-2")
    rush = next(p for p in lifted.grounds[0].premises if p.atom == "has_feature(elf, rush)")
    effect = next(p for p in rush.premises if p.atom.startswith("in_force"))
    assert effect.clause.id == "core:in-force"
    assert effect.absent == ["set_aside(rush-from-spell)"]


def test_a_prohibition_with_several_grounds_lists_each():
    """Every failed condition of a clause is a separate ground of the same reason."""
    verdict = explain(ROOT / "tests/rulings/berserk/107/107.2-own-target.yaml", "strike_attack(friend, vail)")
    grounds = verdict.blocked_by[0].grounds
    decisive = sorted(g.premises[0].premises[-1].atom for g in grounds)
    assert decisive == ["closed(friend)", "controller(vail, p1)"]
