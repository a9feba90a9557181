"""Compile a game's rules into the programs the bridge grounds.

The rules base stays plain ASP: plain clingo on ``asp/<game>/main.lp``
reproduces every verdict. For justifications the bridge grounds it with a
generated *why layer*, written here once for every game:

- **records** say which rule instance derived an atom: a rule ``H :- B.`` is
  split into ``_wI(V) :- B.`` and ``H :- _wI(V).`` (``V``: the body's
  variables), so nothing is grounded twice. ``check`` records the rules of the
  reason atoms (a verdict's first level of reasons) and of the atoms cites
  pass through. The graph (:mod:`pybridge.why.graph`) can find most instances by
  itself, matching a body of plain atoms, their negations and comparisons
  against the answer (:func:`_joinable`). ``explain`` (one verdict's graph)
  records only the rules it cannot match: an aggregate, a conditional
  literal, arithmetic inside an atom and the like. ``trees`` (every
  verdict's graph) records those too, and every rule whose head leaves a
  variable open: reading its records in bulk costs less than matching each
  atom of every verdict.
- **cites**: ``_c_p_n(Args, Clause)`` holds when the clause is on a
  derivation of ``p(Args)``. A rule instance's own clause is the clause
  argument of a judgement head (``forbidden(P, A, "107.2")``), the principle
  named by an ``ignored/3`` head, and the banner above the rule; vocabulary
  and bookkeeping clauses (``kind`` in the catalogue) are never cited, and a
  core banner that states a principle is cited as the game's clause for it.
  The premises ``candidate/3`` and ``legal/2`` are the verdict's own roots
  and are not followed: a reason's cites are its own, a consequence's are
  those of its own derivation. ``_v(P, A, Clause)`` gathers a verdict's cites
  from its reasons (:data:`VERDICT_CITES`).
- **near misses** explain an absent atom the derivation relies on (``not Y``)
  when a *defeater* overrode it: an instance whose body holds but for an
  effect set aside or a printed property replaced nearly derives its head,
  and so does one whose body holds but for one nearly-derived premise.
  ``_nmc_p_n(Args, Clause)`` are the clauses of that near derivation; an
  instance that rests on ``not Y`` cites them. This part is its own program
  (``#program near.``) and is grounded only when a defeater holds.

Everything here is static, so the compiled text is cached per content of
``asp/`` (:mod:`pybridge.ground.solve`)."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple

import clingo
from clingo import ast

from pybridge.errors import JudgeError
from pybridge.game.cache import combined_key, content_key, save_fingerprints
from pybridge.game.encodings import asp_root, banner_id, relative_name
from pybridge.ground import specialise, terms

COMPILER_VERSION = "13"  # bump when the generated why layer changes shape

Signature = tuple[str, int]

# The modes whose answers the graph reads (pybridge.why.graph): every verdict's (trees) or one (explain).
GRAPH_MODES = frozenset({"trees", "explain"})

# Core judgement atoms and the argument that names the clause that decided them.
CLAUSE_ARGUMENT: dict[Signature, int] = {
    ("candidate", 3): 2, ("forbidden", 3): 2, ("violation", 4): 2, ("obliged", 3): 2,
    ("exempt", 4): 3, ("waived", 5): 4, ("assumed", 6): 5, ("clamped", 5): 4, ("satisfied", 3): 2}
# ignored(Effect, By, Principle): the principle's clause (principle_clause/2) is the instance's.
PRINCIPLE_ARGUMENT: dict[Signature, int] = {("ignored", 3): 2}
# The atoms a plain check's because-line expands (pybridge.why.reasons): a blocking reason's prohibition.
BLOCKING = frozenset({("forbidden", 3)})
# Premises not followed for cites: the verdict itself.
ELIDED = frozenset({("candidate", 3), ("legal", 2)})
# Atoms whose presence overrides another: an effect set aside, a printed property replaced.
DEFEATERS = frozenset({("set_aside", 1), ("property_set", 2)})
# The verdict chain: its cites are gathered from the reasons (VERDICT_CITES), not propagated.
VERDICT_CHAIN = frozenset({("blocked", 3), ("is_blocked", 2), ("legal", 2), ("illegal", 2),
                           ("lifted", 3), ("obligation_overridden", 4)})
# Reason atoms: their rules are always recorded (a verdict's first level of reasons).
REASONS = frozenset(set(CLAUSE_ARGUMENT) | set(PRINCIPLE_ARGUMENT) | {("consequence", 3)})
# How a verdict gathers its cites from its reasons: (guard, reason) bodies for _v(P, A, Clause).
# A legal action rests on its candidates, the prohibitions lifted and what lifted them, the witness
# treatment of hidden cards, the conditions it met (satisfied/3), and what overrode a prohibition it
# escaped; an illegal one on its
# candidates and the prohibitions that block it. Consequences and obligations have cites of their own.
VERDICT_CITES: tuple[tuple[str, ...], ...] = (
    ("_c_candidate_3(P, A, _, Cite__)",),
    ("legal(P, A)", "exempt(P, A, R, _)", "_c_forbidden_3(P, A, R, Cite__)"),
    ("legal(P, A)", "_c_exempt_4(P, A, _, _, Cite__)"),
    ("legal(P, A)", "_c_waived_5(P, A, R, _, _, Cite__)", "exempt(P, A, R, _)"),
    ("legal(P, A)", "_c_assumed_6(P, A, _, _, _, _, Cite__)"),
    ("legal(P, A)", "_c_satisfied_3(P, A, _, Cite__)"),
    ("legal(P, A)", "_nmc_is_blocked_2(P, A, Cite__)"),
    ("illegal(P, A)", "blocked(P, A, R)", "_c_forbidden_3(P, A, R, Cite__)"),
    # what would have lifted a prohibition that blocks it, but for something that overrode it
    ("illegal(P, A)", "blocked(P, A, R)", "_nmc_lifted_3(P, A, R, Cite__)"),
)
CITE = "Cite__"
SPLIT_FOR_CITES = True  # the variable the generated rules carry a clause in (no rule of the base uses it)


def pattern_signature(pattern) -> Signature:
    """The signature of a head pattern (:mod:`pybridge.ground.terms`): a function's, or ("", 0)."""
    return (pattern[1], len(pattern[2])) if pattern[0] == "f" else ("", 0)


@dataclass(frozen=True, eq=False)
class Rule:
    """One rule of the rules base, as justify reads it: its clause, its text, and its head and
    premises as term patterns (:mod:`pybridge.ground.terms`). ``recorded``: its instances are recorded
    as ``_wI(V...)`` atoms over ``variables``."""

    index: int
    banner: str | None
    clauses: tuple[str, ...]  # its static citeable clauses (the banner, resolved through principles)
    text: str
    file: str
    head_pattern: list = field(repr=False)
    positive_patterns: tuple = field(repr=False)
    negative_patterns: tuple = field(repr=False)
    comparisons: tuple = field(repr=False)  # ("cmp", operator, left, right) of the body
    variables: tuple[str, ...] = ()
    recorded: bool = False
    support_only: bool = False  # a rests_on/2 pair: a rule of the why layer, not of the program
    # The parsed rule, while compiling (not cached).
    head: ast.AST | None = field(default=None, repr=False, compare=False)
    positive: tuple = field(default=(), repr=False, compare=False)
    negative: tuple = field(default=(), repr=False, compare=False)

    @property
    def signature(self) -> Signature:
        return pattern_signature(self.head_pattern)

    @property
    def record(self) -> str:
        return f"_w{self.index}"

    FIELDS = ("index", "banner", "clauses", "text", "file", "head_pattern", "positive_patterns",
              "negative_patterns", "comparisons", "variables", "recorded", "support_only")

    def to_data(self) -> dict:
        return {k: getattr(self, k) for k in self.FIELDS}

    @classmethod
    def from_data(cls, data: dict) -> Rule:
        data = dict(data)
        for key in ("clauses", "positive_patterns", "negative_patterns", "comparisons", "variables"):
            data[key] = tuple(data[key])
        return cls(**data)


class StoredRules(Sequence):
    """A compiled program's rules read from the cache folder, each made from its data when first
    read: a plain check's because-lines read a few dozen of over a thousand. The table is checked
    when it is read, each item for its fields, its place and the kinds of its values, so that a
    rule made later cannot fail (the cache's digest vouches for the content; this catches an entry
    of another shape)."""

    def __init__(self, data: list[dict]):
        if not isinstance(data, (list, tuple)) or not all(_stored_rule(d, i) for i, d in enumerate(data)):
            raise ValueError("not a table of rules")
        self._data = data
        self._made: list[Rule | None] = [None] * len(data)

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        made = self._made[i]
        if made is None:  # (two threads may both make it: the same rule either way)
            made = self._made[i] = Rule.from_data(self._data[i])
        return made

    def signatures(self) -> list[Signature]:
        """Each rule's head signature (:attr:`Rule.signature`), read off its data."""
        return [pattern_signature(d["head_pattern"]) for d in self._data]


_RULE_FIELDS = frozenset(Rule.FIELDS)
_RULE_SEQUENCES = ("clauses", "positive_patterns", "negative_patterns", "comparisons", "variables")


def _stored_rule(data: object, index: int) -> bool:
    """Whether a stored rule's data makes the rule at ``index`` (as :meth:`Rule.from_data` reads it)."""
    if not (isinstance(data, dict) and data.keys() == _RULE_FIELDS and data["index"] == index):
        return False
    head = data["head_pattern"]  # (lists as read from JSON; tuples as made by a compile in this process)
    return (isinstance(head, (list, tuple)) and bool(head)
            and (head[0] != "f" or len(head) == 3 and isinstance(head[2], (list, tuple)))
            and all(isinstance(data[k], (list, tuple)) for k in _RULE_SEQUENCES)
            and isinstance(data["text"], str) and isinstance(data["file"], str))


@dataclass(frozen=True)
class NearRule:
    """A near-miss record: rule ``rule`` nearly derived, with its positive premise number ``fault``
    itself nearly derived, or its negative premise number ``defeat`` holding."""

    name: str
    rule: int
    fault: int | None
    defeat: int | None
    variables: tuple[str, ...]


class Parts:
    """The parts of a compiled program few runs need: its near misses' text (grounded only where a
    defeater can hold), their records as the graph reads them, and its rules as the graph reads
    them (a plain check's because-lines, trees and explain); and the statement shapes of the
    program and of its near misses, which a process reads only where the specialiser's indexes of
    them are not kept beside the program. Held, or read with ``read(name)`` (the data of
    :meth:`Compiled.part_data`) when first asked for: a new process that judges one ordinary
    situation reads none of them, and one that words an illegal verdict reads the records (tens of
    kilobytes) without the near misses' text and shapes (megabytes)."""

    def __init__(self, near: tuple | None = None, rules: tuple[Rule, ...] | None = None,
                 shapes: list | None = None, read: Callable[..., dict] | None = None) -> None:
        # near: the near misses' text, shapes, records and ranks
        self._near_text = None if near is None else near[0]
        self._near_shapes = None if near is None else (near[1], near[3])
        self._records = None if near is None else near[2]
        self._rules, self._shapes, self._read = rules, shapes, read
        self._lock = threading.Lock()

    def shapes(self) -> list:
        """The program's statement shapes (what the specialiser reads of each): read only where the
        specialiser's index of them is not in the cache folder."""
        if self._shapes is None:
            with self._lock:
                if self._shapes is None:
                    self._shapes = self._load("shapes", lambda d: list(d["shapes"]))
        return self._shapes

    def near_text(self) -> str:
        if self._near_text is None:
            with self._lock:
                if self._near_text is None:
                    self._near_text = self._load("near_text", lambda d: _text(d["near_text"]))
        return self._near_text

    def near_shapes(self) -> tuple[list, list[int]]:
        """The near misses' shapes and ranks: read, like the program's own, only where the index
        they extend it with is not in the cache folder."""
        if self._near_shapes is None:
            with self._lock:
                if self._near_shapes is None:
                    self._near_shapes = self._load("near_shapes", lambda d: (list(d["near_shapes"]),
                                                                             list(d["near_ranks"])))
        return self._near_shapes

    def near_records(self) -> tuple[NearRule, ...]:
        if self._records is None:
            with self._lock:
                if self._records is None:
                    self._records = self._load("near", lambda d: tuple(
                        NearRule(n[0], n[1], n[2], n[3], tuple(n[4])) for n in d["near"]))
        return self._records

    def rules(self) -> Sequence[Rule]:
        if self._rules is None:
            with self._lock:
                if self._rules is None:
                    self._rules = self._load("rules", lambda d: StoredRules(d["rules"]))
        return self._rules

    def _load(self, name: str, build: Callable[[dict], Any]) -> Any:
        try:
            return build(self._read(name))
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):  # a broken entry is made again
            return build(self._read(name, fresh=True))


@dataclass(frozen=True)
class Compiled:
    """A game's rules compiled for one mode: the program text, what justify needs to read it."""

    game: str
    mode: str
    text: str  # the rules with the why layer
    principles: dict[str, str]
    defeaters: tuple[Signature, ...]
    base_shown: frozenset[Signature] = frozenset()  # what the rules base itself shows (#show)
    # Predicates whose shown atoms are exactly their true atoms (#show p/n, and no -p/n or #show p(...))
    whole_shown: frozenset[Signature] = frozenset()
    # Predicates some statement other than a rule with one atom for its head derives (a choice, a
    # disjunction, an #external); ANY_HEAD among them: some head could not be read.
    other_heads: frozenset[Signature] = frozenset()
    absent: tuple[Signature, ...] = ()  # witness predicates the why layer assumed to have no atoms
    witnesses: tuple[Signature, ...] = ()  # the witness predicates (shown, so a run can check them)
    near_witnesses: tuple[Signature, ...] = ()  # those a defeater can nearly derive (near misses need them)
    # how many statements of text have a shape (pybridge.ground.specialise reads them): all of them,
    # or 0 where a statement could not be read and the program is not specialised
    shaped: int = 0
    near_shaped: int = 0  # the same of its near misses' text
    ranks: list = field(default_factory=list, repr=False, compare=False)  # the rank the specialiser gives each
    layer: frozenset[int] = frozenset()  # the statements of its why layer (:func:`why_layer`)
    parts: Parts = field(default_factory=Parts, repr=False, compare=False)
    # the name the cache folder keeps it under (pybridge.ground.solve.program), for what is kept beside it
    key: str = field(default="", repr=False, compare=False)

    PARTS = ("near", "near_text", "near_shapes", "rules", "shapes")  # see Parts

    @property
    def shapes(self) -> list:
        """Per statement of text, what the specialiser reads of it (see :class:`Parts`)."""
        return self.parts.shapes()

    @property
    def near_text(self) -> str:
        """Added when a defeater holds: the near misses."""
        return self.parts.near_text()

    @property
    def near_shapes(self) -> list:
        return self.parts.near_shapes()[0]

    @property
    def near(self) -> tuple[NearRule, ...]:
        return self.parts.near_records()

    @property
    def near_ranks(self) -> list[int]:
        """The specialiser's ranks of the program's statements followed by its near misses."""
        return self.parts.near_shapes()[1]

    @property
    def rules(self) -> Sequence[Rule]:
        return self.parts.rules()

    def to_data(self) -> dict:
        return {"game": self.game, "mode": self.mode, "text": self.text,
                "principles": self.principles, "defeaters": [list(d) for d in self.defeaters],
                "base_shown": sorted(list(s) for s in self.base_shown),
                "other_heads": sorted(list(s) for s in self.other_heads),
                "whole_shown": sorted(list(s) for s in self.whole_shown),
                "absent": [list(w) for w in self.absent], "witnesses": [list(w) for w in self.witnesses],
                "near_witnesses": [list(w) for w in self.near_witnesses],
                "shaped": self.shaped, "near_shaped": self.near_shaped, "ranks": self.ranks,
                "layer": sorted(self.layer)}

    def part_data(self, name: str) -> dict:
        if name == "near":
            return {"near": [[n.name, n.rule, n.fault, n.defeat, list(n.variables)] for n in self.near]}
        if name == "near_text":
            return {"near_text": self.near_text}
        if name == "near_shapes":
            return {"near_shapes": self.near_shapes, "near_ranks": self.near_ranks}
        if name == "shapes":
            return {"shapes": self.shapes}
        return {"rules": [r.to_data() for r in self.rules]}

    @classmethod
    def from_data(cls, data: dict, read: Callable[[str], dict], key: str = "") -> Compiled:
        """A compiled program from :meth:`to_data`; its parts from ``read``, when first asked for."""
        return cls(game=data["game"], mode=data["mode"], text=data["text"],
                   principles=dict(data["principles"]), defeaters=tuple(tuple(d) for d in data["defeaters"]),
                   base_shown=frozenset(tuple(x) for x in data["base_shown"]),
                   other_heads=frozenset(tuple(x) for x in data["other_heads"]),
                   whole_shown=frozenset(tuple(x) for x in data["whole_shown"]),
                   absent=tuple(tuple(w) for w in data["absent"]),
                   witnesses=tuple(tuple(w) for w in data["witnesses"]),
                   near_witnesses=tuple(tuple(w) for w in data["near_witnesses"]),
                   shaped=int(data["shaped"]), near_shaped=int(data["near_shaped"]), ranks=data["ranks"],
                   layer=frozenset(_indices(data["layer"])),
                   parts=Parts(read=read), key=key)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError("not a program text")
    return value


def _indices(values: object) -> list[int]:
    """Statement indices read from a cache entry (refused if any is not one)."""
    if not isinstance(values, list) or not all(type(v) is int and v >= 0 for v in values):
        raise ValueError("not a list of statement indices")
    return values


def signature(term: ast.AST) -> Signature:
    if term.ast_type == ast.ASTType.Function:
        return (term.name, len(term.arguments))
    if term.ast_type == ast.ASTType.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
        return (term.symbol.name, len(term.symbol.arguments))
    return ("", 0)


class _Signatures:
    """:func:`signature` of AST nodes, remembered for one compile: reading a node is several calls
    into clingo, and the analysis asks about the same premises again and again. Each node is kept
    with its answer, so its id cannot be taken by another node while it is remembered."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[ast.AST, Signature]] = {}

    def __call__(self, node: ast.AST) -> Signature:
        found = self._known.get(id(node))
        if found is None:
            found = self._known[id(node)] = (node, signature(node))
        return found[1]


def flat_name(prefix: str, sig: Signature) -> str:
    return f"{prefix}{sig[0]}_{sig[1]}"


# What a check reads of its why layer: a verdict's cites and a consequence's (verdict_lines shows them,
# pybridge.why.justify.group reads them). The graph's modes read the layer's atoms themselves.
CHECK_READS: tuple[Signature, ...] = (("_v", 3), (flat_name("_c_", ("consequence", 3)), 4))


def _head_term(rule: ast.AST) -> ast.AST | None:
    head = rule.head
    if (head.ast_type == ast.ASTType.Literal and head.sign == ast.Sign.NoSign
            and head.atom.ast_type == ast.ASTType.SymbolicAtom):
        term = head.atom.symbol
        if signature(term)[0]:
            return term
    return None


ANY_HEAD: Signature = ("", -1)


def _whole_shown(statements: list[ast.AST]) -> frozenset[Signature]:
    """The signatures shown whole (``#show p/2.``), but for a name shown otherwise too: classically
    negated (``#show -p/2.``, whose atoms share the name) or as a term (``#show p(X) : q(X).``)."""
    whole, mixed, named = set(), set(), set()
    for st in statements:
        if st.ast_type == ast.ASTType.ShowSignature:
            (whole if st.positive else mixed).add((st.name, st.arity))
        elif st.ast_type == ast.ASTType.ShowTerm:
            term = st.term
            if term.ast_type == ast.ASTType.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
                named.add(term.symbol.name)
            elif term.ast_type == ast.ASTType.Function:
                named.add(term.name)
            else:  # a term whose name the compiler cannot tell (-p(X), ...)
                return frozenset()
    return frozenset(s for s in whole - mixed if s[0] not in named)


def _derives(statement: ast.AST) -> set[Signature]:
    """The predicates a statement that is not a rule of one atom may derive: a choice's, a
    disjunction's or an #external's atoms (:data:`ANY_HEAD` where a head cannot be read, and for a
    ``#const``, whose name a head may use in place of its value)."""
    if statement.ast_type == ast.ASTType.Definition:
        return {ANY_HEAD}
    if statement.ast_type == ast.ASTType.Rule:
        head = statement.head
    elif statement.ast_type == ast.ASTType.External:
        head = statement.atom
    else:
        return set()
    atoms: list = []
    try:
        specialise.head_atoms(head, atoms)
    except ValueError:
        return {ANY_HEAD}
    return {(name, arity) for name, arity, _ in atoms}


def _literal(literal: ast.AST) -> tuple[ast.AST, ast.Sign] | None:
    """The atom's term and sign of a plain symbolic body literal, else None."""
    if literal.ast_type == ast.ASTType.Literal and literal.atom.ast_type == ast.ASTType.SymbolicAtom:
        term = literal.atom.symbol
        if signature(term)[0]:
            return term, literal.sign
    return None


def _variables(node: ast.AST, out: set[str]) -> None:
    """The global variables of a rule part (aggregate elements and conditions are local)."""
    kind = node.ast_type
    if kind == ast.ASTType.Variable:
        if node.name != "_":
            out.add(node.name)
        return
    if kind in (ast.ASTType.BodyAggregate, ast.ASTType.Aggregate):
        for guard in (node.left_guard, node.right_guard):
            if guard is not None:
                _variables(guard.term, out)
        return
    if kind == ast.ASTType.ConditionalLiteral:
        return
    for key in node.child_keys:
        child = getattr(node, key)
        if child is None:
            continue
        if isinstance(child, ast.AST):
            _variables(child, out)
        else:
            for item in child:
                _variables(item, out)


_COMPARISONS = {
    ast.ComparisonOperator.Equal: "=", ast.ComparisonOperator.NotEqual: "!=",
    ast.ComparisonOperator.LessThan: "<", ast.ComparisonOperator.LessEqual: "<=",
    ast.ComparisonOperator.GreaterThan: ">", ast.ComparisonOperator.GreaterEqual: ">=",
}


def _comparison(literal: ast.AST) -> bool:
    """A body literal ``X op Y`` (one guard, not negated)."""
    return (literal.ast_type == ast.ASTType.Literal and literal.sign == ast.Sign.NoSign
            and literal.atom.ast_type == ast.ASTType.Comparison and len(literal.atom.guards) == 1)


def _computed(term: ast.AST) -> bool:
    """A head term with arithmetic, an interval or a pool: it cannot be matched back from a record."""
    kind = term.ast_type
    if kind in (ast.ASTType.BinaryOperation, ast.ASTType.UnaryOperation, ast.ASTType.Interval,
                ast.ASTType.Pool):
        return True
    if kind == ast.ASTType.Function:
        return any(_computed(a) for a in term.arguments)
    return False


def _plain(term: ast.AST) -> bool:
    """A term the graph can build from its variables' values alone: named variables, numbers,
    strings, constants and functions or tuples of them (no ``_``, arithmetic, interval, pool,
    external function or ``#inf``/``#sup``)."""
    kind = term.ast_type
    if kind == ast.ASTType.Variable:
        return term.name != "_"
    if kind == ast.ASTType.SymbolicTerm:
        symbol = term.symbol
        return symbol.type in (clingo.SymbolType.Number, clingo.SymbolType.String) or (
            symbol.type == clingo.SymbolType.Function and symbol.positive)
    if kind == ast.ASTType.Function:
        return not term.external and all(_plain(a) for a in term.arguments)
    return False


def _evaluable(term: ast.AST) -> bool:
    """A :func:`_plain` term, or arithmetic over such terms: what the graph can build once its
    variables are bound (no ``_``, interval, pool, external function or ``#inf``/``#sup``)."""
    kind = term.ast_type
    if kind == ast.ASTType.BinaryOperation:
        return term.operator_type in terms.OPERATORS and _evaluable(term.left) and _evaluable(term.right)
    if kind == ast.ASTType.UnaryOperation:
        return term.operator_type in (ast.UnaryOperator.Minus, ast.UnaryOperator.Absolute) and \
            _evaluable(term.argument)
    if kind == ast.ASTType.Function:
        return not term.external and all(_evaluable(a) for a in term.arguments)
    return _plain(term)


def _matchable(term: ast.AST) -> bool:
    """A term a premise may have for the graph to look its atoms up: :func:`_plain`, but for
    arithmetic without variables (``-2``, ``1 + 1``), which has one value."""
    kind = term.ast_type
    if kind in (ast.ASTType.BinaryOperation, ast.ASTType.UnaryOperation):
        found: set[str] = set()
        _variables(term, found)
        return not found and _evaluable(term)
    if kind == ast.ASTType.Function:
        return not term.external and all(_matchable(a) for a in term.arguments)
    return _plain(term)


def _joinable(body: Iterable[ast.AST]) -> bool:
    """Whether the graph can find a rule's instances by matching its body against the answer
    (:meth:`pybridge.why.graph.Graph.instances`), so that explain mode need not record them: every
    literal is an atom of :func:`_matchable` terms, the negation of an atom of :func:`_evaluable`
    ones, or a comparison of :func:`_evaluable` terms; and every variable is bound by a positive atom
    or by an equation whose other side is bound (``D = X - Y``) before a negation or a comparison
    needs it. The graph binds variables exactly so."""
    bound: set[str] = set()
    needed: list[set[str]] = []  # the variables of each negation and comparison
    equations: list[tuple[ast.AST, set[str], ast.AST, set[str]]] = []
    for literal in body:
        parts = _literal(literal)
        if parts is not None:
            term, sign = parts
            if sign not in (ast.Sign.NoSign, ast.Sign.Negation) or not (
                    _matchable(term) if sign == ast.Sign.NoSign else _evaluable(term)):
                return False
            found: set[str] = set()
            _variables(term, found)
            if sign == ast.Sign.NoSign:
                bound |= found
            else:
                needed.append(found)
        elif _comparison(literal):
            guard = literal.atom.guards[0]
            left, right = literal.atom.term, guard.term
            if not (_evaluable(left) and _evaluable(right)):
                return False
            on_left, on_right = set(), set()
            _variables(left, on_left)
            _variables(right, on_right)
            needed.append(on_left | on_right)
            if guard.comparison == ast.ComparisonOperator.Equal:
                equations.append((left, on_left, right, on_right))
        else:
            return False
    changed = True
    while changed:  # an equation binds a plain side once the other side is bound
        changed = False
        for left, on_left, right, on_right in equations:
            for side, its, other in ((left, on_left, on_right), (right, on_right, on_left)):
                if other <= bound and not its <= bound and _plain(side):
                    bound |= its
                    changed = True
    return all(variables <= bound for variables in needed)


class _NameAnonymous(ast.Transformer):
    """Give every ``_`` of a rule its own name, so a record may keep it."""

    def __init__(self) -> None:
        self.count = 0

    def visit_Variable(self, node: ast.AST) -> ast.AST:
        if node.name != "_":
            return node
        self.count += 1
        return ast.Variable(node.location, f"Anon{self.count}__")

    def visit_Literal(self, node: ast.AST) -> ast.AST:
        # "not p(X, _)": the _ stays anonymous, a local of the negation that no record can keep
        return node if node.sign != ast.Sign.NoSign else node.update(**self.visit_children(node))


def asp_digest() -> str:
    """A key for everything the compiled programs depend on: the files under asp/, and this compiler
    (each file by its content key: pybridge.game.cache.content_key)."""
    parts = [COMPILER_VERSION, content_key(Path(__file__)),
             content_key(Path(specialise.__file__))]  # the statement shapes are cached too
    root = asp_root()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        parts += [path.relative_to(root).as_posix(), content_key(path)]
    digest = combined_key(parts)
    save_fingerprints()
    return digest[:24]


class Statement(NamedTuple):
    """A statement of the rules with the clause of the banner above it in its file."""

    node: ast.AST
    clause: str | None
    file: str


def parse_rules(entry: Path) -> list[Statement]:
    """Every statement of a program file and the files it includes, each under its clause
    banner (comments themselves are dropped)."""
    statements: list[Statement] = []
    banner: dict[str, str | None] = {}

    def take(statement: ast.AST) -> None:
        filename = statement.location.begin.filename
        if statement.ast_type == ast.ASTType.Comment:
            clause = banner_id(str(statement))
            if clause:
                banner[filename] = clause
            return
        statements.append(Statement(statement, banner.get(filename), filename))

    try:
        ast.parse_files([str(entry)], take, logger=lambda code, message: None)
    except RuntimeError as exc:
        raise JudgeError(f"the rules in {relative_name(str(entry))} do not parse: {exc}") from None
    return statements


def _unpooled_heads(statements: list[Statement]) -> list[Statement]:
    """A rule whose head holds a pool (``p(a; b).``) as one rule per term of the pool: each is then
    a rule of one atom the graph can match (kept whole, a pooled fact was text whose atoms showed
    "derived with no derivation" beside a rule of their predicate)."""
    found = []
    for statement in statements:
        node = statement.node
        if node.ast_type == ast.ASTType.Rule and len(node.head.unpool()) > 1:
            found += [statement._replace(node=piece) for piece in node.unpool()]
        else:
            found.append(statement)
    return found


def input_signatures() -> frozenset[tuple[str, int]]:
    """The input predicates: the ``#defined`` declarations of asp/core/interface.lp."""
    found = set()
    for statement in parse_rules(asp_root() / "core" / "interface.lp"):
        if statement.node.ast_type == ast.ASTType.Defined:
            found.add((statement.node.name, statement.node.arity))
    return frozenset(found)


def _rests_on(statements) -> list[tuple[str, str]]:
    """The game's rests_on(Predicate, Support) facts."""
    found = []
    for statement, _, _ in statements:
        if statement.ast_type != ast.ASTType.Rule or statement.body:
            continue
        term = _head_term(statement)
        if term is not None and signature(term) == ("rests_on", 2):
            found.append((str(term.arguments[0]), str(term.arguments[1])))
    return found


def _principle_facts(statements) -> dict[str, str]:
    """principle name -> clause id, from the game's principle_clause/2 facts."""
    result: dict[str, str] = {}
    for statement, _, _ in statements:
        if statement.ast_type != ast.ASTType.Rule or statement.body:
            continue
        term = _head_term(statement)
        if term is None or signature(term) != ("principle_clause", 2):
            continue
        name, clause = term.arguments
        if (name.ast_type == ast.ASTType.SymbolicTerm and clause.ast_type == ast.ASTType.SymbolicTerm
                and clause.symbol.type == clingo.SymbolType.String):
            result[str(name.symbol)] = clause.symbol.string
    return result


def _flat(prefix: str, term: ast.AST, extra: Iterable[str] = ()) -> str:
    """``p(X, Y)`` -> ``_c_p_2(X, Y, extra...)``."""
    name, arity = signature(term)
    args = [str(a) for a in (term.arguments if term.ast_type == ast.ASTType.Function else [])] + list(extra)
    return f"{prefix}{name}_{arity}({', '.join(args)})" if args else f"{prefix}{name}_{arity}"


def _rule(head: str, body: Iterable[str]) -> str:
    parts = [b for b in body if b]
    return f"{head} :- {'; '.join(parts)}." if parts else f"{head}."


def _quote(text: str) -> str:
    return str(clingo.String(text))


def compile_game(game: str, entry: Path, *, mode: str, clause_kind: Callable[[str], str],
                 principle_of_banner: Callable[[str], str | None],
                 witnesses: frozenset[Signature] = frozenset(),
                 absent: frozenset[Signature] = frozenset(),
                 defeaters: frozenset[Signature] = frozenset(), record_every_rule: bool = False) -> Compiled:
    """Compile ``entry`` for ``mode``: ``check`` (cites and first-level reasons), ``trees`` (every
    verdict's graph) or ``explain`` (one verdict's graph). ``clause_kind(id)`` says whether a clause
    is cited (``"rule"``); ``principle_of_banner(id)`` names the principle a core banner states, if
    any; ``defeaters`` are the game's own, besides :data:`DEFEATERS`. ``record_every_rule``: in trees
    and explain modes, record the rules the graph could match itself too (the tests compare the
    graphs either way).

    The passes, in order: :func:`name_rules` (the statements, rules of one atom named and
    classified), :func:`add_support_rules` (rests_on pairs), :func:`live_rules` (what absent
    witnesses leave), :class:`CiteAnalysis` (near misses, reach, exact cites, what is cited),
    :func:`mark_recorded`, :func:`program_lines`, :func:`cite_rules`, :func:`verdict_lines` and the
    near part (:func:`_near_part`)."""
    defeaters = DEFEATERS | defeaters
    statements = _unpooled_heads(parse_rules(entry))
    principles = _principle_facts(statements)
    table = name_rules(statements, citing(principles, clause_kind, principle_of_banner),
                       record_every_rule=record_every_rule)
    if not table.rules:
        raise JudgeError(f"the rules of {game!r} hold no rules")
    add_support_rules(statements, table)
    absent_now, live = live_rules(statements, table, absent)
    analysis = CiteAnalysis(table, live, principles, defeaters, absent_now)
    # Witnesses an atom of which a defeater may override, whatever this layer assumed absent: a run
    # whose defeater holds keeps their near misses (an effect set aside still nearly replaces).
    none_absent, every_live = live_rules(statements, table, frozenset())
    near_witnesses = witnesses & near_missable(every_live, defeaters, none_absent, analysis.sig_of)
    rules = mark_recorded(table, analysis, mode)
    lines = program_lines(table, rules)
    lines += cite_rules(analysis, rules, analysis.cited, mode)
    lines += verdict_lines(mode, defeaters, witnesses, analysis.near)
    near_cited = analysis.closure(analysis.near_premises()) - analysis.cited
    near_lines, near_rules = _near_part([r for r in rules if r.index in analysis.alive], rules, table.bodies,
                                        analysis.near, analysis.cited | near_cited, analysis.dynamic_clause,
                                        analysis.principle_term, analysis.near_static, cites=mode == "check",
                                        defeaters=defeaters, sig_of=analysis.sig_of)
    near_lines = cite_rules(analysis, rules, near_cited, mode) + near_lines
    text, near_text = "\n".join(lines) + "\n", "\n".join(near_lines) + "\n"
    shapes, near_shapes = specialise.text_shapes(text), specialise.text_shapes(near_text)
    indexed = specialise.Program(shapes)  # the ranks it finds are kept, for the runs to take as they are
    near_ranks = specialise.Program(near_shapes, extends=indexed).rank
    return Compiled(game=game, mode=mode, text=text, shaped=len(shapes), near_shaped=len(near_shapes),
                    ranks=indexed.rank,
                    layer=why_layer(shapes), other_heads=frozenset(table.other_heads),
                    parts=Parts(near=(near_text, near_shapes, tuple(near_rules), near_ranks), rules=tuple(rules),
                                shapes=shapes),
                    principles=principles,
                    defeaters=tuple(sorted(defeaters)), absent=tuple(sorted(absent)), base_shown=frozenset(
                        (st.name, st.arity) for st, _, _ in statements if st.ast_type == ast.ASTType.ShowSignature),
                    whole_shown=_whole_shown([st for st, _, _ in statements]),
                    witnesses=tuple(sorted(witnesses)), near_witnesses=tuple(sorted(near_witnesses)))


def why_layer(shapes: list) -> frozenset[int]:
    """The statements of a compiled program that make its why layer: every statement whose heads are
    all of the layer's own predicates (cites ``_c_``, near misses ``_nm``, a verdict's cites ``_v``).
    No rule of the program reads them (the near misses are all of the layer)."""
    return frozenset(i for i, shape in enumerate(shapes) if shape is not None and shape[1]
                     and all(of_the_layer(name) for name, _, _ in shape[1]))


def of_the_layer(name: str) -> bool:
    return name == "_v" or name.startswith(("_c_", "_nm"))


def citing(principles: dict[str, str], clause_kind: Callable[[str], str],
           principle_of_banner: Callable[[str], str | None]) -> Callable[[str | None], str | None]:
    """A banner's clause as a rule instance cites it: a core banner that states a principle becomes
    the game's clause for it; vocabulary and bookkeeping clauses are not cited (None)."""
    def citeable(clause_id: str | None) -> str | None:
        if clause_id is None:
            return None
        principle = principle_of_banner(clause_id)
        if principle is not None:
            clause_id = principles.get(principle)
            if clause_id is None:
                return None
        return clause_id if clause_kind(clause_id) == "rule" else None
    return citeable


@dataclass
class RuleTable:
    """The rules base as the compiler reads it: its rules of one atom, named and indexed, and the
    program's statements in order (``("text", str)`` for the others, ``("rule", index)``)."""

    rules: list[Rule] = field(default_factory=list)
    bodies: dict[int, list[ast.AST]] = field(default_factory=dict)
    heads: dict[int, ast.AST] = field(default_factory=dict)
    order: list[tuple[str, object]] = field(default_factory=list)
    other_heads: set[Signature] = field(default_factory=set)  # what statements other than rules derive
    declared: set[Signature] = field(default_factory=set)  # #defined: atoms may come from the situation
    # Rules whose instances the graph can find by matching their bodies against the answer (see
    # _joinable): explain mode records none of them; trees mode, only those whose head pins the
    # instance down (every variable is the head's), since it reads the records of every verdict's
    # graph in bulk, which costs less than matching each of its atoms.
    joined: set[int] = field(default_factory=set)
    pinned: set[int] = field(default_factory=set)
    by_signature: dict[Signature, list[Rule]] = field(default_factory=lambda: defaultdict(list))


def name_rules(statements: list[Statement], citeable: Callable[[str | None], str | None], *,
               record_every_rule: bool = False) -> RuleTable:
    """Pass 1: every rule of one atom becomes a :class:`Rule` (its clause, its premises as patterns,
    its variables, anonymous ones named); other statements are kept as text."""
    table = RuleTable()
    for statement, banner, filename in statements:
        term = _head_term(statement) if statement.ast_type == ast.ASTType.Rule else None
        if term is None:
            table.order.append(("text", str(statement)))
            table.other_heads |= _derives(statement)
            if statement.ast_type == ast.ASTType.Defined:
                table.declared.add((statement.name, statement.arity))
            continue
        named = _NameAnonymous()(statement) if statement.body else statement
        positive, negative, variables = [], [], set()
        for literal in named.body:
            _variables(literal, variables)
            parts = _literal(literal)
            if parts is not None:
                (positive if parts[1] == ast.Sign.NoSign else negative).append(parts[0])
        head = _head_term(named)
        head_variables: set[str] = set()
        _variables(head, head_variables)
        index = len(table.rules)
        if not record_every_rule and _evaluable(head) and _joinable(named.body):
            table.joined.add(index)
            if variables <= head_variables and _plain(head):
                table.pinned.add(index)
        variables |= head_variables
        own = citeable(banner)
        comparisons = tuple(["cmp", _COMPARISONS.get(lit.atom.guards[0].comparison, "?"),
                             terms.pattern(lit.atom.term), terms.pattern(lit.atom.guards[0].term)]
                            for lit in named.body if _comparison(lit))
        rule = Rule(index=index, banner=banner, clauses=(own,) if own else (), text=str(statement),
                    file=relative_name(filename), head_pattern=terms.pattern(head),
                    positive_patterns=tuple(terms.pattern(p) for p in positive),
                    negative_patterns=tuple(terms.pattern(n) for n in negative), comparisons=comparisons,
                    variables=tuple(sorted(variables)), head=head, positive=tuple(positive),
                    negative=tuple(negative))
        table.rules.append(rule)
        table.bodies[index] = list(named.body)
        table.heads[index] = named.head
        table.order.append(("rule", index))
    for rule in table.rules:
        table.by_signature[rule.signature].append(rule)
    return table


def add_support_rules(statements: list[Statement], table: RuleTable) -> None:
    """Pass 2: rests_on(P, S) — an atom of P rests also on the atoms of S that share its first
    arguments. Each pair becomes a rule of the why layer only ("P(X...) :- P(X...), S(X..., Y...)"),
    never of the program."""
    loc = ast.Location(ast.Position("<why>", 1, 1), ast.Position("<why>", 1, 1))
    for name, support in _rests_on(statements):
        heads = [s for s in table.by_signature if s[0] == name]
        supports = [s for s in table.by_signature if s[0] == support]
        for head_sig in heads:
            for support_sig in supports:
                if support_sig[1] < head_sig[1]:
                    continue
                head = ast.Function(loc, name, [ast.Variable(loc, f"V{i}") for i in range(head_sig[1])], 0)
                premise = ast.Function(loc, support, [ast.Variable(loc, f"V{i}") for i in range(support_sig[1])], 0)
                rule = Rule(index=len(table.rules), banner=None, clauses=(), text=f"{head} rests on {premise}",
                            file="core/effects.lp", head_pattern=terms.pattern(head),
                            positive_patterns=(terms.pattern(head), terms.pattern(premise)),
                            negative_patterns=(), comparisons=(),
                            variables=tuple(f"V{i}" for i in range(support_sig[1])), head=head,
                            positive=(head, premise), negative=(), support_only=True)
                table.rules.append(rule)
                table.bodies[rule.index] = [ast.Literal(loc, ast.Sign.NoSign, ast.SymbolicAtom(head)),
                                            ast.Literal(loc, ast.Sign.NoSign, ast.SymbolicAtom(premise))]
                table.heads[rule.index] = ast.Literal(loc, ast.Sign.NoSign, ast.SymbolicAtom(head))
                table.by_signature[head_sig].append(rule)


def live_rules(statements: list[Statement], table: RuleTable,
               absent: frozenset[Signature]) -> tuple[set[Signature], list[Rule]]:
    """Pass 3: the predicates with no atoms and the rules left alive. The why layer may be specialised
    to situations where some witness predicates have no atoms: the rules resting on them, and
    predicates left with no live rule, then carry no cites. An input predicate (declared in
    core/interface.lp) keeps the atoms of the situation's facts even when every rule deriving more of
    it rests on an absent witness (Berserk's effect/4 instances)."""
    inputs = {(s.node.name, s.node.arity) for s in statements
              if s.node.ast_type == ast.ASTType.Defined and s.file.endswith("core/interface.lp")}
    sig_of = _Signatures()
    found = set(absent)
    changed = True
    while changed:
        changed = False
        for sig, group in table.by_signature.items():
            if sig not in found and sig not in inputs and all(
                    any(sig_of(p) in found for p in r.positive) for r in group):
                found.add(sig)
                changed = True
    live = [r for r in table.rules if not any(sig_of(p) in found for p in r.positive)
            and r.signature not in found]
    return found, live


class CiteAnalysis:
    """Pass 4, static analysis of the live rules: which atoms can be near-missed, which clauses can
    reach an atom's cites (:attr:`reach`), the predicates every atom of which cites the same clauses
    (:attr:`exact`), and the predicates whose cites something reads (:attr:`cited`)."""

    def __init__(self, table: RuleTable, live: list[Rule], principles: dict[str, str],
                 defeaters: frozenset[Signature], absent: set[Signature]) -> None:
        self.table, self.live, self.principles = table, live, principles
        self.defeaters, self.absent = defeaters, absent
        self.by_signature = table.by_signature
        self.alive = {r.index for r in live}
        self.sig_of = _Signatures()
        self._edges: dict[int, list[int]] = {}
        self.near = self._near_missable()
        self.reach = self._reach()
        self.exact = self._exact()
        self.cited = self.closure({s for s in REASONS if s in self.by_signature})
        self.group_static = {sig: [self.static_clauses(r) for r in group if r.index in self.alive]
                             for sig, group in self.by_signature.items()}

    def made_by_rules_alone(self, sig: Signature) -> bool:
        """Whether every atom of the predicate is the head of one of its rules of one atom: not an
        input (``#defined``: the situation's facts come with no clause) and derived by no other
        statement (a choice, a disjunction, an #external). Only then may one clause be said of all
        its atoms at once."""
        other = self.table.other_heads
        return sig not in self.table.declared and sig not in other and ANY_HEAD not in other

    def shared(self, sig: Signature) -> set[str] | None:
        """The clauses every atom of the predicate cites, when its rules all have the same ones and
        nothing else makes its atoms (None if not: then each rule cites its own)."""
        return _shared(self.group_static[sig]) if self.made_by_rules_alone(sig) else None

    # -- a rule's own clauses
    def dynamic_clause(self, rule: Rule) -> str | None:
        position = CLAUSE_ARGUMENT.get(rule.signature)
        return str(rule.head.arguments[position]) if position is not None else None

    def principle_term(self, rule: Rule) -> str | None:
        position = PRINCIPLE_ARGUMENT.get(rule.signature)
        return str(rule.head.arguments[position]) if position is not None else None

    def own_static(self, rule: Rule) -> set[str]:
        """The clauses an instance of the rule surely cites (statically known)."""
        own = set(rule.clauses)
        dynamic = self.dynamic_clause(rule)
        if dynamic is not None and dynamic.startswith('"'):
            own.add(clingo.parse_term(dynamic).string)
        principle = self.principle_term(rule)
        if principle is not None and principle in self.principles:
            own.add(self.principles[principle])
        return own

    def has_own(self, rule: Rule) -> bool:
        return bool(rule.clauses) or self.dynamic_clause(rule) is not None or self.principle_term(rule) is not None

    def reach_own(self, rule: Rule) -> set[str]:
        found = self.own_static(rule)
        dynamic, principle = self.dynamic_clause(rule), self.principle_term(rule)
        if self.has_own(rule) and not found and dynamic is None:
            return {"?"}
        unknown = (dynamic is not None and not dynamic.startswith('"')
                   or (principle is not None and principle not in self.principles))
        return found | ({"?"} if unknown else set())

    # -- the fixpoints
    def _near_missable(self) -> set[Signature]:
        return near_missable(self.live, self.defeaters, self.absent, self.sig_of)

    def _reach(self) -> dict[Signature, set[str]]:
        """The clauses each predicate's cites can hold (an over-approximation), "?" for unknown ones."""
        reach: dict[Signature, set[str]] = defaultdict(set)
        sig_of = self.sig_of
        changed = True
        while changed:
            changed = False
            for rule in self.live:
                if rule.signature in VERDICT_CHAIN:
                    continue
                found = self.own_static(rule)
                if self.has_own(rule) and not found:
                    found = {"?"}
                for premise in rule.positive:
                    if sig_of(premise) not in ELIDED:
                        found |= reach[sig_of(premise)]
                if any(sig_of(n) in self.near for n in rule.negative):
                    found.add("?near")
                if not found <= reach[rule.signature]:
                    reach[rule.signature] |= found
                    changed = True
        return reach

    def _exact(self) -> dict[Signature, frozenset[str]]:
        """Exact cites: a predicate every atom of which cites the same clauses, whichever of its rules
        derived it (and only its rules make its atoms: :meth:`made_by_rules_alone`). An instance
        resting on it cites them too, and no rule need say so: they are folded into the instance's
        static clauses."""
        self.exact: dict[Signature, frozenset[str]] = {}
        changed = True
        while changed:
            changed = False
            for sig, group in self.by_signature.items():
                if sig in self.exact or sig in VERDICT_CHAIN or not self.made_by_rules_alone(sig):
                    continue
                totals = {self._folded(r) for r in group if r.index in self.alive}
                if totals and None not in totals and len(totals) == 1:
                    self.exact[sig] = next(iter(totals))
                    changed = True
        return self.exact

    def _folded(self, rule: Rule) -> frozenset[str] | None:
        """The instance's clauses, if they are static: its own and its exact premises'."""
        if "?" in self.reach_own(rule) or any(self.sig_of(n) in self.near for n in rule.negative):
            return None
        found = set(self.own_static(rule))
        for premise in rule.positive:
            sig = self.sig_of(premise)
            if sig in ELIDED or not self.reach[sig]:
                continue
            if sig not in self.exact:
                return None
            found |= self.exact[sig]
        return frozenset(found)

    # -- what a rule's instances cite
    def static_clauses(self, rule: Rule) -> set[str]:
        """The clauses every instance of the rule cites, its exact premises' included."""
        return self.near_static(rule, None)

    def near_static(self, rule: Rule, fault: int | None) -> set[str]:
        """The static clauses of an instance, but those of its positive premise number ``fault``
        (a near instance's faulty premise)."""
        found = set(self.own_static(rule))
        for slot, premise in enumerate(rule.positive):
            sig = self.sig_of(premise)
            if slot != fault and sig not in ELIDED and sig in self.exact:
                found |= self.exact[sig]
        return found

    def edges(self, rule: Rule) -> list[int]:
        """Positive premises whose cites vary, and can add to what the instance cites anyway (asked
        once reach and exact are complete, so remembered per rule)."""
        found = self._edges.get(rule.index)
        if found is None:
            own = self.static_clauses(rule)
            reach, sig_of = self.reach, self.sig_of
            found = self._edges[rule.index] = [
                i for i, p in enumerate(rule.positive)
                if sig_of(p) not in ELIDED and sig_of(p) not in self.exact and reach[sig_of(p)]
                and not reach[sig_of(p)] <= own]
        return found

    def extra_banners(self, rule: Rule) -> tuple[str, ...]:
        """Static clauses a justify reading the atom alone would miss: for a judgement atom, those
        besides the clause its argument names."""
        dynamic = self.dynamic_clause(rule)
        named = {clingo.parse_term(dynamic).string} if dynamic is not None and dynamic.startswith('"') else set()
        return tuple(sorted(c for c in self.static_clauses(rule) if c not in named))

    def closure(self, start: set[Signature]) -> set[Signature]:
        """The predicates whose cites these need: themselves and the premises they pass through."""
        found = set(start)
        changed = True
        while changed:
            changed = False
            for rule in self.live:
                if rule.signature in found:
                    for i in self.edges(rule):
                        premise = self.sig_of(rule.positive[i])
                        if premise not in found:
                            found.add(premise)
                            changed = True
        return found

    def near_premises(self) -> set[Signature]:
        """What the near part needs the cites of: the defeaters (what overrode) and the premises of
        near-missable rules that held."""
        sig_of = self.sig_of
        return ({d for d in self.defeaters if d in self.by_signature}
                | {sig_of(p) for r in self.live if r.signature in self.near for p in r.positive
                   if self.reach[sig_of(p)] and sig_of(p) not in ELIDED})


def near_missable(rules: Iterable[Rule], defeaters: frozenset[Signature], absent: set[Signature],
                  sig_of: Callable[[ast.AST], Signature]) -> set[Signature]:
    """Predicates an atom of which can be nearly derived: a defeater can override a negated
    premise, or a premise can itself be nearly derived."""
    rules = list(rules)
    near: set[Signature] = set()
    skipped = VERDICT_CHAIN - {("is_blocked", 2), ("blocked", 3), ("lifted", 3)}
    changed = True
    while changed:
        changed = False
        for rule in rules:
            if rule.signature in near or rule.signature in skipped:
                continue
            if any(sig_of(n) in defeaters and sig_of(n) not in absent for n in rule.negative) or any(
                    sig_of(p) in near and sig_of(p) not in ELIDED for p in rule.positive):
                near.add(rule.signature)
                changed = True
    return near


def mark_recorded(table: RuleTable, analysis: CiteAnalysis, mode: str) -> list[Rule]:
    """Pass 5: the rules whose instances are recorded as ``_wI(V...)`` atoms — in trees mode those
    the graph cannot match and pin down, in explain mode those it cannot match, in check mode the
    reasons' and cited premises' rules whose cites vary or are not shared by their predicate, and
    the rules of a prohibition's graph that the graph cannot match (so that a plain check words its
    deciding condition off its own answer, :func:`pybridge.api.check`, with no second solve)."""
    blocking = _premise_closure(table, BLOCKING) if mode == "check" else set()

    def needs_record(rule: Rule) -> bool:
        if not table.bodies[rule.index] or rule.support_only:
            return False
        if mode == "trees":
            return rule.index not in table.pinned
        if mode == "explain":
            return rule.index not in table.joined
        if rule.signature in blocking and rule.index not in table.joined:
            return True
        if rule.signature not in analysis.cited or rule.index not in analysis.alive or not SPLIT_FOR_CITES:
            return False
        edges = bool(analysis.edges(rule))
        if rule.signature in REASONS:
            dynamic = analysis.dynamic_clause(rule)
            return edges or (bool(analysis.extra_banners(rule)) and dynamic is not None
                             and not dynamic.startswith('"'))
        shared = analysis.shared(rule.signature)
        return edges or (bool(analysis.static_clauses(rule)) and shared is None)

    recorded = {rule.index for rule in table.rules if needs_record(rule)}
    return [Rule(**{**r.__dict__, "recorded": r.index in recorded}) for r in table.rules]


def _premise_closure(table: RuleTable, start: frozenset[Signature]) -> set[Signature]:
    """The predicates whose atoms a graph expanded from atoms of ``start`` reaches: themselves and,
    through every rule of one, its positive premises (what :meth:`pybridge.why.graph.Graph.expand`
    follows down to the facts)."""
    found, todo = set(start), list(start)
    sig_of = _Signatures()
    while todo:
        for rule in table.by_signature.get(todo.pop(), ()):
            for premise in rule.positive:
                sig = sig_of(premise)
                if sig not in found:
                    found.add(sig)
                    todo.append(sig)
    return found


def _record_atom(rule: Rule) -> str:
    return f"{rule.record}({', '.join(rule.variables)})" if rule.variables else rule.record


def program_lines(table: RuleTable, rules: list[Rule]) -> list[str]:
    """Pass 6: the program in its order, a recorded rule split into its record and its head."""
    lines: list[str] = []
    for kind, item in table.order:
        if kind == "text":
            lines.append(str(item))
            continue
        rule = rules[item]
        body = [str(b) for b in table.bodies[rule.index]]
        if not rule.recorded:
            lines.append(rule.text)
        elif _computed(rule.head):  # keep the rule; record its instances beside it
            lines.append(rule.text)
            lines.append(_rule(_record_atom(rule), body))
        else:
            lines.append(_rule(_record_atom(rule), body))
            lines.append(_rule(str(table.heads[rule.index]), [_record_atom(rule)]))
    return lines


def cite_rules(analysis: CiteAnalysis, rules: list[Rule], predicates: set[Signature], mode: str) -> list[str]:
    """Pass 7: the cite rules of these predicates. Own clauses: a judgement atom names its clause
    (justify reads it off the atom), so only static clauses besides it are made; other predicates get
    theirs once per predicate where their rules share them, else per rule. Then cites from premises
    (a judgement premise passes on the clause it names too). In the graph modes justify gathers cites
    from the graph itself, so nothing is made.

    Every cite rule reads a rule's record where it has one (``rules`` are the rules as
    :func:`mark_recorded` marked them; ``analysis.by_signature`` holds them as named, before), so a
    recorded body is grounded once, not once more per clause it cites."""
    out: list[str] = []
    if mode in GRAPH_MODES:
        return out
    bodies = analysis.table.bodies

    def instance(rule: Rule) -> list[str]:
        """Body literals that hold exactly when an instance of the rule holds."""
        return [_record_atom(rule)] if rule.recorded else [str(b) for b in bodies[rule.index]]

    for sig in sorted(predicates):
        group = [rules[r.index] for r in analysis.by_signature.get(sig, ()) if r.index in analysis.alive]
        if sig in REASONS:
            for rule in group:
                for clause in analysis.extra_banners(rule):
                    out.append(_rule(_flat("_c_", rule.head, [_quote(clause)]), instance(rule)))
            continue
        shared = analysis.shared(sig)
        if shared is not None:
            for clause in sorted(shared):
                out.append(_rule(_flat("_c_", _pattern_ast(sig), [_quote(clause)]), [_pattern(sig)]))
        else:
            for rule in group:
                for clause in sorted(analysis.static_clauses(rule)):
                    out.append(_rule(_flat("_c_", rule.head, [_quote(clause)]), instance(rule)))
    for rule in rules:
        if rule.signature not in predicates or rule.signature in VERDICT_CHAIN or rule.index not in analysis.alive:
            continue
        for i in analysis.edges(rule):
            out += _premise_cites(rule, rule.positive[i], analysis.sig_of, instance(rule))
    return out


def _premise_cites(rule: Rule, premise: ast.AST, sig_of: Callable[[ast.AST], Signature],
                   instance: list[str]) -> list[str]:
    """The cite rules by which an instance of ``rule`` cites what its premise cites."""
    sig = sig_of(premise)
    out = [_rule(_flat("_c_", rule.head, [CITE]), instance + [_flat("_c_", premise, [CITE])])]
    if sig in CLAUSE_ARGUMENT:
        out.append(_rule(_flat("_c_", rule.head, [str(premise.arguments[CLAUSE_ARGUMENT[sig]])]), instance))
    elif sig in PRINCIPLE_ARGUMENT:
        out.append(_rule(_flat("_c_", rule.head, [CITE]), instance + [
            f"principle_clause({premise.arguments[PRINCIPLE_ARGUMENT[sig]]}, {CITE})"]))
    return out


def verdict_lines(mode: str, defeaters: frozenset[Signature], witnesses: frozenset[Signature],
                  near: set[Signature]) -> list[str]:
    """Pass 8: a verdict's cites beyond the clauses its reason atoms name (check mode; justify adds
    those), what is shown, and the generated predicates declared."""
    lines: list[str] = []
    if mode == "check":
        for body in VERDICT_CITES:
            lines.append(_rule(f"_v(P, A, {CITE})", body))
        lines += [f"#show {name}/{arity}." for name, arity in CHECK_READS]
    for sig in sorted(defeaters | set(witnesses)):
        lines.append(f"#show {sig[0]}/{sig[1]}.")
    declared = {("_nmc_is_blocked_2", 3), ("_nmc_lifted_3", 4), ("_v", 3)} | {(flat_name("_c_", s), s[1] + 1) for s in REASONS}
    declared |= {(flat_name("_nmc_", s), s[1] + 1) for s in near}
    lines += [f"#defined {name}/{arity}." for name, arity in sorted(declared)]
    return lines


def _shared(sets: list[set[str]]) -> set[str] | None:
    """The clauses every rule of a predicate has, if they all have the same ones (None if not)."""
    distinct = {frozenset(x) for x in sets}
    return set(next(iter(distinct))) if len(distinct) == 1 else None


def _near_part(live, rules, bodies, near, cited, dynamic_clause, principle_term, near_static, *, cites: bool,
               defeaters: frozenset[Signature] = DEFEATERS, sig_of: Callable[[ast.AST], Signature] = signature):
    lines: list[str] = []
    made: list[NearRule] = []

    def add(rule: Rule, fault: int | None, defeat: int | None, body: list[str]) -> NearRule:
        name = f"_nmw{len(made)}"
        atom = f"{name}({', '.join(rule.variables)})" if rule.variables else name
        lines.append(_rule(atom, body + [f"not {rule.head}"]))
        lines.append(_rule(_flat("_nm_", rule.head), [atom]))
        record = NearRule(name=name, rule=rule.index, fault=fault, defeat=defeat, variables=rule.variables)
        made.append(record)
        return record

    live_signatures = {r.signature for r in live}
    for rule in live:
        if rule.signature not in near or not bodies[rule.index] or _computed(rule.head) or rule.support_only:
            continue
        literals = bodies[rule.index]
        kinds = [_literal(lit) for lit in literals]
        positives = [i for i, k in enumerate(kinds) if k and k[1] == ast.Sign.NoSign]
        negatives = [i for i, k in enumerate(kinds) if k and k[1] == ast.Sign.Negation]
        for slot, i in enumerate(positives):
            premise = kinds[i][0]
            if sig_of(premise) in near and sig_of(premise) not in ELIDED:
                add(rule, slot, None, [_flat("_nm_", premise)] + [str(l) for j, l in enumerate(literals) if j != i])
        for slot, i in enumerate(negatives):
            if sig_of(kinds[i][0]) in defeaters and sig_of(kinds[i][0]) in live_signatures:
                add(rule, None, slot, [str(kinds[i][0])] + [str(l) for j, l in enumerate(literals) if j != i])

    if not cites:
        return lines, made
    for record in made:
        rule = rules[record.rule]
        atom = f"{record.name}({', '.join(record.variables)})" if record.variables else record.name
        head = rule.head
        for clause in sorted(near_static(rule, record.fault)):
            lines.append(_rule(_flat("_nmc_", head, [_quote(clause)]), [atom]))
        dynamic = dynamic_clause(rule)
        if dynamic is not None:
            lines.append(_rule(_flat("_nmc_", head, [dynamic]), [atom]))
        principle = principle_term(rule)
        if principle is not None:
            lines.append(_rule(_flat("_nmc_", head, [CITE]), [atom, f"principle_clause({principle}, {CITE})"]))
        for slot, premise in enumerate(rule.positive):
            if slot == record.fault:
                lines.append(_rule(_flat("_nmc_", head, [CITE]), [atom, _flat("_nmc_", premise, [CITE])]))
            elif sig_of(premise) in cited and sig_of(premise) not in ELIDED:
                lines.append(_rule(_flat("_nmc_", head, [CITE]), [atom, _flat("_c_", premise, [CITE])]))
        if record.defeat is not None:
            defeater = rule.negative[record.defeat]
            if sig_of(defeater) in cited:
                lines.append(_rule(_flat("_nmc_", head, [CITE]), [atom, _flat("_c_", defeater, [CITE])]))
    # What overrode a negated atom reaches the cites of the instances resting on it.
    for rule in live:
        if rule.signature not in cited or rule.signature in VERDICT_CHAIN:
            continue
        for negated in rule.negative:
            if sig_of(negated) in near:
                body = [f"{rule.record}({', '.join(rule.variables)})" if rule.variables else rule.record] \
                    if rule.recorded else [str(b) for b in bodies[rule.index]]
                lines.append(_rule(_flat("_c_", rule.head, [CITE]), body + [_flat("_nmc_", negated, [CITE])]))
    return lines, made


def _pattern_ast(sig: Signature) -> ast.AST:
    loc = ast.Location(ast.Position("<why>", 1, 1), ast.Position("<why>", 1, 1))
    return ast.Function(loc, sig[0], [ast.Variable(loc, f"X{i}") for i in range(sig[1])], 0)


def _pattern(sig: Signature) -> str:
    return str(_pattern_ast(sig)) if sig[1] else sig[0]
