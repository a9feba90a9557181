"""The neighbourhood search of ``ccg-judge whatif``: the cheapest edits of a situation under which
an action's verdict becomes the one asked for, found by the solver.

The situation's facts, projected onto the asking player's view as ``check`` projects them, are
given to the game's rules as defaults (``given/1``) that edits may take away or add to
(``asp/core/whatif.lp``): move a card to another cell, open or close it, let it arrive on another
turn, put on or take off a marker, chip or protection, take an effect away or put card text on the
acting card, change the turn's stage, phase, step or active player, the edition or an
interpretation option. Each edit costs what the game declares (``asp/<game>/whatif.yaml``) and
clingo's optimisation returns the cheapest set; each further alternative is the cheapest one that
is not a superset of one already found (the moves of a card count as one change, so that the next
alternative is not the same move a cell further). :func:`apply_edits` makes the same edits on the
situation itself: an opponent's hidden card, which the asker knows only by its place, keeps its
identity; only its place may change. The question is asked, and each alternative explained again,
by :func:`pybridge.api.whatif`.
"""

from __future__ import annotations

import functools
import logging
import time
from pathlib import Path
from typing import Any

import clingo
from clingo import Function, Number, String, Symbol
from msgspec import Struct

from pybridge.errors import JudgeError, TimeLimitError, close_matches
from pybridge.game.catalogue import Game, load_game
from pybridge.game.encodings import asp_root, entry_file
from pybridge.input import limits
from pybridge.input.situation import Cell, Effect, Situation, check_against_game
from pybridge.input.structs import replace

GOALS = ("legal", "illegal", "obliged")
# The kinds of edit asp/core/whatif.lp makes (whatif_edit/2), each worded in pybridge.report.whatif
# and made by apply_edits.
EDIT_KINDS = ("move", "open", "close", "arrived", "remove_marker", "add_marker", "remove_chip", "remove_protection",
              "add_protection", "remove_effect", "add_effect", "stage", "phase", "step", "active_player",
              "edition", "option")


# --------------------------------------------------------------------------
# The game's costs


class Costs(Struct, frozen=True):
    costs: dict[str, int]
    in_play: tuple[str, ...]


def costs_of(game: Game) -> Costs:
    """The game's costs of edits (asp/<game>/whatif.yaml), checked."""
    return _costs(game.name, game.directory)


@functools.cache
def _costs(game_name: str, directory: Path) -> Costs:
    import yaml

    path = directory / "whatif.yaml"
    if not path.is_file():
        raise JudgeError(f"{game_name} declares no edits for whatif (asp/{game_name}/whatif.yaml)", field="--game")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise JudgeError(f"not valid YAML: {exc}", source=str(path)) from None
    costs = data.get("costs") if isinstance(data, dict) else None
    if not isinstance(costs, dict):
        raise JudgeError("expected a mapping with costs: {kind of edit: cost, ...}", source=str(path), field="costs")
    for kind, cost in costs.items():
        if kind not in EDIT_KINDS:
            close = close_matches(str(kind), EDIT_KINDS, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else f"; expected one of {', '.join(EDIT_KINDS)}"
            raise JudgeError(f"unknown kind of edit {kind!r}{hint}", source=str(path), field=f"costs.{kind}")
        if not isinstance(cost, int) or isinstance(cost, bool) or cost < 1:
            raise JudgeError(f"the cost of an edit must be a whole number of 1 or more, got {cost!r}",
                             source=str(path), field=f"costs.{kind}")
    unknown = [k for k in data if k not in ("costs", "in_play")]
    if unknown:
        raise JudgeError(f"unknown key {unknown[0]!r}; expected costs or in_play", source=str(path),
                         field=unknown[0])
    in_play = data.get("in_play") or []
    zones = load_game(game_name).zones
    for i, zone in enumerate(in_play if isinstance(in_play, list) else [in_play]):
        if zone not in zones:
            close = close_matches(str(zone), zones, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else f"; the zones are {', '.join(zones)}"
            raise JudgeError(f"unknown zone {zone!r}{hint}", source=str(path), field=f"in_play[{i}]")
    return Costs(dict(costs), tuple(in_play))


# --------------------------------------------------------------------------
# The program: the game's rules, the neighbourhood, and the bridge from given facts to the rules


def _bridge(facts: list[Symbol]) -> str:
    """A rule per input predicate p/n, ``p(X1, ..., Xn) :- _in(p(X1, ..., Xn))``: the rules read what
    holds after the edits. The input predicates are those of asp/core/interface.lp and every one a
    given fact uses: a game declares its own (Berserk's ability_step/4 and step_param/5, a composed
    ability's steps), and a given fact the rules did not read would leave its card text out."""
    from pybridge.ground.compiler import input_signatures

    given = {(f.arguments[0].name, len(f.arguments[0].arguments)) for f in facts if f.name == "given"}
    return _bridge_rules(input_signatures() | given)


@functools.cache
def _bridge_rules(signatures: frozenset[tuple[str, int]]) -> str:
    lines = []
    for name, arity in sorted(signatures):
        args = ", ".join(f"X{i}" for i in range(arity))
        lines.append(f"{name}({args}) :- _in({name}({args})).")
    return "\n".join(lines) + "\n"


def _control(game: Game, facts: list[Symbol]) -> clingo.Control:
    """The game's rules as plain clingo reads them (main.lp and its includes), asp/core/whatif.lp,
    the bridge and the question's facts (their text as clingo prints the Symbols)."""
    from pybridge.ground.solve import render

    ctl = clingo.Control(["--opt-mode=opt", "--opt-strategy=usc"], logger=_log_clingo, message_limit=20)
    ctl.load(str(entry_file(game.name, game.entry)))
    ctl.load(str(asp_root() / "core" / "whatif.lp"))
    ctl.add("base", [], _bridge(facts))
    ctl.add("base", [], render(facts))
    return ctl


def _log_clingo(code: clingo.MessageCode, message: str) -> None:
    logging.getLogger(__name__).info("clingo: %s", message.strip())


# --------------------------------------------------------------------------
# The facts of one question


def _card_ids(term: Symbol, ids: set[str]) -> list[str]:
    """The card ids an action names, in order."""
    found = []
    for arg in term.arguments:
        if arg.type == clingo.SymbolType.String and arg.string in ids:
            found.append(arg.string)
        elif arg.type == clingo.SymbolType.Function:
            found += _card_ids(arg, ids)
    return found


def _effect_forms(game: Game) -> tuple[Symbol, ...]:
    return _effect_forms_of(game.name, game.directory)


@functools.cache
def _effect_forms_of(game_name: str, directory: Path) -> tuple[Symbol, ...]:
    """The card texts an edit may put on an acting card that the game's vocabulary admits as effects:
    forbid(K), permit(K), permit(K, Q) and oblige(K) for each action kind K (and condition Q of K)."""
    from pybridge.game.vocabulary import Context

    vocabulary = load_game(game_name).vocabulary
    candidates = []
    for kind in vocabulary.action_kinds:
        candidates += [("forbid", kind, None), ("permit", kind, None), ("oblige", kind, None)]
        candidates += [("permit", kind, q.name) for q in vocabulary.conditions.values() if kind in q.of]
    admitted = []
    for effect, what, value in candidates:
        try:
            vocabulary.check_effect(effect, what, value, ("effect",), _refuse, Context())
        except _Refused:
            continue
        admitted.append(Function(effect, [Function(what)] + ([Function(value)] if value else [])))
    return tuple(admitted)


class _Refused(Exception):
    pass


def _refuse(message: str, path: tuple) -> None:
    raise _Refused(message)


def next_timestamp(viewed: Situation) -> int:
    """The timestamp of card text an edit adds: after every effect the asker sees (only those: the
    effects of a card they may not see must not show through it)."""
    return max((e.timestamp for e in viewed.effects), default=0) + 1


def question_facts(viewed: Situation, game: Game, costs: Costs, player: str, action: Symbol,
                    wanted: str, scope: str) -> list[Symbol]:
    from pybridge.ground.facts import situation_facts

    F, N, S = Function, Number, String
    given = list(situation_facts(viewed, game))
    facts = [F("given", [f]) for f in given]
    facts.append(F("whatif_goal", [S(player), action, F(wanted)]))
    ids = {c.id for c in viewed.cards}
    named = _card_ids(action, ids)
    in_scope = sorted(ids) if scope == "board" else sorted(set(named))
    facts += [F("whatif_scope", [S(c)]) for c in in_scope]
    facts += [F("whatif_cost", [F(k), N(n)]) for k, n in costs.costs.items()]
    facts += [F("whatif_word", [F("in_play"), F(z)]) for z in costs.in_play]
    vocabulary = game.vocabulary
    facts += [F("whatif_word", [F("marker"), F(k)]) for k, w in vocabulary.markers.items() if w.modelled]
    facts += [F("whatif_word", [F("protection"), F(k)]) for k, w in vocabulary.protections.items() if w.modelled]
    if game.board is not None:
        facts.append(F("whatif_columns", [N(game.board.columns)]))
        facts += [F("whatif_word", [F("cell"), F("", [S(p.id), N(x), N(y)])])
                  for p in viewed.players for x in range(1, game.board.columns + 1)
                  for y in range(1, game.board.rows_per_side + 1)]
    words = {"stage": [F(s) for s in game.stages], "phase": [F(s) for s in game.phases],
             "step": [F(s) for s in game.steps], "active_player": [S(p.id) for p in viewed.players],
             "edition": [S(e) for e in game.editions]}
    for part, values in words.items():
        facts += [F("whatif_turn_fact", [F(part), w, F(part, [w])]) for w in values]
    facts += [F("whatif_option", [F(name), F(v)]) for name, o in game.options.items() for v in o.values]
    facts += [F("whatif_condition", [F(k), F(q.name)]) for q in vocabulary.conditions.values() for k in q.of]
    facts += [F("whatif_effect_form", [form]) for form in _effect_forms(game)]
    taken = {e.id for e in viewed.effects}
    for i, card in enumerate(in_scope, 1):
        new_id = next(f"whatif-{n}" for n in range(i, i + len(taken) + 2) if f"whatif-{n}" not in taken)
        taken.add(new_id)
        facts.append(F("whatif_new_effect", [S(card), S(new_id)]))
    facts.append(F("whatif_next_timestamp", [N(next_timestamp(viewed))]))
    # A protection printed on a catalogue card is no edit of the situation away.
    for card in viewed.cards:
        entry = game.cards.get(card.card, {}) if card.card else {}
        for kind in entry.get("protections") or []:
            facts.append(F("whatif_fixed", [F("protection", [S(card.id), F(kind)])]))
    return facts


# --------------------------------------------------------------------------
# The search


class Found(Struct):
    """An alternative the search found: its edits (whatif_edit/2), their cost, and what it changes."""

    edits: list[Symbol]
    cost: int
    changed: list[Symbol]


def search(game: Game, facts: list[Symbol], costs: Costs, top: int,
           time_limit: float | None = None) -> tuple[list[Found], bool]:
    """Up to ``top`` cheapest edit sets, each not a superset of an earlier one; and whether the
    neighbourhood had no more. ``time_limit``: seconds for the whole search (default: the judgement's
    limit, CCG_JUDGE_TIME_LIMIT); clingo cannot interrupt grounding, so it is checked after it."""
    from pybridge.ground.solve import finished_by  # lazily, as this module imports solve elsewhere

    limit = time_limit or limits.current().time_limit
    deadline = time.monotonic() + limit
    ctl = _control(game, facts)
    ctl.ground([("base", [])])
    _within(deadline, limit)
    found: list[Found] = []
    while len(found) < top:
        best: list[Found] = []

        def on_model(model: clingo.Model) -> None:
            shown = model.symbols(shown=True)
            edits = sorted(s for s in shown if s.name == "whatif_edit")
            changed = [s for s in shown if s.name == "whatif_changed"]
            best[:] = [Found(edits, sum(costs.costs[e.arguments[0].name] for e in edits), changed)]

        with ctl.solve(on_model=on_model, async_=True) as handle:
            if not finished_by(handle, deadline):
                handle.cancel()
                _within(0.0, limit)
            result = handle.get()
        if result.unsatisfiable or not best:
            return found, True
        found.append(best[0])
        _rule_out(ctl, best[0].changed)
    return found, False


def _within(deadline: float, limit: float) -> None:
    if time.monotonic() > deadline:
        raise TimeLimitError(limits.over("whatif's search did not finish within the time limit", limit, "time_limit"))


def _rule_out(ctl: clingo.Control, changed: list[Symbol]) -> None:
    """No later alternative makes all of these changes (whatif_changed/2: a card moved wherever
    to, a part of the turn set to whatever value, or the very edit)."""
    literals = sorted({ctl.symbolic_atoms[atom].literal for atom in changed})
    with ctl.backend() as backend:
        backend.add_rule([], literals)


# --------------------------------------------------------------------------
# The edits made on the situation


def apply_edits(s: Situation, edits: list[Symbol], real_of: dict[str, str], stamp: int) -> Situation:
    """The situation with the edits made: cards named by the asker's ids (an unknown card's neutral
    one) are found by their real ids; card text an edit adds gets timestamp ``stamp``. The result is
    validated as any situation file is."""
    cards = {c.id: c for c in s.cards}
    effects = list(s.effects)
    turn, edition, options = s.turn, s.edition, dict(s.options)

    def card_id(symbol: Symbol) -> str:
        return real_of.get(symbol.string, symbol.string)

    def change(symbol: Symbol, **update: Any) -> None:
        c = card_id(symbol)
        cards[c] = replace(cards[c], **update)

    for edit in edits:
        kind, x = edit.arguments[0].name, edit.arguments[1]
        args = x.arguments if x.type == clingo.SymbolType.Function and not x.name else [x]
        if kind == "move":
            card = cards[card_id(args[0])]
            side, column, row = args[2].arguments
            change(args[0], cell=Cell(column=column.number, row=row.number,
                                      side=None if side.string == card.controller else side.string))
        elif kind in ("open", "close"):
            change(args[0], open=kind == "open")
        elif kind == "arrived":
            change(args[0], arrived=args[2].number)
        elif kind in ("remove_marker", "remove_chip", "add_marker"):
            field = "chips" if kind == "remove_chip" else "markers"
            counts = dict(getattr(cards[card_id(args[0])], field))
            if kind == "add_marker":
                counts[args[1].name] = 1
            else:
                counts.pop(args[1].name, None)
            change(args[0], **{field: counts})
        elif kind == "remove_protection":
            card = cards[card_id(args[0])]
            change(args[0], protections=[p for p in card.protections if p != args[1].name])
        elif kind == "add_protection":
            card = cards[card_id(args[0])]
            change(args[0], protections=[*card.protections, args[1].name])
        elif kind == "remove_effect":
            effects = [e for e in effects if e.id != args[0].string]
        elif kind == "add_effect":
            what = args[2]
            value = _effect_value(what.arguments[1]) if len(what.arguments) > 1 else None
            effects = _make_room(effects, args[0].string)
            effects.append(Effect(id=args[0].string, target=card_id(args[1]), kind=what.name,
                                  what=what.arguments[0].name, value=value, timestamp=stamp, constant=False))
        elif kind == "option":
            options[args[0].name] = args[2].name
        elif kind == "edition":
            edition = args[1].string
        else:
            value = args[1].string if args[1].type == clingo.SymbolType.String else args[1].name
            turn = replace(turn, **{"active" if kind == "active_player" else kind: value})
    edited = replace(s, cards=[cards[c.id] for c in s.cards], effects=effects, turn=turn, edition=edition,
                     options=options, ruling=None)
    check_against_game(edited, source="the edited situation")
    return edited


def _make_room(effects: list[Effect], new_id: str) -> list[Effect]:
    """The effects, one the new id would clash with renamed. The search chose the id apart from every
    effect the asker sees, so a clash is with one they do not (made by a card they may not see): it
    takes another id, which they never see either, and the new effect keeps the id the search said."""
    ids = {e.id for e in effects}
    spare = next(f"{new_id}~{n}" for n in range(1, len(ids) + 2) if f"{new_id}~{n}" not in ids)
    return [replace(e, id=spare) if e.id == new_id else e for e in effects]


def _effect_value(symbol: Symbol) -> Any:
    if symbol.type == clingo.SymbolType.Number:
        return symbol.number
    return symbol.string if symbol.type == clingo.SymbolType.String else symbol.name
