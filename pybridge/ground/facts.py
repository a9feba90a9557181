"""Situation -> input facts. The only module that knows the names of the
input predicates (documented in ``asp/core/interface.lp``).

User text never becomes program text: ids and names are clingo strings;
game vocabulary, already restricted to plain identifiers by validation,
becomes constants. A fact is built as its text, printed as clingo's own
``str(Symbol)`` prints it (strings quoted and escaped the same way, which
the tests hold to), so ``ccg-judge facts`` output is safe to feed back to
clingo; its Symbol is made only when something asks for it.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any, Iterable, Iterator

from clingo import Function, Number, String, Symbol

from pybridge.game.catalogue import Game, load_game
from pybridge.game.vocabulary import Vocabulary, is_word
from pybridge.ground.specialise import NUMBER, STRING
from pybridge.input.situation import Situation, resolved_card


class Term:
    """A clingo term as clingo prints it, with its Symbol made only when asked for: a check hands
    clingo the text alone, and making a Symbol and printing it are calls into clingo each (a tenth
    of a 120-card check). ``value`` is the argument as :mod:`pybridge.ground.specialise` abstracts it."""

    __slots__ = ("text", "value", "_parts", "_symbol")

    def __init__(self, text: str, value: str | None, parts: tuple, symbol: Symbol | None = None):
        self.text, self.value, self._parts, self._symbol = text, value, parts, symbol

    @property
    def symbol(self) -> Symbol:
        if self._symbol is None:  # a function or a string: constants and numbers have theirs
            kind, value = self._parts
            if kind == "function":
                name, args = value
                self._symbol = Function(name, [a.symbol for a in args])
            else:
                self._symbol = String(value)
        return self._symbol

    def __str__(self) -> str:
        return self.text


def quoted(value: str) -> str:
    """A string as clingo prints it: in double quotes, with backslash, newline and quote escaped."""
    return '"' + value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"') + '"'


# The constants and numbers a board repeats (words, keys, small counts) are made once per process
# rather than once per fact. Bounded: a long-lived process meets the words of many situations.
_MADE: dict[tuple[type, Any], Term] = {}
_MADE_AT_MOST = 20_000


def _made(value: Any, make) -> Term:
    key = (type(value), value)  # True == 1, but they are not the same term
    found = _MADE.get(key)
    if found is None:
        if len(_MADE) >= _MADE_AT_MOST:
            _MADE.clear()
        found = _MADE[key] = make(value)
    return found


def _leaf(symbol: Symbol, value: str | None, parts: tuple) -> Term:
    # Made once per process each: the Symbol at once (clingo refuses what it cannot hold, as it
    # did when facts were Symbols), and the text as clingo prints it.
    return Term(str(symbol), value, parts, symbol)


def constant(name: str) -> Term:
    return _made(name, lambda n: _leaf(Function(n), n, ("constant", n)))


def number(value: int) -> Term:
    return _made(value, lambda v: _leaf(Number(v), NUMBER, ("number", v)))


def string(value: str) -> Term:
    if "\0" in value:  # clingo keeps a string as C does: up to its first NUL
        value = value[:value.index("\0")]
    return Term(quoted(value), STRING, ("string", value))


def function(name: str, args: list[Term]) -> Term:
    """``name(args)``; with the empty name, a tuple (``(a,)`` for one element, as clingo prints it)."""
    inner = ",".join([a.text for a in args])
    if not name:
        text = f"({inner},)" if len(args) == 1 else f"({inner})"
    else:
        text = f"{name}({inner})" if args else name
    return Term(text, f"{name}/{len(args)}" if args else name, ("function", (name, args)))


def tuple_(args: list[Term]) -> Term:
    return function("", args)


def term(value: Any) -> Term:
    """A data value as a clingo term: numbers, identifier constants, strings, tuples.

    Only a whole plain identifier that is not a clingo keyword becomes a constant (so
    ``"creature\n"`` and ``"not"`` stay strings): every value prints as text that clingo
    reads back as exactly this Symbol."""
    if isinstance(value, bool):
        return constant("true" if value else "false")
    if isinstance(value, int):
        return number(value)
    if isinstance(value, str):
        return constant(value) if is_word(value) else string(value)
    if isinstance(value, (list, tuple)):
        return tuple_([term(v) for v in value])
    if isinstance(value, dict):
        return tuple_([tuple_([term(k), term(v)]) for k, v in sorted(value.items())])
    return string(str(value))


class FactSet:
    """A situation's input facts: their text (a fact a line, as ``ccg-judge facts`` shows and clingo
    reads), their shape for :mod:`pybridge.ground.specialise`, and, made when first asked for, their Symbols
    (iterating gives the Symbols)."""

    def __init__(self, facts: list[Term]):
        self.facts = facts

    @cached_property
    def text(self) -> str:
        return "".join([f"{f.text}.\n" for f in self.facts])

    @cached_property
    def key(self) -> frozenset:
        """:func:`pybridge.ground.specialise.facts_key` of the facts, read off their terms."""
        return frozenset((f._parts[1][0], len(f._parts[1][1]), tuple([a.value for a in f._parts[1][1]]))
                         for f in self.facts)

    @cached_property
    def symbols(self) -> list[Symbol]:
        return [f.symbol for f in self.facts]

    def __contains__(self, atom: Symbol) -> bool:
        """Whether an atom is one of the facts (read as its text: one call into clingo, where the
        facts' Symbols would be many)."""
        return str(atom) in self._texts

    @cached_property
    def _texts(self) -> frozenset[str]:
        return frozenset([f.text for f in self.facts])

    @cached_property
    def signatures(self) -> frozenset[tuple[str, int]]:
        """The predicates the facts are of (name, arity), read off their few shapes."""
        return frozenset((name, arity) for name, arity, _ in self.key)

    def __iter__(self) -> Iterator[Symbol]:
        return iter(self.symbols)

    def __len__(self) -> int:
        return len(self.facts)


def _fact(name: str, *args: Term) -> Term:
    return function(name, list(args))


def situation_facts(s: Situation, game: Game | None = None) -> FactSet:
    """Every input fact of a (projected) situation, in a stable order."""
    game = game or load_game(s.game)
    facts: list[Term] = []
    add = facts.append
    add(_fact("game", constant(s.game)))
    add(_fact("edition", string(s.edition or game.default_edition)))
    for name, option in sorted(game.options.items()):
        add(_fact("option", constant(name), constant(s.options.get(name, option.default))))
    add(_fact("viewpoint", string(s.viewpoint)))

    for player in s.players:
        add(_fact("player", string(player.id)))
        for kind, count in sorted(player.pool.items()):
            if count:
                add(_fact("pool", string(player.id), constant(kind), number(count)))
    first = next((p.id for p in s.players if p.first), s.players[0].id)
    add(_fact("first_player", string(first)))

    t = s.turn
    add(_fact("turn", number(t.number)))
    add(_fact("active_player", string(t.active)))
    add(_fact("stage", constant(t.stage)))
    if t.phase:
        add(_fact("phase", constant(t.phase)))
    if t.step:
        add(_fact("step", constant(t.step)))

    symbolic: dict[str, str] = {}  # a text made of symbols -> the pattern of its symbols
    vocabulary = game.vocabulary
    for card in s.cards:
        c = string(card.id)
        data = resolved_card(game, card)
        _note_symbolic(vocabulary, data, symbolic)
        add(_fact("card", c))
        if data["name"]:
            add(_fact("card_name", c, string(data["name"])))
        add(_fact("controller", c, string(card.controller)))
        add(_fact("owner", c, string(card.owner or card.controller)))
        add(_fact("zone", c, constant(card.zone)))
        if card.cell is not None:
            side = card.cell.side or card.controller
            add(_fact("cell", c, string(side), number(card.cell.column), number(card.cell.row)))
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
                add(_fact("property", c, constant(key), string(str(value))))
                continue
            add(_fact("property", c, constant(key), term(value)))
            facts.extend(_numbers(c, key, value))
        for feature, params in sorted(data["features"].items()):
            add(_fact("printed_feature", c, constant(feature)))
            declared = game.vocabulary.features.get(feature)
            if declared is not None and declared.template is not None:  # a keyword: its composition's facts
                params = {**params, **declared.composition(params)}
            for key, value in sorted(params.items()):
                if key == "do" and isinstance(value, list):  # a composition's steps, in order
                    facts.extend(_steps(game, c, constant(feature), value))
                    continue
                if isinstance(value, dict):  # a selector: one fact per condition, (condition, value)
                    for condition, wanted in sorted(value.items()):
                        add(_fact("feature_param", c, constant(feature), term(key),
                                  tuple_([term(condition), term(wanted)])))
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

    for text, pattern in symbolic.items():
        facts.extend(_symbols(text, pattern))

    for effect in s.effects:
        e = string(effect.id)
        args = [constant(effect.what)] + ([term(effect.value)] if effect.value is not None else [])
        kind = function(effect.kind, args)
        if isinstance(effect.target, str):
            add(_fact("effect", e, string(effect.target), kind, number(effect.timestamp)))
        else:  # the rules work out which cards a selector reaches
            add(_fact("selector_effect", e, kind, number(effect.timestamp)))
            for key, value in sorted(effect.target.items()):
                add(_fact("selector", e, constant(key), term(value)))
        if effect.source is not None:
            add(_fact("effect_source", e, string(effect.source)))
        if effect.feature is not None:
            add(_fact("effect_feature", e, constant(effect.feature)))
        if effect.constant:
            add(_fact("constant", e))

    uses: dict[tuple[int, str, str], int] = {}
    for event in s.history:
        add(_fact("done", number(event.turn), constant(event.action), string(event.actor)))
        key = (event.turn, event.action, event.actor)
        uses[key] = uses.get(key, 0) + 1
        if event.target is not None:
            add(_fact("done_target", number(event.turn), constant(event.action), string(event.actor),
                      string(event.target)))
        if event.rolls is not None and event.target is not None:
            for side in ("attacker", "defender"):
                for i, face in enumerate(getattr(event.rolls, side), 1):
                    add(_fact("rolled", number(event.turn), string(event.actor), string(event.target),
                              constant(side), number(i), number(face)))
    for (turn, action, actor), count in uses.items():
        add(_fact("done_count", number(turn), constant(action), string(actor), number(count)))
    return FactSet(facts)


def _note_symbolic(vocabulary: Vocabulary, data: dict, symbolic: dict[str, str]) -> None:
    """The card's texts whose declared type is made of symbols (a mana cost)."""
    for key, value in data["properties"].items():
        prop = vocabulary.properties.get(key)
        if prop is not None and prop.type.symbols and isinstance(value, str):
            symbolic.setdefault(value, prop.type.symbols)
    for name, params in data["features"].items():
        feature = vocabulary.features.get(name)
        for key, value in params.items():
            parameter = feature.params.get(key) if feature else None
            if parameter is not None and parameter.type.symbols and isinstance(value, str):
                symbolic.setdefault(value, parameter.type.symbols)


def _symbols(text: str, pattern: str) -> Iterable[Term]:
    """text_symbol(Text, I, S) for the I-th symbol S of the text; a symbol that is a whole
    number comes as text_number(Text, I, N) instead, so the rules can count with it."""
    for i, match in enumerate(re.finditer(pattern, text), 1):
        symbol = match.group(1)
        if symbol.isdigit() and symbol.isascii():
            yield _fact("text_number", string(text), number(i), number(int(symbol)))
        else:
            yield _fact("text_symbol", string(text), number(i), string(symbol))


def _steps(game: Game, card: Term, feature: Term, steps: list[Any]) -> Iterable[Term]:
    """A composed ability's steps: ``ability_step(C, F, I, Primitive)`` for the I-th step and
    ``step_param(C, F, I, Key, Value)`` for each of its parameters (a bare value is its primitive's
    main parameter; a selector gives one fact per condition, as (condition, value))."""
    primitives = game.vocabulary.primitives
    for i, step in enumerate(steps, 1):
        (kind, params), = ({step: None} if isinstance(step, str) else step).items()
        if not isinstance(params, dict):
            params = {} if params is None else {primitives[kind].main: params}
        yield _fact("ability_step", card, feature, number(i), constant(kind))
        for key, value in sorted(params.items()):
            if isinstance(value, dict):
                for condition, wanted in sorted(value.items()):
                    yield _fact("step_param", card, feature, number(i), term(key),
                                tuple_([term(condition), term(wanted)]))
            else:
                yield _fact("step_param", card, feature, number(i), term(key), term(value))


def _numbers(card: Term, key: str, value: Any) -> Iterable[Term]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [_fact("base_value", card, constant(key), number(0), number(value))]
    if isinstance(value, list):
        return [_fact("base_value", card, constant(key), number(i), number(v)) for i, v in enumerate(value, 1)]
    return []


def render_facts(facts: FactSet | Iterable[Symbol], header: str = "") -> str:
    lines = [f"% {line}" for line in header.splitlines()] if header else []
    lines += [f"{fact}." for fact in (facts.facts if isinstance(facts, FactSet) else facts)]
    return "\n".join(lines) + "\n"
