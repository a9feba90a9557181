"""Information flow: one reproducer per leak issue 10 found outside `check`.

Each test builds two situations that differ only in what the asking player may
not know and requires the same output for both (or, for the viewer's own facts,
the same verdict as the other player gives where both see the same cards).
The generated property over every command is in test_information_flow_commands.py.
"""

from __future__ import annotations

import itertools
import os
import re
from contextlib import contextmanager

import pytest

from pybridge.api import check, facts_text, resolve
from pybridge.errors import JudgeError
from pybridge.input.situation import situation_from_data
from pybridge.report.render import resolution_text, to_json

PLAYERS = [{"id": "p1", "first": True}, {"id": "p2"}]
P1_TURN = {"number": 3, "active": "p1", "stage": "main", "phase": "choice"}
ARCHER = {"id": "archer", "card": "Вайл", "controller": "p1", "cell": {"column": 2, "row": 1}, "arrived": 1,
          "features": [{"shot": {"damage": 1, "range": 3, "cost": "tap"}}]}
# What an untouched hidden card may be: a card whose constant feature forces shots at it
# (Мерцающий змей, forced_target_ranged), or a plain creature.
FORCED_TARGET = {"id": "secret-serpent", "card": "Мерцающий змей"}
PLAIN = {"id": "secret-plain", "name": "Secret plain creature", "properties": {"type": "creature", "health": 5}}


def _berserk(untouched: dict, **changes) -> dict:
    data = {"game": "berserk", "viewpoint": "p1", "players": PLAYERS, "turn": P1_TURN, "cards": [
        ARCHER,
        {"id": "secret-target", "card": "Вайл", "controller": "p2", "cell": {"column": 1, "row": 1}, "hidden": True},
        {**untouched, "controller": "p2", "cell": {"column": 3, "row": 1}, "hidden": True},
    ]}
    data.update(changes)
    return data


def _resolved(data: dict, action: str) -> str:
    """Everything resolve tells the asker: the outcome (text and JSON) and the report with it,
    or the error it gives instead."""
    try:
        result, report = resolve(situation_from_data(data), action)
    except JudgeError as exc:
        return f"error: {exc.render()}"
    return resolution_text(result, report) + to_json(result) + to_json(report)


@contextmanager
def _environment(name: str, value: str):
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before


def _judgements(data: dict, player: str) -> int:
    """How many judgements the rules give ``player`` here, read off the limit's own error."""
    with _environment("CCG_JUDGE_MAX_JUDGEMENTS", "1"), pytest.raises(JudgeError) as refused:
        check(situation_from_data(data), player=player)
    return int(re.search(r"gives (\d+) judgements", refused.value.message).group(1))


# (a) -----------------------------------------------------------------------

def test_resolve_does_not_tell_what_an_untouched_hidden_card_is():
    """A shot at the hidden card at 1.1 is resolved (and reveals that card, 532.3); the hidden card
    at 3.1 is a forced-target card or a plain creature. The old resolve judged the whole truth and
    printed 'feature:forced-target ... 532.4 overrides it' for the first."""
    action = "shot(archer, hidden@p2:1.1)"
    serpent, plain = (_resolved(_berserk(untouched), action) for untouched in (FORCED_TARGET, PLAIN))
    assert "EXECUTED" in serpent and "secret-target" in serpent  # resolved, the target revealed
    assert serpent == plain
    assert "forced-target" not in serpent
    for secret in ("secret-serpent", "secret-plain", "Мерцающий змей", "Secret plain creature"):
        assert secret not in serpent


def test_the_untouched_card_is_not_vacuous():
    """The two truths do differ for the card's controller: its identity matters to the rules."""
    own = [check(situation_from_data(_berserk(u)), player="p2") for u in (FORCED_TARGET, PLAIN)]
    assert to_json(own[0]) != to_json(own[1])


# (b) -----------------------------------------------------------------------

def test_resolve_fails_alike_under_a_judgements_limit_between_the_truths():
    """The untouched card is the serpent with four effects of its own text, or the plain creature.
    The old resolve counted the judgements of the whole truth (each such effect is one: set aside
    by 532.4), so a limit between the two truths' counts refused one and resolved the other. From
    just below both counts up to the larger: whether resolve is refused, and how, must not depend
    on the untouched card."""
    auras = [{"id": f"aura-{i}", "target": "archer", "kind": "modify", "what": "health", "value": -1,
              "timestamp": 1 + i, "source": FORCED_TARGET["id"]} for i in range(4)]
    truths = [_berserk(FORCED_TARGET, effects=auras), _berserk(PLAIN)]
    counts = sorted(_judgements(data, "p2") for data in truths)  # p2 sees every card here
    assert counts[0] < counts[1]
    refusals = []
    for limit in range(counts[0] - 1, counts[1]):
        with _environment("CCG_JUDGE_MAX_JUDGEMENTS", str(limit)):
            outcomes = [_resolved(data, "shot(archer, hidden@p2:1.1)") for data in truths]
        refused = [o if o.startswith("error: ") else "resolved" for o in outcomes]
        assert refused[0] == refused[1], limit
        refusals.append(refused[0])
    assert "judgements" in refusals[0]  # the limit does bite: below both counts resolve is refused


# (c) -----------------------------------------------------------------------

def test_resolve_of_the_opponents_hidden_cards_action_is_refused_naming_the_player_only():
    """In p2's turn p1 asks to resolve the strike of p2's hidden card. The old resolve judged it
    as p2, against the truth, and revealed the card's id; now it is not p1's to declare."""
    p2_turn = {"number": 4, "active": "p2", "stage": "main", "phase": "choice"}
    mine = {"id": "mine", "card": "Вайл", "controller": "p1", "cell": {"column": 3, "row": 1}, "arrived": 1}
    action = "strike_attack(hidden@p2:3.1, mine)"
    outputs = []
    for identity in (FORCED_TARGET, PLAIN):
        hidden = {**identity, "controller": "p2", "cell": {"column": 3, "row": 1}, "hidden": True, "arrived": 2}
        data = {"game": "berserk", "viewpoint": "p1", "players": PLAYERS, "turn": p2_turn, "cards": [mine, hidden]}
        listed = {v.action: v.player for v in check(situation_from_data(data)).verdicts}
        assert listed.get(action) == "p2"  # the action exists, and is p2's
        outputs.append(_resolved(data, action))
    assert outputs[0] == outputs[1]
    assert outputs[0] == f"error: field ACTION: {action} is p2's to declare, not p1's"


# (d) -----------------------------------------------------------------------

def _magic(first_aura: str, second_aura: str) -> dict:
    """p2 casts Lightning Bolt at p1's visible Grizzly Bears; p1 has two face-down permanents, each
    with an unknown (face-down) card attached, and two such cards."""
    face_down = {"controller": "p1", "hidden": True, "arrived": 2}
    return {"game": "mtg", "viewpoint": "p2", "players": PLAYERS,
            "turn": {"number": 4, "active": "p2", "stage": "precombat_main"},
            "cards": [
                {"id": "bolt", "card": "Lightning Bolt", "controller": "p2", "zone": "hand"},
                {"id": "mountain", "card": "Mountain", "controller": "p2", "arrived": 1},  # pays the Bolt's {R}
                {"id": "bears", "card": "Grizzly Bears", "controller": "p1", "arrived": 1},
                {**face_down, "id": "secret-morphed", "card": "Exalted Angel",
                 "properties": {"face_down_by": "morph", "attached": first_aura}},
                {**face_down, "id": "secret-cloaked", "card": "Grizzly Bears",
                 "properties": {"face_down_by": "cloak", "attached": second_aura}},
                {**face_down, "id": first_aura, "card": "Grizzly Bears", "properties": {"face_down_by": "manifest"}},
                {**face_down, "id": second_aura, "card": "Dryad Arbor", "properties": {"face_down_by": "manifest"}},
            ],
            "effects": [{"id": "paint", "target": "secret-morphed", "kind": "set", "what": "color", "value": "blue",
                         "timestamp": 10}]}


def test_magic_neutral_numbering_ignores_the_real_ids_of_attached_unknown_cards():
    """The old numbering sorted on the real id of the card an `attached` property names, so
    renaming that unknown card renumbered the face-down permanents the viewer sees."""
    outputs = [facts_text(situation_from_data(_magic(first, "secret-b-aura")))
               for first in ("secret-a-aura", "secret-z-aura")]
    assert outputs[0] == outputs[1]
    assert "secret-" not in outputs[0]


def test_magic_resolve_at_a_visible_permanent_names_no_face_down_permanent():
    """The old resolve judged the truth and listed p1's face-down permanents by their real ids."""
    outputs = [_resolved(_magic(first, "secret-b-aura"), "cast(bolt, bears)")
               for first in ("secret-a-aura", "secret-z-aura")]
    assert "EXECUTED" in outputs[0]
    assert outputs[0] == outputs[1]
    assert "secret-" not in outputs[0]
    for name in ("Exalted Angel", "Dryad Arbor"):
        assert name not in outputs[0]
# (e) -----------------------------------------------------------------------

def test_the_viewers_view_keeps_a_non_constant_effect_on_their_own_card():
    """An effect on p1's archer that forbids its shots, made by p2's hidden card by an action (not a
    constant feature). The projection used to drop it from p1's view along with the card's text:
    as p1 the shot was legal, as p2 illegal by 514.2, and resolve then said 'not executed'.
    Both players see the archer and the visible foe: they must agree on the shot at the foe."""
    hex_effect = {"id": "hex", "target": "archer", "kind": "forbid", "what": "shot", "timestamp": 4,
                  "source": "secret-plain", "constant": False}
    data = _berserk(PLAIN, cards=[
        ARCHER,
        {"id": "foe", "card": "Вайл", "controller": "p2", "cell": {"column": 2, "row": 1}, "arrived": 2},
        {**PLAIN, "controller": "p2", "cell": {"column": 3, "row": 1}, "hidden": True},
    ], effects=[hex_effect])
    verdicts = {player: check(situation_from_data(data), player=player).verdict("p1", "shot(archer, foe)")
                for player in ("p1", "p2")}
    assert (verdicts["p1"].verdict, verdicts["p1"].cites) == (verdicts["p2"].verdict, verdicts["p2"].cites)
    assert verdicts["p1"].verdict == "illegal" and "514.2" in verdicts["p1"].cites
    refused = _resolved(data, "shot(archer, foe)")
    assert refused.startswith("error: ") and "illegal" in refused


# Numbering by what the viewer sees, not by the order of the file ---------------

def _orders(data: dict, unknown_ids: list[str]):
    """The situation with its unknown cards listed in every order (the rest stays in place)."""
    slots = [i for i, card in enumerate(data["cards"]) if card["id"] in unknown_ids]
    for order in itertools.permutations([data["cards"][i] for i in slots]):
        cards = list(data["cards"])
        for slot, card in zip(slots, order):
            cards[slot] = card
        yield {**data, "cards": cards}


HAND_CARDS = {"game": "berserk", "viewpoint": "p1", "players": PLAYERS, "turn": P1_TURN,
              "cards": [ARCHER,
                        {"id": "secret-one", "card": "Ядовитое пламя", "controller": "p2", "zone": "hand"},
                        {"id": "secret-two", "card": "Вайл", "controller": "p2", "zone": "hand"},
                        {"id": "secret-three", "card": "Вайл", "controller": "p2", "zone": "hand"}],
              # an effect made in the open on one of them: the viewer knows which card it is on
              "effects": [{"id": "mark", "target": "secret-two", "kind": "modify", "what": "health", "value": 1,
                           "timestamp": 3, "source": "archer", "constant": False}]}


@pytest.mark.parametrize("data, unknown_ids", [
    (HAND_CARDS, ["secret-one", "secret-two", "secret-three"]),
    (_magic("secret-a-aura", "secret-b-aura"),
     ["secret-morphed", "secret-cloaked", "secret-a-aura", "secret-b-aura"]),
], ids=["berserk-hand", "magic-attached"])
def test_neutral_numbering_does_not_follow_the_order_the_file_lists_unknown_cards_in(data, unknown_ids):
    """A file may list cards in any order, e.g. sorted by their real ids or names; the viewer's
    numbering of cards they may not see must come from what they do see (the effect on one hand
    card; which face-down card is attached to which), so the order tells them nothing. Before,
    the cards alike in their own public facts were numbered in the order of the file."""
    outputs = {facts_text(situation_from_data(variant)) for variant in _orders(data, unknown_ids)}
    assert len(outputs) == 1
