"""708.5 and the viewpoint projection for Magic: what one player is told
never depends on which card an opponent's face-down object really is.

Each base situation is rewritten with the opponent's face-down card replaced
by another card of the catalogue (ids, zones, face_down_by and the rest
kept). The facts the solver gets for the other player (``ccg-judge facts``)
must come out the same for every card of the catalogue; ``ccg-judge check
--json`` must come out byte for byte the same for a sample of cards that
differ in everything the rules read (types, colours, mana value, costs,
triggers, statics, double faces), which catches a leak after the facts, in
the report; for the controller, who may look at the card, it must not (or
the swap would prove nothing). A face-down spell on the stack is as opaque
as a face-down permanent."""

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from pybridge.cli import cli
from pybridge.game.catalogue import load_game

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "mtg" / "cryptic-coat.yaml"

# A face-down spell of p2 being countered, and a face-down permanent of p2
# targeted by p1's effects and spells, with one of its own effects in play.
ON_THE_STACK = {
    "game": "mtg",
    "viewpoint": "p1",
    "players": [{"id": "p1", "first": True}, {"id": "p2"}],
    "turn": {"number": 6, "active": "p2", "stage": "precombat_main", "phase": "nonactive_player_priority"},
    "cards": [
        {"id": "smother", "card": "Smother", "controller": "p1", "zone": "hand"},
        {"id": "reb", "card": "Red Elemental Blast", "controller": "p1", "zone": "hand"},
        {"id": "bolt", "card": "Lightning Bolt", "controller": "p1", "zone": "hand"},
        {"id": "pulse", "card": "Maelstrom Pulse", "controller": "p1", "zone": "hand"},
        {"id": "mine", "card": "Grizzly Bears", "controller": "p1", "hidden": True, "arrived": 3,
         "properties": {"face_down_by": "cloak"}},
        {"id": "spell", "card": "Exalted Angel", "controller": "p2", "zone": "stack", "hidden": True,
         "arrived": 6, "properties": {"face_down_by": "morph"}},
        {"id": "secret", "card": "Exalted Angel", "controller": "p2", "hidden": True, "arrived": 4,
         "open": False, "properties": {"face_down_by": "disguise", "attached": "aura"}},
        {"id": "twin", "card": "Grizzly Bears", "controller": "p2", "arrived": 2},
        {"id": "aura", "name": "Some Aura", "controller": "p2", "arrived": 4,
         "properties": {"type": "enchantment", "subtype": "aura"}},
    ],
    "effects": [
        {"id": "paint", "target": "secret", "kind": "set", "what": "color", "value": "blue", "timestamp": 10},
        {"id": "grow", "target": "secret", "kind": "modify", "what": "toughness", "value": 1, "timestamp": 11},
        {"id": "own", "target": "twin", "kind": "modify", "what": "power", "value": 1, "timestamp": 12,
         "source": "secret"},
        {"id": "unmask", "target": "secret", "kind": "oblige", "what": "turn_face_up", "timestamp": 13,
         "constant": False},
    ],
    "history": [{"turn": 6, "action": "leaves_stack", "actor": "spell"}],
}

# p2's cloaked and manifested cards are ordered face up (an instant or sorcery
# would be revealed instead, 701.58g/701.40g: that must not reach p1), one of
# p1's spells on the stack targets the cloaked one, and p2 has a card in hand
# (would give p2 cast options if it leaked) and one in the library.
ORDERED_FACE_UP = {
    "game": "mtg",
    "viewpoint": "p1",
    "players": [{"id": "p1", "first": True}, {"id": "p2"}],
    "turn": {"number": 6, "active": "p2", "stage": "precombat_main", "phase": "nonactive_player_priority"},
    "cards": [
        {"id": "smother", "card": "Smother", "controller": "p1", "zone": "hand"},
        {"id": "pulse", "card": "Maelstrom Pulse", "controller": "p1", "zone": "hand"},
        {"id": "reb", "card": "Red Elemental Blast", "controller": "p1", "zone": "stack"},
        {"id": "mine", "card": "Grizzly Bears", "controller": "p1", "hidden": True, "arrived": 3,
         "properties": {"face_down_by": "cloak"}},
        {"id": "twin", "card": "Example Masked Herald", "controller": "p2", "arrived": 2},
        {"id": "cloaked", "card": "Lightning Bolt", "controller": "p2", "hidden": True, "arrived": 4,
         "properties": {"face_down_by": "cloak"}},
        {"id": "manifested", "card": "Divination", "controller": "p2", "hidden": True, "arrived": 5,
         "properties": {"face_down_by": "manifest"}},
        {"id": "inhand", "card": "Lightning Bolt", "controller": "p2", "zone": "hand"},
        {"id": "top", "card": "Grizzly Bears", "controller": "p2", "zone": "library"},
    ],
    "effects": [
        {"id": "unmask-1", "target": "cloaked", "kind": "oblige", "what": "turn_face_up", "timestamp": 20,
         "constant": False},
        {"id": "unmask-2", "target": "manifested", "kind": "oblige", "what": "turn_face_up", "timestamp": 21,
         "constant": False},
        {"id": "shield", "target": "cloaked", "kind": "grant", "what": "ward", "timestamp": 22, "source": "twin",
         "constant": False},
    ],
    "history": [{"turn": 6, "action": "cast", "actor": "reb", "target": "cloaked"}],
}

# A face-down spell of p2's on the stack that p1 may counter or not, a
# face-down creature of p2's dying with an ability p1's Endless Whispers
# grants it, and one of p2's entering face down while p1's Kadena and
# Foundry Street Denizen watch (neither may see it).
SPELL_AND_EVENTS = {
    "game": "mtg",
    "viewpoint": "p1",
    "players": [{"id": "p1", "first": True}, {"id": "p2"}],
    "turn": {"number": 6, "active": "p2", "stage": "precombat_main", "phase": "nonactive_player_priority"},
    "cards": [
        {"id": "counter", "card": "Counterspell", "controller": "p1", "zone": "hand"},
        {"id": "stroke", "card": "Disdainful Stroke", "controller": "p1", "zone": "hand"},
        {"id": "bolt", "card": "Lightning Bolt", "controller": "p1", "zone": "hand"},
        {"id": "push", "card": "Fatal Push", "controller": "p1", "zone": "hand"},
        {"id": "whispers", "card": "Endless Whispers", "controller": "p1", "arrived": 2},
        {"id": "denizen", "card": "Foundry Street Denizen", "controller": "p1", "arrived": 2},
        {"id": "kadena", "card": "Kadena, Slinking Sorcerer", "controller": "p1", "arrived": 3},
        {"id": "morph", "card": "Ashcloud Phoenix", "controller": "p2", "zone": "stack", "hidden": True,
         "arrived": 6, "properties": {"face_down_by": "morph"}},
        {"id": "dying", "card": "Ashcloud Phoenix", "controller": "p2", "hidden": True, "arrived": 4,
         "properties": {"face_down_by": "manifest"}},
        {"id": "newcomer", "card": "Gore Swine", "controller": "p2", "hidden": True, "arrived": 6,
         "properties": {"face_down_by": "cloak"}},
    ],
    "effects": [
        {"id": "whisper", "target": "dying", "kind": "grant", "what": "dies_trigger", "timestamp": 10,
         "source": "whispers"},
    ],
    "history": [
        {"turn": 6, "action": "dies", "actor": "dying"},
        {"turn": 6, "action": "enters", "actor": "newcomer"},
    ],
}

CATALOGUE = sorted(load_game("mtg").cards)
# Cards that differ in everything the rules read; the judged report is swapped over these.
SAMPLE = ["Grizzly Bears", "Lightning Bolt", "Divination", "Dryad Arbor", "Delver of Secrets", "Exalted Angel",
          "Example Disguised Crocodile", "Akroma, Angel of Fury", "Sagu Mauler", "Nylea, God of the Hunt",
          "Aerie Bowmasters", "Hooded Hydra", "Ashcloud Phoenix", "Zoetic Cavern", "Void Winnower",
          "Cryptic Coat", "Fugitive Codebreaker", "Pine Walker", "Gore Swine", "Painter's Servant"]


def _check_json(data: dict, tmp_path: Path, name: str, player: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    output = ""
    for extra in ([], ["--trees"]):  # the first level of reasons, and every graph in full
        result = CliRunner().invoke(cli, ["check", str(path), "--format", "json", "--player", player, *extra])
        assert result.exit_code == 0, result.output
        output += result.output
    return output


def _swapped(data: dict, card_id: str, card_name: str) -> dict:
    changed = yaml.safe_load(yaml.safe_dump(data, allow_unicode=True))
    for card in changed["cards"]:
        if card["id"] == card_id:
            card["card"] = card_name
    return changed


# label, situation, viewer, controller, the controller's face-down ids, three
# cards the controller's own verdicts tell apart
BASES = [
    ("example", yaml.safe_load(EXAMPLE.read_text(encoding="utf-8")), "p1", "p2", ["secret"],
     ("Grizzly Bears", "Lightning Bolt", "Dryad Arbor")),
    ("stack", ON_THE_STACK, "p1", "p2", ["spell", "secret"],
     ("Grizzly Bears", "Delver of Secrets", "Elvish Visionary")),
    ("ordered-face-up", ORDERED_FACE_UP, "p1", "p2", ["top", "inhand", "manifested", "cloaked"],
     ("Grizzly Bears", "Lightning Bolt", "Cryptic Coat")),
    ("spell-and-events", SPELL_AND_EVENTS, "p1", "p2", ["morph", "dying", "newcomer"],
     ("Grizzly Bears", "Lightning Bolt", "Nightdrinker Moroii")),
]
NAMES = "label, base, viewer, controller, hidden_ids, distinct"


@pytest.mark.parametrize(NAMES, BASES, ids=[b[0] for b in BASES])
def test_opponent_report_ignores_identity_of_face_down_cards(label, base, viewer, controller, hidden_ids, distinct,
                                                             tmp_path):
    reference = _check_json(base, tmp_path, "base", viewer)
    for card_id in hidden_ids:
        for name in SAMPLE:
            swapped = _swapped(base, card_id, name)
            assert _check_json(swapped, tmp_path, "swapped", viewer) == reference, (card_id, name)


def _facts(data: dict, tmp_path: Path, player: str) -> str:
    path = tmp_path / "facts.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    result = CliRunner().invoke(cli, ["facts", str(path), "--player", player])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize(NAMES, BASES, ids=[b[0] for b in BASES])
def test_opponent_facts_ignore_identity_of_hidden_cards(label, base, viewer, controller, hidden_ids, distinct,
                                                        tmp_path):
    # The projection itself, before any rule: what reaches the solver for the viewer
    # is the same whichever card the opponent's hidden card is (rules that forget a
    # known_to_viewpoint check can then leak nothing either).
    reference = _facts(base, tmp_path, viewer)
    for card_id in hidden_ids:
        for name in CATALOGUE:
            assert _facts(_swapped(base, card_id, name), tmp_path, viewer) == reference, (card_id, name)


def test_ordered_face_up_is_judged_for_the_controller(tmp_path):
    # The base is not vacuous: for p2 the instruction does reach the rules (the
    # cloaked instant is revealed instead, the manifested sorcery too).
    own = _check_json(ORDERED_FACE_UP, tmp_path, "own", "p2")
    assert "701.58g" in own and "701.40g" in own
    assert "701.58g" not in _check_json(ORDERED_FACE_UP, tmp_path, "other", "p1")


@pytest.mark.parametrize(NAMES, BASES, ids=[b[0] for b in BASES])
def test_controller_report_does_see_the_card(label, base, viewer, controller, hidden_ids, distinct, tmp_path):
    # The swap is not vacuous: the controller's own report changes with the card.
    reports = {_check_json(_swapped(base, hidden_ids[-1], name), tmp_path, "own", controller)
               for name in distinct}
    assert len(reports) == 3


def test_public_distinguishers_do_reach_the_opponent(tmp_path):
    # 708.6: how the card came face down is public, so changing it may change the opponent's report.
    cloaked = _check_json(ON_THE_STACK, tmp_path, "cloak", "p1")
    other = _swapped(ON_THE_STACK, "secret", "Exalted Angel")
    for card in other["cards"]:
        if card["id"] == "secret":
            card["properties"]["face_down_by"] = "morph"
    assert _check_json(other, tmp_path, "morph", "p1") != cloaked
