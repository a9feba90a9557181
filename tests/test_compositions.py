"""Composed abilities (asp/berserk/abilities.lp and the vocabulary's `composition:` and
`primitives:`): a composition that does not fit its primitives is refused when the catalogue loads,
naming the card, the feature, the field and the nearest valid word; a valid one reaches the solver
as facts (ability_step/4, step_param/5, feature_param/4) and a keyword's template is filled from
the card's parameters."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import pybridge.game.catalogue as catalogue
from pybridge import api
from pybridge.game.catalogue import load_game
from pybridge.errors import JudgeError
from pybridge.input.situation import situation_from_data

GAME = load_game("berserk")
CARD = """game: berserk
set: test-set
cards:
  - name: Испытатель
    number: 1
    sources: "a test card"
    properties: {type: creature, element: steppe, cost: 3, rank: ordinary, strike: [1, 2, 3], health: 8, movement: 1}
    features:
      - ability: %s
    text: "A test card."
"""


def catalogue_with(tmp_path: Path, monkeypatch, composition: str):
    """The game's data files with one extra set file holding a card of this composition."""
    for path in GAME.directory.iterdir():
        if path.is_file():
            shutil.copy(path, tmp_path / path.name)
    (tmp_path / "sets").mkdir()
    (tmp_path / "sets" / "test-set.yaml").write_text(CARD % composition, encoding="utf-8")
    monkeypatch.setattr(catalogue, "game_dir", lambda game: tmp_path)
    monkeypatch.setattr("pybridge.game.vocabulary.game_dir", lambda game: tmp_path)
    catalogue.load_game.cache_clear()
    import pybridge.game.vocabulary as vocabulary
    vocabulary.load_vocabulary.cache_clear()
    try:
        return catalogue.load_game("berserk")
    finally:
        catalogue.load_game.cache_clear()
        vocabulary.load_vocabulary.cache_clear()


@pytest.mark.parametrize("composition, field, words", [
    ("{use: activated, do: [{wund: 2}]}", "do[0]", ["unknown effect primitive 'wund'", "did you mean 'wound'"]),
    ("{use: activated, aim: {raech: adjacent}, do: [{wound: 2}]}", "aim.raech",
     ["unknown selector condition 'raech'", "did you mean 'reach'"]),
    ("{use: activated, aim: {reach: adjecent}, do: [{wound: 2}]}", "aim.reach", ["did you mean 'adjacent'"]),
    ("{use: activated, do: [{wound: {amount: 2, on_roll: [5, 7]}}]}", "do[0].wound.on_roll[1]",
     ["from 1 to 6", "got 7"]),
    ("{use: activated, do: [{roll: {how: set, face: 0}}]}", "do[0].roll.face", ["from 1 to 6", "got 0"]),
    ("{use: activated, do: [{heal: {amont: 2}}]}", "do[0].heal.amont", ["did you mean 'amount'"]),
    ("{use: activatd, do: [{wound: 2}]}", "use", ["did you mean 'activated'"]),
    ("{use: triggered, trigger: on_strkie, do: [{wound: 2}]}", "trigger", ["did you mean 'on_strike'"]),
    ("{use: constant}", "features[0].ability", ["needs 'do'"]),
    ("{use: constant, do: [{modify: {by: 1}}]}", "do[0].modify", ["needs 'value'"]),
    ("{use: constant, do: [{permit: {what: defend_any_number, against: {element: mountains}}}]}",
     "do[0].permit.against", ["the rules do not read 'against' on a permit step", "no permit step takes it"]),
    ("{use: constant, do: [{forbid: {what: move, against: {element: mountains}}}]}", "do[0].forbid.against",
     ["with what 'move'", "only with 'attack', 'be_answered', 'be_defended'"]),
    ("{use: constant, do: [{modify: {value: health, by: 2, against: {element: mountains}}}]}",
     "do[0].modify.against", ["with value 'health'", "only with 'strike', 'damage'"]),
    ("{use: activated, do: [{wound: {amount: 2, against: {element: mountains}}}]}", "do[0].wound.against",
     ["no wound step takes it"]),
])
def test_a_composition_that_does_not_fit_is_refused_naming_card_feature_field_and_nearest_word(
        tmp_path, monkeypatch, composition, field, words):
    with pytest.raises(JudgeError) as caught:
        catalogue_with(tmp_path, monkeypatch, composition)
    message = str(caught.value)
    assert "sets/test-set.yaml" in message and "Испытатель" in message and "ability" in message
    assert field in message, message
    for word in words:
        assert word in message, message


def test_a_valid_composition_loads(tmp_path, monkeypatch):
    game = catalogue_with(tmp_path, monkeypatch, "{use: activated, cost: tap, aim: {side: enemies, reach: adjacent}, "
                                                 "do: [{wound: {amount: 2, on_roll: [5, 6]}}, close]}")
    assert "Испытатель" in game.cards


def test_a_step_parameter_read_with_some_words_loads_with_them(tmp_path, monkeypatch):
    """`against` on a forbid step with a word the rules read it with (a ban on attacking closed cards)."""
    game = catalogue_with(tmp_path, monkeypatch, "{use: constant, do: [{forbid: {what: attack, against: {status: closed}}}]}")
    assert "Испытатель" in game.cards


def facts_of(data: dict) -> set[str]:
    return {str(f) for f in api.facts_for(situation_from_data(data, source="composition facts"))}


def test_a_keyword_template_is_filled_from_the_cards_parameters():
    """Кшар's strike across a row (strike_over_row: {damage: 1, cost: tap}) is the vocabulary's
    template with damage 1; its special strike has no poison, so the poison step is left out."""
    data = {"game": "berserk", "viewpoint": "p1", "turn": {"number": 3, "active": "p1", "stage": "main", "phase": "choice"},
            "players": [{"id": "p1", "first": True}, {"id": "p2"}],
            "cards": [{"id": "k", "card": "Кшар", "controller": "p1", "cell": {"column": 3, "row": 1}, "arrived": 1}]}
    facts = facts_of(data)
    assert 'ability_step("k",strike_over_row,1,wound)' in facts
    assert 'step_param("k",strike_over_row,1,amount,1)' in facts
    assert 'feature_param("k",strike_over_row,aim,(reach,over_row))' in facts
    assert 'feature_param("k",strike_over_row,cost,tap)' in facts
    assert 'ability_step("k",special_strike,1,wound)' in facts
    assert not any(f.startswith('ability_step("k",special_strike,2') for f in facts)


def test_a_catalogue_that_passed_is_checked_again_only_once_a_file_changes(tmp_path, monkeypatch):
    """The cache folder records a catalogue that passed its check (a tenth of a command's start):
    the same files are not checked again, and a changed card file is, and refused."""
    checked = []
    real = catalogue.check_catalogue
    monkeypatch.setattr(catalogue, "check_catalogue", lambda *args: checked.append(args[0]) or real(*args))
    monkeypatch.setenv("CCG_JUDGE_CACHE", str(tmp_path / "cache"))
    for copy in ("first", "second"):  # the same content in another folder
        (tmp_path / copy).mkdir()
        assert "Испытатель" in catalogue_with(tmp_path / copy, monkeypatch, "{use: activated, do: [{wound: 2}]}").cards
    assert checked == ["berserk"]
    (tmp_path / "changed").mkdir()
    with pytest.raises(JudgeError, match="did you mean 'wound'"):
        catalogue_with(tmp_path / "changed", monkeypatch, "{use: activated, do: [{wund: 2}]}")
    assert checked == ["berserk", "berserk"]
