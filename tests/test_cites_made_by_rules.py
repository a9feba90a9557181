"""A clause is cited for an atom only where a rule under that clause made it (issue 33): the check's
cite rules may say one clause of every atom of a predicate at once only when nothing but the
predicate's rules makes its atoms. An input predicate (``#defined``: the situation's facts) with a
rule of its own was cited with that rule's clause for every fact of the situation, the rule never
having fired. No shipped predicate is such today (protection/2 has no rule), so the rules here are
a copy with one planted rule that derives protection/2; real clingo, real files."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from test_consistency import planted

from pybridge import api
from pybridge.game.encodings import use_asp_root
from pybridge.input.situation import situation_from_data

ROOT = Path(__file__).resolve().parent.parent
RULING = ROOT / "tests" / "rulings" / "berserk" / "531" / "531.1-2-target-protected.yaml"
LAST_LINE = "action_kind(remove_markers(C, K), remove_markers) :- candidate(_, remove_markers(C, K), _).\n"
PLANTED = "model:planted-protection"
# A Вайл that arrived on turn 1 is protected from shots by the planted rule; the ruling's Вайл has
# no arrival turn (the rule does not fire) and is protected by the situation itself.
PLANTED_RULE = f"""
% --- {PLANTED} ----------------------------------------
protection(C, shot) :- card_name(C, "Вайл"), arrived(C, 1).
"""
SHOT = "shot(archer, warded)"


@pytest.fixture(scope="module")
def rules(tmp_path_factory) -> Path:
    return planted(tmp_path_factory.mktemp("rules"), "berserk/531_protection.lp", LAST_LINE,
                   LAST_LINE + PLANTED_RULE)


def consequence_cites(rules: Path, data: dict) -> dict[str, list[str]]:
    with use_asp_root(rules):
        report = api.check(situation_from_data(data))
    (verdict,) = [v for v in report.verdicts if v.action == SHOT]
    return {c.effect: list(c.cites) for c in verdict.consequences}


def ruling_data(*, protected_by_the_situation: bool) -> dict:
    data = yaml.safe_load(RULING.read_text(encoding="utf-8"))
    del data["ruling"]
    warded = data["cards"][-1]
    assert warded["id"] == "warded" and warded["protections"] == ["shot"]
    if not protected_by_the_situation:
        del warded["protections"]
        warded["arrived"] = 1
    return data


def test_a_fact_of_the_situation_is_not_cited_with_a_rule_that_did_not_make_it(rules):
    cites = consequence_cites(rules, ruling_data(protected_by_the_situation=True))
    assert cites["no_effect(warded, shot)"] == ["531.1", "531.1-1"]
    assert not any(PLANTED in found for found in cites.values()), cites


def test_the_same_atom_made_by_the_rule_cites_it(rules):
    cites = consequence_cites(rules, ruling_data(protected_by_the_situation=False))
    assert cites["no_effect(warded, shot)"] == ["531.1", "531.1-1", PLANTED]
