"""Project a situation onto what one player may know.

An opponent's hidden card becomes an unknown card in its place: a neutral
id made from public facts only (its side and cell, or its order among that
player's hidden cards), no name, no properties, no features, no markers;
effects its own text created disappear. Everything the solver sees for a
player is built from this projection, so no verdict or justification can
depend on, or mention, what the card really is.
"""

from __future__ import annotations

from pybridge.catalogue import load_game
from pybridge.situation import Card, Event, Situation


def unknown_card_ids(situation: Situation, player: str) -> dict[str, str]:
    """Real id -> neutral id for every hidden card ``player`` does not control."""
    hidden = [c for c in situation.cards if c.hidden and c.controller != player]

    def public_key(card: Card) -> tuple:
        cell = card.cell
        side = (cell.side or card.controller) if cell else ""
        return (card.controller, card.zone, side, cell.column if cell else 0, cell.row if cell else 0,
                card.arrived if card.arrived is not None else -1)

    renamed: dict[str, str] = {}
    counters: dict[tuple[str, str], int] = {}
    # sorted() is stable: cards with identical public facts keep their file order.
    for card in sorted(hidden, key=public_key):
        if card.cell is not None:
            side = card.cell.side or card.controller
            neutral = f"hidden@{side}:{card.cell.column}.{card.cell.row}"
        else:
            counters[(card.controller, card.zone)] = counters.get((card.controller, card.zone), 0) + 1
            neutral = f"hidden@{card.controller}:{card.zone}#{counters[(card.controller, card.zone)]}"
        renamed[card.id] = neutral
    return renamed


def project(situation: Situation, player: str | None = None) -> Situation:
    player = player or situation.viewpoint
    renamed = unknown_card_ids(situation, player)
    if not renamed:
        return situation
    public = set(load_game(situation.game).public_when_hidden)
    cards = []
    for card in situation.cards:
        if card.id in renamed:
            card = Card(
                id=renamed[card.id],
                name=None,
                controller=card.controller,
                owner=card.owner,
                zone=card.zone,
                cell=card.cell,
                open=card.open,
                hidden=True,
                arrived=card.arrived,
                properties={k: v for k, v in card.properties.items() if k in public},
            )
        cards.append(card)
    cards.sort(key=lambda c: (c.id in renamed.values(), c.id if c.id in renamed.values() else ""))
    effects = [
        e.model_copy(update={"target": renamed.get(e.target, e.target)})
        for e in situation.effects
        if e.source not in renamed
    ]
    history = [
        Event(turn=h.turn, action=h.action, actor=renamed.get(h.actor, h.actor),
              target=renamed.get(h.target, h.target) if h.target else None)
        for h in situation.history
    ]
    return situation.model_copy(update={"cards": cards, "effects": effects, "history": history, "viewpoint": player})
