"""Project a situation onto what one player may know.

A card the player may not see becomes an unknown card: an opponent's hidden
(face-down) card, and any card in a private zone the player may not look
into (an opponent's hand; every deck) unless it was revealed to all. The
unknown card keeps only public facts: its controller, owner, zone, cell,
open/closed state, arrival turn and the properties the game declares public
(``public_when_hidden``); its id becomes a neutral one made from those
facts (``hidden@p2:3.1`` for a cell, ``hidden@p2:hand#1`` otherwise);
effects its own text created disappear. Everything the solver sees for a
player is built from this projection, so no verdict or justification can
depend on, or mention, what the card really is.
"""

from __future__ import annotations

from pybridge.catalogue import Game, load_game
from pybridge.situation import Card, Situation


def is_unknown_to(card: Card, player: str, game: Game) -> bool:
    if card.hidden and card.controller != player:
        return True
    who_sees = game.private_zones.get(card.zone)
    if who_sees is None or card.revealed:
        return False
    return who_sees == "nobody" or (card.owner or card.controller) != player


def unknown_card_ids(situation: Situation, player: str) -> dict[str, str]:
    """Real id -> neutral id for every card ``player`` may not see."""
    game = load_game(situation.game)
    public = set(game.public_when_hidden)
    unknown = [c for c in situation.cards if is_unknown_to(c, player, game)]
    unknown_ids = {c.id for c in unknown}

    def public_key(card: Card) -> tuple:
        cell = card.cell
        side = (cell.side or card.controller) if cell else ""
        # a public property naming another unknown card sorts alike whatever that card's real id
        shown = sorted((k, "?" if k in game.card_properties and v in unknown_ids else str(v))
                       for k, v in card.properties.items() if k in public and card.hidden)
        return (card.controller, card.owner or card.controller, card.zone, side,
                cell.column if cell else 0, cell.row if cell else 0,
                card.arrived if card.arrived is not None else -1, card.open, shown)

    renamed: dict[str, str] = {}
    counters: dict[tuple[str, str], int] = {}
    # Cards alike in every public fact are interchangeable: whichever gets which
    # number, the projected situation is the same.
    for card in sorted(unknown, key=public_key):
        if card.cell is not None:
            side = card.cell.side or card.controller
            neutral = f"hidden@{side}:{card.cell.column}.{card.cell.row}"
        else:
            holder = card.owner or card.controller
            counters[(holder, card.zone)] = counters.get((holder, card.zone), 0) + 1
            neutral = f"hidden@{holder}:{card.zone}#{counters[(holder, card.zone)]}"
        renamed[card.id] = neutral
    return renamed


def project(situation: Situation, player: str | None = None) -> Situation:
    player = player or situation.viewpoint
    renamed = unknown_card_ids(situation, player)
    if not renamed:
        return situation
    game = load_game(situation.game)
    public = set(game.public_when_hidden)
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
                hidden=card.hidden,
                arrived=card.arrived,
                properties={k: v for k, v in card.properties.items() if k in public} if card.hidden else {},
            )
        references = {k: renamed[v] for k, v in card.properties.items()
                      if k in game.card_properties and isinstance(v, str) and v in renamed}
        if references:  # a reference to an unknown card uses its neutral id
            card = card.model_copy(update={"properties": {**card.properties, **references}})
        cards.append(card)
    neutral_ids = set(renamed.values())
    cards.sort(key=lambda c: (c.id in neutral_ids, c.id if c.id in neutral_ids else ""))
    # Effects an unknown card's text made are dropped, except those of the features the game
    # says work while the card is hidden (Berserk: stealth, 532.4): they act on the game.
    effects = [
        e.model_copy(update={"target": renamed.get(e.target, e.target) if isinstance(e.target, str) else e.target,
                             "source": renamed.get(e.source, e.source) if e.source else None})
        for e in situation.effects
        if e.source not in renamed or e.feature in game.active_while_hidden
    ]
    history = [
        h.model_copy(update={"actor": renamed.get(h.actor, h.actor),
                             "target": renamed.get(h.target, h.target) if h.target else None})
        for h in situation.history
    ]
    return situation.model_copy(update={"cards": cards, "effects": effects, "history": history, "viewpoint": player})
