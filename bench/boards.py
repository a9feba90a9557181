"""Generated Berserk boards of a given size, for the benchmarks (fixed seed, no solver here).

A board is an ordinary mid-game situation: one hero per player, creatures in the cells of both
halves (front rows first), the rest in flying zones, hands, decks and graveyards; a few effects
with timestamps; `hidden` of the creatures in cells face down. Built from the catalogue's cards.

Mixes, the kinds of board users bring beside the plain one:
- ``while``: the viewer's own hidden cards are cards with a feature that holds only "while" a
  condition does (found in the catalogue), as on half of real boards of 30 cards or more;
- ``air``: most cards off the field are flyers and spells in hand, so that candidates pair every
  flyer with every creature and every spell with every creature and value of X."""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

CREATURES = ["Посвященный Дзара", "Бегущая по кронам", "Резчик идолов", "Демон зависти", "Ассасин",
             "Вайл", "Волнорез", "Эльф-всадник", "Гхурт", "Торментор"]
FLYERS = ["Ледяной змей", "Мерцающий змей"]
HERO = "Гиуэль"
SPELLS = ["Ядовитое пламя"]
PLAYERS = ("p1", "p2")
VIEWER = "p1"
COLUMNS, ROWS = 5, 3


MIXES = ("plain", "while", "air")
# Where the cards that are not in cells go, per mix (a zone drawn for each).
OFF_FIELD = {"plain": ["flying", "hand", "hand", "deck", "graveyard"],
             "while": ["flying", "hand", "hand", "deck", "graveyard"],
             "air": ["flying", "flying", "flying", "hand", "hand", "hand", "deck"]}


@lru_cache(maxsize=1)
def while_cards() -> tuple[str, ...]:
    """The benchmark's creatures with a feature that holds only while a condition does."""
    from pybridge.game.catalogue import load_game

    game = load_game("berserk")
    named = {card.get("name"): card for card in game.cards.values()}
    return tuple(name for name in CREATURES if "'while'" in repr(named[name].get("features", ())))


def _hide(rng: random.Random, made: list[dict[str, Any]], hidden: int, mix: str) -> None:
    """Turn `hidden` cards in cells face down; in the ``while`` mix, the viewer's first (at least
    one, half of them rounded up) become cards with a `while` feature."""
    in_cells = [c for c in made if "cell" in c]
    chosen = rng.sample(in_cells, min(hidden, len(in_cells)))
    if mix == "while" and hidden:
        own = [c for c in in_cells if c["controller"] == VIEWER]
        mine = rng.sample(own, min(len(own), (hidden + 1) // 2))
        chosen = mine + [c for c in chosen if c not in mine][:hidden - len(mine)]
        for k, card in enumerate(mine):  # each such card in turn, so every kind of condition is there
            card["card"] = while_cards()[k % len(while_cards())]
    for card in chosen:
        card["hidden"] = True


def board(cards: int, hidden: int, *, seed: int = 0, mix: str = "plain") -> dict[str, Any]:
    """A situation with `cards` cards in all (heroes included), `hidden` of them face down."""
    if mix not in MIXES:
        raise ValueError(f"unknown board mix {mix!r}: expected one of {', '.join(MIXES)}")
    rng = random.Random(f"{seed}:{cards}:{hidden}" + ("" if mix == "plain" else f":{mix}"))
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
            zone = rng.choice(OFF_FIELD[mix])
            pool = FLYERS if zone == "flying" else SPELLS if mix == "air" and zone == "hand" else CREATURES + SPELLS
            card.update(zone=zone, card=rng.choice(pool))
            if zone == "flying":
                card["arrived"] = 2
        made.append(card)
    _hide(rng, made, hidden, mix)
    in_cells = [c for c in made if "cell" in c]
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
        "game": "berserk", "viewpoint": VIEWER,
        "turn": {"number": 4, "active": "p1", "stage": "main", "phase": "choice"},
        "players": [{"id": "p1", "first": True}, {"id": "p2"}],
        "cards": made, "effects": effects,
    }
