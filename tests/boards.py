"""Random Berserk boards of set-1 cards, open and hidden, for the one-answer property (issue 29).

A board is plain situation data: a few catalogue cards of the set, each in a cell of either half
(a flyer flying), open or closed, face up or face down, with wounds now and then, at a
random stage and phase of a turn. Seeded: board number N of a seed is always the same board."""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

SET_ONE = "war-of-elements"
PLAYERS = ("p1", "p2")


@lru_cache(maxsize=1)
def set_one_cards() -> tuple[tuple[str, bool], ...]:
    """(name, flies) of every card of set 1, in catalogue order."""
    from pybridge.game.catalogue import load_game

    game = load_game("berserk")
    return tuple((card["name"], card.get("properties", {}).get("movement") == "flying")
                 for card in game.cards.values() if card.get("set") == SET_ONE)


@lru_cache(maxsize=1)
def _turn_parts() -> tuple[tuple[str, ...], tuple[str, ...]]:
    from pybridge.game.catalogue import load_game

    game = load_game("berserk")
    return game.stages, game.phases


def board(seed: int, number: int, *, most_cards: int = 8) -> dict[str, Any]:
    """Board ``number`` of ``seed``: 1 to ``most_cards`` set-1 cards, every fourth or so hidden."""
    rng = random.Random(f"{seed}:{number}")
    cards = set_one_cards()
    stages, phases = _turn_parts()
    cells = [(side, column, row) for side in PLAYERS for column in range(1, 6) for row in range(1, 4)]
    rng.shuffle(cells)
    placed = []
    for index in range(rng.randint(1, most_cards)):
        name, flies = rng.choice(cards)
        controller = rng.choice(PLAYERS)
        card: dict[str, Any] = {"id": f"c{index}", "card": name, "controller": controller}
        if flies:  # a flyer in play is in the flying zone, never in a cell, so never face down
            card["zone"] = "flying"
        else:
            side, column, row = cells.pop()
            card["cell"] = {"column": column, "row": row, **({"side": side} if side != controller else {})}
            card["hidden"] = rng.random() < 0.25
        card["open"] = rng.random() < 0.8
        if rng.random() < 0.2:
            card["markers"] = {"wound": rng.randint(1, 3)}
        card["arrived"] = rng.randint(1, 3)
        placed.append(card)
    stage = rng.choice(stages)
    turn = {"number": 3, "active": rng.choice(PLAYERS), "stage": stage}
    if stage == "main":
        turn["phase"] = rng.choice(phases)
    return {"game": "berserk", "viewpoint": rng.choice(PLAYERS),
            "players": [{"id": "p1", "first": True}, {"id": "p2"}], "turn": turn, "cards": placed}
