"""Atoms and terms in words, from a game's phrases (phrases.yaml). Used by the why stage (the
deciding condition of a verdict, pybridge.reasons) and by the reports.

Text a situation supplies (ids, names) is escaped: a control character never reaches the
terminal raw, so a report line cannot be forged."""

from __future__ import annotations

import re
import string
from typing import Callable, Mapping

from pybridge.why.justify import Node


def _safe(value: str) -> str:
    """Control characters shown as escapes, never printed raw."""
    if value.isprintable():
        return value
    return "".join(ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")
                   for ch in value)


class _Formatter(string.Formatter):
    """``{1:strike}`` in a phrase: argument 1 looked up in the phrases' ``values`` table ``strike``
    (a game's own word for a number: weak, medium, strong); an argument the table lacks, as written.
    ``{0:#wound}``: a count with its noun, singular for one ("1 wound", "3 wounds", "X wounds")."""

    def __init__(self, values: Mapping[str, Mapping[str, str]]):
        self.values = values

    def format_field(self, value, format_spec: str) -> str:
        if format_spec.startswith("#"):
            noun = format_spec[1:]
            return f"{value} {noun}" if str(value) in ("1", "-1") else f"{value} {noun}s"
        if format_spec:
            table = self.values.get(format_spec)
            if table is None:
                raise ValueError(f"no values table {format_spec!r}")
            return str(table.get(str(value), value))
        return str(value)


def fill(template: str, args: list[str], phrases: Mapping[str, str]) -> str:
    """A phrase filled in with its arguments (a `{1:table}` placeholder through the phrases' values,
    `{1:#noun}` a count with its noun)."""
    if ":" not in template:
        return template.format(*args)
    return _Formatter(getattr(phrases, "values", {}) or {}).format(template, *args)


def phrase(node: Node, phrases: Mapping[str, str], card: Callable[[str], str] | None = None) -> str:
    """An atom in words, where the game gives a phrase for its predicate (phrases.yaml); the terms
    among its arguments are worded too, where the phrases word them. ``card``: how a whole argument
    that is a card id is said (an unknown card's neutral id as its holder's hidden card), applied
    before the terms' wording."""
    template = phrases.get(node.predicate)
    variants = getattr(phrases, "by_value", None)
    if variants and node.predicate in variants:  # a sentence of its own for an argument's word
        own = variants[node.predicate]
        template = next((own[(i, a)] for i, a in enumerate(node.arguments) if (i, a) in own), template)
    if template is None:
        return _safe(node.atom)

    def said(argument: str) -> str:
        worded = card(argument) if card is not None else argument
        return worded if worded != argument else say_term(argument, phrases)

    try:
        return _safe(fill(template, [said(a) for a in node.arguments], phrases))
    except (IndexError, KeyError, ValueError):
        return _safe(node.atom)


def say_term(text: str, phrases: Mapping[str, str]) -> str:
    """A term (as :func:`pybridge.ground.terms.text` writes it) in words, where the phrases' ``terms`` word
    its name and arity, its own argument terms likewise; a tuple ``(a, b)`` likewise, by the key
    ``()/2``; any other term as written (an action keeps the name it is asked by). Not escaped: the
    caller escapes the sentence it goes into."""
    terms = getattr(phrases, "terms", None)
    if not terms:
        return text
    parts = _split_term(text)
    if parts is None:
        return text
    name, args = parts
    template = terms.get(f"{name or '()'}/{len(args)}")
    if template is None:
        return text
    try:
        return fill(template, [say_term(a, phrases) for a in args], phrases)
    except (IndexError, KeyError, ValueError):
        return text


_NAME = re.compile(r"[a-z_][A-Za-z0-9_']*")


def _split_term(text: str) -> tuple[str, list[str]] | None:
    """A constant, function or tuple term's name ("" for a tuple) and argument texts, read back from
    its text (None for anything else). Strings are written unquoted there, so an id that itself looks
    like a term is read as one: only the wording can be off then, never what the report says holds."""
    match = _NAME.match(text)
    if match is None and not text.startswith("("):
        return None
    name = match.group(0) if match else ""
    rest = text[len(name):]
    if not rest:
        return name, []
    if rest[0] != "(" or rest[-1] != ")":
        return None
    inner, args, depth, start = rest[1:-1], [], 0, 0
    for at, ch in enumerate(inner):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "," and depth == 0:
            args.append(inner[start:at].strip())
            start = at + 1
    if depth:
        return None
    last = inner[start:].strip()
    if last or not args:  # a one-tuple is written "(a,)"
        args.append(last)
    if not name and args == [""]:
        return None
    return name, args
