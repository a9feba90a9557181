"""Situation -> clingo Symbols. The only module that knows the names of
the input predicates (documented in ``asp/core/interface.lp``).

User text never becomes program text: ids and names are clingo strings;
game vocabulary, already restricted to plain identifiers by validation,
becomes constants. Facts are printed with clingo's own ``str(Symbol)``,
which quotes and escapes strings, so ``ccg-judge facts`` output is safe to
feed back to clingo.
"""

from __future__ import annotations

from typing import Any, Iterable

from clingo import Function, Number, String, Symbol, Tuple_

from pybridge.catalogue import Game, load_game
from pybridge.situation import Situation, resolved_card
from pybridge.vocabulary import is_word


# Symbols are immutable and clingo keeps one copy of each, so the constants and numbers a board
# repeats (words, keys, small counts) are made once per process rather than once per fact. Bounded:
# a long-lived process meets the words of many situations.
_MADE: dict[tuple[type, Any], Symbol] = {}
_MADE_AT_MOST = 20_000


def _made(kind: type, value: Any, make) -> Symbol:
    found = _MADE.get((kind, value))
    if found is None:
        if len(_MADE) >= _MADE_AT_MOST:
            _MADE.clear()
        found = _MADE[(kind, value)] = make(value)
    return found


def constant(name: str) -> Symbol:
    return _made(str, name, Function)


def number(value: int) -> Symbol:
    return _made(int, value, Number)


def term(value: Any) -> Symbol:
    """A data value as a clingo term: numbers, identifier constants, strings, tuples.

    Only a whole plain identifier that is not a clingo keyword becomes a constant (so
    ``"creature\n"`` and ``"not"`` stay strings): every value prints as text that clingo
    reads back as exactly this Symbol."""
    if isinstance(value, bool):
        return constant("true" if value else "false")
    if isinstance(value, int):
        return number(value)
    if isinstance(value, str):
        return constant(value) if is_word(value) else String(value)
    if isinstance(value, (list, tuple)):
        return Tuple_([term(v) for v in value])
    if isinstance(value, dict):
        return Tuple_([Tuple_([term(k), term(v)]) for k, v in sorted(value.items())])
    return String(str(value))


def _fact(name: str, *args: Symbol) -> Symbol:
    return Function(name, list(args))


def situation_facts(s: Situation, game: Game | None = None) -> list[Symbol]:
    """Every input fact of a (projected) situation, in a stable order."""
    game = game or load_game(s.game)
    facts: list[Symbol] = []
    add = facts.append
    add(_fact("game", constant(s.game)))
    add(_fact("edition", String(s.edition or game.default_edition)))
    for name, option in sorted(game.options.items()):
        add(_fact("option", constant(name), constant(s.options.get(name, option.default))))
    add(_fact("viewpoint", String(s.viewpoint)))

    for player in s.players:
        add(_fact("player", String(player.id)))
    first = next((p.id for p in s.players if p.first), s.players[0].id)
    add(_fact("first_player", String(first)))

    t = s.turn
    add(_fact("turn", number(t.number)))
    add(_fact("active_player", String(t.active)))
    add(_fact("stage", constant(t.stage)))
    if t.phase:
        add(_fact("phase", constant(t.phase)))
    if t.step:
        add(_fact("step", constant(t.step)))

    for card in s.cards:
        c = String(card.id)
        data = resolved_card(game, card)
        add(_fact("card", c))
        if data["name"]:
            add(_fact("card_name", c, String(data["name"])))
        add(_fact("controller", c, String(card.controller)))
        add(_fact("owner", c, String(card.owner or card.controller)))
        add(_fact("zone", c, constant(card.zone)))
        if card.cell is not None:
            side = card.cell.side or card.controller
            add(_fact("cell", c, String(side), number(card.cell.column), number(card.cell.row)))
        if card.open:
            add(_fact("open", c))
        if card.hidden:
            add(_fact("hidden", c))
        if card.revealed:
            add(_fact("revealed", c))
        if card.arrived is not None:
            add(_fact("arrived", c, number(card.arrived)))
        for key, value in sorted(data["properties"].items()):
            if key in game.card_properties:  # a card id: a string like every card id
                add(_fact("property", c, constant(key), String(str(value))))
                continue
            add(_fact("property", c, constant(key), term(value)))
            facts.extend(_numbers(c, key, value))
        for feature, params in sorted(data["features"].items()):
            add(_fact("printed_feature", c, constant(feature)))
            for key, value in sorted(params.items()):
                if isinstance(value, dict):  # a selector: one fact per condition, (condition, value)
                    for condition, wanted in sorted(value.items()):
                        add(_fact("feature_param", c, constant(feature), term(key),
                                  Tuple_([term(condition), term(wanted)])))
                    continue
                add(_fact("feature_param", c, constant(feature), term(key), term(value)))
        # A catalogue card's printed protections, then the situation's own (an unknown card
        # of the viewpoint projection names no catalogue entry, so it shows none).
        entry = game.cards.get(card.card, {}) if card.card else {}
        for kind in dict.fromkeys([*(entry.get("protections") or []), *card.protections]):
            add(_fact("protection", c, constant(kind)))
        for kind, count in sorted(card.markers.items()):
            if count:
                add(_fact("marker", c, constant(kind), number(count)))
        for kind, count in sorted(card.chips.items()):
            if count:
                add(_fact("chip", c, constant(kind), number(count)))

    for effect in s.effects:
        e = String(effect.id)
        args = [constant(effect.what)] + ([term(effect.value)] if effect.value is not None else [])
        kind = Function(effect.kind, args)
        if isinstance(effect.target, str):
            add(_fact("effect", e, String(effect.target), kind, number(effect.timestamp)))
        else:  # the rules work out which cards a selector reaches
            add(_fact("selector_effect", e, kind, number(effect.timestamp)))
            for key, value in sorted(effect.target.items()):
                add(_fact("selector", e, constant(key), term(value)))
        if effect.source is not None:
            add(_fact("effect_source", e, String(effect.source)))
        if effect.feature is not None:
            add(_fact("effect_feature", e, constant(effect.feature)))
        if effect.constant:
            add(_fact("constant", e))

    uses: dict[tuple[int, str, str], int] = {}
    for event in s.history:
        add(_fact("done", number(event.turn), constant(event.action), String(event.actor)))
        key = (event.turn, event.action, event.actor)
        uses[key] = uses.get(key, 0) + 1
        if event.target is not None:
            add(_fact("done_target", number(event.turn), constant(event.action), String(event.actor),
                      String(event.target)))
    for (turn, action, actor), count in uses.items():
        add(_fact("done_count", number(turn), constant(action), String(actor), number(count)))
    return facts


def _numbers(card: Symbol, key: str, value: Any) -> Iterable[Symbol]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [_fact("base_value", card, constant(key), number(0), number(value))]
    if isinstance(value, list):
        return [_fact("base_value", card, constant(key), number(i), number(v)) for i, v in enumerate(value, 1)]
    return []


def render_facts(facts: list[Symbol], header: str = "") -> str:
    lines = [f"% {line}" for line in header.splitlines()] if header else []
    lines += [f"{fact}." for fact in facts]
    return "\n".join(lines) + "\n"
