"""Situations that contradict themselves get one clear error naming the
clash (file, field, what was expected) — never a report with an empty or
partial verdict list. Run for every complete game under asp/."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from fuzz.strategies import ALPHA, BETA, EFFECT, P1, P2, base_situation, fuzzable_games, game_space
from pybridge import api
from pybridge.errors import JudgeError
from pybridge.input.situation import situation_from_data


def card(data, i):
    return data["cards"][i]


# name: (change, field named, words the message must contain, what the game needs)
CASES = {
    "one card in two cells": (lambda d: d["cards"].append(dict(card(d, 0), cell={"column": 5, "row": 3})),
                              "cards[3].id", "duplicate card id", "board"),
    "two cards in one cell": (lambda d: card(d, 2).update(cell=dict(card(d, 0)["cell"])),
                              "cards[2].cell", "cell already taken", "board"),
    "a hidden card in a hand": (lambda d: card(d, 0).update(zone="hand", hidden=True, cell=None),
                                "cards[0].hidden", "cannot be hidden", "hand"),
    "a card in a hand with a cell": (lambda d: card(d, 0).update(zone="hand"), "cards[0].cell", "has no cell",
                                     "board hand"),
    "a marker count below zero": (lambda d: card(d, 0).update(markers={"wound": -1}),
                                  "cards[0].markers.wound", "expected a whole number of at least 0, got -1", ""),
    "a chip count below zero": (lambda d: card(d, 0).update(chips={"gold": -2}),
                                "cards[0].chips.gold", "expected a whole number of at least 0, got -2", ""),
    "an effect on a card that does not exist": (lambda d: d["effects"][0].update(target="ghost"),
                                                "effects[0].target", "no card with id 'ghost'", "effects"),
    "an effect from a card that does not exist": (lambda d: d["effects"][0].update(source="ghost"),
                                                  "effects[0].source", "no card with id 'ghost'", "effects"),
    "history of a card that does not exist": (lambda d: d["history"][0].update(actor="ghost"),
                                              "history[0].actor", "no card with id 'ghost'", "history"),
    "an unknown controller": (lambda d: card(d, 0).update(controller="p9"), "cards[0].controller",
                              "unknown player 'p9'", ""),
    "an unknown owner": (lambda d: card(d, 1).update(owner="p9"), "cards[1].owner", "unknown player 'p9'", ""),
    "a cell on an unknown side": (lambda d: card(d, 0)["cell"].update(side="p9"), "cards[0].cell.side",
                                  "unknown player 'p9'", "board"),
    "an unknown viewpoint": (lambda d: d.update(viewpoint="p9"), "viewpoint", "unknown player 'p9'", ""),
    "an unknown active player": (lambda d: d["turn"].update(active="p9"), "turn.active", "unknown player 'p9'", ""),
    "duplicate player ids": (lambda d: d["players"][1].update(id=P1), "players[1].id", "duplicate player id", ""),
    "duplicate card ids": (lambda d: card(d, 1).update(id=ALPHA), "cards[1].id", "duplicate card id", ""),
    "duplicate effect ids": (lambda d: d["effects"].append(dict(d["effects"][0], timestamp=2)),
                             "effects[1].id", f"duplicate effect id {EFFECT!r}", "effects"),
    "a card with a player's id": (lambda d: card(d, 1).update(id=P2), "cards[1].id", "also a player's id", ""),
    "a card with a reserved id": (lambda d: card(d, 1).update(id="hidden@Ptwo7Z:3.1"), "cards[1].id",
                                  "reserved", ""),
    "two first players": (lambda d: d["players"][1].update(first=True), "players", "only one player", ""),
    "three players": (lambda d: d["players"].append({"id": "p3"}), "players", "at most 2", ""),
    "arrival after the current turn": (lambda d: card(d, 0).update(arrived=9), "cards[0].arrived",
                                       "after the current turn", ""),
    "history after the current turn": (lambda d: d["history"][0].update(turn=9), "history[0].turn",
                                       "after the current turn", "history"),
    "history naming a target that does not exist": (lambda d: d["history"][0].update(target="ghost"),
                                             "history[0].target", "no card with id 'ghost'", "history"),
}


def applicable(space, needs: str) -> bool:
    base = base_situation(space)
    return all({"board": bool(space.columns), "hand": "hand" in space.zones, "effects": bool(base.get("effects")),
                "history": bool(base.get("history"))}[need] for need in needs.split())


@pytest.mark.parametrize("name", fuzzable_games())
@pytest.mark.parametrize("case", sorted(CASES))
def test_contradiction_is_named(name, case, tmp_path):
    space = game_space(name)
    change, field, words, needs = CASES[case]
    if not applicable(space, needs):
        pytest.skip(f"{name} has no {needs}")
    data = base_situation(space)
    situation_from_data(data, source="base")  # the base itself is fine
    change(data)
    with pytest.raises(JudgeError) as caught:
        situation_from_data(data, source="clash.yaml")
    assert caught.value.field == field, caught.value.render()
    assert words in caught.value.message, caught.value.render()
    # The same file through the API: the error, never a report.
    path = tmp_path / "clash.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(JudgeError) as again:
        api.check(path)
    assert again.value.field == field and again.value.source == str(path)


def test_command_line_names_the_clash_without_a_traceback(tmp_path):
    space = game_space(fuzzable_games()[0])
    data = base_situation(space)
    data["cards"][1]["id"] = ALPHA
    path = tmp_path / "clash.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pybridge", "check", str(path), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == f"error: {path}: field cards[1].id: duplicate card id {ALPHA!r}"
    assert "Traceback" not in done.stderr and BETA not in done.stderr


def _berserk_board(*cards):
    return {"game": "berserk", "viewpoint": "p1", "players": [{"id": "p1", "first": True}, {"id": "p2"}],
            "turn": {"number": 3, "active": "p1", "stage": "main", "phase": "choice"}, "cards": list(cards)}


@pytest.mark.parametrize("flyer", [
    {"id": "serpent", "card": "Ледяной змей", "controller": "p2"},
    {"id": "bird", "name": "Bird", "controller": "p2",
     "properties": {"type": "creature", "movement": "flying", "strike": [1, 1, 1], "health": 2}},
])
def test_an_open_flyer_stands_in_the_flying_zone_not_in_a_cell(flyer):
    in_a_cell = dict(flyer, cell={"column": 3, "row": 1})
    with pytest.raises(JudgeError) as caught:
        situation_from_data(_berserk_board(in_a_cell), source="flyer.yaml")
    assert caught.value.field == "cards[0].cell"
    assert "movement 'flying' is in play in zone 'flying', not in a cell" in caught.value.render()
    # In the flying zone it is judged; face down in a cell it may be a flyer in truth (532.6 example 2).
    assert api.check(situation_from_data(_berserk_board(dict(flyer, zone="flying")))).game == "berserk"
    situation_from_data(_berserk_board(dict(in_a_cell, hidden=True)))
