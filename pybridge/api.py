"""The Python API: the operations of the command line, returning typed results."""

from __future__ import annotations

import functools
import gc
import re
import threading
from pathlib import Path
from typing import Mapping

from clingo import Function, Number, String, Symbol

from pybridge.errors import JudgeError, close_matches
from pybridge.game.catalogue import load_game
from pybridge.ground.facts import render_facts, situation_facts
from pybridge.ground.solve import EffectShape, expected_witnesses, solve
from pybridge.ground.solve import answer_count as _answer_count
from pybridge.ground.terms import text
from pybridge.input.situation import Situation, check_against_game, load_situation, situation_from_data
from pybridge.input.structs import replace
from pybridge.input.viewpoint import project, unknown_card_ids
from pybridge.report.whatif import (WHATIF_VERSION, Alternative, WhatIf, assumption_words, gives, verdict_name,
                                    word_edit, write_situation)
from pybridge.why.build import build_report
from pybridge.why.justify import (Cites, Report, Resolution, build_resolution, finish, group, lifting_principles,
                                  verdict_of)
from pybridge.why.reasons import word_verdicts


_pause_lock = threading.Lock()
_pauses = 0  # judgements under way (threads of one process share the collector)
_resume = False  # whether the collector was on when the first of them began


def collector_paused(judge):
    """Run a judgement with Python's cyclic garbage collector paused. A check makes tens of thousands
    of small objects, nearly all freed by reference counting as it goes; their count alone sets the
    collector off, and each full collection walks every long-lived object of the process (the rules
    base's among them): a third of a 120-card check in a process that keeps several programs. What
    the judgement leaves in cycles (a --trees run leaves some) is collected once the collector runs
    again, so a server whose judgements overlap without a pause would hold them until one comes.
    The collector is left as the first of overlapping judgements found it."""
    @functools.wraps(judge)
    def run(*args, **kwargs):
        global _pauses, _resume
        with _pause_lock:
            if _pauses == 0:
                _resume = gc.isenabled()
                gc.disable()
            _pauses += 1
        try:
            return judge(*args, **kwargs)
        finally:
            with _pause_lock:
                _pauses -= 1
                if _pauses == 0 and _resume:
                    gc.enable()
    return run


def _situation(situation: Situation | str | Path) -> Situation:
    return situation if isinstance(situation, Situation) else load_situation(situation)


def game_of(situation: Situation | str | Path):
    """The game (rules, catalogues, wording) a situation belongs to."""
    return load_game(_situation(situation).game)


def with_overrides(situation: Situation, *, edition: str | None = None,
                   options: dict[str, str] | None = None, player: str | None = None) -> Situation:
    """The same situation under another edition, options or viewpoint (validated again)."""
    update: dict = {}
    if edition is not None:
        update["edition"] = edition
    if options:
        update["options"] = {**situation.options, **options}
    if player is not None:
        update["viewpoint"] = player
    if not update:
        return situation
    try:
        changed = replace(situation, **update)
    except JudgeError as exc:
        raise exc.located(source="command line", line=None, column=None) from None
    check_against_game(changed, source="command line")
    return changed


def facts_for(situation: Situation | str | Path, *, player: str | None = None) -> list[Symbol]:
    """The input facts the solver sees for the viewpoint player (after projection)."""
    return _facts(_situation(situation), player).symbols


def _facts(s: Situation, player: str | None):
    s = with_overrides(s, player=player)  # an unknown player is an error
    return situation_facts(project(s))


def facts_text(situation: Situation | str | Path, *, player: str | None = None) -> str:
    s = _situation(situation)
    viewer = player or s.viewpoint
    header = (f"ccg-judge facts: game {s.game}, viewpoint {viewer}.\n"
              f"Rerun with: clingo asp/{s.game}/main.lp THIS_FILE")
    return render_facts(_facts(s, viewer), header)


@collector_paused
def check(situation: Situation | str | Path, *, player: str | None = None, edition: str | None = None,
          options: dict[str, str] | None = None, time_limit: float | None = None,
          trees: bool = False, atoms: bool = False, reasons: bool = True) -> Report:
    """Every verdict for the situation, from the viewpoint player's knowledge, with its cites and its
    first level of reasons; ``trees`` expands every verdict's justification graph in full; ``atoms``
    adds the judgement atoms as clingo prints them (what plain clingo on `facts` shows); ``reasons``
    words an illegal verdict's deciding condition (``because``: without trees, read off the graph of
    its blocking reasons in the same answer, which is kept open for it)."""
    s = with_overrides(_situation(situation), edition=edition, options=options, player=player)
    game = load_game(s.game)
    viewed = project(s)
    facts = situation_facts(viewed, game)
    answer = _solve(situation, s.game, facts, "trees" if trees else "check", time_limit, _expected(viewed, game),
                    graph=reasons and not trees)
    try:
        report = build_report(answer, game, edition=s.edition or game.default_edition,
                              options=_options_in_force(s, game), viewpoint=s.viewpoint, trees=trees,
                              atoms=atoms)
        _within_time(situation, answer)
        if trees:
            word_verdicts(report.verdicts, report.nodes, game.phrases, _headings(game, report.verdicts))
        elif not reasons:
            word_verdicts(report.verdicts, {}, game.phrases)  # the assumptions only: they need no graph
        else:
            _word_plain(situation, report, game, answer)
    finally:
        answer.close()
    return report


@collector_paused
def answer_count(situation: Situation | str | Path | dict, *, player: str | None = None,
                 time_limit: float | None = None) -> int:
    """How many answers the rules give for the situation as its viewpoint player knows it: 0, 1, or
    2 for "more than one" (what :func:`check` refuses with :class:`pybridge.errors.AnswerCount`),
    without judging it. A dict is a situation's data, read as :func:`check` would read its file."""
    s = situation_from_data(situation, source="data") if isinstance(situation, dict) else _situation(situation)
    s = with_overrides(s, player=player)
    facts = situation_facts(project(s), load_game(s.game))
    return _naming_the_file(situation, lambda: _answer_count(s.game, facts, time_limit=time_limit))


def _headings(game, verdicts) -> dict[str, str]:
    """The headings of the clauses that block the verdicts (a condition said by its clause)."""
    found = {}
    for v in verdicts:
        for r in v.reasons_of("blocked"):
            clause = game.clause(r.clause)
            if clause is not None and clause.heading:
                found[r.clause] = clause.heading
    return found


# From how many illegal verdicts a plain check's graph reads the records in bulk: measured on the
# bench's boards and the rulings, about where indexing every record once starts to cost less than
# narrowing each verdict's instances down (30/3: 15% less CPU a check; rulings: ≤ 8 illegal, 4% more).
_MANY_ILLEGAL = 10


def _word_plain(origin, report: Report, game, answer) -> None:
    """A plain check's verdicts worded: an illegal one's deciding condition is read off the graph of
    its blocking reasons alone, from the check's own answer (its program records what the graph of a
    prohibition cannot match: pybridge.ground.compiler.mark_recorded); the report keeps no node of it."""
    from pybridge.why.graph import Graph, OpenedOnRead  # only a check with an illegal verdict needs it

    illegal = [v for v in report.verdicts if v.verdict == "illegal"]
    nodes: Mapping = {}
    if illegal:
        answer.open_graph()
        grouped = group(answer)
        keys = {(text(p), text(a)): k for k, (p, a) in grouped.pairs.items()}
        graph = Graph(answer, game, Cites(game, answer.compiled.principles),
                      many_verdicts=len(illegal) > _MANY_ILLEGAL)
        for v in illegal:
            key = keys.get((v.player, v.action))
            if key is not None:
                graph.expand_blocked(v, key, grouped, one_level=True)
        nodes = OpenedOnRead(graph)  # the sentences read a few levels of each graph: only those are expanded
    word_verdicts(report.verdicts, nodes, game.phrases, _headings(game, report.verdicts))
    _within_time(origin, answer)
    for v in illegal:  # the nodes are not the report's: no reason may point at them
        for r in v.reasons:
            r.node = None


def _expected(s: Situation, game):
    return expected_witnesses((EffectShape(e.target, e.kind, e.source is not None) if isinstance(e.target, str)
                               else EffectShape(f"selector {e.id}", e.kind, e.source is not None, selector=True)
                               for e in s.effects), game)


def _options_in_force(s: Situation, game) -> dict[str, str]:
    return {name: s.options.get(name, option.default) for name, option in sorted(game.options.items())}


def normalise_action(action: str) -> str:
    """``strike_attack( elf,foe )`` -> ``strike_attack(elf, foe)``: how verdicts name actions."""
    compact = "".join(action.split())
    return compact.replace(",", ", ")


def explain(situation: Situation | str | Path, action: str, *, player: str | None = None,
            edition: str | None = None, options: dict[str, str] | None = None,
            time_limit: float | None = None) -> Report:
    """The verdict on one action with its full justification graph: a report of that verdict alone.
    An action the situation does not list (not possible under the game's definitions) is answered as
    impossible, with the definition it fails."""
    found = explain_each(situation, [action], player=player, edition=edition, options=options,
                         time_limit=time_limit)[0]
    if isinstance(found, JudgeError):
        raise found
    return found


@collector_paused
def explain_each(situation: Situation | str | Path, actions: list[str], *, player: str | None = None,
                 edition: str | None = None, options: dict[str, str] | None = None,
                 time_limit: float | None = None) -> list[Report | JudgeError]:
    """:func:`explain`'s report for each action, from one solve of the situation. An action refused
    (a word of no action of the game, arguments that do not fit) gets its error in its place, so one
    bad action does not hide the others' answers."""
    from pybridge.why.graph import Graph, impossible  # the full graph: only explain and trees need it

    s = with_overrides(_situation(situation), edition=edition, options=options, player=player)
    game = load_game(s.game)
    viewed = project(s)
    answer = _solve(situation, s.game, situation_facts(viewed, game), "explain", time_limit, _expected(viewed, game))
    grouped = group(answer)
    cites = Cites(game, answer.compiled.principles)
    principle_of = lifting_principles(answer.compiled.principles)

    def one(action: str) -> Report:
        wanted = normalise_action(action)
        keys = [k for k, (_, act) in grouped.pairs.items() if normalise_action(text(act)) == wanted]
        # the asker's own action first
        keys.sort(key=lambda k: (text(grouped.pairs[k][0]) != s.viewpoint, text(grouped.pairs[k][0])))
        if keys:
            graph = Graph(answer, game, cites)
            verdict = verdict_of(keys[0], grouped, cites, principle_of)
            graph.expand_verdict(verdict, keys[0], grouped)
        else:
            term = parse_action(action, game, viewed)
            verdict, graph = impossible(answer, game, cites, String(s.viewpoint), term)
        report = finish(answer, game, [verdict], edition=s.edition or game.default_edition,
                        options=_options_in_force(s, game), viewpoint=s.viewpoint, graph=graph)
        _within_time(situation, answer)
        word_verdicts(report.verdicts, report.nodes, game.phrases, _headings(game, report.verdicts))
        return report

    found: list[Report | JudgeError] = []
    try:
        for action in actions:
            try:
                found.append(one(action))
            except JudgeError as exc:
                found.append(exc)
        return found
    finally:
        answer.close()


def _within_time(origin, answer) -> None:
    try:
        answer.within_time()
    except JudgeError as exc:
        if isinstance(origin, Situation):
            raise
        raise exc.located(source=str(origin)) from None


def _solve(origin, game_name, facts, mode, time_limit, expected, graph=False):
    return _naming_the_file(origin, lambda: solve(game_name, facts, mode=mode, time_limit=time_limit,
                                                  expected=expected, graph=graph))


def _naming_the_file(origin, run):
    """``run()``; a limit of the solver, or no single answer, raised again naming the file it was."""
    try:
        return run()
    except JudgeError as exc:
        if exc.source is None and not isinstance(origin, (Situation, dict)):
            raise exc.located(source=str(origin)) from None
        raise


def parse_action(action: str, game, s: Situation) -> Symbol:
    """An action as people write it (``shot(elf, hidden@p2:3.1)``) as the term the rules use: the
    arguments the game's action declares as cards (or players) are ids (strings), the rest constants
    or numbers. Refused when the game has no such action or the arguments do not fit."""
    name, args = _split_term(action)
    roles = game.actions.get(name)
    if roles is None:
        close = close_matches(name, sorted(game.actions), n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(repr(c) for c in close)}? " if close else ""
        raise JudgeError(f"unknown action {name!r}; {hint}{game.name} actions are: {', '.join(sorted(game.actions))}",
                         field="ACTION")
    if len(args) != len(roles):
        raise JudgeError(f"{name} takes {len(roles)} arguments ({', '.join(roles)}), got {len(args)}",
                         field="ACTION")
    ids = {c.id for c in s.cards} | {p.id for p in s.players}
    terms_: list[Symbol] = []
    for role, arg in zip(roles, args):
        if arg.startswith('"') and arg.endswith('"') and len(arg) >= 2:
            terms_.append(String(arg[1:-1]))
        elif role in CARD_ROLES or arg in ids:
            if arg not in ids:
                close = close_matches(arg, sorted(ids), n=3, cutoff=0.4)
                hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else \
                    f"; the situation has {', '.join(repr(c) for c in sorted(ids))}"
                raise JudgeError(f"no card or player {arg!r} in this situation (argument {role} of {name})"
                                 + hint, field="ACTION")
            terms_.append(String(arg))
        elif arg.lstrip("-").isdigit():
            terms_.append(Number(int(arg)))
        elif _CONSTANT.fullmatch(arg):
            terms_.append(Function(arg))
        else:
            raise JudgeError(f"argument {role} of {name} must be a card id, a name or a number, got {arg!r}",
                             field="ACTION")
    return Function(name, terms_)


# Roles of action arguments (game.yaml `actions:`) that name a card of the situation.
CARD_ROLES = frozenset({"actor", "target", "attacker", "defender", "card"})
_CONSTANT = re.compile(r"[a-z][A-Za-z0-9_]*")


def _split_term(action: str) -> tuple[str, list[str]]:
    text_ = action.strip()
    match = re.fullmatch(r"([a-z][A-Za-z0-9_]*)\s*(?:\((.*)\))?", text_, flags=re.S)
    if match is None:
        raise JudgeError(f"expected an action like name(argument, ...), got {action!r}", field="ACTION")
    inner = match.group(2)
    args: list[str] = []
    if inner is not None and inner.strip():
        depth, current = 0, ""
        for ch in inner:
            if ch == "," and depth == 0:
                args.append(current.strip())
                current = ""
                continue
            depth += ch == "("
            depth -= ch == ")"
            current += ch
        args.append(current.strip())
    return match.group(1), args


def _id_pattern(ids) -> re.Pattern:
    """Whole card-id arguments of an action text (``shot(a, hidden@p2:3.1)``)."""
    alternatives = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    return re.compile(r"(?<=[(, ])(" + alternatives + r")(?=[,)])")


def _swap_ids(action: str, mapping: dict[str, str]) -> str:
    return _id_pattern(mapping).sub(lambda m: mapping[m.group(1)], action) if mapping else action


@collector_paused
def resolve(situation: Situation | str | Path, action: str, *, player: str | None = None,
            edition: str | None = None, options: dict[str, str] | None = None,
            time_limit: float | None = None) -> tuple[Resolution, Report]:
    """Resolve the viewpoint player's declared action as the game says (game.yaml ``resolution``).
    Berserk turns face up the hidden cards the declaration names (its actor and targets, 532.3) and
    judges the action again on that; Magic reveals nothing and judges it on what the declarer may
    know (708.2, 608.2b). Either way the judged situation is the declarer's view: the cards the
    declaration does not reveal stay unknown, so nothing of them reaches the output, its errors or
    its limits. Legal -> executed; illegal -> the game's illegal outcome (532.7: not executed but paid)."""
    s = with_overrides(_situation(situation), edition=edition, options=options, player=player)
    game = load_game(s.game)
    rules = game.resolution
    if rules is None:
        raise JudgeError(f"{game.name} declares no resolution of actions (game.yaml: resolution)", field="ACTION")
    declared = check(s, time_limit=time_limit)
    wanted = normalise_action(action)
    found = [v for v in declared.verdicts if normalise_action(v.action) == wanted]
    mine = [v for v in found if v.player == s.viewpoint]
    if not mine:
        if found:
            raise JudgeError(f"{found[0].action} is {found[0].player}'s to declare, not {s.viewpoint}'s",
                             field="ACTION")
        raise JudgeError(f"{action} is not an action that can be declared here", field="ACTION")
    verdict = mine[0]
    if verdict.verdict != "legal":
        raise JudgeError(f"{verdict.action} cannot be declared: it is illegal ({', '.join(verdict.cites)})",
                         field="ACTION")
    if rules.reveal == "none":
        revealed: list[str] = []
        real_action = verdict.action
    else:
        to_real = {neutral: real for real, neutral in unknown_card_ids(s, s.viewpoint).items()}
        named = set(_id_pattern(to_real).findall(verdict.action)) if to_real else set()
        revealed = sorted(to_real[n] for n in named)
        real_action = _swap_ids(verdict.action, {n: to_real[n] for n in named})
    if rules.judged_on == "declarer_view" and not revealed:
        truth = declared.verdict(s.viewpoint, real_action)
    else:
        cards = [replace(c, hidden=False) if c.id in revealed else c for c in s.cards]
        shown = project(replace(s, cards=cards))  # the rest stays as the declarer sees it
        answer = _solve(situation, s.game, situation_facts(shown, game), "check", time_limit,
                        _expected(shown, game))
        declared = build_report(answer, game, edition=s.edition or game.default_edition,
                                options=_options_in_force(s, game), viewpoint=s.viewpoint)
        truth = declared.verdict(s.viewpoint, real_action)
    return build_resolution(truth, game, rules, player=s.viewpoint, declared=verdict.action, action=real_action,
                            revealed=revealed), declared


def whatif(situation: Situation | str | Path, action: str, *, wanted: str | None = None, top: int = 1,
           player: str | None = None, scope: str = "action", write: Path | None = None,
           time_limit: float | None = None, name: str | None = None) -> WhatIf:
    """The ``top`` cheapest edits of the situation under which the asking player's ``action`` gets the
    verdict ``wanted`` (legal, illegal or obliged; default: illegal for a legal action, legal
    otherwise), found by the solver (:mod:`pybridge.ground.whatif`); each alternative with its edits
    in words, made as a situation (written into the folder ``write``) and explained again.
    ``scope``: the cards edits may move or add to, ``action`` (those it names) or ``board`` (every
    card); any card may lose a marker, chip, protection or effect."""
    return whatif_situations(situation, action, wanted=wanted, top=top, player=player, scope=scope, write=write,
                             time_limit=time_limit, name=name)[0]


def whatif_situations(situation: Situation | str | Path, action: str, *, wanted: str | None = None, top: int = 1,
                      player: str | None = None, scope: str = "action", write: Path | None = None,
                      time_limit: float | None = None,
                      name: str | None = None) -> tuple[WhatIf, list[Situation]]:
    """:func:`whatif`, with each alternative's edited situation (the truth, for its page)."""
    from pybridge.ground import whatif as neighbourhood  # only this question needs the search

    s = with_overrides(_situation(situation), player=player)
    if top < 1:
        raise JudgeError(f"--top must be 1 or more, got {top}", field="--top")
    if scope not in ("action", "board"):
        raise JudgeError(f"--scope must be action or board, got {scope!r}", field="--scope")
    if wanted is not None and wanted not in neighbourhood.GOALS:
        close = close_matches(wanted, neighbourhood.GOALS, n=1, cutoff=0.4)
        raise JudgeError(f"--to must be one of {', '.join(neighbourhood.GOALS)}, got {wanted!r}"
                         + (f"; did you mean {close[0]!r}?" if close else ""), field="--to")
    game = load_game(s.game)
    costs = neighbourhood.costs_of(game)
    asker = s.ruling.expect.player if s.ruling and s.ruling.expect.player else s.viewpoint
    current = explain(s, action, player=s.viewpoint)
    now = current.verdicts[0]
    wanted = wanted or ("illegal" if now.verdict == "legal" else "legal")
    name = name or (str(situation) if not isinstance(situation, Situation) else "situation")
    answer = functools.partial(WhatIf, WHATIF_VERSION, game.name, name, asker, now.action, verdict_name(now), wanted,
                               current=current)
    if gives(now, wanted):
        return answer([], searched=False), []
    viewed = project(s)
    facts = neighbourhood.question_facts(viewed, game, costs, asker, parse_action(action, game, viewed), wanted, scope)
    found, exhausted = neighbourhood.search(game, facts, costs, top, time_limit)
    real_of = {neutral: real for real, neutral in unknown_card_ids(s, s.viewpoint).items()}
    made = [_alternative(s, game, costs, result, action, real_of, wanted, write, name, rank)
            for rank, result in enumerate(found, 1)]
    return answer([a for a, _ in made], exhausted=exhausted), [edited for _, edited in made]


def _alternative(s: Situation, game, costs, found, action: str, real_of: dict[str, str], wanted: str,
                 write: Path | None, name: str, rank: int) -> tuple[Alternative, Situation]:
    """One alternative the search found, made as a situation and explained again."""
    from pybridge.ground.whatif import apply_edits, next_timestamp

    edits = [word_edit(e, costs.costs[e.arguments[0].name], game.phrases) for e in found.edits]
    edited = apply_edits(s, found.edits, real_of, next_timestamp(project(s)))
    # An unknown card that moved is named after its new place: the action names it so.
    renamed = {n: unknown_card_ids(edited, s.viewpoint).get(r, n) for n, r in real_of.items()}
    action_now = _swap_ids(normalise_action(action), renamed)
    report = explain(edited, action_now, player=s.viewpoint)
    verdict = report.verdicts[0]
    file = None
    if write is not None:
        file = str(write_situation(edited, Path(write) / f"{Path(name).stem}-whatif-{rank}.yaml", action_now,
                                   [e.says for e in edits]))
    moved = [[renamed.get(e.card or "", e.card or ""), e.was or "", e.becomes or ""] for e in edits if e.kind == "move"]
    return Alternative(found.cost, edits, action_now, verdict.verdict, verdict_name(verdict) == "obliged",
                       gives(verdict, wanted), report, file, moved, assumption_words(verdict, game.phrases)), edited
