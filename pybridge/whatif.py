"""What would have to change: the smallest edits of a situation under which an action's verdict
becomes the one asked for (``ccg-judge whatif``).

The solver does the search. The situation's facts, projected onto the asking player's view as
``check`` projects them, are given to the game's rules as defaults (``given/1``) that edits may
take away or add to (``asp/core/whatif.lp``): move a card to another cell, open or close it, let
it arrive on another turn, put on or take off a marker, chip or protection, take an effect away or
put card text on the acting card, change the turn's stage, phase, step or active player, the
edition or an interpretation option. Each edit costs what the game declares (``asp/<game>/whatif.yaml``) and clingo's
optimisation returns the cheapest set; each further alternative is the cheapest one that is not
a superset of one already found (the moves of a card count as one change, so that the next
alternative is not the same move a cell further).

Every alternative is then made as a situation: the same edits on the situation itself (an
opponent's hidden card, which the asker knows only by its place, keeps its identity; only its
place may change), explained as ``explain`` explains it, and the verdict must be the one
promised. Nothing of the search reads the truth of a card the asker may not see: its edits and
words name it by its neutral id, and a hidden card's treatment under 532.6 is the one the new
verdict states, said as such.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Literal

import clingo
import msgspec
from clingo import Function, Number, String, Symbol
from msgspec import Meta, Struct

from pybridge.catalogue import Game, load_game
from pybridge.encodings import asp_root, entry_file
from pybridge.errors import JudgeError, close_matches
from pybridge.justify import Report, Verdict
from pybridge.situation import Cell, Effect, Situation, check_against_game, load_situation
from pybridge.structs import replace
from pybridge.terms import text
from pybridge.viewpoint import project, unknown_card_ids

WHATIF_VERSION = 1
GOALS = ("legal", "illegal", "obliged")
# The kinds of edit asp/core/whatif.lp makes (whatif_edit/2), each worded and made below.
EDIT_KINDS = ("move", "open", "close", "arrived", "remove_marker", "add_marker", "remove_chip", "remove_protection",
              "add_protection", "remove_effect", "add_effect", "stage", "phase", "step", "active_player",
              "edition", "option")
DEFAULT_TIME_LIMIT = 30.0


# --------------------------------------------------------------------------
# The results


class Edit(Struct, frozen=True):
    kind: Annotated[str, Meta(description="The kind of edit (a key of the game's whatif.yaml costs).")]
    says: Annotated[str, Meta(description="The edit in words.")]
    cost: int
    card: Annotated[str | None, Meta(description="The card it changes, as the asking player names it.")] = None
    was: Annotated[str | None, Meta(description="What it was (a cell, a phase, a marker count...).")] = None
    becomes: Annotated[str | None, Meta(description="What it becomes.")] = None


class Alternative(Struct, frozen=True):
    cost: Annotated[int, Meta(description="The sum of the edits' costs.")]
    edits: list[Edit]
    action: Annotated[str, Meta(description="The action as the edited situation names it.")]
    verdict: Annotated[str, Meta(description="legal, illegal or impossible, as explain gives it.")]
    obliged: bool
    confirmed: Annotated[bool, Meta(description="explain of the edited situation gives the verdict asked for.")]
    report: Annotated[Report, Meta(description="explain's report of the edited situation (report schema).")]
    file: Annotated[str | None, Meta(description="Where the edited situation was written (--write).")] = None
    moved: Annotated[list[list[str]], Meta(
        description="Cards moved: [card, cell it was in, cell it is in], cells as side:column.row.")] = []
    assumed: Annotated[list[str], Meta(
        description="No edit: the treatment of an opponent's hidden card the new verdict rests on (532.6), "
                    "in words, with the clause that allows it.")] = []


class WhatIf(Struct, frozen=True):
    version: int
    game: str
    situation: str
    player: str
    action: str
    now: Annotated[str, Meta(description="The action's verdict in the situation as it is.")]
    wanted: Literal["legal", "illegal", "obliged"]
    alternatives: list[Alternative]
    searched: Annotated[bool, Meta(description="False when the action already has the verdict asked for.")] = True
    exhausted: Annotated[bool, Meta(description="No further alternative exists (fewer than --top were found).")] = False
    current: Report | None = None


# --------------------------------------------------------------------------
# The game's costs


class Costs(Struct, frozen=True):
    costs: dict[str, int]
    in_play: tuple[str, ...]


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


@functools.cache
def _bridge(root: Path) -> str:
    """A rule per input predicate p/n, ``p(X1, ..., Xn) :- _in(p(X1, ..., Xn))``: the rules read what
    holds after the edits."""
    from pybridge.consistency import input_signatures

    lines = []
    for name, arity in sorted(input_signatures()):
        args = ", ".join(f"X{i}" for i in range(arity))
        lines.append(f"{name}({args}) :- _in({name}({args})).")
    return "\n".join(lines) + "\n"


def _control(game: Game, facts: list[Symbol]) -> clingo.Control:
    """The game's rules as plain clingo reads them (main.lp and its includes), asp/core/whatif.lp,
    the bridge and the question's facts (their text as clingo prints the Symbols)."""
    from pybridge.solve import render

    ctl = clingo.Control(["--opt-mode=opt", "--opt-strategy=usc"], logger=_log_clingo, message_limit=20)
    ctl.load(str(entry_file(game.name, game.entry)))
    ctl.load(str(asp_root() / "core" / "whatif.lp"))
    ctl.add("base", [], _bridge(asp_root()))
    ctl.add("base", [], render(facts))
    return ctl


def _log_clingo(code: clingo.MessageCode, message: str) -> None:
    import logging
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
    from pybridge.vocabulary import Context

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


def _question_facts(viewed: Situation, game: Game, costs: Costs, player: str, action: Symbol,
                    wanted: str, scope: str) -> list[Symbol]:
    from pybridge.facts import situation_facts

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


class _Found(Struct):
    edits: list[Symbol]
    cost: int
    changed: list[Symbol]


def _search(game: Game, facts: list[Symbol], costs: Costs, top: int,
            deadline: float) -> tuple[list[_Found], bool]:
    """Up to ``top`` cheapest edit sets, each not a superset of an earlier one; and whether the
    neighbourhood had no more."""
    ctl = _control(game, facts)
    ctl.ground([("base", [])])
    found: list[_Found] = []
    while len(found) < top:
        best: list[_Found] = []

        def on_model(model: clingo.Model) -> None:
            shown = model.symbols(shown=True)
            edits = sorted(s for s in shown if s.name == "whatif_edit")
            changed = [s for s in shown if s.name == "whatif_changed"]
            best[:] = [_Found(edits, sum(costs.costs[e.arguments[0].name] for e in edits), changed)]

        with ctl.solve(on_model=on_model, async_=True) as handle:
            if not handle.wait(max(0.0, deadline - time.monotonic())):
                handle.cancel()
                raise JudgeError("whatif ran out of time before it found the cheapest edits "
                                 "(--time-limit raises the limit)")
            result = handle.get()
        if result.unsatisfiable or not best:
            return found, True
        found.append(best[0])
        _rule_out(ctl, best[0].changed)
    return found, False


def _rule_out(ctl: clingo.Control, changed: list[Symbol]) -> None:
    """No later alternative makes all of these changes (whatif_changed/2: a card moved wherever
    to, a part of the turn set to whatever value, or the very edit)."""
    literals = sorted({ctl.symbolic_atoms[atom].literal for atom in changed})
    with ctl.backend() as backend:
        backend.add_rule([], literals)


# --------------------------------------------------------------------------
# An edit in words, and made on the situation


def _cell(side: Symbol, column: Symbol, row: Symbol) -> str:
    return f"{side.string}:{column.number}.{row.number}"


def _value(symbol: Symbol) -> str:
    return symbol.string if symbol.type == clingo.SymbolType.String else str(symbol)


def _kind_words(kind: Symbol, phrases) -> str:
    from pybridge.report import say_term
    return say_term(text(kind), phrases)


def _term(written: str) -> Symbol:
    """A term as a report writes it (``element(dark)``) as a Symbol, for its wording."""
    return clingo.parse_term(written)


def word_edit(edit: Symbol, costs: Costs, phrases) -> Edit:
    """An edit as a player reads it; cards by the names the asking player knows them by."""
    kind, x = edit.arguments[0].name, edit.arguments[1]
    cost = costs.costs[kind]
    args = x.arguments if x.type == clingo.SymbolType.Function and not x.name else [x]
    if kind == "move":
        card, was, becomes = args[0].string, _cell(*args[1].arguments), _cell(*args[2].arguments)
        return Edit(kind, f"move {card} from cell {was} to cell {becomes}", cost, card, was, becomes)
    if kind in ("open", "close"):
        card = args[0].string
        return Edit(kind, f"{'open' if kind == 'open' else 'close'} {card}", cost, card)
    if kind == "arrived":
        card, was, becomes = args[0].string, args[1].number, args[2].number
        return Edit(kind, f"let {card} have come under its controller's control on turn {becomes} (not {was})",
                    cost, card, str(was), str(becomes))
    if kind in ("remove_marker", "remove_chip"):
        card, what, count = args[0].string, args[1].name, args[2].number
        noun = "marker" if kind == "remove_marker" else "chip"
        return Edit(kind, f"take the {count} {what} {noun}{'s' if count > 1 else ''} off {card}", cost, card,
                    f"{what} {count}", f"{what} 0")
    if kind == "add_marker":
        card, what = args[0].string, args[1].name
        return Edit(kind, f"put a {what} marker on {card}", cost, card, f"{what} 0", f"{what} 1")
    if kind in ("remove_protection", "add_protection"):
        card, what = args[0].string, args[1].name
        says = f"give {card} protection from {what}" if kind == "add_protection" else \
            f"take {card}'s protection from {what} away"
        return Edit(kind, says, cost, card, what if kind == "remove_protection" else None,
                    what if kind == "add_protection" else None)
    if kind == "remove_effect":
        effect, target, what = args[0].string, args[1], args[2]
        on = "the cards its selector reaches" if target.type == clingo.SymbolType.Function else target.string
        return Edit(kind, f"remove effect {effect} ({_kind_words(what, phrases)}, on {on})", cost,
                    None if target.type == clingo.SymbolType.Function else target.string, text(what), None)
    if kind == "add_effect":
        effect, card, what = args[0].string, args[1].string, args[2]
        return Edit(kind, f"give {card} card text that applies last: {_kind_words(what, phrases)} "
                          f"(effect {effect})", cost, card, None, text(what))
    if kind == "option":
        name, was, becomes = (a.name for a in args)
        return Edit(kind, f"read the rules with option {name} = {becomes} (not {was})", cost, None, was, becomes)
    was, becomes = _value(args[0]), _value(args[1])
    part = {"active_player": "active player", "edition": "edition"}.get(kind, kind)
    says = f"make the {part} {becomes}" + (f" (not {was})" if was != "none" else "")
    if kind == "active_player":
        says = f"make it {becomes}'s turn (not {was}'s)"
    return Edit(kind, says, cost, None, None if was == "none" else was, becomes)


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
            turn = replace(turn, **{"active" if kind == "active_player" else kind: _value(args[1])})
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


# --------------------------------------------------------------------------
# The question


def verdict_name(verdict: Verdict) -> str:
    """legal, illegal or impossible as explain says; obliged for a legal action an obligation binds."""
    return "obliged" if verdict.verdict == "legal" and verdict.obligations else verdict.verdict


def gives(verdict: Verdict, wanted: str) -> bool:
    if wanted == "obliged":
        return verdict_name(verdict) == "obliged"
    return verdict.verdict == wanted


def whatif(situation: Situation | str | Path, action: str, *, wanted: str | None = None, top: int = 1,
           player: str | None = None, scope: str = "action", write: Path | None = None,
           time_limit: float | None = None, name: str | None = None) -> WhatIf:
    """The ``top`` cheapest edits of the situation under which player's ``action`` gets the verdict
    ``wanted`` (default: the other one: illegal for a legal action, legal otherwise), each made as a
    situation and explained again. ``scope``: the cards edits may move or add to, ``action`` (those
    it names) or ``board`` (every card); any card may lose a marker, chip, protection or effect."""
    return whatif_situations(situation, action, wanted=wanted, top=top, player=player, scope=scope, write=write,
                             time_limit=time_limit, name=name)[0]


def whatif_situations(situation: Situation | str | Path, action: str, *, wanted: str | None = None, top: int = 1,
                      player: str | None = None, scope: str = "action", write: Path | None = None,
                      time_limit: float | None = None,
                      name: str | None = None) -> tuple[WhatIf, list[Situation]]:
    """:func:`whatif`, with each alternative's edited situation (the truth, for its page)."""
    from pybridge import api

    origin = situation
    s = api.with_overrides(situation if isinstance(situation, Situation) else load_situation(situation),
                           player=player)
    if top < 1:
        raise JudgeError(f"--top must be 1 or more, got {top}", field="--top")
    if scope not in ("action", "board"):
        raise JudgeError(f"--scope must be action or board, got {scope!r}", field="--scope")
    if wanted is not None and wanted not in GOALS:
        close = close_matches(wanted, GOALS, n=1, cutoff=0.4)
        raise JudgeError(f"--to must be one of {', '.join(GOALS)}, got {wanted!r}"
                         + (f"; did you mean {close[0]!r}?" if close else ""), field="--to")
    deadline = time.monotonic() + (time_limit or DEFAULT_TIME_LIMIT)
    game = load_game(s.game)
    costs = _costs(game.name, game.directory)
    asker = s.ruling.expect.player if s.ruling and s.ruling.expect.player else s.viewpoint
    current = api.explain(s, action, player=s.viewpoint)
    now_verdict = current.verdicts[0]
    now = verdict_name(now_verdict)
    wanted = wanted or ("illegal" if now_verdict.verdict == "legal" else "legal")
    name = name or (str(origin) if not isinstance(origin, Situation) else "situation")
    if gives(now_verdict, wanted):
        return WhatIf(WHATIF_VERSION, game.name, name, asker, now_verdict.action, now, wanted, [], searched=False,
                      current=current), []
    viewed = project(s)
    term = api.parse_action(action, game, viewed)
    facts = _question_facts(viewed, game, costs, asker, term, wanted, scope)
    found, exhausted = _search(game, facts, costs, top, deadline)
    neutral_of = unknown_card_ids(s, s.viewpoint)
    real_of = {n: r for r, n in neutral_of.items()}
    made = [_alternative(s, game, costs, result, action, real_of, wanted, write, name, rank)
            for rank, result in enumerate(found, 1)]
    return WhatIf(WHATIF_VERSION, game.name, name, asker, now_verdict.action, now, wanted, [a for a, _ in made],
                  exhausted=exhausted, current=current), [edited for _, edited in made]


def _alternative(s: Situation, game: Game, costs: Costs, found: _Found, action: str, real_of: dict[str, str],
                 wanted: str, write: Path | None, name: str, rank: int) -> tuple[Alternative, Situation]:
    from pybridge import api

    edits = [word_edit(e, costs, game.phrases) for e in found.edits]
    edited = apply_edits(s, found.edits, real_of, next_timestamp(project(s)))
    # An unknown card that moved is named after its new place: the action names it so.
    renamed = {n: unknown_card_ids(edited, s.viewpoint).get(r, n) for n, r in real_of.items()}
    action_now = api._swap_ids(api.normalise_action(action), renamed)
    report = api.explain(edited, action_now, player=s.viewpoint)
    verdict = report.verdicts[0]
    file = None
    if write is not None:
        file = str(write_situation(edited, Path(write) / f"{Path(name).stem}-whatif-{rank}.yaml",
                                   action_now, [e.says for e in edits]))
    moved = [[renamed.get(e.card or "", e.card or ""), e.was or "", e.becomes or ""] for e in edits if e.kind == "move"]
    assumed = [f"treat {t.card} as {'having' if t.value == 'has' else 'lacking'} "
               f"{_kind_words(_term(t.property), game.phrases)} "
               f"({t.clause} allows it)" for t in verdict.treatment]
    return Alternative(found.cost, edits, action_now, verdict.verdict, verdict_name(verdict) == "obliged",
                       gives(verdict, wanted), report, file, moved, assumed), edited


# --------------------------------------------------------------------------
# The edited situation as a file


def situation_data(s: Situation) -> dict[str, Any]:
    """A situation as the data of a situation file, leaving out what is as the defaults say."""
    return _plain(s)


def _plain(value: Any) -> Any:
    if isinstance(value, Struct):
        out = {}
        for field in msgspec.structs.fields(value):
            item = getattr(value, field.name)
            if item is None or item == field.default or (field.default_factory is not msgspec.NODEFAULT
                                                          and item == field.default_factory()):
                continue
            out[field.name] = _plain(item)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def write_situation(s: Situation, path: Path, action: str, says: list[str]) -> Path:
    import yaml

    header = "# Made by ccg-judge whatif: the situation with these edits\n" + \
        "".join(f"#   - {line}\n" for line in says) + f"# and the action {action}.\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header + yaml.safe_dump(situation_data(s), allow_unicode=True, sort_keys=False),
                        encoding="utf-8")
    except OSError as exc:
        raise JudgeError(f"cannot write the edited situation: {exc.strerror}", source=str(path)) from None
    return path


# --------------------------------------------------------------------------
# A folder of rulings: the smallest change that makes each ruling fail


class RulingChange(Struct, frozen=True):
    file: str
    action: str
    expected: str
    wanted: str
    result: WhatIf | None = None
    error: str | None = None


def ruling_questions(s: Situation) -> list[tuple[str, str, str]]:
    """(action, what the ruling says of it, the verdict that makes the ruling fail) for each verdict a
    ruling states: an illegal action made legal, a legal one illegal, one it says is obliged made
    illegal, one it says is not obliged (``obliged: {action: []}``) made obliged."""
    if s.ruling is None:
        return []
    expect = s.ruling.expect
    bound = {a for a, cites in expect.obliged.items() if cites}
    questions = [(a, "illegal", "legal") for a in expect.illegal]
    questions += [(a, "obliged" if a in bound else "legal", "illegal") for a in expect.legal]
    questions += [(a, "not obliged", "obliged") for a, cites in expect.obliged.items() if not cites]
    return questions


def whatif_rulings(paths: Iterable[Path], *, top: int = 1, scope: str = "action", write: Path | None = None,
                   time_limit: float | None = None) -> list[RulingChange]:
    """For every verdict every ruling file states, the cheapest edits that make it fail."""
    from pybridge.rulings import ruling_files

    changes = []
    for path in ruling_files(paths):
        try:
            s = load_situation(path)
        except JudgeError as exc:
            changes.append(RulingChange(str(path), "", "", "", error=exc.render()))
            continue
        for action, expected, wanted in ruling_questions(s):
            try:
                result = whatif(s, action, wanted=wanted, top=top, scope=scope, time_limit=time_limit,
                                write=write, name=str(path))
                changes.append(RulingChange(str(path), action, expected, wanted, result))
            except JudgeError as exc:
                changes.append(RulingChange(str(path), action, expected, wanted, error=exc.render()))
    return changes


# --------------------------------------------------------------------------
# In words


def whatif_text(result: WhatIf, phrases=None, *, trees: bool = False) -> str:
    """The alternatives, each with its new verdict as check words it (``trees``: with the full
    justification graph, as explain gives it)."""
    from pybridge.report import _safe, explain_text, verdict_text

    head = f"{_safe(result.action)} for {_safe(result.player)}: {result.now} now; asked: {result.wanted}"
    lines = [head, ""]
    if not result.searched:
        lines.append(f"It is already {result.wanted}: nothing needs to change.")
        return "\n".join(lines) + "\n"
    if not result.alternatives:
        lines.append("No edit the game declares (whatif.yaml) makes it so.")
        return "\n".join(lines) + "\n"
    for rank, alternative in enumerate(result.alternatives, 1):
        lines.append(f"{rank}. cost {alternative.cost}: " + "; ".join(_safe(e.says) for e in alternative.edits))
        lines += [f"   and, no edit: {_safe(words)}" for words in alternative.assumed]
        verdict = alternative.report.verdicts[0]
        shown = explain_text(alternative.report, verdict, phrases).rstrip("\n").splitlines() if trees else \
            verdict_text(verdict, alternative.report, phrases)
        lines += [f"   {line}" if line else "" for line in shown]
        if not alternative.confirmed:
            lines.append(f"   (explain of the edited situation says {verdict_name(verdict)}, not {result.wanted}: "
                         "a defect of the search; please report it)")
        if alternative.file:
            lines.append(f"   written: {_safe(alternative.file)}")
        lines.append("")
    if result.exhausted:
        lines.append("No further alternative.")
    return "\n".join(lines).rstrip("\n") + "\n"


def rulings_text(changes: list[RulingChange]) -> str:
    from pybridge.report import _safe

    lines = []
    found = 0
    for c in changes:
        if c.error:
            lines.append(f"{_safe(c.file)}: error: {_safe(c.error)}")
            continue
        result = c.result
        if result is None or not result.alternatives:
            lines.append(f"{_safe(c.file)}: {_safe(c.action)} stays {c.expected}: no declared edit makes it {c.wanted}")
            continue
        found += 1
        best = result.alternatives[0]
        lines.append(f"{_safe(c.file)}: {_safe(c.action)} {c.expected} -> {c.wanted} (cost {best.cost}): "
                     + "; ".join(_safe(e.says) for e in best.edits))
    lines.append(f"{found} of {sum(1 for c in changes if not c.error)} verdicts have a change that makes "
                 f"their ruling fail")
    return "\n".join(lines) + "\n"
