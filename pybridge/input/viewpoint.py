"""Project a situation onto what one player may know.

A card the player may not see becomes an unknown card: an opponent's hidden
(face-down) card, and any card in a private zone the player may not look
into (an opponent's hand; every deck) unless it was revealed to all. The
unknown card keeps only public facts: its controller, owner, zone, cell,
open/closed state, arrival turn and the properties the game declares public
(``public_when_hidden``); its id becomes a neutral one made from those
facts (``hidden@p2:3.1`` for a cell, ``hidden@p2:hand#1`` otherwise);
effects its constant features created disappear (those an action made stay). Everything the solver sees for a
player is built from this projection, so no verdict or justification can
depend on, or mention, what the card really is.
"""

from __future__ import annotations

import re


from pybridge.game.catalogue import Game, load_game
from pybridge.input.situation import Card, Effect, Situation
from pybridge.input.structs import replace


def is_unknown_to(card: Card, player: str, game: Game) -> bool:
    if card.hidden and card.controller != player:
        return True
    who_sees = game.private_zones.get(card.zone)
    if who_sees is None or card.revealed:
        return False
    return who_sees == "nobody" or (card.owner or card.controller) != player


def _kept(effect: Effect, unknown_ids: set[str], game: Game) -> bool:
    """Whether an effect reaches a viewer who may not see the cards ``unknown_ids``: not when an
    unknown card's constant feature made it (its text at work), unless the game says that feature
    works while the card is hidden (Berserk: stealth, 532.4). An effect an action or a trigger
    made (not constant) was made in the open: it is a fact of the board the viewer saw."""
    return effect.source not in unknown_ids or not effect.constant or effect.feature in game.active_while_hidden


def _shown_properties(card: Card, unknown_ids: set[str], public: set[str]) -> dict:
    """The properties of a card a viewer sees: all of a card they see, the public ones of an
    unknown hidden card, none of an unknown card in a private zone."""
    if card.id not in unknown_ids:
        return card.properties
    return {k: v for k, v in card.properties.items() if k in public} if card.hidden else {}


_UNKNOWN_PREFIX = "hidden@"


def unknown_card_place(card_id: str) -> tuple[str, str] | None:
    """(holder, place) of an unknown card's neutral id (``hidden@p2:3.1`` -> p2, 3.1), as
    :func:`unknown_card_ids` makes them; None for any other id."""
    if not card_id.startswith(_UNKNOWN_PREFIX):
        return None
    # The place (a cell 3.1, or zone#n) never holds a colon; a player id may.
    holder, sep, place = card_id[len(_UNKNOWN_PREFIX):].rpartition(":")
    return (holder, place) if sep and holder and place else None


# A neutral id as it stands in a term's text: the place (a cell C.R, or ZONE#N) ends an argument.
_UNKNOWN_IN_TEXT = re.compile(re.escape(_UNKNOWN_PREFIX) + r".+?:(?:\d+\.\d+|[A-Za-z_][A-Za-z0-9_]*#\d+)(?=[,)]|$)")


def unknown_cards_in(text: str) -> list[str]:
    """The neutral ids of unknown cards in a term's text, in order (``shot(a, hidden@p2:3.1)`` ->
    hidden@p2:3.1). Found in the text, not by splitting it into arguments: ids are written unquoted
    there, so another card's id with a bracket in it ("a[.(a") would throw a split off."""
    return [m.group(0) for m in _UNKNOWN_IN_TEXT.finditer(text)]


def unknown_card_ids(situation: Situation, player: str) -> dict[str, str]:
    """Real id -> neutral id for every card ``player`` may not see.

    The numbering is made from what the player sees alone, so that it tells them nothing: not
    the real ids, not the order the file lists the cards in. Cards are told apart by their own
    public facts and by what the player sees around them (effects on or by them, events, other
    cards' properties naming them), where another unknown card counts by its class so far;
    classes are split until they stop splitting. Cards left alike are interchangeable: whichever
    gets which number, the projected situation is the same."""
    game = load_game(situation.game)
    public = set(game.public_when_hidden)
    unknown = [c for c in situation.cards if is_unknown_to(c, player, game)]
    unknown_ids = {c.id for c in unknown}
    around: dict[str, list[tuple[tuple, str]]] = {c.id: [] for c in unknown}  # (what, the other card)

    def note(card_id: str | None, what: tuple, other: str | None) -> None:
        if card_id in around:
            around[card_id].append((what, other or ""))

    for e in situation.effects:
        if _kept(e, unknown_ids, game):
            # A selector names no card: its conditions are words and numbers, part of what is seen.
            selector = "" if isinstance(e.target, str) else repr(sorted(e.target.items()))
            target = e.target if isinstance(e.target, str) else None
            what = (e.id, e.kind, e.what, str(e.value), str(e.timestamp), e.feature or "", str(e.constant), selector)
            note(target, ("effect on", *what), e.source)
            note(e.source, ("effect by", *what), target)
    for i, h in enumerate(situation.history):
        note(h.actor, ("event by", str(i), str(h.turn), h.action), h.target)
        note(h.target, ("event at", str(i), str(h.turn), h.action), h.actor)
    for card in situation.cards:
        for k, v in _shown_properties(card, unknown_ids, public).items():
            if k in game.card_properties and isinstance(v, str):
                note(v, ("property of", k), card.id)

    def key(card: Card, label: dict[str, int]) -> tuple:
        def seen_as(card_id: str) -> str:  # a card the player sees by its id, another by its class
            return f"?{label[card_id]}" if card_id in label else f"={card_id}"

        cell = card.cell
        side = (cell.side or card.controller) if cell else ""
        own = tuple(sorted((k, seen_as(v) if k in game.card_properties and isinstance(v, str) else str(v))
                           for k, v in _shown_properties(card, unknown_ids, public).items()))
        seen_around = tuple(sorted((*what, seen_as(other)) for what, other in around[card.id]))
        return (card.controller, card.owner or card.controller, card.zone, side,
                cell.column if cell else 0, cell.row if cell else 0,
                card.arrived if card.arrived is not None else -1, card.open, own, seen_around)

    label = {c.id: 0 for c in unknown}
    while True:
        keys = {c.id: key(c, label) for c in unknown}
        rank = {k: i for i, k in enumerate(sorted(set(keys.values())))}
        split = {card_id: rank[k] for card_id, k in keys.items()}
        settled = len(rank) == len(set(label.values()))
        label = split
        if settled:
            break

    renamed: dict[str, str] = {}
    counters: dict[tuple[str, str], int] = {}
    for card in sorted(unknown, key=lambda c: label[c.id]):
        if card.cell is not None:
            side = card.cell.side or card.controller
            neutral = f"{_UNKNOWN_PREFIX}{side}:{card.cell.column}.{card.cell.row}"
        else:
            holder = card.owner or card.controller
            counters[(holder, card.zone)] = counters.get((holder, card.zone), 0) + 1
            neutral = f"{_UNKNOWN_PREFIX}{holder}:{card.zone}#{counters[(holder, card.zone)]}"
        renamed[card.id] = neutral
    return renamed


def project(situation: Situation, player: str | None = None) -> Situation:
    player = player or situation.viewpoint
    renamed = unknown_card_ids(situation, player)
    if not renamed:
        return situation
    unknown_ids = set(renamed)
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
                properties=_shown_properties(card, unknown_ids, public),
            )
        references = {k: renamed[v] for k, v in card.properties.items()
                      if k in game.card_properties and isinstance(v, str) and v in renamed}
        if references:  # a reference to an unknown card uses its neutral id
            card = replace(card, properties={**card.properties, **references})
        cards.append(card)
    neutral_ids = set(renamed.values())
    cards.sort(key=lambda c: (c.id in neutral_ids, c.id if c.id in neutral_ids else ""))
    effects = [
        replace(e, target=renamed.get(e.target, e.target) if isinstance(e.target, str) else e.target,
                source=renamed.get(e.source, e.source) if e.source else None)
        for e in situation.effects if _kept(e, unknown_ids, game)
    ]
    history = [
        replace(h, actor=renamed.get(h.actor, h.actor),
                target=renamed.get(h.target, h.target) if h.target else None)
        for h in situation.history
    ]
    return replace(situation, cards=cards, effects=effects, history=history, viewpoint=player)
