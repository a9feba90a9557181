"""Answer set -> verdicts with their reasons and cites; justification graphs on
demand. The only module that knows the names of the output (judgement)
predicates.

A verdict's **cites** are the clauses it rests on: the clause of every rule
instance on its derivation, from its candidate and its reasons down to the
situation's facts (vocabulary and bookkeeping clauses aside), the principle
that set aside an effect it depends on, and what overrode a prohibition it
escaped. ``check`` reads the clauses its reason atoms name off the atoms and
the rest from the why layer (``_v``, see :mod:`pybridge.ground.compiler`); the full
graph (``explain``, ``check --trees``, :mod:`pybridge.why.graph`) is walked from the
rule instances that hold in the answer, and gathers the same cites from its nodes.

The graph is shared: each atom is one node, with an id; reasons and premises
point at node ids. The result types are msgspec Structs (cheap to define and to build for
every verdict); msgspec makes their JSON Schema from the same classes (schema/).
"""

from __future__ import annotations

import weakref
from collections import defaultdict
from functools import lru_cache
from dataclasses import dataclass
from typing import Annotated, Iterable, Literal, Sequence

from clingo import Symbol
from msgspec import Meta, Struct, field

from pybridge.game.catalogue import Game, ResolutionRules
from pybridge.ground import terms
from pybridge.ground.compiler import CLAUSE_ARGUMENT, PRINCIPLE_ARGUMENT
from pybridge.ground.solve import Answer
from pybridge.ground.terms import ident, text

REPORT_SCHEMA = "ccg-judge/report"
REPORT_VERSION = 3  # 3: verdicts' because and assuming (schema/README.md)


# --------------------------------------------------------------------------
# Result types (the JSON report schema is generated from these)


class ClauseInfo(Struct):
    heading: str = ""
    summary: str = ""


class Derivation(Struct):
    """A rule instance: the rule, its clause, the bindings, the premises it rests on (node ids) and the
    atoms it required not to hold (node ids)."""

    rule: Annotated[int, Meta(description="Index of the rule in the report's 'rules'.")]
    clause: Annotated[str | None, Meta(description="The clause of the instance: the one its judgement names, "
                                                    "else the banner above the rule.")] = None
    cites: Annotated[list[str], Meta(description="The clauses this instance itself names (its judgement's "
                                                    "clause, its principle, its rule's banner), kept to the "
                                                    "cited kinds.")] = field(default_factory=list)
    bindings: dict[str, str] = field(default_factory=dict)
    premises: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    near: Annotated[bool, Meta(description="A near derivation: it holds but for one premise, itself nearly "
                                            "derived, or but for what overrode it.")] = False


class Node(Struct):
    """One atom of the justification graph."""

    atom: Annotated[str, Meta(description="The atom, as people read it.")]
    predicate: Annotated[str, Meta(description="name/arity, for wording it (phrases.yaml).")]
    arguments: Annotated[list[str], Meta(description="The atom's arguments, as text.")]
    kind: Annotated[Literal["derived", "fact", "absent"], Meta(
        description="derived: by a rule; fact: of the situation or of the rules base; absent: an atom a rule "
                    "required not to hold.")]
    derivations: Annotated[list[Derivation], Meta(
        description="The rule instances that derived it; empty until expanded.")] = field(default_factory=list)
    expanded: Annotated[bool, Meta(description="Whether its derivations are listed (explain and --trees "
                                                "expand every node).")] = False
    overridden_by: Annotated[list[Derivation], Meta(
        description="An absent atom: its near derivations, but for an effect set aside or a property "
                    "replaced.")] = field(default_factory=list)


class RuleInfo(Struct):
    text: str
    file: str
    clause: str | None = None


class Reason(Struct):
    """Why a verdict is what it is: a clause, and the node of the atom that carries it."""

    role: Annotated[Literal["granted", "met", "blocked", "lifted", "waived", "obliged", "definition"], Meta(
        description="met: (a legal action) a condition of the clause it meets, such as a target within range; "
                    "definition: (an impossible action) a definition it fails, its node the candidate it is not.")]
    clause: str
    node: Annotated[str | None, Meta(description="Node id of the reason's atom in the graph (with trees).")] = None
    by: Annotated[str | None, Meta(description="lifted/waived: the clause that overrode it.")] = None
    principle: Annotated[str | None, Meta(description="lifted/waived: the principle that did.")] = None
    condition: Annotated[str | None, Meta(description="waived: the condition card text overrides.")] = None
    by_node: Annotated[str | None, Meta(description="lifted/waived: node id of the overriding atom.")] = None


class Assumption(Struct):
    """What the acting player treats an opponent's hidden card as having (or lacking)."""

    card: str
    property: str
    value: Literal["has", "lacks"]
    clause: str
    node: str | None = None


class Consequence(Struct):
    effect: str
    cites: Annotated[list[str], Meta(description="Clause ids it rests on, the action's legality aside.")]
    node: str | None = None


class Verdict(Struct):
    player: str
    action: str
    verdict: Annotated[Literal["legal", "illegal", "impossible"], Meta(
        description="impossible: not an action the game's definitions allow here (explain only).")]
    cites: Annotated[list[str], Meta(description="Clause ids the verdict rests on, sorted.")]
    certainty: Annotated[Literal["every", "some"], Meta(
        description="'every': the verdict holds under every admissible treatment of the opponent's hidden "
                    "cards (cautious); 'some': under at least one (brave), the witness is in 'treatment'.")] = "every"
    reasons: list[Reason] = field(default_factory=list)
    treatment: Annotated[list[Assumption], Meta(
        description="The witness treatment of hidden cards a 'some' verdict rests on.")] = field(default_factory=list)
    consequences: list[Consequence] = field(default_factory=list)
    obligations: list[Reason] = field(default_factory=list)
    node: Annotated[str | None, Meta(description="Node id of the verdict's atom (legal/illegal; for an "
                                                  "impossible action, the candidate it is not).")] = None
    because: Annotated[str | None, Meta(
        description="(version 3) An illegal verdict's deciding condition in words, the clause of each after "
                    "it: what its prohibitions rest on beyond the action being what it is.")] = None
    assuming: Annotated[str | None, Meta(
        description="(version 3) The assumption about the opponent's hidden cards the verdict rests on, in "
                    "words: the witness treatment ('if ...'), or that it holds whatever an unknown card it "
                    "names is ('whatever ...').")] = None

    def reasons_of(self, *roles: str) -> list[Reason]:
        return [r for r in self.reasons if r.role in roles]

    @property
    def consequence_texts(self) -> list[str]:
        return [c.effect for c in self.consequences]


class OverriddenEffect(Struct):
    effect: str
    by: str
    principle: str
    clause: str | None = None


class Clamp(Struct):
    """A value the zero rule raised to 0."""

    card: str
    value: str
    index: int
    computed: int
    clause: str


class Report(Struct):
    game: str
    edition: str
    options: dict[str, str]
    viewpoint: str
    verdicts: list[Verdict]
    atoms: Annotated[list[str], Meta(description="The judgement atoms exactly as clingo prints them, sorted "
                                                  "(check --atoms; otherwise empty).")]
    schema: Literal["ccg-judge/report"] = REPORT_SCHEMA
    version: Literal[3] = REPORT_VERSION
    trees: Annotated[bool, Meta(description="Every node expanded (explain, check --trees); otherwise only "
                                             "the first level of reasons.")] = False
    nodes: Annotated[dict[str, Node], Meta(
        description="The justification graph: the nodes reasons and premises point at.")] = field(default_factory=dict)
    rules: Annotated[dict[str, RuleInfo], Meta(
        description="The rules the graph's derivations name, by index.")] = field(default_factory=dict)
    clauses: Annotated[dict[str, ClauseInfo], Meta(
        description="Heading and summary of every clause the report names.")] = field(default_factory=dict)
    overridden_effects: list[OverriddenEffect] = field(default_factory=list)
    unresolved: Annotated[list[list[str]], Meta(
        description="Pairs of clashing effects no principle decides.")] = field(default_factory=list)
    clamped: Annotated[list[Clamp], Meta(description="Values the zero rule raised to 0.")] = field(default_factory=list)

    def verdict(self, player: str, action: str) -> Verdict | None:
        return next((v for v in self.verdicts if v.player == player and v.action == action), None)


# --------------------------------------------------------------------------
# Building the report


@dataclass
class Grouped:
    """The judgement atoms of an answer, grouped by (player, action), each with its arguments.

    Keys are the idents (:func:`pybridge.ground.terms.ident`) of the player and the action, and of a clause
    where one is part of the key: a board's thousands of lookups then cost no call into clingo.
    ``pairs`` gives each key's player and action as Symbols."""

    by: dict[str, dict[tuple[int, int], list[tuple]]]
    pairs: dict[tuple[int, int], tuple[Symbol, Symbol]]
    legal: set[tuple[int, int]]
    in_every: set[tuple[int, int]]
    in_some: set[tuple[int, int]]
    exempt: dict[tuple[int, int, int], list[tuple]]
    extra_cites: dict[tuple[int, int], set[str]]
    consequence_cites: dict[tuple[int, int, int], set[str]]

    def atoms(self, name: str, key: tuple[int, int]) -> Sequence[tuple]:
        """The arguments (and, last, the atom) of each ``name`` atom of this (player, action)."""
        return self.by[name].get(key, ())

    def lifts(self, key: tuple[int, int], clause: Symbol) -> Sequence[tuple]:
        """The exemptions that lift ``clause`` for this (player, action)."""
        return self.exempt.get(key + (ident(clause),), ())


REASON_ATOMS = ("candidate", "forbidden", "exempt", "waived", "obliged", "consequence", "assumed", "satisfied")


# The last answer grouped, and its groups: a plain check groups its answer for the report and again
# for the because-lines (and a Grouped is only read).
_last: tuple[weakref.ref, Grouped] | None = None


def group(answer: Answer) -> Grouped:
    """Each shown atom's arguments are read once (reading a clingo Symbol is a call into clingo)."""
    global _last
    last = _last
    if last is not None and last[0]() is answer:
        return last[1]
    grouped = _grouped(answer)
    _last = (weakref.ref(answer), grouped)
    return grouped


def _grouped(answer: Answer) -> Grouped:
    shown = answer.shown
    by: dict[str, dict[tuple, list[tuple]]] = {}
    pairs: dict[tuple[int, int], tuple[Symbol, Symbol]] = {}
    for name in REASON_ATOMS:
        grouped: dict[tuple, list[tuple]] = defaultdict(list)
        found = shown.get(name, ())
        for atom, args in zip(found, answer.arguments(name)):
            key = (ident(args[0]), ident(args[1]))
            grouped[key].append(args + (atom,))
            if name == "candidate":
                pairs[key] = args[:2]
        by[name] = grouped

    def keys(name: str) -> set[tuple[int, int]]:
        return {(ident(p), ident(a)) for p, a in answer.arguments(name)}

    exempt: dict[tuple, list[tuple]] = defaultdict(list)
    for items in by["exempt"].values():
        for args in items:
            exempt[(ident(args[0]), ident(args[1]), ident(args[2]))].append(args)
    # the cites' atoms are many (a verdict's or a consequence's each) and their clauses few: read as
    # representations, a clause's text made once
    said: dict[int, str] = {}

    def clause(rep: int) -> str:
        found = said.get(rep)
        if found is None:
            found = said[rep] = text(Symbol(rep))
        return found

    extra: dict[tuple, set[str]] = defaultdict(set)
    for p, a, c in answer.argument_reps("_v"):
        extra[(p, a)].add(clause(c))
    consequence_cites: dict[tuple, set[str]] = defaultdict(set)
    for p, a, x, c in answer.argument_reps("_c_consequence_3"):
        consequence_cites[(p, a, x)].add(clause(c))
    return Grouped(by=by, pairs=pairs, legal=keys("legal"), in_every=keys("legal_in_every"),
                   in_some=keys("legal_in_some"), exempt=exempt, extra_cites=extra,
                   consequence_cites=consequence_cites)


class Nodes:
    """The graph's nodes, one per atom, numbered in the order they are first named."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.ids: dict[int, str] = {}  # by the atom's ident
        self.atoms: dict[str, Symbol] = {}

    def __call__(self, atom: Symbol, kind: str = "derived") -> str:
        found = self.ids.get(ident(atom))
        if found is not None:
            return found
        node_id = f"n{len(self.ids) + 1}"
        self.ids[ident(atom)] = node_id
        self.atoms[node_id] = atom
        name, arity = terms.signature_of(atom)
        self.nodes[node_id] = Node(atom=text(atom), predicate=f"{name}/{arity}",
                                   arguments=terms.argument_texts(atom), kind=kind)
        return node_id


class Cites:
    """The clauses the atoms of an answer name, kept to the citeable ones."""

    def __init__(self, game: Game, principles: dict[str, str]):
        self.game = game
        self.principles = principles
        self._kind: dict[str, bool] = {}

    def citeable(self, clause_id: str) -> bool:
        known = self._kind.get(clause_id)
        if known is None:
            known = self._kind[clause_id] = self.game.clause_kind(clause_id) == "rule"
        return known

    def named(self, atom: Symbol) -> str | None:
        """The clause a judgement atom names (its clause argument, or its principle's clause)."""
        _, name, arguments = terms.read(atom)
        sig = (name, len(arguments))
        position = CLAUSE_ARGUMENT.get(sig)
        if position is not None:
            kind, value, _ = terms.read(arguments[position])
            return value if kind == "s" else None
        position = PRINCIPLE_ARGUMENT.get(sig)
        if position is not None:
            return self.principles.get(str(arguments[position]))
        return None

    def keep(self, ids: Iterable[str]) -> set[str]:
        return {c for c in ids if c and self.citeable(c)}


def finish(answer: Answer, game: Game, verdicts: list[Verdict], *, edition: str, options: dict[str, str],
           viewpoint: str, graph=None, atoms: bool = False) -> Report:
    shown = answer.shown
    named: set[str] = set()
    overridden = []
    for atom in sorted(shown.get("ignored", ())):
        effect, by, principle = atom.arguments
        clause_id = answer.compiled.principles.get(str(principle))
        named.add(clause_id or "")
        overridden.append(OverriddenEffect(effect=text(effect), by=text(by), principle=text(principle),
                                           clause=clause_id))
    clamps = []
    for atom in sorted(shown.get("clamped", ())):
        card, value, index, computed, clause = atom.arguments
        named.add(clause.string)
        clamps.append(Clamp(card=text(card), value=text(value), index=index.number, computed=computed.number,
                            clause=clause.string))
    for v in verdicts:
        named.update(v.cites)
        named.update(r.clause for r in v.reasons)
        named.update(r.by for r in v.reasons if r.by)
        named.update(r.clause for r in v.obligations)
        for c in v.consequences:
            named.update(c.cites)
    nodes: dict[str, Node] = {}
    rules: dict[str, RuleInfo] = {}
    if graph is not None:
        named.update(graph.clauses_named)
        nodes = graph.nodes.nodes
        for index in sorted(graph.rules_named):
            rule = answer.compiled.rules[index]
            rules[str(index)] = RuleInfo(text=rule.text, file=rule.file, clause=rule.banner)
    judgements = []
    if atoms:  # a string per atom is a call into clingo each: only when asked for
        base = answer.compiled.base_shown
        judgements = sorted(str(a) for name, found in shown.items() for a in found
                            if (name, len(a.arguments)) in base)
    return Report(
        game=game.name, edition=edition, options=options, viewpoint=viewpoint, verdicts=verdicts, atoms=judgements,
        trees=graph is not None, nodes=nodes, rules=rules, clauses=clause_infos(game, named - {""}),
        overridden_effects=overridden,
        unresolved=[[text(a.arguments[0]), text(a.arguments[1])] for a in sorted(shown.get("unresolved", ()))],
        clamped=clamps)


def lifting_principles(principles: dict[str, str]) -> dict[str, str]:
    """Clause -> the principle it states, for a reason that clause lifted or waived. A clause stating
    two principles (Magic's card text: prohibition and obligation) names neither: it lifts as an
    exception."""
    stated: dict[str, list[str]] = defaultdict(list)
    for name, clause in principles.items():
        stated[clause].append(name)
    return {clause: names[0] for clause, names in stated.items() if len(names) == 1}


def verdict_of(key: tuple, g: Grouped, cites: Cites, principle_of: dict[str, str]) -> Verdict:
    """A verdict with its cites and first-level reasons: the clauses its reason atoms name, and what the
    why layer found beyond them."""
    player, action = g.pairs[key]
    is_legal = key in g.legal
    reasons: list[Reason] = []
    found: set[str] = set(g.extra_cites.get(key, ()))
    for args in sorted(g.atoms("candidate", key), key=lambda a: text(a[2])):
        clause = text(args[2])
        found.add(clause)
        reasons.append(Reason(role="granted", clause=clause, node=None))
    waivers = sorted(g.atoms("waived", key), key=lambda a: (text(a[2]), text(a[3]), text(a[4])))
    for args in sorted(g.atoms("forbidden", key), key=lambda a: clause_key(text(a[2]))):
        clause = text(args[2])
        lifts = g.lifts(key, args[2])
        if not lifts:
            if not is_legal:
                found.add(clause)
            reasons.append(Reason(role="blocked", clause=clause, node=None))
            continue
        told = {text(w[4]) for w in waivers if ident(w[2]) == ident(args[2])}
        for e in sorted(lifts, key=lambda a: text(a[3])):
            by = text(e[3])
            if is_legal:
                found.update((clause, by))
            if by not in told:  # a clause lifted condition by condition is told by its waivers
                reasons.append(Reason(role="lifted", clause=clause, by=by, principle=principle_of.get(by, "exception"),
                                      node=None))
    for w in waivers:
        by = text(w[4])
        if is_legal and g.lifts(key, w[2]):
            found.add(by)
        reasons.append(Reason(role="waived", clause=text(w[2]), condition=text(w[3]), by=by,
                              principle=principle_of.get(by, "exception"), node=None))
    if is_legal:  # the conditions it met (a limit it keeps within permits nothing: told apart)
        for args in sorted(g.atoms("satisfied", key), key=lambda a: text(a[2])):
            found.add(text(args[2]))
            reasons.append(Reason(role="met", clause=text(args[2]), node=None))
    brave = is_legal and key in g.in_some and key not in g.in_every
    treatment = []
    if brave:
        for a in sorted(g.atoms("assumed", key), key=lambda a: (text(a[2]), text(a[3]))):
            found.add(text(a[5]))
            treatment.append(Assumption(card=text(a[2]), property=text(a[3]), value=text(a[4]), clause=text(a[5]),
                                        node=None))
    obligations = [Reason(role="obliged", clause=text(o[2]), node=None)
                   for o in sorted(g.atoms("obliged", key), key=lambda a: text(a[2]))]
    consequences = []
    for c in sorted(g.atoms("consequence", key), key=lambda a: text(a[2])):
        consequences.append(Consequence(effect=text(c[2]), node=None, cites=sort_clause_ids(
            cites.keep(g.consequence_cites.get(key + (ident(c[2]),), ())))))
    return Verdict(player=text(player), action=text(action), verdict="legal" if is_legal else "illegal",
                   certainty="some" if brave else "every", cites=sort_clause_ids(cites.keep(found)), reasons=reasons,
                   treatment=treatment, consequences=consequences, obligations=obligations)


def clause_infos(game: Game, ids: Iterable[str]) -> dict[str, ClauseInfo]:
    result = {}
    for clause_id in sort_clause_ids(ids):
        clause = game.clause(clause_id)
        result[clause_id] = ClauseInfo(heading=clause.heading if clause else "",
                                       summary=clause.summary if clause else "")
    return result


# --------------------------------------------------------------------------
# Clause ids


@lru_cache(maxsize=4096)
def clause_key(clause_id: str) -> tuple:
    """Numbers in numeric order ("532.6" before "532.10"), then named ids."""
    parts = []
    for piece in clause_id.replace("-", ".").split("."):
        parts.append((0, int(piece), "") if piece.isdigit() else (1, 0, piece))
    return tuple(parts)


def sort_clause_ids(ids) -> list[str]:
    return sorted(set(ids), key=clause_key)


# --------------------------------------------------------------------------
# Resolution against the truth (532.7)


class Resolution(Struct):
    """A declared action judged against the truth, the hidden cards it involves revealed."""

    player: str
    declared: Annotated[str, Meta(description="The action as the declaring player named it.")]
    action: Annotated[str, Meta(description="The same action with the revealed cards' real ids.")]
    outcome: Literal["executed", "not executed but paid"]
    cites: Annotated[list[str], Meta(description="Clause ids the outcome rests on, sorted.")]
    revealed: Annotated[list[str], Meta(description="Hidden cards revealed by the declaration.")] = field(
        default_factory=list)
    judged_on: Annotated[Literal["truth", "declarer_view"], Meta(
        description="What the action was judged on again: the revealed cards as they are (the rest as the "
                    "declarer sees them), or the declarer's view unchanged.")] = "truth"
    truth: Annotated[Verdict | None, Meta(description="The verdict where the resolution is judged.")] = None
    clauses: dict[str, ClauseInfo] = field(default_factory=dict)


def build_resolution(truth: Verdict | None, game: Game, rules: ResolutionRules, *, player: str, declared: str,
                     action: str, revealed: list[str]) -> Resolution:
    """Executed if the action is legal where the game judges it; otherwise the game's illegal outcome.
    The cites: the game's resolution clauses (those of every resolution, of a reveal, of an illegal
    outcome) and the verdict's own. No verdict there (the action no longer arises) is illegal."""
    executed = truth is not None and truth.verdict == "legal"
    cited = [*rules.clauses, *(rules.reveal_clauses if revealed else ()),
             *(() if executed else rules.illegal_clauses), *(truth.cites if truth is not None else ())]
    cites = sort_clause_ids(set(cited))
    return Resolution(player=player, declared=declared, action=action, revealed=revealed,
                      outcome="executed" if executed else rules.illegal_outcome, judged_on=rules.judged_on,
                      cites=cites, truth=truth, clauses=clause_infos(game, cites))
