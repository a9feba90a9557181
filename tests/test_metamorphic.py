"""Metamorphic relations: changes to a situation that must not change the
verdicts (or must change them in a known way), checked on generated
situations of every game under asp/.

1. Renaming players, cards and effects changes only the names in the report.
2. Non-game elements (legend, artist, rarity, collector number: 109) change nothing.
3. An unrelated card far away (another column, out of range of every card)
   changes no verdict except the new actions that involve it. Only games
   with a board (game.yaml `board:`) have "far away"; others skip it.
4. Swapping what an opponent's hidden card is (its id, card, properties,
   features, markers) changes nothing in the viewpoint player's report.
   tests/test_information_flow.py covers Berserk's hidden cards by hand;
   here the relation is fuzzed over generated situations of every game.
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.oracle import SOURCE, canonical, check_report, rename, report_json, substitute
from fuzz.strategies import (BYTES, Choices, GameSpace, build_situation, fuzz_settings, fuzzable_games,
                             game_names, game_space, kinds_of)
from pybridge import api
from pybridge.input.situation import situation_from_data
from pybridge.report.render import to_data, to_json

GAMES = game_names()
SHARE = 1 / max(1, len(fuzzable_games()))


def report_of(data):
    return api.check(situation_from_data(data, source=SOURCE))


# --- 1. renaming ------------------------------------------------------------------


def check_renaming(data: dict, base_text: str) -> None:
    ids = [p["id"] for p in data["players"]] + [c["id"] for c in data.get("cards", [])] + \
          [e["id"] for e in data.get("effects", [])]
    mapping = {old: f"Rn{i}Q" for i, old in enumerate(ids)}
    renamed = report_json(report_of(rename(data, mapping)))
    back = {new: old for old, new in mapping.items()}
    assert substitute(renamed, back) == canonical(json.loads(base_text)), "renaming ids changed a verdict"


# --- 2. non-game elements ---------------------------------------------------------


def check_non_game(data: dict, base_text: str, c: Choices) -> None:
    changed = copy.deepcopy(data)
    for card in changed.get("cards", []):
        card["non_game"] = {"legend": c.pick(("", "Once upon a time", '"). #include "x".')),
                            "artist": c.pick(("Someone", "Кто-то")), "rarity": c.pick(("common", "ultra")),
                            "collector_number": c.number(1, 999), "set": {"code": "XYZ", "year": 1999}}
    assert report_json(report_of(changed)) == base_text, "a non-game element changed the report"


# --- 3. an unrelated card far away -------------------------------------------------


def far_cell(space: GameSpace, data: dict) -> tuple[str, int, int] | None:
    """A back-row cell whose column and both neighbouring columns are empty on both
    sides (columns of the two halves mirror each other), so every range is >= 2."""
    if not space.columns or not space.rows:
        return None
    used = set()
    for card in data.get("cards", []):
        if "cell" in card:
            column = card["cell"]["column"]
            used |= {column, space.columns + 1 - column}
    players = [p["id"] for p in data["players"]]
    for column in range(1, space.columns + 1):
        if not used & {column - 1, column, column + 1}:
            return players[column % 2], column, space.rows
    return None


def check_unrelated_card(space: GameSpace, data: dict, base) -> bool:
    cell = far_cell(space, data)
    if cell is None:
        return False
    side, column, row = cell
    newcomer = "Bystander-far-away"
    changed = copy.deepcopy(data)
    changed.setdefault("cards", []).append(
        {"id": newcomer, "name": "Bystander", "controller": side, "properties": {"type": space.card_types[0]},
         "zone": "battlefield", "cell": {"column": column, "row": row}, "arrived": 0})
    after = report_of(changed)

    def verdicts(report, skip_newcomer):
        return {(v.player, v.action): canonical(to_data(v)) for v in report.verdicts
                if not (skip_newcomer and newcomer in v.action)}

    assert verdicts(after, True) == verdicts(base, False), "a card far away changed the verdicts of others"
    assert {(o.effect, o.by) for o in after.overridden_effects} == {(o.effect, o.by) for o in base.overridden_effects}
    return True


# --- 4. an opponent's hidden card ----------------------------------------------------


def check_hidden_swap(space: GameSpace, data: dict, c: Choices) -> bool:
    viewer = data["viewpoint"]
    # On a game with a board a hidden card lies in a cell (532.1; validation refuses it elsewhere).
    theirs = [card for card in data.get("cards", []) if card["controller"] != viewer
              and card.get("zone") == "battlefield" and ("cell" in card or not space.columns)]
    if not theirs:
        return False
    data = copy.deepcopy(data)
    index = data["cards"].index(c.pick(theirs))
    data["cards"][index]["hidden"] = True
    seen = report_json(report_of(data))
    swapped = copy.deepcopy(data)
    card = swapped["cards"][index]
    old_id, new_id = card["id"], "Secretly-something-else"
    public = set(space.game.public_when_hidden)
    for key in ("card", "name", "features", "markers", "chips", "non_game", "remove_features", "protections"):
        card.pop(key, None)
    card["properties"] = {k: v for k, v in card.get("properties", {}).items() if k in public}
    if space.catalogue and c.coin():
        card["card"] = c.pick(space.catalogue)
    else:
        card.update(name="Secret", properties={**card["properties"], "type": c.pick(space.card_types)})
    if space.features and c.coin():
        card["features"] = [c.pick(space.features)]
    markers = kinds_of(space.vocabulary, "marker")
    if markers and c.coin():
        card["markers"] = {c.pick(markers): c.number(1, 3)}
    card["id"] = new_id
    for effect in swapped.get("effects", []):
        for key in ("target", "source"):
            if effect.get(key) == old_id:
                effect[key] = new_id
    for event in swapped.get("history", []):
        for key in ("actor", "target"):
            if event.get(key) == old_id:
                event[key] = new_id
    assert report_json(report_of(swapped)) == seen, "the viewpoint's report depends on an opponent's hidden card"
    return True


@pytest.mark.parametrize("name", GAMES)
@fuzz_settings(0.02 * SHARE)
@given(raw=BYTES, more=st.binary(min_size=16, max_size=24))
def test_metamorphic_relations(name, raw, more, fuzz_cases):
    space = game_space(name)
    if isinstance(space, str):
        pytest.skip(f"{name}: {space}")
    data = build_situation(Choices(raw), space)
    fuzz_cases[f"metamorphic relations ({name})"] += 1
    base = report_of(data)
    check_report(base, space, situation_from_data(data, source=SOURCE))
    base_text = to_json(base)
    c = Choices(more)
    check_renaming(data, base_text)
    check_non_game(data, base_text, c)
    if check_unrelated_card(space, data, base):
        fuzz_cases[f"metamorphic relations ({name}): with a card far away"] += 1
    if check_hidden_swap(space, data, c):
        fuzz_cases[f"metamorphic relations ({name}): with a hidden card swapped"] += 1
