"""The consistency search: is there a situation within small bounds where the
rules contradict themselves, or leave something undecided?

The solver itself generates the situations: a game's ``generator.lp`` holds
choice rules over the game's vocabulary (cards with their type, controller,
zone or cell, open, hidden, arrival, properties and features; the turn;
effects with timestamps; history), as the viewpoint player sees them after
the projection of :mod:`pybridge.input.viewpoint`. It is joined with the game's
rules and with **invariants** written in ASP (``asp/core/invariants.lp``,
``asp/<game>/invariants.lp``; the game's ``main.lp`` never includes them):
``invariant(Id, Sentence)`` declares one, ``violated(Id, Witness)`` says
where it fails. One grounding serves every invariant; each is searched in
turn with an assumption, and clingo's optimisation returns the smallest
counterexample (fewest cards, then fewest effects, then the fewest other
details). A counterexample is written back as a situation file, validated,
and its facts, projected as ``ccg-judge check`` projects them, must equal
the generated ones.

The clauses that clash are named with unsatisfiable cores: every rule of
the rules base gets ``_on("<clause id>")`` in its body (the clause of the
banner above it); on the counterexample's facts, with the violation
forbidden, solving under the assumption that every clause is on fails, and
the core, minimised by deletion, is the set of clauses that produce the
violation whatever the other clauses do.

One invariant compares situations: what a player is told must not depend on
an opponent's hidden card. It is checked in Python over generated
situations that contain such a card: the card's identity (name,
properties, features, effects it makes) is varied and ``check`` must give
the same report, never naming the card.

One invariant is about the answers a situation has (``core:one-answer``):
a situation the rules contradict has no answer set to be found, so the
generator is ground alone, situations are drawn from it smallest first and
each is judged by ``check`` on its own (see :func:`judge_drawn_situations`).

The vocabulary the generator draws from is derived from the files (see
:func:`vocabulary_facts`): the game's ``game.yaml``, its ``cards.yaml``, and
the constants the rules themselves use in the input predicates.
"""

from __future__ import annotations

import logging
import os
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import clingo
import yaml
from clingo import ast

from pybridge.errors import AnswerCount, JudgeError, close_matches
from pybridge.game.cache import positive_megabytes
from pybridge.game.catalogue import Game, load_game
from pybridge.game.encodings import asp_root, banner_id, entry_file
from pybridge.game.vocabulary import Context, ValueType, is_word, load_vocabulary
from pybridge.game.vocabulary import Vocabulary as GameVocabulary
from pybridge.ground.compiler import Statement, input_signatures, parse_rules
from pybridge.ground.solve import finished_by
from pybridge.input.situation import Situation, situation_from_data

log = logging.getLogger(__name__)

SWITCH = "_on"                      # _on("107.2"): the rules of clause 107.2 are switched on
TARGET = "consistency_target"      # the invariant searched for, given as an assumption
SAMPLE = "consistency_sample"      # a situation with a part the pair checks need
PAIR_CHECKED = "compared_invariant"  # an invariant checked over pairs of situations, in Python
JUDGED = "judged_invariant"         # an invariant checked by judging drawn situations one by one, in Python
ANY_FEATURE = "any_feature"         # a key a rule reads of whatever feature: given to those that declare it
DEFAULT_BOARDS = 20                 # situations drawn at each size for core:one-answer (--boards)


# --------------------------------------------------------------------------
# The rules base as statements, each under its clause (compiler.parse_rules)


def _log_clingo(code: clingo.MessageCode, message: str) -> None:
    log.info("clingo: %s", message.strip())


def switch_literal(location: ast.Location, clause: str) -> ast.AST:
    atom = ast.SymbolicAtom(ast.Function(location, SWITCH, [ast.SymbolicTerm(location, clingo.String(clause))], 0))
    return ast.Literal(location, ast.Sign.NoSign, atom)


def switched(statements: Iterable[Statement]) -> list[ast.AST]:
    """The statements with ``_on("<clause>")`` added to the body of every rule under a clause."""
    result = []
    for statement in statements:
        node = statement.node
        if node.ast_type == ast.ASTType.Rule and statement.clause is not None:
            node = node.update(body=list(node.body) + [switch_literal(node.location, statement.clause)])
        result.append(node)
    return result


def rule_clauses(statements: Iterable[Statement]) -> list[str]:
    return sorted({s.clause for s in statements if s.node.ast_type == ast.ASTType.Rule and s.clause})


class _Atoms(ast.Transformer):
    """Collects every atom p(t1, ..., tn) of a statement: heads, bodies, aggregate elements."""

    def __init__(self) -> None:
        self.found: list[tuple[str, tuple[ast.AST, ...]]] = []

    def visit_SymbolicAtom(self, node: ast.AST) -> ast.AST:
        symbol = node.symbol
        if symbol.ast_type == ast.ASTType.Function:
            self.found.append((symbol.name, tuple(symbol.arguments)))
        return node


def atoms_of(statements: Iterable[Statement]) -> list[tuple[str, tuple[ast.AST, ...]]]:
    collector = _Atoms()
    for statement in statements:
        collector(statement.node)
    return collector.found


# --------------------------------------------------------------------------
# The vocabulary the generator draws from


def _constant(term: ast.AST) -> clingo.Symbol | None:
    """The value of a ground term of the rules (a constant, string, number or tuple), else None."""
    if term.ast_type == ast.ASTType.SymbolicTerm:
        return term.symbol
    if term.ast_type == ast.ASTType.UnaryOperation and term.argument.ast_type == ast.ASTType.SymbolicTerm:
        symbol = term.argument.symbol
        if symbol.type == clingo.SymbolType.Number and str(term).startswith("-"):
            return clingo.Number(-symbol.number)
    if term.ast_type == ast.ASTType.Function:
        parts = [_constant(a) for a in term.arguments]
        if all(p is not None for p in parts):
            return clingo.Function(term.name, parts)
    return None


def _term(value: Any) -> clingo.Symbol:
    from pybridge.ground.facts import term
    return term(value).symbol


@dataclass
class Vocabulary:
    """The words a generated situation may use; printed as ``vocabulary_*`` facts."""

    features: set[str] = field(default_factory=set)
    plain_features: set[str] = field(default_factory=set)  # ones a card may have with no parameters
    parameters: set[tuple[str, str, clingo.Symbol]] = field(default_factory=set)
    # (feature, key) a rule reads into a variable, of a feature it names (a generic rule's key of any
    # feature keeps the catalogue's values: every feature's words would swell the search)
    read: set[tuple[str, str]] = field(default_factory=set)
    required: set[tuple[str, str]] = field(default_factory=set)  # a feature's parameters it needs
    properties: set[tuple[str, clingo.Symbol]] = field(default_factory=set)
    numbers: dict[str, int] = field(default_factory=dict)  # key -> list length (0: one number)
    effects: set[clingo.Symbol] = field(default_factory=set)
    action_kinds: set[str] = field(default_factory=set)
    markers: set[str] = field(default_factory=set)
    declared_markers: set[str] = field(default_factory=set)  # every marker kind the game declares
    protections: set[str] = field(default_factory=set)
    # The words each named type (vocabulary.yaml types:) lists and each section admits, for a
    # generator's rules to keep a word where its type accepts it (vocabulary_type_word/2).
    type_words: set[tuple[str, clingo.Symbol]] = field(default_factory=set)

    def facts(self) -> list[clingo.Symbol]:
        F = clingo.Function
        out = [F("vocabulary_type_word", [F(t), w]) for t, w in sorted(self.type_words, key=str)]
        out += [F("vocabulary_feature", [F(f)]) for f in sorted(self.features)]
        out += [F("vocabulary_parameter", [F(f), F(k), v]) for f, k, v in sorted(self.parameters, key=str)]
        out += [F("vocabulary_required", [F(f), F(k)]) for f, k in sorted(self.required)]
        out += [F("vocabulary_property", [F(k), v]) for k, v in sorted(self.properties, key=str)]
        out += [F("vocabulary_number", [F(k), clingo.Number(n)]) for k, n in sorted(self.numbers.items())]
        out += [F("vocabulary_effect", [e]) for e in sorted(self.effects, key=str)]
        out += [F("vocabulary_action_kind", [F(k)]) for k in sorted(self.action_kinds)]
        out += [F("vocabulary_marker", [F(k)]) for k in sorted(self.markers)]
        out += [F("vocabulary_declared_marker", [F(k)]) for k in sorted(self.declared_markers)]
        out += [F("vocabulary_protection", [F(k)]) for k in sorted(self.protections)]
        return out


def derive_vocabulary(game: Game, statements: list[Statement], values: int) -> Vocabulary:
    """What the rules and the card catalogue name: features and their parameters, properties,
    numeric keys, effect kinds, action kinds, markers, protections. Where a rule reads a parameter
    or property into a variable, the values come from the catalogue, else small numbers."""
    v = Vocabulary()
    numbers = [clingo.Number(n) for n in range(values + 1)]
    catalogue_values: dict[str, set[clingo.Symbol]] = {}
    for card in game.cards.values():
        for key, value in (card.get("properties") or {}).items():
            if isinstance(value, bool):
                continue
            if isinstance(value, int):
                v.numbers.setdefault(str(key), 0)
            elif isinstance(value, list):
                v.numbers[str(key)] = len(value)
            else:
                v.properties.add((str(key), _term(value)))
        for feature in card.get("features") or []:
            items = {feature: {}} if isinstance(feature, str) else feature
            for name, params in items.items():
                v.features.add(str(name))
                for key, value in (params or {}).items():
                    symbol = _term(value)
                    v.parameters.add((str(name), str(key), symbol))
                    catalogue_values.setdefault(str(key), set()).add(symbol)

    atoms = atoms_of(statements)
    kinds_by_functor: dict[str, set[str | None]] = {}
    conditions: set[tuple[str, str]] = set()
    for name, args in atoms:
        const = [_constant(a) for a in args]
        if name in ("has_feature", "printed_feature") and len(args) == 2 and const[1] is not None:
            v.features.add(const[1].name)
        elif name == "action_kind" and len(args) == 2:
            functor = args[0].name if args[0].ast_type == ast.ASTType.Function else None
            kind = const[1].name if const[1] is not None else None
            if functor:
                kinds_by_functor.setdefault(functor, set()).add(kind)
            if kind:
                v.action_kinds.add(kind)
        elif name == "violation" and len(args) == 4 and const[3] is not None:
            functor = args[1].name if args[1].ast_type == ast.ASTType.Function else None
            if functor:
                conditions.add((functor, const[3].name))
        elif name in ("marker", "marker_present") and len(args) == 3 and const[1] is not None:
            v.markers.add(const[1].name)
        elif name in ("protection", "has_protection") and len(args) == 2 and const[1] is not None:
            v.protections.add(const[1].name)
        elif name in ("property", "has_property") and len(args) == 3 and const[1] is not None:
            if const[2] is not None:
                v.properties.add((const[1].name, const[2]))
        elif name in ("base_value", "value") and len(args) == 4 and const[1] is not None:
            index = const[2]
            if const[1].name not in v.numbers:
                v.numbers[const[1].name] = 0 if (index is not None and index.number == 0) else 3
    # Parameters a rule reads: a constant value as written, a variable one from the catalogue.
    for name, args in atoms:
        if name != "feature_param" or len(args) != 4:
            continue
        feature, key, value = (_constant(a) for a in args[1:])
        if key is None:
            continue
        owner = feature.name if feature is not None else ANY_FEATURE
        if feature is not None:
            v.features.add(feature.name)
        if value is None and feature is not None:
            v.read.add((owner, key.name))
        for symbol in [value] if value is not None else sorted(catalogue_values.get(key.name) or numbers, key=str):
            v.parameters.add((owner, key.name, symbol))

    F = clingo.Function
    for feature in v.features:
        v.effects.add(F("grant", [F(feature)]))
        v.effects.add(F("remove", [F(feature)]))
    for kind in v.action_kinds:
        for deontic in ("forbid", "permit", "oblige"):
            v.effects.add(F(deontic, [F(kind)]))
    for functor, condition in conditions:
        for kind in kinds_by_functor.get(functor, set()):
            for named in [kind] if kind else sorted(v.features):
                v.effects.add(F("permit", [F(named), F(condition)]))
    deltas = [d for d in range(-values, values + 1) if d != 0]
    for key in v.numbers:
        for delta in deltas:
            v.effects.add(F("modify", [F(key), clingo.Number(delta)]))
    for key, value in v.properties:
        v.effects.add(F("set", [F(key), value]))
    # Effect kinds the rules name with constants (remove(type), permit(F, unpaid), forbid(attack)).
    for name, args in atoms:
        if name == "effect" and len(args) == 4 and args[2].ast_type == ast.ASTType.Function:
            kind = args[2]
            parts = [_constant(a) for a in kind.arguments]
            if all(p is not None for p in parts):
                v.effects.add(F(kind.name, parts))
            elif len(parts) == 2 and parts[0] is None and parts[1] is not None:
                for feature in v.features:
                    v.effects.add(F(kind.name, [F(feature), parts[1]]))
    return _declared(v, load_vocabulary(game.name), values)


def listed_words(t: ValueType) -> tuple[Any, ...]:
    """The words a type lists itself (one_of, or any of such), in order; none for an open type."""
    if t.kind == "one_of":
        return tuple(t.values)
    if t.kind == "any":
        return tuple(word for option in t.options for word in listed_words(option))
    return ()


class _Refused(Exception):
    pass


def _refuse(message: str, path: tuple) -> NoReturn:
    raise _Refused(message)


def _python(symbol: clingo.Symbol) -> Any:
    if symbol.type == clingo.SymbolType.Number:
        return symbol.number
    if symbol.type == clingo.SymbolType.String:
        return symbol.string
    return symbol.name if not symbol.arguments else str(symbol)


def _declared(v: Vocabulary, game: GameVocabulary, values: int) -> Vocabulary:
    """Only the words the game's vocabulary declares, with the forms it admits: a generated
    situation must pass the same validation a user's does. (A word the rules name but the
    vocabulary lacks is a gap `lint` reports; the search does not invent it.)"""
    def admitted(check: Callable[[], None]) -> bool:
        try:
            check()
        except _Refused:
            return False
        return True

    def parameters() -> set[tuple[str, str, clingo.Symbol]]:
        """A key a rule reads of any feature (ANY_FEATURE) goes to the features that declare it. A
        key a rule reads of a feature it names into a variable takes every word its declared type
        lists (one_of), besides the values the catalogue gives it; every value is one the type
        accepts."""
        found = set()
        for feature, key, value in v.parameters:
            for name in (features if feature == ANY_FEATURE else {feature} & features):
                declared = game.features[name].params.get(key)
                if declared is not None and game.accepts(declared.type, _python(value)):
                    found.add((name, key, value))
        for feature, key in v.read:
            for name in {feature} & features:
                declared = game.features[name].params.get(key)
                if declared is not None:
                    found |= {(name, key, _term(word)) for word in listed_words(declared.type)}
        return found

    def effect_ok(effect: clingo.Symbol) -> bool:
        what, *value = effect.arguments
        return admitted(lambda: game.check_effect(effect.name, _python(what), _python(value[0]) if value else None,
                                                  (), _refuse, Context()))

    def numeric(key: str, length: int) -> bool:
        """The key takes every number the generator may give it (0 .. values, as lists where listed)."""
        if key not in game.properties:
            return False
        declared = game.properties[key].type
        return all(game.accepts(declared, [n] * length if length else n) for n in range(values + 1))

    features = {f for f in v.features if f in game.features}
    return Vocabulary(
        features=features,
        plain_features={f for f in features if not any(p.required for p in game.features[f].params.values())},
        parameters=parameters(),
        required={(f, p.name) for f in features for p in game.features[f].params.values() if p.required},
        properties={(k, x) for k, x in v.properties
                    if k in game.properties and game.accepts(game.properties[k].type, _python(x))},
        numbers={k: n for k, n in v.numbers.items() if numeric(k, n)},
        effects={e for e in v.effects if effect_ok(e)},
        action_kinds={k for k in v.action_kinds if game.admits("action_kind", k)},
        markers={m for m in v.markers if game.admits("marker", m)},
        declared_markers={m for m in game.markers if is_word(m)},
        protections={p for p in v.protections if game.admits("protection", p)},
        type_words={(name, _term(word)) for name, t in game.types.items() for word in listed_words(t)}
        | {(section, _term(word)) for section in SECTIONS for word in game.words(section) if is_word(word)},
    )


# Sections whose words a generator's rules may ask of vocabulary_type_word/2.
SECTIONS = ("action_kind", "action_class", "modifiable", "settable_property", "marker", "protection", "condition")


# --------------------------------------------------------------------------
# Bounds and invariants


@dataclass(frozen=True)
class Bounds:
    """How large a generated situation may be. ``None``: the generator's own default
    (its ``#const`` lines)."""

    cards: int | None = None
    effects: int | None = None
    hidden: int | None = None
    events: int | None = None
    turns: int | None = None
    values: int | None = None
    columns: int | None = None

    def overrides(self) -> dict[str, int]:
        return {k: v for k, v in vars(self).items() if v is not None}


@dataclass(frozen=True)
class Invariant:
    id: str
    sentence: str
    compared: bool = False  # checked over pairs of situations, in Python
    judged: bool = False    # checked by judging situations drawn from the generator one by one, in Python


def _constants(statements: Iterable[Statement]) -> dict[str, int]:
    found = {}
    for statement in statements:
        node = statement.node
        if node.ast_type == ast.ASTType.Definition:
            value = _constant(node.value)
            if value is not None and value.type == clingo.SymbolType.Number:
                found[node.name] = value.number
    return found


def read_invariants(statements: Iterable[Statement]) -> list[Invariant]:
    """``invariant("id", "sentence")`` facts, ``compared_invariant("id")`` for the pair checks and
    ``judged_invariant("id")`` for those checked by judging situations one by one."""
    declared: dict[str, str] = {}
    compared: set[str] = set()
    judged: set[str] = set()
    for statement in statements:
        node = statement.node
        if node.ast_type != ast.ASTType.Rule or node.body or node.head.ast_type != ast.ASTType.Literal:
            continue
        atom = node.head.atom
        if atom.ast_type != ast.ASTType.SymbolicAtom or atom.symbol.ast_type != ast.ASTType.Function:
            continue
        values = [_constant(a) for a in atom.symbol.arguments]
        if atom.symbol.name == "invariant" and len(values) == 2 and all(
                x is not None and x.type == clingo.SymbolType.String for x in values):
            declared[values[0].string] = values[1].string
        elif atom.symbol.name == PAIR_CHECKED and len(values) == 1 and values[0] is not None:
            compared.add(values[0].string)
        elif atom.symbol.name == JUDGED and len(values) == 1 and values[0] is not None:
            judged.add(values[0].string)
    return [Invariant(i, s, i in compared, i in judged) for i, s in declared.items()]


# --------------------------------------------------------------------------
# Results


@dataclass
class Finding:
    invariant: Invariant
    status: str  # "violated", "held" (none within the bounds), "unknown" (time ran out)
    seconds: float = 0.0
    counterexample: Path | None = None
    situation: dict[str, Any] | None = None
    cards: int = 0
    effects: int = 0
    minimal: bool = False
    witness: str = ""
    clauses: list[str] = field(default_factory=list)
    detail: list[str] = field(default_factory=list)
    clauses_heading: str = "clauses that clash"
    size_note: str = ""  # how the counterexample's size was reached, where not by the search's optimisation

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.invariant.id, "sentence": self.invariant.sentence,
                                "status": self.status, "seconds": round(self.seconds, 2)}
        if self.status == "violated":
            data.update({"counterexample": str(self.counterexample) if self.counterexample else None,
                         "cards": self.cards, "effects": self.effects, "minimal": self.minimal,
                         "witness": self.witness, "clauses": self.clauses, "detail": self.detail})
        return data


@dataclass
class SearchResult:
    game: str
    bounds: dict[str, int]
    findings: list[Finding]
    complete: bool
    seconds: float

    @property
    def violated(self) -> list[Finding]:
        return [f for f in self.findings if f.status == "violated"]

    def as_json(self) -> dict[str, Any]:
        return {"game": self.game, "bounds": self.bounds, "complete": self.complete,
                "seconds": round(self.seconds, 2), "violations": len(self.violated),
                "invariants": [f.as_json() for f in self.findings]}


Progress = Callable[[str], None]


# --------------------------------------------------------------------------
# The search


def generator_of(game_name: str) -> Path:
    """The game's ``generator.lp``: the search's own program, which makes its situations (a game
    without one cannot be searched)."""
    return load_game(game_name).directory / "generator.lp"


@dataclass
class SearchProgram:
    """The generator, the rules and the invariants of one game, ready to ground."""

    game: Game
    rules: list[Statement]
    generator: list[Statement]
    invariants: list[Statement]
    invariant_list: list[Invariant]
    constants: dict[str, int]
    vocabulary: Vocabulary

    @classmethod
    def load(cls, game_name: str, bounds: Bounds) -> SearchProgram:
        game = load_game(game_name)
        rules = parse_rules(entry_file(game_name, game.entry))
        generator_file = generator_of(game_name)
        if not generator_file.is_file():
            raise JudgeError(f"{game_name} has no generator.lp: the consistency search cannot make its situations",
                             field="--game")
        generator = parse_rules(generator_file)
        invariants: list[Statement] = parse_rules(asp_root() / "core" / "invariants.lp")
        if (game.directory / "invariants.lp").is_file():
            invariants += parse_rules(game.directory / "invariants.lp")
        constants = {**_constants(generator), **bounds.overrides()}
        missing = sorted(set(bounds.overrides()) - set(_constants(generator)))
        if missing:
            raise JudgeError(f"the {game_name} generator has no bound {', '.join(missing)}; it has "
                             f"{', '.join(sorted(_constants(generator)))}")
        for name, value in constants.items():
            if value < 0:
                raise JudgeError(f"bound {name} must be 0 or more, got {value}", field=f"--{name}")
        vocabulary = derive_vocabulary(game, rules, constants.get("values", 2))
        return cls(game, rules, generator, invariants, read_invariants(invariants), constants, vocabulary)

    def slot_facts(self) -> list[clingo.Symbol]:
        F, N, S = clingo.Function, clingo.Number, clingo.String
        facts = [F("slot_card", [N(i), S(f"c{i}")]) for i in range(1, self.constants.get("cards", 0) + 1)]
        facts += [F("slot_effect", [N(i), S(f"e{i}")]) for i in range(1, self.constants.get("effects", 0) + 1)]
        return facts

    def game_facts(self) -> list[clingo.Symbol]:
        """The game's description (game.yaml) and catalogue as facts for the generator (made once: a
        search grounds three programs with them; callers must not change the list)."""
        if "_game_facts" not in self.__dict__:
            self.__dict__["_game_facts"] = self._make_game_facts()
        return self.__dict__["_game_facts"]

    def _make_game_facts(self) -> list[clingo.Symbol]:
        F, N, S = clingo.Function, clingo.Number, clingo.String
        g = self.game
        facts = [F("vocabulary_zone", [F(z)]) for z in g.zones]
        facts += [F("vocabulary_private_zone", [F(z), F(who)]) for z, who in g.private_zones.items()]
        facts += [F("vocabulary_stage", [F(s)]) for s in g.stages]
        facts += [F("vocabulary_phase", [F(s)]) for s in g.phases]
        facts += [F("vocabulary_step", [F(s)]) for s in g.steps]
        facts += [F("vocabulary_edition", [S(e)]) for e in g.editions]
        facts.append(F("vocabulary_default_edition", [S(g.default_edition)]))
        facts += [F("vocabulary_option", [F(name), F(value)]) for name, o in g.options.items() for value in o.values]
        facts += [F("vocabulary_default_option", [F(name), F(o.default)]) for name, o in g.options.items()]
        # The history events the vocabulary declares (a declarable feature's declaration too), with
        # whether each takes a target, so a generated history is one a situation may hold.
        v = g.vocabulary
        events = {name: v.history_event(name) for name in (*v.history, *v.declarable_features, *v.composed_features)}
        facts += [F("vocabulary_event", [F(a)]) for a in events]
        facts += [F("vocabulary_event_target", [F(a), F(e.target)]) for a, e in events.items()]
        facts += [F("vocabulary_public_property", [F(k)]) for k in g.public_when_hidden]
        facts += [F("vocabulary_card_property", [F(k)]) for k in g.card_properties]
        facts += [F("vocabulary_active_while_hidden", [F(f)]) for f in g.active_while_hidden]
        facts += [F("vocabulary_placement", [F(p.property), _term(p.value)]) for p in g.placements]
        facts += [F("vocabulary_value", [N(n)]) for n in range(self.constants.get("values", 2) + 1)]
        if g.board is not None:
            facts.append(F("vocabulary_board", [N(g.board.columns), N(g.board.rows_per_side)]))
        facts += [F("catalogued", [S(c)]) for c in g.clauses]
        facts.append(F("game", [F(g.name)]))
        return facts + self.vocabulary.facts() + self.slot_facts()

    def search_control(self) -> clingo.Control:
        """Generator, rules and invariants, ready to ground once for every invariant."""
        nodes = [s.node for s in self.rules + self.generator + self.invariants]
        return _control(nodes, self.game_facts(), ["--opt-strategy=usc"] + self._constant_arguments())

    def replay_control(self, facts: Iterable[clingo.Symbol], *,
                       invariants: bool = True) -> tuple[clingo.Control, list[str]]:
        """The rules with every clause switched by ``_on``, the invariants (unless not wanted) and
        one situation's facts."""
        clauses = rule_clauses(self.rules)
        nodes = switched(self.rules) + [s.node for s in (self.invariants if invariants else [])
                                        if s.node.ast_type != ast.ASTType.Minimize]
        loc = _location("<switches>")
        for clause in clauses:  # { _on("107.2") }. : each clause free to be on or off
            element = ast.ConditionalLiteral(loc, switch_literal(loc, clause), [])
            nodes.append(ast.Rule(loc, ast.Aggregate(loc, None, [element], None), []))
        catalogued = [s for s in self.game_facts() if s.name == "catalogued"]
        return _control(nodes, catalogued + list(facts), self._constant_arguments()), clauses

    def _constant_arguments(self) -> list[str]:
        return [f"-c{name}={value}" for name, value in sorted(self.constants.items())]


def _location(name: str) -> ast.Location:
    return ast.Location(ast.Position(name, 1, 1), ast.Position(name, 1, 1))


def _fact(symbol: clingo.Symbol) -> ast.AST:
    loc = _location("<facts>")
    return ast.Rule(loc, ast.Literal(loc, ast.Sign.NoSign, ast.SymbolicAtom(ast.SymbolicTerm(loc, symbol))), [])


def _control(nodes: Iterable[ast.AST], facts: Iterable[clingo.Symbol], arguments: list[str]) -> clingo.Control:
    # Generated situations give the rules data they never see in play (a string where a sum
    # expects a number, ...): clingo's notes on that go to the log (shown with -v).
    ctl = clingo.Control(arguments, logger=_log_clingo, message_limit=20)
    with ast.ProgramBuilder(ctl) as builder:
        for node in nodes:
            builder.add(node)
    # The facts as text: clingo parses tens of thousands of them faster than Python builds their trees.
    ctl.add("base", [], "".join(f"{symbol}.\n" for symbol in facts))
    return ctl


# --------------------------------------------------------------------------
# A generated answer set as a situation file


def _value(symbol: clingo.Symbol) -> Any:
    """A term of the situation's facts as the data of a situation file (pybridge.ground.facts.term, reversed)."""
    if symbol.type == clingo.SymbolType.Number:
        return symbol.number
    if symbol.type == clingo.SymbolType.String:
        return symbol.string
    if symbol.type == clingo.SymbolType.Function and not symbol.arguments:
        return symbol.name
    if symbol.type == clingo.SymbolType.Function and not symbol.name:
        return [_value(a) for a in symbol.arguments]
    raise JudgeError(f"the generator made a term no situation file can hold: {symbol}")


def situation_data(atoms: Iterable[clingo.Symbol], game: Game) -> dict[str, Any]:
    """The situation file whose facts (pybridge.ground.facts) are these input atoms. Cards the viewpoint
    player may not see get their id as a name: the projection drops it again."""
    by: dict[str, list[tuple[Any, ...]]] = {}
    for atom in atoms:
        by.setdefault(atom.name, []).append(tuple(atom.arguments))

    def one(name: str) -> Any:
        values = by.get(name) or []
        return _value(values[0][0]) if values else None

    def pairs(name: str) -> dict[str, Any]:
        return {a.string: b for a, b in by.get(name, [])}

    first = one("first_player")
    data: dict[str, Any] = {
        "game": game.name, "edition": one("edition"),
        "options": {_value(n): _value(v) for n, v in sorted(by.get("option", []), key=str)},
        "viewpoint": one("viewpoint"),
        "players": [{"id": p, **({"first": True} if p == first else {})}
                    for p in sorted(_value(a[0]) for a in by.get("player", []))],
        "turn": {k: v for k, v in (("number", one("turn")), ("active", one("active_player")),
                                   ("stage", one("stage")), ("phase", one("phase")),
                                   ("step", one("step"))) if v is not None},
    }
    names, controllers, owners, zones = pairs("card_name"), pairs("controller"), pairs("owner"), pairs("zone")
    cells = {c.string: (side, x, y) for c, side, x, y in by.get("cell", [])}
    flags = {name: {a[0].string for a in by.get(name, [])} for name in ("open", "hidden", "revealed")}
    arrived = pairs("arrived")
    cards = []
    for (card_id,) in sorted(by.get("card", []), key=str):
        c = card_id.string
        controller = controllers[c].string
        card: dict[str, Any] = {"id": c, "name": names[c].string if c in names else c, "controller": controller}
        if c in owners and owners[c].string != controller:
            card["owner"] = owners[c].string
        card["zone"] = _value(zones[c])
        if c in cells:
            side, x, y = cells[c]
            card["cell"] = {**({"side": side.string} if side.string != controller else {}),
                            "column": x.number, "row": y.number}
        if c not in flags["open"]:
            card["open"] = False
        for flag in ("hidden", "revealed"):
            if c in flags[flag]:
                card[flag] = True
        if c in arrived:
            card["arrived"] = arrived[c].number
        properties = {_value(k): _value(v) for cc, k, v in by.get("property", []) if cc.string == c}
        if properties:
            card["properties"] = dict(sorted(properties.items()))
        features = []
        for cc, feature in sorted(by.get("printed_feature", []), key=str):
            if cc.string != c:
                continue
            params = {_value(k): _value(v) for c2, f2, k, v in by.get("feature_param", [])
                      if c2.string == c and f2 == feature}
            features.append({feature.name: dict(sorted(params.items()))} if params else feature.name)
        if features:
            card["features"] = features
        protections = sorted(k.name for cc, k in by.get("protection", []) if cc.string == c)
        if protections:
            card["protections"] = protections
        for name, key in (("marker", "markers"), ("chip", "chips")):
            counts = {k.name: n.number for cc, k, n in by.get(name, []) if cc.string == c}
            if counts:
                card[key] = dict(sorted(counts.items()))
        cards.append(card)
    data["cards"] = cards
    sources, features, constant = pairs("effect_source"), pairs("effect_feature"), {a[0].string for a in by.get("constant", [])}
    effects = []
    for e, target, kind, stamp in sorted(by.get("effect", []), key=str):
        effect: dict[str, Any] = {"id": e.string, "target": target.string, "kind": kind.name,
                                  "what": kind.arguments[0].name, "timestamp": stamp.number}
        if len(kind.arguments) > 1:
            effect["value"] = _value(kind.arguments[1])
        if e.string in sources:
            effect["source"] = sources[e.string].string
        if e.string in features:
            effect["feature"] = features[e.string].name
        if e.string not in constant:
            effect["constant"] = False
        effects.append(effect)
    data["effects"] = effects
    targeted = {(t, k, a) for t, k, a, _ in by.get("done_target", [])}
    history = [{"turn": t.number, "action": k.name, "actor": a.string, "target": x.string}
               for t, k, a, x in by.get("done_target", [])]
    history += [{"turn": t.number, "action": k.name, "actor": a.string}
                for t, k, a in by.get("done", []) if (t, k, a) not in targeted]
    data["history"] = sorted(history, key=lambda h: (h["turn"], h["action"], h["actor"], h.get("target", "")))
    return {k: v for k, v in data.items() if v not in (None, [], {})}


def _renamed(symbol: clingo.Symbol, names: dict[str, str]) -> clingo.Symbol:
    if symbol.type == clingo.SymbolType.String:
        return clingo.String(names.get(symbol.string, symbol.string))
    if symbol.type == clingo.SymbolType.Function and symbol.arguments:
        return clingo.Function(symbol.name, [_renamed(a, names) for a in symbol.arguments], symbol.positive)
    return symbol


@dataclass
class Counterexample:
    situation: Situation
    data: dict[str, Any]
    facts: list[clingo.Symbol]  # what `check` gives the solver for it (projected)


def counterexample(atoms: Iterable[clingo.Symbol], game: Game, *, verify: bool = True) -> Counterexample:
    """The situation of a generated answer set, validated, with its facts as `check` sees them.
    Those facts must be the generated ones (the unknown cards renamed as the projection names
    them): else the generator and the bridge disagree on what a situation is. (The pair check
    passes ``verify=False``: a projection that disagrees is what it looks for.)"""
    from pybridge.api import facts_for
    from pybridge.input.viewpoint import unknown_card_ids

    inputs = input_signatures()
    generated = {a for a in atoms if (a.name, len(a.arguments)) in inputs}
    data = situation_data(generated, game)
    try:
        situation = situation_from_data(data, source="<generated situation>")
    except JudgeError as exc:
        raise JudgeError(f"the {game.name} generator made a situation that is not valid: {exc.render()}") from None
    facts = facts_for(situation)
    names = unknown_card_ids(situation, situation.viewpoint)
    expected = {_renamed(a, names) for a in generated}
    if verify and set(facts) != expected:
        extra = sorted(map(str, set(facts) - expected))[:5]
        missing = sorted(map(str, expected - set(facts)))[:5]
        raise JudgeError(f"the {game.name} generator and the bridge disagree on a situation: the file gives "
                         f"{extra} and not {missing}")
    return Counterexample(situation, data, facts)


def write_counterexample(example: Counterexample, path: Path, invariant: Invariant, witness: str,
                         clauses: list[str]) -> None:
    lines = [f"# ccg-judge consistency: a counterexample to {invariant.id}",
             f"# {invariant.sentence}",
             f"# Where: {witness}",
             f"# Clauses that clash: {', '.join(clauses) if clauses else '(none named)'}",
             "# Rerun: ccg-judge check THIS_FILE"]
    body = yaml.safe_dump({"schema_version": 1, **example.data}, allow_unicode=True, sort_keys=False,
                          default_flow_style=None, width=110)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n" + body, encoding="utf-8")


# --------------------------------------------------------------------------
# The clauses that clash


def _violation(invariant: str, witness: clingo.Symbol) -> clingo.Symbol:
    return clingo.Function("violated", [clingo.String(invariant), witness])


def clashing_clauses(program: SearchProgram, facts: list[clingo.Symbol], invariant: str,
                     deadline: float) -> tuple[clingo.Symbol | None, list[str]]:
    """On one situation's facts: the violation's witness, and a minimal set of clauses that,
    switched on, produce it whatever the other clauses do (an unsatisfiable core of the
    assumptions ``_on(clause)``, with the violation forbidden, minimised by deletion)."""
    from pybridge.why.justify import sort_clause_ids

    ctl, clauses = program.replay_control(facts)
    ctl.ground([("base", [])])
    switch = {c: clingo.Function(SWITCH, [clingo.String(c)]) for c in clauses}
    every_on = [(symbol, True) for symbol in switch.values()]
    witnesses: list[clingo.Symbol] = []

    def on_model(model: clingo.Model) -> None:
        witnesses.extend(sorted(a.arguments[1] for a in model.symbols(atoms=True)
                                if a.name == "violated" and a.arguments[0] == clingo.String(invariant)))

    ctl.solve(assumptions=every_on, on_model=on_model)
    if not witnesses:
        return None, []
    witness = witnesses[0]
    # Forbid this violation (a program part of its own, grounded over the atoms above).
    loc = _location("<forbid>")
    body = [ast.Literal(loc, ast.Sign.NoSign, ast.SymbolicAtom(ast.SymbolicTerm(loc, _violation(invariant, witness))))]
    with ast.ProgramBuilder(ctl) as builder:
        builder.add(ast.Program(loc, "forbid", []))
        builder.add(ast.Rule(loc, ast.Literal(loc, ast.Sign.NoSign, ast.BooleanConstant(False)), body))
    ctl.ground([("forbid", [])])
    core = minimal_core(ctl, switch, clauses, deadline)
    return witness, sort_clause_ids(core or [])  # None: the violation does not follow from the clauses alone


def minimal_core(ctl: clingo.Control, switch: dict[str, clingo.Symbol], clauses: list[str],
                 deadline: float) -> list[str] | None:
    """A set of clauses that, switched on, leave the ground program no model whatever the other
    clauses do: clingo's unsatisfiable core of the assumptions ``_on(clause)``, minimised by
    deletion (until the deadline). None: the program has a model with every clause on."""
    by_literal = {ctl.symbolic_atoms[symbol].literal: clause for clause, symbol in switch.items()}

    def core_of(on: list[str]) -> list[str] | None:
        """The core when these clauses are on (the others free), or None: satisfiable."""
        found: list[int] = []
        result = ctl.solve(assumptions=[(switch[c], True) for c in on], on_core=found.extend)
        if result.satisfiable:
            return None
        return sorted({by_literal[lit] for lit in found if lit in by_literal})

    core = core_of(clauses)
    if core is None:
        return None
    for clause in list(core):
        if clause not in core or time.monotonic() > deadline:
            continue
        smaller = core_of([c for c in core if c != clause])
        if smaller is not None:
            core = smaller
    return core


# --------------------------------------------------------------------------
# The search


def _target(invariant: str) -> clingo.Symbol:
    return clingo.Function(TARGET, [clingo.String(invariant)])


def _file_name(invariant: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in invariant) + ".yaml"


def search(game_name: str, bounds: Bounds = Bounds(), *, time_limit: float = 120.0,
           only: Iterable[str] = (), out_dir: Path | None = None, samples: int = 4,
           boards: int = DEFAULT_BOARDS, progress: Progress | None = None) -> SearchResult:
    """Search every invariant of the game (or those in ``only``) within the bounds; write each
    violation's smallest counterexample into ``out_dir``. ``samples``: situations the hidden-card
    pair check varies; ``boards``: situations drawn at each size for the invariants judged one
    situation at a time (core:one-answer)."""
    started = time.monotonic()
    deadline = started + time_limit
    say = progress or (lambda text: None)
    if boards < 1:
        raise JudgeError(f"boards must be 1 or more, got {boards}", field="--boards")
    program = SearchProgram.load(game_name, bounds)
    invariants = program.invariant_list
    wanted = list(only)
    if wanted:
        known = {i.id for i in invariants}
        for name in wanted:
            if name not in known:
                close = close_matches(name, sorted(known), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise JudgeError(f"unknown invariant {name!r}{hint} ({game_name} has {', '.join(sorted(known))})",
                                 field="--invariant")
        invariants = [i for i in invariants if i.id in wanted]
    # Those judged situation by situation last: they sample, where the others decide.
    invariants = sorted(invariants, key=lambda i: i.judged)
    ctl: clingo.Control | None = None  # generator, rules and invariants, ground once when first needed
    findings: list[Finding] = []
    complete = True
    for number, invariant in enumerate(invariants, 1):
        begun = time.monotonic()
        label = f"[{number}/{len(invariants)}] {invariant.id}"
        if time.monotonic() >= deadline:
            findings.append(Finding(invariant, "unknown"))
            complete = False
            continue
        if invariant.judged:
            finding = judge_drawn_situations(program, invariant, deadline, boards, out_dir, say, label)
        else:
            if ctl is None:
                say(f"grounding {game_name} rules with the generator ({_bounds_text(program.constants)})")
                ctl = program.search_control()
                ctl.ground([("base", [])])
            if invariant.compared:
                finding = _compare_hidden(program, ctl, invariant, deadline, samples, out_dir, say, label)
            else:
                finding = _search_one(program, ctl, invariant, deadline, out_dir, say, label)
        finding.seconds = time.monotonic() - begun
        complete = complete and finding.status != "unknown"
        findings.append(finding)
        say(f"{label}: {finding.status} ({finding.seconds:.1f} s)")
    return SearchResult(game_name, dict(program.constants), findings, complete, time.monotonic() - started)


def _bounds_text(constants: dict[str, int]) -> str:
    return ", ".join(f"{name} {value}" for name, value in sorted(constants.items()))


def _select(ctl: clingo.Control, program: SearchProgram, invariant: str | None, sample: str | None) -> None:
    for other in program.invariant_list:
        ctl.assign_external(_target(other.id), other.id == invariant)
    for atom in ctl.symbolic_atoms.by_signature(SAMPLE, 1):
        ctl.assign_external(atom.symbol, atom.symbol.arguments[0].name == sample)


def _search_one(program: SearchProgram, ctl: clingo.Control, invariant: Invariant, deadline: float,
                out_dir: Path | None, say: Progress, label: str) -> Finding:
    _select(ctl, program, invariant.id, None)
    ctl.configuration.solve.opt_mode = "opt"
    ctl.configuration.solve.models = "0"  # improve until the optimum is proven
    best: list[tuple[list[clingo.Symbol], list[int]]] = []

    def on_model(model: clingo.Model) -> None:
        best.append((model.symbols(atoms=True), list(model.cost)))

    began = time.monotonic()
    with ctl.solve(on_model=on_model, async_=True) as handle:
        while not handle.wait(min(1.0, max(0.0, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                handle.cancel()
                break
            size = f"; best so far {best[-1][1][0]} cards, {best[-1][1][1]} effects" if best else ""
            say(f"{label}: searching {time.monotonic() - began:.0f} s{size}")
        finished = handle.wait(0)
        result = handle.get()
    if not best:
        return Finding(invariant, "held" if finished and result.unsatisfiable else "unknown")
    atoms, cost = best[-1]
    example = counterexample(atoms, program.game)
    witness, clauses = clashing_clauses(program, example.facts, invariant.id, deadline + 30)
    if witness is None:
        raise JudgeError(f"the counterexample to {invariant.id} does not violate it when rerun: "
                         "the generator and the bridge disagree")
    finding = Finding(invariant, "violated", cards=cost[0], effects=cost[1], minimal=finished,
                      situation=example.data, witness=_text(witness), clauses=clauses)
    if out_dir is not None:
        finding.counterexample = out_dir / _file_name(invariant.id)
        write_counterexample(example, finding.counterexample, invariant, finding.witness, clauses)
    return finding


def _text(symbol: clingo.Symbol) -> str:
    from pybridge.why.justify import text
    return text(symbol)


# --------------------------------------------------------------------------
# The pair check: nothing a player is told depends on an opponent's hidden card

SECRET = "secret-"


def _rename_card(data: dict[str, Any], old: str, new: str, game: Game) -> dict[str, Any]:
    """The situation with card ``old`` called ``new`` wherever a field names it."""
    def swap(value: Any) -> Any:
        return new if value == old else value

    data = {**data}
    data["cards"] = [{**c, "id": swap(c["id"]),
                      **({"properties": {k: (swap(v) if k in game.card_properties else v)
                                         for k, v in c["properties"].items()}} if "properties" in c else {})}
                     for c in data.get("cards", [])]
    data["effects"] = [{**e, "target": swap(e["target"]), **({"source": swap(e["source"])} if "source" in e else {})}
                       for e in data.get("effects", [])]
    data["history"] = [{**h, "actor": swap(h["actor"]), **({"target": swap(h["target"])} if "target" in h else {})}
                       for h in data.get("history", [])]
    return {k: v for k, v in data.items() if v != []}


def hidden_variants(data: dict[str, Any], card_id: str, game: Game, vocabulary: Vocabulary,
                    count: int, offset: int = 0) -> list[dict[str, Any]]:
    """The same situation with another identity for hidden card ``card_id``: a new id and name,
    other properties, features, markers and protections, and an effect its own text makes;
    what its opponent may see (controller, place, state, public properties) stays as it was."""
    def pick(options: list, n: int) -> Any:
        return options[(offset + n) % len(options)] if options else None

    properties = sorted({k for k, _ in vocabulary.properties} - set(game.public_when_hidden))
    features = sorted(vocabulary.plain_features - set(game.active_while_hidden))
    variants = []
    for n in range(count):
        secret = f"{SECRET}{n + 1}"
        variant = _rename_card(data, card_id, secret, game)
        cards = []
        for card in variant["cards"]:
            if card["id"] == secret:
                public = {k: v for k, v in (card.get("properties") or {}).items() if k in game.public_when_hidden}
                card = {k: v for k, v in card.items() if k not in ("name", "card", "properties", "features",
                                                                    "markers", "protections", "chips")}
                card["name"] = f"{SECRET}name {n + 1}"
                values = {k: sorted((v for key, v in vocabulary.properties if key == k), key=str) for k in properties}
                card["properties"] = {**{k: _value(pick(vs, n)) for k, vs in values.items() if vs}, **public}
                for key, length in sorted(vocabulary.numbers.items()):
                    if key not in game.public_when_hidden:
                        card["properties"][key] = [n + 1] * length if length else n + 1
                if features:
                    card["features"] = [pick(features, n), pick(features, n + 1)]
                if vocabulary.markers:
                    card["markers"] = {pick(sorted(vocabulary.markers), n): n + 1}
                if vocabulary.protections:
                    card["protections"] = [pick(sorted(vocabulary.protections), n)]
            cards.append(card)
        variant["cards"] = cards
        if features:  # an effect the hidden card's own text makes: the opponent must not meet it
            variant["effects"] = list(variant.get("effects", [])) + [
                {"id": f"{SECRET}effect", "target": secret, "kind": "grant", "what": pick(features, n),
                 "timestamp": 0, "source": secret}]
        variants.append(variant)
    return variants


def _report_json(situation: Situation) -> str:
    from pybridge.api import check
    from pybridge.report.render import to_json
    return to_json(check(situation))


def _compare_hidden(program: SearchProgram, ctl: clingo.Control, invariant: Invariant, deadline: float,
                    samples: int, out_dir: Path | None, say: Progress, label: str) -> Finding:
    _select(ctl, program, None, "opponent_hidden_card")
    ctl.configuration.solve.opt_mode = "ignore"
    ctl.configuration.solve.models = "1"
    found: list[list[clingo.Symbol]] = []
    result = None
    # Samples unlike one another: each fixes a few choices at random (who asks, which turn and
    # stage, how many cards), and a draw the bounds do not allow is drawn again.
    draw = random.Random(len(program.invariant_list))
    choices = [[a.symbol for a in ctl.symbolic_atoms.by_signature(name, 1)] for name in ("viewpoint", "turn", "stage")]
    slots = [a.symbol for a in ctl.symbolic_atoms.by_signature("card", 1)]
    for _ in range(samples * 4):
        if len(found) >= samples or time.monotonic() >= deadline:
            break
        assumptions = [(draw.choice(options), True) for options in choices + [slots] if options]
        with ctl.solve(assumptions=assumptions, on_model=lambda m: found.append(m.symbols(atoms=True)),
                       async_=True) as handle:
            if not finished_by(handle, deadline):
                handle.cancel()
            result = handle.get()
    if not found:  # no draw worked: ask without fixing anything
        result = ctl.solve(on_model=lambda m: found.append(m.symbols(atoms=True)))
    found = list({frozenset(atoms): atoms for atoms in found}.values())
    if not found:
        return Finding(invariant, "held" if result is not None and result.unsatisfiable else "unknown",
                       detail=["no situation within the bounds has a hidden card of the viewer's opponent"])
    game = program.game
    checked = 0
    for number, atoms in enumerate(found):
        example = counterexample(atoms, game, verify=False)
        base = _report_json(example.situation)
        viewer = example.situation.viewpoint
        hidden = [c["id"] for c in example.data["cards"] if c.get("hidden") and c["controller"] != viewer]
        for card_id in hidden:
            for variant in hidden_variants(example.data, card_id, game, program.vocabulary, 2, number):
                if time.monotonic() >= deadline:
                    return Finding(invariant, "unknown", detail=[f"{checked} variants compared before the time ran out"])
                say(f"{label}: situation {number + 1}/{len(found)}, variant {checked + 1}")
                situation = situation_from_data(variant, source="<variant>")
                told = _report_json(situation)
                checked += 1
                leaks = [SECRET] if SECRET in told else []
                if told != base or leaks:
                    finding = Finding(invariant, "violated", cards=len(example.data["cards"]),
                                      effects=len(example.data.get("effects", [])), situation=variant,
                                      witness=f"hidden card {card_id}, seen by {viewer} as an unknown card",
                                      detail=(["the report names " + ", ".join(map(repr, leaks))] if leaks else [])
                                      + (["the report changes with the hidden card's identity"] if told != base else []))
                    if out_dir is not None:
                        finding.counterexample = out_dir / _file_name(invariant.id)
                        write_counterexample(Counterexample(situation, variant, []), finding.counterexample,
                                             invariant, finding.witness, [])
                        write_counterexample(example, finding.counterexample.with_suffix(".original.yaml"),
                                             invariant, "the same situation before the hidden card was varied", [])
                    return finding
    return Finding(invariant, "held", detail=[f"{checked} variants of {len(found)} situations compared"])




# --------------------------------------------------------------------------
# One answer per situation: situations drawn from the generator alone, each judged on its own
#
# The search above finds a situation as an answer set of the generator joined with the rules. A
# situation the rules give no answer has no such answer set, so it can never be found that way; one
# with two answers is found only as two answer sets that agree on the situation. So this invariant
# is checked the other way round: the generator alone (with the part of the rules it reads) is
# ground once, situations are drawn from it smallest first (by cards, then effects), and `check`
# judges each one on its own. The candidates come from the game's generator and not from the
# tests' board maker (tests/boards.py): the generator is the game's own description of a situation,
# keeps to the bounds the user gives, covers every word of the vocabulary (effects, history,
# editions and options, not only catalogue cards), works for every game that has one, and its
# answer sets are already what the viewpoint player sees, so a counterexample goes back to a
# situation file as every other one does.

MOST_CHOICES = 4  # a draw brings in up to this many of the generator's choices drawn at random
DRAW_SEED = 29    # a rerun on the same rules draws the same situations


def _defined(node: ast.AST) -> set[tuple[str, int]]:
    """The predicates a rule's head defines (a choice's or disjunction's elements, not their conditions)."""
    head = node.head
    if head.ast_type in (ast.ASTType.Aggregate, ast.ASTType.Disjunction):
        literals = [element.literal for element in head.elements]
    else:
        literals = [head]
    found = set()
    for literal in literals:
        if (literal.ast_type == ast.ASTType.Literal and literal.atom.ast_type == ast.ASTType.SymbolicAtom
                and literal.atom.symbol.ast_type == ast.ASTType.Function):
            found.add((literal.atom.symbol.name, len(literal.atom.symbol.arguments)))
    return found


def _chosen(node: ast.AST) -> set[tuple[str, int]]:
    """The predicates a choice rule chooses."""
    return _defined(node) if node.head.ast_type == ast.ASTType.Aggregate else set()


def _named(nodes: Iterable[ast.AST]) -> set[tuple[str, int]]:
    collector = _Atoms()
    for node in nodes:
        collector(node)
    return {(name, len(args)) for name, args in collector.found}


def generator_program(program: SearchProgram) -> list[ast.AST]:
    """The generator with the rules it reads, and the rules those read in turn (Berserk's classes of
    action and protections): the part of the search program that does not rest on the rules'
    judgement, so that every situation it makes is one, whatever the rules then say of it."""
    generator = [s.node for s in program.generator]
    defined = set().union(*(_defined(n) for n in generator if n.ast_type == ast.ASTType.Rule))
    given = {(f.name, len(f.arguments)) for f in program.game_facts()}
    rules = [s.node for s in program.rules if s.node.ast_type == ast.ASTType.Rule]
    defining: dict[tuple[str, int], list[int]] = {}  # predicate -> the rules whose head defines it
    for index, node in enumerate(rules):
        for signature in _defined(node):
            defining.setdefault(signature, []).append(index)
    wanted, done, taken = _named(generator) - defined - given, set(), set()
    while wanted:
        signature = wanted.pop()
        done.add(signature)
        for index in defining.get(signature, []):
            if index not in taken:
                taken.add(index)
                wanted |= _named([rules[index]]) - defined - given - done
    return generator + [rules[i] for i in sorted(taken)]


def _strings(symbol: clingo.Symbol) -> set[str]:
    """Every string in the term, at any depth (a card's or an effect's id among them)."""
    if symbol.type == clingo.SymbolType.String:
        return {symbol.string}
    if symbol.type != clingo.SymbolType.Function:
        return set()
    return set().union(*(_strings(a) for a in symbol.arguments))


def _names_of(symbol: clingo.Symbol, ids: set[str]) -> frozenset[str]:
    """Which of the ids (plain words) the term holds as a string, at any depth. Read off the term's
    text, which clingo writes in one call (walking the term's arguments from Python costs ten times
    more); a term with an escaped quote in it is walked."""
    text = str(symbol)
    if '\\"' in text:
        return frozenset(_strings(symbol) & ids)
    return frozenset(i for i in ids if f'"{i}"' in text)


Size = tuple[int, int]  # cards, effects


def _details(nodes: list[ast.AST]) -> set[tuple[str, int]]:
    """What the generator counts as a detail of a situation: the predicate each element of its
    ``#minimize`` counts (its first positive atom), but cards and effects, which are the size, and
    what a situation must choose one of (an edition, an option's value: ``1 { ... }``)."""
    found, required = set(), set()
    for node in nodes:
        if node.ast_type == ast.ASTType.Rule and _at_least_one(node.head):
            required |= _chosen(node)
        if node.ast_type == ast.ASTType.Minimize and node.body:
            first = node.body[0]
            if (first.ast_type == ast.ASTType.Literal and first.sign == ast.Sign.NoSign
                    and first.atom.ast_type == ast.ASTType.SymbolicAtom
                    and first.atom.symbol.ast_type == ast.ASTType.Function):
                found.add((first.atom.symbol.name, len(first.atom.symbol.arguments)))
    return found - required - {SIZE_CARD, SIZE_EFFECT}


SIZE_CARD, SIZE_EFFECT = ("card", 1), ("effect_used", 1)


def _at_least_one(head: ast.AST) -> bool:
    """A choice that must make one at least (``1 { ... }``, which clingo reads as ``1 <= { ... }``)."""
    if head.ast_type != ast.ASTType.Aggregate or head.left_guard is None:
        return False
    bound = _constant(head.left_guard.term)
    return (head.left_guard.comparison == ast.ComparisonOperator.LessEqual and bound is not None
            and bound.type == clingo.SymbolType.Number and bound.number >= 1)


class SituationDraws:
    """The generator ground alone, giving situations of a chosen size one at a time. The solver makes
    the choices a draw leaves open at random (so each draw picks its own turn, options, controller,
    zone, cell, type ...), but a detail (what the generator's ``#minimize`` counts: a feature, a
    marker, an event ...) is left out where it may be; a draw also prefers a few of the generator's
    choices drawn at random, which brings details in. A preference, not an assumption: a choice that
    cannot go with the others (a parameter of a feature the generator cannot print) is left out
    instead of failing the draw."""

    def __init__(self, program: SearchProgram):
        nodes = generator_program(program)
        chosen = set().union(*(_chosen(n) for n in nodes if n.ast_type == ast.ASTType.Rule))
        # Only the situation and the choices that made it are read back (a model holds thousands of
        # vocabulary facts besides).
        location = _location("<draws>")
        shown = [ast.ShowSignature(location, name, arity, True) for name, arity in sorted(input_signatures() | chosen)]
        self.ctl = _control(nodes + shown, program.game_facts(), program._constant_arguments())
        self.ctl.ground([("base", [])])
        config = self.ctl.configuration
        config.solve.opt_mode = "ignore"
        config.solve.models = "1"
        config.solver.heuristic = "Domain"
        config.solver.sign_def = "rnd"
        config.solver.forget_on_step = "varScores,signs"  # each draw starts afresh, not near the last one
        F = clingo.Function
        slots = program.slot_facts()
        self.cards = [F(SIZE_CARD[0], [f.arguments[1]]) for f in slots if f.name == "slot_card"]
        self.effects = [F(SIZE_EFFECT[0], [f.arguments[1]]) for f in slots if f.name == "slot_effect"]
        chosen -= {SIZE_CARD, SIZE_EFFECT}
        symbolic = self.ctl.symbolic_atoms
        atoms = [a for name, arity in sorted(chosen) for a in symbolic.by_signature(name, arity) if not a.is_fact]
        self.choices = [a.symbol for a in atoms]
        # Assumptions go to the solver as literals: given as symbols, clingo looks each one up again
        # (thousands of choices a solve), which took a third of a one-answer search.
        self._literals = {a.symbol: a.literal for a in atoms}
        self._literals.update({a: symbolic[a].literal for a in self.cards + self.effects if symbolic[a] is not None})
        # The card and effect slots each choice names, read once: walking every choice's terms again for
        # each size took most of a one-answer search's time.
        slot_ids = {a.arguments[0].string for a in self.cards + self.effects}
        self._slots_named = {atom: _names_of(atom, slot_ids) for atom in self.choices}
        self._pools: dict[Size, dict[str, list[clingo.Symbol]]] = {}
        details = _details(nodes)
        with self.ctl.backend() as backend:
            for atom in atoms:
                if (atom.symbol.name, len(atom.symbol.arguments)) in details:
                    backend.add_heuristic(atom.literal, clingo.HeuristicType.Sign, -1, 1, [])

    def sizes(self) -> list[Size]:
        """Every size within the bounds, smallest first: fewer cards, then fewer effects."""
        return [(cards, effects) for cards in range(len(self.cards) + 1) for effects in range(len(self.effects) + 1)]

    def _size(self, size: Size) -> list[tuple[clingo.Symbol, bool]]:
        cards, effects = size
        return ([(atom, n < cards) for n, atom in enumerate(self.cards)]
                + [(atom, n < effects) for n, atom in enumerate(self.effects)])

    def _pool(self, size: Size) -> dict[str, list[clingo.Symbol]]:
        """The choices a situation of this size may make (none about a card or effect it lacks), by
        predicate: a draw picks a predicate first, so that the thousands of feature parameters do
        not crowd out the turn, the cells or the history."""
        if size not in self._pools:
            absent = {a.arguments[0].string for a, present in self._size(size) if not present}
            pool: dict[str, list[clingo.Symbol]] = {}
            for atom in self.choices:
                if not self._slots_named[atom] & absent:
                    pool.setdefault(atom.name, []).append(atom)
            self._pools[size] = pool
        return self._pools[size]

    def _solve(self, assumptions: list[tuple[clingo.Symbol, bool]]) -> list[clingo.Symbol] | None:
        literals = []
        for atom, true in assumptions:
            literal = self._literals.get(atom)
            if literal is None:  # an atom the generator cannot make: false already
                if true:
                    return None
                continue
            literals.append(literal if true else -literal)
        found: list[list[clingo.Symbol]] = []
        self.ctl.solve(assumptions=literals, on_model=lambda m: found.append(m.symbols(shown=True)))
        return found[0] if found else None

    def _solve_preferring(self, assumptions: list[tuple[clingo.Symbol, bool]],
                          preferred: Iterable[clingo.Symbol]) -> list[clingo.Symbol] | None:
        """A situation under the assumptions that makes the preferred choices where it can."""
        with self.ctl.backend() as backend:  # the preferences hold while `condition` does: this solve
            condition = backend.add_atom()
            backend.add_external(condition, clingo.TruthValue.True_)
            for atom in preferred:
                backend.add_heuristic(self._literals[atom], clingo.HeuristicType.Level, 10, 2, [condition])
                backend.add_heuristic(self._literals[atom], clingo.HeuristicType.Sign, 1, 2, [condition])
        try:
            return self._solve(assumptions)
        finally:
            with self.ctl.backend() as backend:
                backend.add_external(condition, clingo.TruthValue.Release)

    def draw(self, size: Size, preferred: int, rng: random.Random) -> list[clingo.Symbol] | None:
        """A situation of this size that makes, where it can, ``preferred`` choices drawn at random
        (None: the generator has no situation of this size)."""
        pool = self._pool(size)
        names = sorted(pool)
        picked = [rng.choice(pool[rng.choice(names)]) for _ in range(preferred)] if names else []
        self.ctl.configuration.solver.seed = str(rng.randrange(1 << 30))
        return self._solve_preferring(self._size(size), picked)

    def chosen(self, atoms: Iterable[clingo.Symbol]) -> list[clingo.Symbol]:
        """The choices a drawn situation made, in an order that drops a feature's parameters before it."""
        return sorted((a for a in atoms if a in self._literals), key=str)

    def without(self, atoms: list[clingo.Symbol], dropped: clingo.Symbol) -> list[clingo.Symbol] | None:
        """The same situation but for one of its choices, and what only that one brought (a
        property its number gave); None: the generator needs that choice."""
        made = set(atoms)
        assumptions = ([(a, a in made) for a in self.cards + self.effects] + [(dropped, False)]
                       + [(a, False) for a in self.choices if a not in made])
        return self._solve_preferring(assumptions, [a for a in self.choices if a in made and a != dropped])


def _answers(situation: Situation, deadline: float) -> int | None:
    """How many answers `check` finds for the situation: 0, 1 or 2 (two or more); None: the time ran out."""
    from pybridge.api import check

    try:
        check(situation, time_limit=max(0.1, deadline - time.monotonic()), reasons=False)
    except AnswerCount as exc:
        return exc.answers
    except JudgeError:
        if time.monotonic() >= deadline:
            return None
        raise
    return 1


ANSWERS = {0: "no answer", 2: "more than one answer"}


def judge_drawn_situations(program: SearchProgram, invariant: Invariant, deadline: float, boards: int,
                           out_dir: Path | None, say: Progress, label: str) -> Finding:
    """``boards`` situations of every size, smallest first, each judged by `check` on its own;
    stop at the first without exactly one answer."""
    say(f"{label}: grounding the generator alone")
    draws = SituationDraws(program)
    rng = random.Random(DRAW_SEED)
    judged, seen = 0, set()

    def out_of_time() -> Finding:
        return Finding(invariant, "unknown", detail=[f"{judged} situations judged before the time ran out, "
                                                     "each with one answer"])

    for size in draws.sizes():
        for number in range(boards):
            if time.monotonic() >= deadline:
                return out_of_time()
            atoms = draws.draw(size, number % (MOST_CHOICES + 1), rng)
            if atoms is None or frozenset(atoms) in seen:
                continue
            seen.add(frozenset(atoms))
            answers = _answers(counterexample(atoms, program.game).situation, deadline)
            if answers is None:
                return out_of_time()
            judged += 1
            say(f"{label}: searching, {judged} situations judged ({size[0]} cards, {size[1]} effects)")
            if answers != 1:
                return _without_one_answer(program, invariant, draws, atoms, answers, judged, deadline, out_dir, say,
                                           label)
    most = draws.sizes()[-1]
    return Finding(invariant, "held", detail=[
        f"{judged} situations drawn and judged one by one, up to {boards} of each size up to {most[0]} "
        f"card{'s' if most[0] != 1 else ''} and {most[1]} effect{'s' if most[1] != 1 else ''}: each has one answer "
        "(a sample of the situations within the bounds, not all of them)"])


def _shrink(program: SearchProgram, draws: SituationDraws, atoms: list[clingo.Symbol], answers: int,
            deadline: float) -> list[clingo.Symbol]:
    """Drop the situation's choices one at a time (a feature, a property, an event ...) while it keeps
    its number of answers."""
    for dropped in draws.chosen(atoms):
        if time.monotonic() >= deadline:
            break
        smaller = draws.without(atoms, dropped) if dropped in atoms else None
        if smaller is not None and _answers(counterexample(smaller, program.game).situation, deadline) == answers:
            atoms = smaller
    return atoms


def _without_one_answer(program: SearchProgram, invariant: Invariant, draws: SituationDraws,
                        atoms: list[clingo.Symbol], answers: int, judged: int, deadline: float,
                        out_dir: Path | None, say: Progress, label: str) -> Finding:
    say(f"{label}: searching, situation {judged} has {ANSWERS[answers]}; dropping what it does not need")
    atoms = _shrink(program, draws, atoms, answers, deadline)
    example = counterexample(atoms, program.game)
    clauses, detail = answer_clauses(program, example.facts, answers, deadline + 30)
    finding = Finding(invariant, "violated", cards=len(example.data.get("cards", [])),
                      effects=len(example.data.get("effects", [])), situation=example.data,
                      witness=f"`check` says the rules have {ANSWERS[answers]} for this situation",
                      clauses=clauses, detail=[f"situation {judged} of those judged is the first without one answer"] + detail,
                      clauses_heading="clauses that clash" if answers == 0 else "clauses that give two answers",
                      size_note="sizes drawn smallest first, then what it did not need dropped")
    if out_dir is not None:
        finding.counterexample = out_dir / _file_name(invariant.id)
        write_counterexample(example, finding.counterexample, invariant, finding.witness, clauses)
    return finding


def answer_clauses(program: SearchProgram, facts: list[clingo.Symbol], answers: int,
                   deadline: float) -> tuple[list[str], list[str]]:
    """The clauses behind a situation's wrong number of answers, with what to say of them. No answer:
    a minimal set of clauses that, switched on, leave no answer whatever the other clauses do (as a
    violation's clauses are found). More than one: a minimal set of clauses that, alone switched on,
    still give two answers (found by deletion); and a few atoms the two answers differ in."""
    from pybridge.why.justify import sort_clause_ids

    ctl, clauses = program.replay_control(facts, invariants=False)
    ctl.ground([("base", [])])
    switch = {c: clingo.Function(SWITCH, [clingo.String(c)]) for c in clauses}
    if answers == 0:
        core = minimal_core(ctl, switch, clauses, deadline)
        if core is None:
            return [], ["the rules alone, every clause on, have an answer here: what has none is in ccg-judge's "
                        "own layers (its records or why layer)"]
        return sort_clause_ids(core), []
    ctl.configuration.solve.models = "2"

    def answers_with(on: set[str]) -> list[set[clingo.Symbol]]:
        found: list[set[clingo.Symbol]] = []
        ctl.solve(assumptions=[(switch[c], c in on) for c in clauses],
                  on_model=lambda m: found.append({a for a in m.symbols(atoms=True) if a.name != SWITCH}))
        return found

    both = answers_with(set(clauses))
    if len(both) < 2:
        return [], ["the rules alone, every clause on, have one answer here: what has two is in ccg-judge's own "
                    "layers (its records or why layer)"]
    kept = list(clauses)
    for clause in list(kept):
        if time.monotonic() > deadline:
            break
        if len(answers_with(set(kept) - {clause})) > 1:
            kept.remove(clause)
    differ = sorted(map(str, both[0] ^ both[1]))
    return sort_clause_ids(kept), [f"the two answers differ in {', '.join(differ[:5])}"
                                   + (f" and {len(differ) - 5} more" if len(differ) > 5 else "")]


# --------------------------------------------------------------------------
# Wording the result


def result_text(result: SearchResult) -> str:
    lines = [f"ccg-judge consistency: {result.game}, within {_bounds_text(result.bounds)}"]
    for f in result.findings:
        lines.append(f"{f.status.upper() if f.status == 'violated' else f.status:9} {f.invariant.id}  ({f.seconds:.1f} s)")
        if f.status != "violated":
            lines.extend(f"    {d}" for d in f.detail)
            continue
        lines.append(f"    {f.invariant.sentence}")
        size = (f"{f.cards} card{'s' if f.cards != 1 else ''}, {f.effects} effect{'s' if f.effects != 1 else ''}; "
                + (f.size_note or ("the smallest within the bounds" if f.minimal
                                   else "the smallest found before the time ran out")))
        where = f.counterexample if f.counterexample is not None else "(not written)"
        lines.append(f"    counterexample: {where} ({size})")
        lines.append(f"    where: {f.witness}")
        lines.extend(f"    {d}" for d in f.detail)
        if not f.invariant.compared:
            lines.append(f"    {f.clauses_heading}: " + (", ".join(f.clauses) if f.clauses else
                                                     "none: the invariant fails whatever the clauses do"))
    held = sum(f.status == "held" for f in result.findings)
    unknown = sum(f.status == "unknown" for f in result.findings)
    tail = "search complete" if result.complete else f"time limit reached, {unknown} not decided"
    lines.append(f"{len(result.violated)} violated, {held} held within the bounds; {tail} in {result.seconds:.1f} s.")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# The search in a process of its own: bounded in memory, and in time grounding included


MEMORY_VARIABLE = "CCG_JUDGE_CONSISTENCY_MB"
DEFAULT_MEMORY_MB = 4096
# Ground size units per megabyte the search may use (measured on Berserk: the default bounds are
# about 20 000 units in 130 MB, values 10 with 2 cards 430 000 in 330 MB, values 20 with 2 cards
# 3 million in 2.8 GB): bounds estimated past memory x this are refused before grounding.
UNITS_PER_MB = 1000
GRACE_SECONDS = 2.0  # past the time limit, the time a search may take to stop by itself


def memory_limit_mb() -> int:
    return positive_megabytes(MEMORY_VARIABLE, DEFAULT_MEMORY_MB)


def estimated_ground_size(constants: dict[str, int]) -> int:
    """A rough size of the ground search program: it grows with the cube of the numbers' range (a
    value, a modifier and a sum of them), the square of the cards (pairs), and linearly with the
    other bounds."""
    def bound(name: str, default: int) -> int:
        return max(1, constants.get(name, default))

    return ((bound("values", 2) + 1) ** 3 * bound("cards", 3) ** 2 * (bound("effects", 2) + 1)
            * (bound("events", 2) + 1) * bound("columns", 3) * bound("turns", 3))


def _refuse_too_big(constants: dict[str, int], memory_mb: int) -> None:
    size, most = estimated_ground_size(constants), memory_mb * UNITS_PER_MB
    if size > most:
        def spaced(number: int) -> str:
            return f"{number:,}".replace(",", " ")

        raise JudgeError(f"these bounds ({_bounds_text(constants)}) would ground to about {spaced(size)} units, "
                         f"over the {spaced(most)} that {memory_mb} MB allow; lower --values or --cards first (or "
                         f"raise {MEMORY_VARIABLE})")


def _search_child(connection, game_name: str, bounds: Bounds, time_limit: float, memory_mb: int,
                  options: dict[str, Any]) -> None:
    """In the child: cap the address space, search, and send progress, then the result or the error."""
    try:
        import resource

        cap = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, resource.getrlimit(resource.RLIMIT_AS)[1]))
    except (ImportError, ValueError, OSError):
        pass  # no such limit here: the parent's time limit still holds
    try:
        result = search(game_name, bounds, time_limit=time_limit,
                        progress=lambda text: connection.send(("progress", text)), **options)
    except JudgeError as exc:
        connection.send(("error", exc))  # the error itself: its kind and attributes cross the pipe
    except (MemoryError, RuntimeError) as exc:  # clingo's std::bad_alloc comes as a RuntimeError
        connection.send(("memory", f"{type(exc).__name__}: {exc}"))
    else:
        connection.send(("result", result))


def search_bounded(game_name: str, bounds: Bounds = Bounds(), *, time_limit: float = 120.0,
                   only: Iterable[str] = (), out_dir: Path | None = None, samples: int = 4,
                   boards: int = DEFAULT_BOARDS, progress: Progress | None = None,
                   memory_mb: int | None = None) -> SearchResult:
    """:func:`search` in a process of its own, which may use at most ``memory_mb`` (default:
    CCG_JUDGE_CONSISTENCY_MB, 4096) and is stopped at the time limit even while it grounds (which
    clingo cannot interrupt): every invariant is then reported unknown. Bounds whose estimated ground
    size is over what the memory allows are refused before anything is grounded."""
    import multiprocessing

    say = progress or (lambda text: None)
    memory_mb = memory_mb or memory_limit_mb()
    program = SearchProgram.load(game_name, bounds)
    _refuse_too_big(program.constants, memory_mb)
    started = time.monotonic()
    context = multiprocessing.get_context("spawn")
    receiving, sending = context.Pipe(duplex=False)
    options = {"only": tuple(only), "out_dir": out_dir, "samples": samples, "boards": boards}
    child = context.Process(target=_search_child, args=(sending, game_name, bounds, time_limit, memory_mb, options),
                            daemon=True)
    child.start()
    sending.close()
    try:
        while time.monotonic() < started + time_limit + GRACE_SECONDS:
            if not receiving.poll(0.2):
                if not child.is_alive():
                    raise JudgeError(f"the search ended without an answer (exit code {child.exitcode}): it may have "
                                     f"needed more than {memory_mb} MB; lower the bounds or raise {MEMORY_VARIABLE}")
                continue
            kind, value = receiving.recv()
            if kind == "progress":
                say(value)
            elif kind == "result":
                return value
            elif kind == "error":
                raise value
            else:
                raise JudgeError(f"the search needed more than {memory_mb} MB ({value}); lower the bounds or raise "
                                 f"{MEMORY_VARIABLE}")
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiving.close()
    say(f"grounding and searching did not finish within the time limit of {time_limit:g} s")
    wanted = set(only)
    findings = [Finding(i, "unknown") for i in program.invariant_list if not wanted or i.id in wanted]
    return SearchResult(game_name, dict(program.constants), findings, False, time.monotonic() - started)
