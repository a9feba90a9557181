"""The projection onto a player's knowledge: what becomes an unknown card."""

import pytest

from pybridge.api import check, facts_text
from pybridge.input.situation import situation_from_data
from pybridge.input.structs import replace
from pybridge.input.viewpoint import unknown_cards_in
from pybridge.report.render import to_json


def situation(**changes):
    data = {
        "game": "berserk", "viewpoint": "p1",
        "players": [{"id": "p1", "first": True}, {"id": "p2"}],
        "turn": {"number": 3, "active": "p1", "stage": "main", "phase": "choice"},
        "cards": [
            {"id": "vail", "card": "Вайл", "controller": "p1", "cell": {"column": 2, "row": 1}, "arrived": 1},
            {"id": "my-spell", "card": "Ядовитое пламя", "controller": "p1", "zone": "hand"},
            {"id": "their-spell", "card": "Ядовитое пламя", "controller": "p2", "zone": "hand"},
            {"id": "my-top", "card": "Вайл", "controller": "p1", "zone": "deck"},
            {"id": "shown", "card": "Вайл", "controller": "p2", "zone": "deck", "revealed": True},
        ],
    }
    data.update(changes)
    return situation_from_data(data)


def test_a_hand_is_seen_by_its_owner_only_and_a_deck_by_nobody():
    facts = facts_text(situation())
    assert '"my-spell"' in facts and '"shown"' in facts
    for secret in ("their-spell", "my-top"):
        assert secret not in facts
    assert 'zone("hidden@p2:hand#1",hand).' in facts
    assert 'zone("hidden@p1:deck#1",deck).' in facts
    assert "Ядовитое пламя" in facts  # the viewer's own hand card keeps its name...
    assert facts.count("Ядовитое пламя") == 1  # ...the opponent's does not


def test_the_opponent_sees_the_mirror_image():
    facts = facts_text(situation(viewpoint="p2"))
    assert '"their-spell"' in facts and "my-spell" not in facts
    assert 'zone("hidden@p1:hand#1",hand).' in facts


def test_swapping_the_opponents_hand_cards_changes_nothing_for_the_viewer():
    base = situation()
    swapped = replace(base, cards=[
        replace(c, card="Ассасин", id="other-id") if c.id == "their-spell" else c
        for c in base.cards])
    assert to_json(check(base)) == to_json(check(swapped))


@pytest.mark.parametrize("text, found", [
    ("use(a[.(a, intrigues, hidden@aa:1.2)", ["hidden@aa:1.2"]),  # a bracket in another card's id
    ("x(hidden@p2:x(1):3.1, hidden@Вайл:battlefield#1)", ["hidden@p2:x(1):3.1", "hidden@Вайл:battlefield#1"]),
    ("strike_attack(a, b)", []),
])
def test_unknown_cards_are_found_in_an_actions_text(text, found):
    assert unknown_cards_in(text) == found
