"""The answer of ``ccg-judge whatif`` (:func:`pybridge.api.whatif`) as typed results, in words, and
the edited situation as a file. Judges nothing: the edits come from
:mod:`pybridge.ground.whatif`, the verdicts from explain."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import clingo
import msgspec
from clingo import Symbol
from msgspec import Meta, Struct

from pybridge.errors import JudgeError
from pybridge.ground.terms import text
from pybridge.input.situation import Situation
from pybridge.why.justify import Report, Verdict

WHATIF_VERSION = 1


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


class RulingChange(Struct, frozen=True):
    file: str
    action: str
    expected: str
    wanted: str
    result: WhatIf | None = None
    error: str | None = None


def verdict_name(verdict: Verdict) -> str:
    """legal, illegal or impossible as explain says; obliged for a legal action an obligation binds."""
    return "obliged" if verdict.verdict == "legal" and verdict.obligations else verdict.verdict


def holds_as_said(said: str, now: str) -> bool:
    """Whether a verdict named ``now`` (:func:`verdict_name`) is what a ruling ``said`` of the action
    (:func:`pybridge.tools.whatif.ruling_questions`): a ruling that says legal and states no
    obligation holds of an obliged action too (a bound action is legal), one that says not obliged
    holds of any verdict but obliged."""
    if said == "legal":
        return now in ("legal", "obliged")
    if said == "not obliged":
        return now != "obliged"
    return now == said


def gives(verdict: Verdict, wanted: str) -> bool:
    if wanted == "obliged":
        return verdict_name(verdict) == "obliged"
    return verdict.verdict == wanted


# --------------------------------------------------------------------------
# An edit in words


def _cell(side: Symbol, column: Symbol, row: Symbol) -> str:
    return f"{side.string}:{column.number}.{row.number}"


def _value(symbol: Symbol) -> str:
    return symbol.string if symbol.type == clingo.SymbolType.String else str(symbol)


def _kind_words(kind: Symbol, phrases) -> str:
    from pybridge.report.render import say_term
    return say_term(text(kind), phrases)


def _term(written: str) -> Symbol:
    """A term as a report writes it (``element(dark)``) as a Symbol, for its wording."""
    return clingo.parse_term(written)


def word_edit(edit: Symbol, cost: int, phrases) -> Edit:
    """An edit as a player reads it; cards by the names the asking player knows them by."""
    kind, x = edit.arguments[0].name, edit.arguments[1]
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


def assumption_words(verdict: Verdict, phrases) -> list[str]:
    """The treatment of opponent's hidden cards a verdict rests on (532.6), each said as no edit but an
    assumption, with the clause that allows it."""
    return [f"treat {t.card} as {'having' if t.value == 'has' else 'lacking'} "
            f"{_kind_words(_term(t.property), phrases)} ({t.clause} allows it)" for t in verdict.treatment]


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
# In words


def whatif_text(result: WhatIf, phrases=None, *, trees: bool = False) -> str:
    """The alternatives, each with its new verdict as check words it (``trees``: with the full
    justification graph, as explain gives it)."""
    from pybridge.report.render import _safe, explain_text, verdict_text

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
    from pybridge.report.render import _safe

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
