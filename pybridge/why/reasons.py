"""The one line a player reads: why an illegal action is illegal, and what it assumes of hidden cards.

A prohibition's atom rests on a rule instance; its *deciding condition* is what that instance
needs beyond the action being what it is: the premises that are not context (the action's own
parts, the bookkeeping of treatments), with the premises a helper of the same clause rests on
opened up, and the atoms it required not to hold. Which predicates are context and which are
looked through is data (each game's phrases.yaml, ``reasons``), so this module names no predicate.

An assumption is worded from the verdict alone: the witness treatment of a verdict that holds under
some treatment of the opponent's hidden cards, and "whatever the card is" for one that names an
unknown card and holds under every treatment. Only the projected situation's ids reach here, so
nothing is said of what an unknown card really is."""

from __future__ import annotations

from typing import Mapping, NamedTuple

from pybridge.why.justify import Derivation, Node, Verdict
from pybridge.input.viewpoint import unknown_card_place, unknown_cards_in
from pybridge.why.wording import phrase, say_term

# How deep a helper of the same clause is opened up: deeper premises are the helper's own business.
_OPEN_DEPTH = 3


def _config(phrases: Mapping[str, str]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    reasons = getattr(phrases, "reasons", {}) or {}
    return (frozenset(reasons.get("context", ())), frozenset(reasons.get("through", ())),
            frozenset(reasons.get("kept", ())))


def deciding_conditions(nodes: Mapping[str, Node], node_id: str, phrases: Mapping[str, str], *,
                        open_context: bool = False, set_aside: frozenset[str] = frozenset(),
                        said: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(node id, words) of each condition the atom ``node_id`` rests on, in the order of its first
    derivation's body; an atom required not to hold is said as "it does not hold that ...".
    ``open_context``: a context premise of the same clause is opened up rather than left out (a
    prohibition that rests on nothing but its action being possible: the condition is there).
    ``set_aside``: premises that decide nothing (a condition card text waived): the atom's first
    derivation resting on none of them is the one worded. ``said``: the words of atoms worded
    before, by atom (the verdicts of one check share many premises)."""
    found: list[tuple[str, str]] = []
    _Walk(nodes, phrases, open_context, set_aside, *_config(phrases), found, set(),
          {} if said is None else said).walk(node_id, 0)
    by_words: dict[str, tuple[str, str]] = {}
    for node_id_, words in found:
        by_words.setdefault(words, (node_id_, words))
    return list(by_words.values())


class _Walk(NamedTuple):
    """One reading of :func:`deciding_conditions` (a class, not a recursive inner function, which
    would be a reference cycle holding the graph until the collector ran)."""

    nodes: Mapping[str, Node]
    phrases: Mapping[str, str]
    open_context: bool
    set_aside: frozenset[str]
    context: frozenset[str]
    through: frozenset[str]
    kept: frozenset[str]
    found: list[tuple[str, str]]
    opened: set[str]
    said: dict[str, str]

    def words(self, node: Node) -> str:
        found = self.said.get(node.atom)
        if found is None:
            found = self.said[node.atom] = _said(node, self.phrases)
        return found

    def walk(self, current: str, depth: int) -> None:
        node = self.nodes.get(current)
        if node is None or not node.derivations or current in self.opened:
            return
        self.opened.add(current)
        derivation = _standing(node.derivations, self.set_aside) if depth == 0 else node.derivations[0]
        for premise_id in derivation.premises:
            predicate = _predicate(self.nodes, premise_id)
            if predicate in self.context and not (self.open_context and depth < _OPEN_DEPTH):
                continue  # left out unread: reading a node expands it (OpenedOnRead)
            if predicate not in self.through and not _may_be_of(self.nodes, premise_id, derivation.clause):
                if predicate not in self.context:  # not of the same clause: said as it is, unread
                    self.found.append((premise_id, self.words(_peek(self.nodes, premise_id))))
                continue
            premise = self.nodes[premise_id]
            same_clause = (bool(premise.derivations) and premise.derivations[0].clause == derivation.clause
                           and predicate not in self.kept)
            if predicate in self.context:
                if same_clause:
                    self.walk(premise_id, depth + 1)
                continue
            if premise.derivations and (predicate in self.through or (same_clause and depth < _OPEN_DEPTH)):
                self.walk(premise_id, depth + 1)
            else:
                self.found.append((premise_id, self.words(premise)))
        for absent_id in derivation.absent:
            absent = self.nodes[absent_id]
            if absent.predicate not in self.context:
                self.found.append((absent_id, f"it does not hold that {self.words(absent)}"))


def _standing(derivations: list[Derivation], set_aside: frozenset[str]) -> Derivation:
    """The first derivation resting on nothing set aside (the first one, if each does)."""
    return next((d for d in derivations if set_aside.isdisjoint(d.premises)), derivations[0])


def _waived_conditions(nodes: Mapping[str, Node], verdict: Verdict, clause: str) -> frozenset[str]:
    """What a clause's waived conditions rest on: card text overrode them (the axe rule), so a
    derivation of the clause's prohibition resting on one of them is not what blocks the action
    while another condition of the clause still fails (a closed card that may defend any number
    of times is blocked by being closed, not by having defended)."""
    found: set[str] = set()
    for reason in verdict.reasons:
        if reason.role == "waived" and reason.clause == clause and reason.node is not None and reason.node in nodes:
            for derivation in nodes[reason.node].derivations:
                found.update(derivation.premises)
    return frozenset(found)


def _predicate(nodes: Mapping[str, Node], node_id: str) -> str:
    """A node's predicate without expanding it, where the mapping can tell (OpenedOnRead)."""
    return _peek(nodes, node_id).predicate


def _peek(nodes: Mapping[str, Node], node_id: str) -> Node:
    """A node as it is, not expanded, where the mapping can tell (OpenedOnRead)."""
    peek = getattr(nodes, "peek", None)
    return peek(node_id) if peek else nodes[node_id]


def _may_be_of(nodes: Mapping[str, Node], node_id: str, clause: str | None) -> bool:
    """Whether the node's first derivation may be of ``clause``, where the mapping can tell without
    expanding the node (OpenedOnRead: none of its predicate's rules gives that clause); else True."""
    may_be_of = getattr(nodes, "may_be_of", None)
    return may_be_of(node_id, clause) if may_be_of else True


def _conditions(nodes: Mapping[str, Node], node_id: str, phrases: Mapping[str, str],
                set_aside: frozenset[str] = frozenset(), said: dict[str, str] | None = None) -> list[tuple[str, str]]:
    return (deciding_conditions(nodes, node_id, phrases, set_aside=set_aside, said=said)
            or deciding_conditions(nodes, node_id, phrases, open_context=True, set_aside=set_aside, said=said))


def _joined(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def because(nodes: Mapping[str, Node], verdict: Verdict, phrases: Mapping[str, str],
            headings: Mapping[str, str] | None = None, said: dict[str, str] | None = None) -> str | None:
    """The deciding condition of an illegal verdict, read off the graph nodes its blocking reasons
    point at; with several blocking clauses, each one's condition followed by its clause. A clause
    whose condition is its action alone (X declared as 0) is said by its heading. None for a legal
    verdict, or where no node is expanded. ``said``: see :func:`deciding_conditions`."""
    if verdict.verdict != "illegal":
        return None
    found: dict[str, str] = {}  # words -> the first clause they decide
    for reason in verdict.reasons:
        if reason.role != "blocked" or reason.node is None:
            continue
        set_aside = _waived_conditions(nodes, verdict, reason.clause)
        words = _joined([w for _, w in _conditions(nodes, reason.node, phrases, set_aside, said)])
        if not words and headings and headings.get(reason.clause):
            words = f"{reason.clause} says: {headings[reason.clause]}"
        if words:
            found.setdefault(words, reason.clause)
    if not found:
        return None
    if len(found) == 1:
        return next(iter(found))
    return "; ".join(f"{words} ({clause})" for words, clause in found.items())


def because_nodes(nodes: Mapping[str, Node], verdict: Verdict, phrases: Mapping[str, str]) -> list[str]:
    """The node ids :func:`because` words (the tests check the line against the graph); a clause said
    by its heading names its own prohibition's node."""
    found = []
    for r in verdict.reasons:
        if r.role == "blocked" and r.node:
            set_aside = _waived_conditions(nodes, verdict, r.clause)
            found += [node_id for node_id, _ in _conditions(nodes, r.node, phrases, set_aside)] or [r.node]
    return found


def _said(node: Node, phrases: Mapping[str, str]) -> str:
    """An atom in words, an unknown card's neutral id among its arguments said as its holder's hidden
    card (inside an action's text it stays, as the action is named)."""
    return phrase(node, phrases, card=lambda argument: card_words(argument, phrases))


def card_words(card: str, phrases: Mapping[str, str]) -> str:
    """A card id in words: an unknown card's neutral id as its holder's hidden card at its place."""
    place = unknown_card_place(card)
    template = (getattr(phrases, "reasons", {}) or {}).get("hidden_card")
    if place is None or not template:
        return card
    return template.format(holder=place[0], place=place[1])


def assuming(verdict: Verdict, phrases: Mapping[str, str]) -> str | None:
    """Which assumption about hidden cards the verdict rests on, in words: the witness treatment of a
    verdict that holds under some treatment ("if p2's hidden card at 3.1 has ... (532.6-2)"), or, for
    one naming an unknown card, that it holds whatever that card is."""
    if verdict.treatment:
        parts = [f"{card_words(t.card, phrases)} {'has' if t.value == 'has' else 'lacks'} "
                 f"{say_term(t.property, phrases)} ({t.clause})" for t in verdict.treatment]
        return "if " + _joined(parts)
    unknown = unknown_cards_in(verdict.action)
    if not unknown:
        return None
    return "whatever " + _joined([f"{card_words(c, phrases)} is" for c in dict.fromkeys(unknown)])




def word_verdicts(verdicts: list[Verdict], nodes: Mapping[str, Node], phrases: Mapping[str, str],
                  headings: Mapping[str, str] | None = None) -> None:
    """Set each verdict's ``because`` (from the graph ``nodes`` its blocking reasons point at) and
    ``assuming``. ``headings``: clause id -> heading."""
    said: dict[str, str] = {}
    for v in verdicts:
        v.because = because(nodes, v, phrases, headings, said)
        v.assuming = assuming(v, phrases)
