"""A situation's die rolls (history: rolls) are checked where the file is read: a face outside
1-6, rolls on an event that states none, rolls without the attack's target, and a second die for
a creature that rolls once are each refused with one line naming the file and the field."""

from pathlib import Path

import pytest

from pybridge.errors import JudgeError
from pybridge.input.situation import load_situation

BOARD = """\
game: berserk
viewpoint: p2
players: [{id: p1, first: true}, {id: p2}]
turn: {number: 3, active: p1, stage: main, phase: attack}
cards:
  - {id: wolf, card: Вайл, controller: p1, cell: {column: 3, row: 1}, arrived: 1, open: false}
  - {id: foe, card: Вайл, controller: p2, cell: {column: 3, row: 1}, arrived: 2}
history:
  - {turn: 3, action: strike_attack, actor: wolf, target: foe, rolls: ROLLS}
"""


def error_of(tmp_path: Path, rolls: str, event: str = "strike_attack", target: str = "target: foe, ") -> str:
    text = BOARD.replace("ROLLS", rolls).replace("strike_attack", event).replace("target: foe, ", target)
    path = tmp_path / "situation.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(JudgeError) as caught:
        load_situation(path)
    return caught.value.render()


def test_stated_rolls_load(tmp_path):
    path = tmp_path / "situation.yaml"
    path.write_text(BOARD.replace("ROLLS", "{attacker: [6], defender: [1]}"), encoding="utf-8")
    event = load_situation(path).history[0]
    assert (event.rolls.attacker, event.rolls.defender) == ([6], [1])


@pytest.mark.parametrize("rolls, field", [
    ("{attacker: [7], defender: [1]}", "history[0].rolls.attacker[0]"),
    ("{attacker: [6], defender: [0]}", "history[0].rolls.defender[0]"),
    ("{attacker: [], defender: [1]}", "history[0].rolls.attacker"),
])
def test_a_face_outside_one_to_six_is_refused(tmp_path, rolls, field):
    message = error_of(tmp_path, rolls)
    # the file, the line and column of the value where the reader knows them, and the field
    assert message.startswith(f"{tmp_path / 'situation.yaml'}:"), message
    assert f" field {field}: " in message, message
    assert "\n" not in message.strip()


def test_rolls_on_an_event_that_states_none(tmp_path):
    message = error_of(tmp_path, "{attacker: [3]}", event="shot")
    assert "field history[0].rolls: a shot event states no die rolls; only strike_attack may" in message


def test_rolls_need_the_attacks_target(tmp_path):
    message = error_of(tmp_path, "{attacker: [3]}", target="")
    assert "field history[0]: the rolls of a strike_attack event belong to its target" in message


def test_two_dice_only_for_a_creature_that_rolls_twice(tmp_path):
    message = error_of(tmp_path, "{attacker: [2, 6], defender: [1]}")
    assert "field history[0].rolls.attacker: two dice are stated for 'wolf', which rolls once" in message
