"""Generated Berserk boards of a given size, for the benchmarks (fixed seed, no solver here).

A board is an ordinary mid-game situation: one hero per player, creatures in the cells of both
halves (front rows first), the rest in flying zones, hands, decks and graveyards; a few effects
with timestamps; `hidden` of the creatures in cells face down. Built from the catalogue's cards."""

from __future__ import annotations

import random
from typing import Any

CREATURES = ["Посвященный Дзара", "Бегущая по кронам", "Резчик идолов", "Демон зависти", "Ассасин",
             "Вайл", "Волнорез", "Эльф-всадник", "Гхурт", "Торментор"]
FLYERS = ["Ледяной змей", "Мерцающий змей"]
HERO = "Гиуэль"
SPELLS = ["Ядовитое пламя"]
PLAYERS = ("p1", "p2")
COLUMNS, ROWS = 5, 3


def board(cards: int, hidden: int, *, seed: int = 0) -> dict[str, Any]:
    """A situation with `cards` cards in all (heroes included), `hidden` of them face down."""
    rng = random.Random(f"{seed}:{cards}:{hidden}")
    made: list[dict[str, Any]] = []
    for p in PLAYERS:
        made.append({"id": f"{p}-hero", "card": HERO, "controller": p, "arrived": 1})
    cells = [(p, c, r) for r in range(1, ROWS + 1) for p in PLAYERS for c in range(1, COLUMNS + 1)]
    rng.shuffle(cells)
    cells.sort(key=lambda cell: cell[2])  # front rows fill first
    n = 0
    while len(made) < cards:
        n += 1
        p = PLAYERS[n % 2]
        card: dict[str, Any] = {"id": f"c{n}", "controller": p}
        free = [cell for cell in cells if cell[0] == p]
        slot = len(made) - 2
        if free and slot < 2 * COLUMNS * ROWS:
            side, column, row = free[0]
            cells.remove(free[0])
            card.update(card=rng.choice(CREATURES), cell={"column": column, "row": row},
                        arrived=rng.choice([1, 2, 3, 4]), open=rng.random() < 0.8)
        else:
            zone = rng.choice(["flying", "hand", "hand", "deck", "graveyard"])
            card.update(zone=zone, card=rng.choice(FLYERS if zone == "flying" else CREATURES + SPELLS))
            if zone == "flying":
                card["arrived"] = 2
        made.append(card)
    in_cells = [c for c in made if "cell" in c]
    for card in rng.sample(in_cells, min(hidden, len(in_cells))):
        card["hidden"] = True
    effects = []
    creatures = [c["id"] for c in in_cells]
    for i in range(max(1, cards // 10)):
        target = rng.choice(creatures)
        kind = rng.choice(["grant", "modify", "forbid", "permit"])
        effect: dict[str, Any] = {"id": f"e{i}", "target": target, "kind": kind, "timestamp": rng.randint(1, 20)}
        if kind == "grant":
            effect["what"] = rng.choice(["rush", "directed_strike"])
        elif kind == "modify":
            effect.update(what="strike", value=rng.choice([-2, -1, 1, 2]))
        else:
            effect["what"] = rng.choice(["strike_attack", "shot"])
        effects.append(effect)
    return {
        "game": "berserk", "viewpoint": "p1",
        "turn": {"number": 4, "active": "p1", "stage": "main", "phase": "choice"},
        "players": [{"id": "p1", "first": True}, {"id": "p2"}],
        "cards": made, "effects": effects,
    }
