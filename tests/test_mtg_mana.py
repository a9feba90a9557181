"""Magic's mana: a cost's symbols reach the rules as facts, a player's mana pool is checked
against the game's pool kinds, and bad input names the field and the nearest word."""

import re
from pathlib import Path

import pytest

from pybridge.api import check, facts_text
from pybridge.errors import JudgeError
from pybridge.input.situation import load_situation

SITUATION = """\
game: mtg
viewpoint: p1
players: [{id: p1, first: true, pool: {red: 1}}, {id: p2}]
turn: {number: 3, active: p1, stage: precombat_main}
cards:
  - {id: bolt, card: Lightning Bolt, controller: p1, zone: hand}
  - {id: pine, card: Pine Walker, controller: p1, zone: hand}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "situation.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_cost_and_a_pool_become_facts(tmp_path):
    facts = facts_text(load_situation(write(tmp_path, SITUATION)))
    assert 'pool("p1",red,1).' in facts
    assert 'text_symbol("{R}",1,"R").' in facts
    # Pine Walker: mana cost {3}{G}{G} and morph {4}{G}; numbers come as numbers
    assert 'text_number("{3}{G}{G}",1,3).' in facts
    assert 'text_symbol("{3}{G}{G}",3,"G").' in facts
    assert 'text_number("{4}{G}",1,4).' in facts


def test_the_pool_pays_and_an_empty_one_does_not(tmp_path):
    verdicts = {v.action: v.verdict for v in check(load_situation(write(tmp_path, SITUATION))).verdicts}
    assert verdicts["cast(bolt, p2)"] == "legal"
    assert verdicts["cast_face_down(pine, morph)"] == "illegal"
    empty = SITUATION.replace(", pool: {red: 1}", "")
    verdicts = {v.action: v.verdict for v in check(load_situation(write(tmp_path, empty))).verdicts}
    assert verdicts["cast(bolt, p2)"] == "illegal"


@pytest.mark.parametrize("old, new, field, expected", [
    ("pool: {red: 1}", "pool: {rde: 1}", "players[0].pool.rde", "unknown pool kind 'rde'; did you mean 'red'?"),
    ("pool: {red: 1}", "pool: {red: -1}", "players[0].pool.red", "expected a whole number of at least 0"),
    ("pool: {red: 1}", "pool: {red: 1}, mana: 2", "players[0].mana", "is not a known field here"),
])
def test_a_bad_pool_names_the_field(tmp_path, old, new, field, expected):
    path = write(tmp_path, SITUATION.replace(old, new, 1))
    with pytest.raises(JudgeError) as caught:
        load_situation(path)
    message = caught.value.render()
    # the file, the line and column of the value (YAML), then the field
    assert re.match(rf"{re.escape(str(path))}:3:\d+: field {re.escape(field)}: ", message), message
    assert expected in message


def test_the_reason_names_the_mana_missing(tmp_path):
    """A cast that can't be paid rests on a cannot_pay atom naming the types and the counts."""
    no_mana = SITUATION.replace(", pool: {red: 1}", "")
    report = check(load_situation(write(tmp_path, no_mana)), trees=True)
    verdict = next(v for v in report.verdicts if v.action == "cast(bolt, p2)")
    assert verdict.verdict == "illegal" and "601.2h" in verdict.cites
    reasons = [n for n in report.nodes.values() if n.predicate == "cannot_pay/5"]
    assert any(n.arguments[1:] == ["cast(bolt, p2)", "red", "1", "0"] for n in reasons), [n.atom for n in reasons]
