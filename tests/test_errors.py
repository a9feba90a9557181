"""Bad input gets one clear paragraph naming the file, the field and what was
expected — through the CLI, with exit status 2 and no traceback."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pybridge.errors import JudgeError
from pybridge.input.situation import load_situation, situation_from_data

VALID = """\
game: berserk
viewpoint: p1
players: [{id: p1, first: true}, {id: p2}]
turn: {number: 3, active: p1, stage: main, phase: choice}
cards:
  - {id: vail, card: Вайл, controller: p1, cell: {column: 2, row: 1}, arrived: 1}
  - {id: foe, card: Вайл, controller: p2, cell: {column: 4, row: 1}, arrived: 2}
"""


def write(tmp_path: Path, text: str, name: str = "situation.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(JudgeError) as caught:
        load_situation(path)
    return caught.value.render()


def test_valid_file_loads(tmp_path):
    assert [c.id for c in load_situation(write(tmp_path, VALID)).cards] == ["vail", "foe"]


@pytest.mark.parametrize("change, field, expected", [
    (("arrived: 1}", "arrived: soon}"), "cards[0].arrived", "expected a whole number, got 'soon'"),
    (("column: 2", "column: 0"), "cards[0].cell.column", "expected a whole number of at least 1, got 0"),
    (("game: berserk", "game: chess"), "game", "unknown game 'chess'; known games: berserk"),
    (("phase: choice", "phase: lunch"), "turn.phase", "unknown phase 'lunch'; expected one of"),
    (("viewpoint: p1", "viewpoint: p3"), "viewpoint", "unknown player 'p3'"),
    (("{id: foe,", "{id: vail,"), "cards[1].id", "duplicate card id 'vail'"),
    (("column: 4, row: 1}", "column: 2, row: 1}, side: p1"), "cards[1].side", "is not a known field here"),
    (("controller: p2", "controler: p2"), "cards[1].controler", "not a known field here; did you mean 'controller'"),
    (("turn: {number: 3, ", "turn: {"), "turn.number", "is required but missing"),
    (("cell: {column: 4, row: 1}, arrived: 2", "zone: flying, hidden: true, arrived: 2"), "cards[1].zone",
     "a hidden card lies face down in a cell of the battle zone, not in zone 'flying'"),
    (("cell: {column: 4, row: 1}, arrived: 2", "hidden: true, arrived: 2"), "cards[1].cell",
     "a hidden card lies face down in a cell of the battle zone: give its cell"),
])
def test_error_names_the_field(tmp_path, change, field, expected):
    old, new = change
    assert old in VALID
    message = error_of(write(tmp_path, VALID.replace(old, new, 1)))
    # file:line:column where the field's value is, as compilers and clingo say it (a missing field has no place)
    place = r":\d+:\d+" if re.split(r"[.\[]", field)[-1 if "]" not in field[-1:] else -2] + ":" in new else ""
    assert re.match(re.escape(str(tmp_path / "situation.yaml")) + place + ": field " + re.escape(field) + ": ",
                    message), message
    assert expected in message


def test_unknown_card_lists_the_closest_names(tmp_path):
    message = error_of(write(tmp_path, VALID.replace("card: Вайл", "card: Вайлл", 1)))
    assert "field cards[0].card: unknown card 'Вайлл' in the berserk catalogue; did you mean 'Вайл'" in message


def test_two_cards_in_one_cell(tmp_path):
    message = error_of(write(tmp_path, VALID.replace("controller: p2, cell: {column: 4, row: 1}",
                                                     "controller: p1, cell: {column: 2, row: 1}")))
    assert "field cards[1].cell: cell already taken by card 'vail'" in message


def test_cell_clash_is_named(tmp_path):
    text = VALID.replace("controller: p2, cell: {column: 4, row: 1}", "controller: p2, cell: {column: 2, row: 1, side: p1}")
    assert "field cards[1].cell: cell already taken by card 'vail'" in error_of(write(tmp_path, text))


def test_a_character_yaml_refuses_is_named(tmp_path):
    message = error_of(write(tmp_path, VALID.replace("game: berserk", "game: ber\x1fserk", 1)))
    assert message.endswith("situation.yaml: not valid YAML: special characters are not allowed")


def test_malformed_yaml_names_the_line(tmp_path):
    message = error_of(write(tmp_path, VALID.replace("cards:", "cards: [", 1)))
    assert "not valid YAML" in message and "line" in message


def test_json_situations_are_accepted_and_checked(tmp_path):
    path = write(tmp_path, '{"game": "berserk", "viewpoint": "p1"}', "situation.json")
    message = error_of(path)
    assert message.endswith("situation.json: field turn: is required but missing")


def test_missing_file(tmp_path):
    assert error_of(tmp_path / "nope.yaml").endswith("nope.yaml: file not found")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pybridge", *args], capture_output=True, text=True, timeout=120)


def test_cli_error_is_one_paragraph_without_traceback(tmp_path):
    path = write(tmp_path, VALID.replace("arrived: 1}", "arrived: soon}", 1))
    run = run_cli("check", str(path))
    assert run.returncode == 2
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    assert run.stderr.startswith("error: ") and "field cards[0].arrived" in run.stderr
    assert run.stderr.strip().count("\n") == 0


def test_cli_explain_of_an_unknown_card_or_action_names_the_nearest(tmp_path):
    path = str(write(tmp_path, VALID))
    run = run_cli("explain", path, "strike_attack(vail, fo)")
    assert run.returncode == 2
    assert "no card or player 'fo' in this situation (argument target of strike_attack); did you mean 'foe'" \
        in run.stderr
    run = run_cli("explain", path, "strike_atack(vail, foe)")
    assert run.returncode == 2 and "unknown action 'strike_atack'; did you mean 'strike_attack'" in run.stderr


def test_cli_bad_option_override(tmp_path):
    run = run_cli("check", str(write(tmp_path, VALID)), "--option", "range_metric=hexagonal")
    assert run.returncode == 2
    assert "field options.range_metric: unknown value 'hexagonal'; expected 'chebyshev', 'manhattan'" in run.stderr


def test_a_cell_off_the_board(tmp_path):
    message = error_of(write(tmp_path, VALID.replace("column: 4, row: 1}", "column: 6, row: 1}", 1)))
    assert "field cards[1].cell.column: column 6 is off the board (5 columns, 3 rows per side)" in message
    message = error_of(write(tmp_path, VALID.replace("column: 4, row: 1}", "column: 4, row: 4}", 1)))
    assert "field cards[1].cell.row: row 4 is off the board" in message


def test_a_defect_of_ccg_judge_is_reported_as_such_without_traceback(monkeypatch, capsys, tmp_path):
    from pybridge import api, cli

    def broken(*args, **kwargs):
        raise RuntimeError("something inside broke")

    monkeypatch.setattr(api, "check", broken)
    monkeypatch.setattr(sys, "argv", ["ccg-judge", "check", str(write(tmp_path, VALID))])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == 3
    err = capsys.readouterr().err
    assert err.startswith("internal error: RuntimeError: something inside broke — this is a bug in ccg-judge")
    assert "Traceback" not in err


def test_a_card_reference_must_name_a_card_of_the_situation(tmp_path):
    text = (Path(__file__).parent.parent / "examples" / "mtg" / "cryptic-coat.yaml").read_text(encoding="utf-8")
    assert "attached: coat" in text
    message = error_of(write(tmp_path, text.replace("attached: coat", "attached: nosuch", 1)))
    assert "properties.attached: no card with id 'nosuch'" in message


def _data_with(change) -> dict:
    import yaml
    data = yaml.safe_load(VALID)
    change(data)
    return data


@pytest.mark.parametrize("change, field, message", [
    # a mapping's value: msgspec says only "[...]"; the error names the key
    (lambda d: d["cards"][0].update(markers={"wound": 1, "poison": -1}), "cards[0].markers.poison",
     "expected a whole number of at least 0, got -1"),
    (lambda d: d["cards"][0].update(properties={"cost": 2, "strike": [1, "a", 3]}), "cards[0].properties.strike[1]",
     "expected a whole number, got 'a'"),
    (lambda d: d["cards"][0].update(features=[{"shot": {"range": 2}}, {"regeneration": {"Value": 1}}]),
     "cards[0].features[1].regeneration.Value",
     "the key 'Value' is not valid: expected a name: lowercase letters, digits and _, starting with a letter"),
    (lambda d: d["cards"][0].update(properties={"Cost": 2}), "cards[0].properties.Cost",
     "the key 'Cost' is not valid: expected a name: lowercase letters, digits and _, starting with a letter"),
    (lambda d: d.update(effects=[{"id": "e", "target": "vail", "kind": "grnt", "what": "x", "timestamp": 1}]),
     "effects[0].kind", "expected one of 'grant', 'remove', 'forbid', 'permit', 'oblige', 'modify', 'set', got 'grnt'"),
    (lambda d: d.update(effects=[{"id": "e", "target": {}, "kind": "grant", "what": "x", "timestamp": 1}]),
     "effects[0].target", "expected a mapping of at least 1 entry, got a mapping of 0 entries"),
    (lambda d: d.update(effects=[{"id": "e", "target": ["vail"], "kind": "grant", "what": "x", "timestamp": 1}]),
     "effects[0].target", "expected a text or a mapping, got a list of 1 value"),
    (lambda d: d["players"].append({"id": "p3"}), "players", "expected a list of at most 2 values, got a list of 3 values"),
    (lambda d: d["cards"][1].update(id="fo\u200be"), "cards[1].id",
     "contains a control or format character (U+200B ZERO WIDTH SPACE), which a report cannot print"),
    (lambda d: d["cards"][1].update(id=""), "cards[1].id", "expected a text of at least 1 character, got ''"),
    (lambda d: d["turn"].update(number=True), "turn.number", "expected a whole number, got true"),
    (lambda d: d["turn"].update(number=3.0), "turn.number", "expected a whole number, got the decimal number 3.0"),
    (lambda d: d["cards"][0].update(open="yes"), "cards[0].open", "expected true or false, got 'yes'"),
    (lambda d: d["turn"].update(stag="main"), "turn.stag", "is not a known field here; did you mean 'stage'"),
    (lambda d: d["turn"].update(xyzzy=1), "turn.xyzzy",
     "is not a known field here; known here: active, number, phase, stage, step"),
])
def test_structural_errors_name_the_field_as_written(change, field, message):
    with pytest.raises(JudgeError) as caught:
        situation_from_data(_data_with(change), source="s.yaml")
    assert (caught.value.field, caught.value.message) == (field, message)


@pytest.mark.parametrize("change, field, message", [
    # found in review: a mapping that is a model with a key YAML read as a number
    (lambda d: d.update({1999: "x"}), "1999", "a field name is a text, got 1999"),
    (lambda d: d["players"][1].update({1: "x"}), "players[1].1", "a field name is a text, got 1"),
    (lambda d: d["cards"][0].update(markers={None: 1}), "cards[0].markers.null",
     "the key null is not valid: expected a text"),
    # Python's $ matches before a final newline; a name must not end in one
    (lambda d: d["turn"].update(phase="choice\n"), "turn.phase",
     "expected a name: lowercase letters, digits and _, starting with a letter, got 'choice\\n'"),
    # an unknown field is named as written, backticks and all
    (lambda d: d["cards"][0].update({"arrived`": 1}), "cards[0].arrived`",
     "is not a known field here; did you mean 'arrived'"),
])
def test_odd_keys_and_names_are_named_as_written(change, field, message):
    with pytest.raises(JudgeError) as caught:
        situation_from_data(_data_with(change), source="s.yaml")
    assert (caught.value.field, caught.value.message) == (field, message)


@pytest.mark.parametrize("flag", ["--player=p1\x07", "--option=edition=531\x07"])
def test_a_command_line_value_a_report_cannot_print_is_refused(tmp_path, flag):
    run = run_cli("check", str(write(tmp_path, VALID)), flag)
    assert run.returncode == 2, run.stderr
    field = "viewpoint" if flag.startswith("--player") else "edition"
    assert run.stderr == (f"error: command line: field {field}: contains a control or format character "
                          "(U+0007), which a report cannot print\n")


DIED_AFTER_A_FLIGHT_STEP = """\
game: berserk
viewpoint: p1
players: [{id: p1, first: true}, {id: p2}]
turn: {number: 5, active: p2, stage: main, phase: choice}
cards:
  - {id: crypt, card: Хозяин склепа, controller: p1, cell: {column: 3, row: 2}, arrived: 1}
  - {id: foe, card: Кочевник, controller: p1, zone: graveyard}
  - {id: dead, card: CARD, controller: p2, ZONE}
history:
  - {turn: 5, action: STEP, actor: dead, target: foe}
  - {turn: 5, action: dies, actor: dead}
  - {turn: 5, action: dies, actor: foe}
"""


@pytest.mark.parametrize("card, step", [
    ("Пустынный кондор", "dive"),             # its dive lands it (to: self)
    ("Искатель тайн", "prophecy_outcome"),    # its prophecy may take it to the air
])
def test_a_death_off_the_board_after_a_flight_step_needs_its_movement(tmp_path, card, step):
    """model:died-as-flyer reads such a death by the movement the situation gives the card; the
    history keeps no order within a turn, so after a step that takes it to the air or lands it the
    printed movement may be the wrong one: the loader asks for the movement, naming where."""
    text = DIED_AFTER_A_FLIGHT_STEP.replace("CARD", card).replace("STEP", step)
    message = error_of(write(tmp_path, text.replace("ZONE", "zone: graveyard")))
    assert "field history[1]" in message
    assert f"history[0] ({step})" in message and "cards[2].properties.movement" in message
    for stated in ("zone: graveyard, properties: {movement: 1}", "zone: flying, arrived: 2"):
        load_situation(write(tmp_path, text.replace("ZONE", stated)))  # stated, or on the board: its zone


def test_a_flight_step_of_another_card_asks_nothing_of_its_target(tmp_path):
    """The condor's dive lands the condor, not the creature it pushes: that one's death is read as
    before."""
    text = DIED_AFTER_A_FLIGHT_STEP.replace("CARD", "Пустынный кондор").replace("STEP", "dive")
    text = text.replace("ZONE", "zone: graveyard, properties: {movement: flying}")
    assert [c.id for c in load_situation(write(tmp_path, text)).cards] == ["crypt", "foe", "dead"]
