"""The clingo Control lifecycle: load a game's rules, add the situation's
facts, ground, solve, and hand back the answer set.

For justifications the rules are parsed once into clingo's AST and every
rule ``H :- B.`` gets a twin ``_why(Index, H, (positive B), (negated B)) :- B.``
The twin records which rule derived which atom from which premises, so a
justification is read off the answer set itself: nothing hand-written
repeats a rule body to explain it. The clause a rule belongs to is the
banner comment (``% --- 107.2 ---``) above it in its file.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cache

import clingo
from clingo import ast

from pybridge import limits
from pybridge.encodings import banner_id, entry_file, relative_name
from pybridge.errors import JudgeError

log = logging.getLogger(__name__)

WHY = "_why"
DEFAULT_TIME_LIMIT = limits.DEFAULTS.time_limit  # the default; see pybridge/limits.py


@dataclass(frozen=True, eq=False)
class RuleInfo:
    """A rule of the rules base: its clause (from the banner above it), its
    text, and the terms of its head and positive body, for reading bindings."""

    index: int
    clause: str | None
    text: str
    file: str
    head: ast.AST = field(repr=False)
    positive: tuple[ast.AST, ...] = field(repr=False)


@dataclass(frozen=True)
class Program:
    statements: tuple[ast.AST, ...]
    rules: tuple[RuleInfo, ...]


@dataclass(frozen=True)
class Answer:
    shown: frozenset[clingo.Symbol]
    atoms: frozenset[clingo.Symbol]
    facts: frozenset[clingo.Symbol]
    rules: tuple[RuleInfo, ...]
    models: int


def _logger(code: clingo.MessageCode, message: str) -> None:
    log.warning("clingo: %s", message.strip())


class _NameAnonymous(ast.Transformer):
    """Give every ``_`` of a body its own name, so the twin's head may use it."""

    def __init__(self) -> None:
        self.count = 0

    def visit_Variable(self, node: ast.AST) -> ast.AST:
        if node.name != "_":
            return node
        self.count += 1
        return ast.Variable(node.location, f"Anonymous{self.count}_")


def _twinnable(rule: ast.AST) -> bool:
    head = rule.head
    return (head.ast_type == ast.ASTType.Literal and head.sign == ast.Sign.NoSign
            and head.atom.ast_type == ast.ASTType.SymbolicAtom)


def _why_rule(rule: ast.AST, index: int) -> tuple[ast.AST, list[ast.AST]]:
    head = rule.head
    loc = rule.location
    positive, negative = [], []
    for literal in rule.body:
        if literal.ast_type != ast.ASTType.Literal or literal.atom.ast_type != ast.ASTType.SymbolicAtom:
            continue
        if literal.sign == ast.Sign.NoSign:
            positive.append(literal.atom.symbol)
        elif literal.sign == ast.Sign.Negation:
            negative.append(literal.atom.symbol)
    record = ast.Function(
        loc, WHY,
        [ast.SymbolicTerm(loc, clingo.Number(index)), head.atom.symbol,
         ast.Function(loc, "", positive, 0), ast.Function(loc, "", negative, 0)],
        0,
    )
    return ast.Rule(loc, ast.Literal(loc, ast.Sign.NoSign, ast.SymbolicAtom(record)), rule.body), positive


@cache
def load_program(game: str, entry: str = "main.lp") -> Program:
    """Parse a game's rules once; add the ``_why`` twin of every rule."""
    path = entry_file(game, entry)
    statements: list[ast.AST] = []
    rules: list[RuleInfo] = []
    banner: dict[str, str | None] = {}

    def take(statement: ast.AST) -> None:
        filename = statement.location.begin.filename
        if statement.ast_type == ast.ASTType.Comment:
            clause = banner_id(str(statement))
            if clause:
                banner[filename] = clause
            return
        statements.append(statement)
        if statement.ast_type == ast.ASTType.Rule and _twinnable(statement):
            named = _NameAnonymous()(statement)
            twin, positive = _why_rule(named, len(rules))
            rules.append(RuleInfo(len(rules), banner.get(filename), str(statement), relative_name(filename),
                                  named.head.atom.symbol, tuple(positive)))
            statements.append(twin)

    try:
        ast.parse_files([str(path)], take, logger=_logger)
    except RuntimeError as exc:
        raise JudgeError(f"the rules of {game!r} do not parse: {exc}") from None
    return Program(tuple(statements), tuple(rules))


def _fact_statement(symbol: clingo.Symbol) -> ast.AST:
    loc = ast.Location(ast.Position("<situation>", 1, 1), ast.Position("<situation>", 1, 1))
    atom = ast.SymbolicAtom(ast.SymbolicTerm(loc, symbol))
    return ast.Rule(loc, ast.Literal(loc, ast.Sign.NoSign, atom), [])


def solve(game: str, facts: list[clingo.Symbol], *, time_limit: float | None = None,
          entry: str = "main.lp") -> Answer:
    """Ground and solve one situation; the deterministic layer must give one model.

    ``time_limit`` (seconds) bounds the search; by default the one in force
    (:mod:`pybridge.limits`). Grounding is bounded by the input size limits."""
    bounds = limits.current()
    time_limit = time_limit or bounds.time_limit
    program = load_program(game, entry)
    ctl = clingo.Control(["--models=2"], logger=_logger, message_limit=50)
    with ast.ProgramBuilder(ctl) as builder:
        for statement in program.statements:
            builder.add(statement)
        for symbol in facts:
            builder.add(_fact_statement(symbol))
    try:
        ctl.ground([("base", [])])
    except RuntimeError as exc:
        raise JudgeError(f"grounding failed: {exc}") from None

    models: list[tuple[frozenset, frozenset]] = []

    def on_model(model: clingo.Model) -> None:
        models.append((frozenset(model.symbols(shown=True)), frozenset(model.symbols(atoms=True))))

    with ctl.solve(on_model=on_model, async_=True) as handle:
        if not handle.wait(time_limit):
            handle.cancel()
            raise JudgeError(limits.over("the solver did not finish within the time limit", time_limit,
                                         "time_limit"))
        result = handle.get()
    if result.unsatisfiable or not models:
        raise JudgeError("the rules have no answer for this situation (it contradicts them)")
    if len(models) > 1:
        raise JudgeError("the rules give more than one answer for this situation; the verdict layer must be deterministic")
    shown, atoms = models[0]
    if len(shown) > bounds.judgements:
        # Checked before any justification tree is built: those grow with every judgement.
        raise JudgeError(limits.over(f"the situation gives {len(shown)} judgements (verdicts, prohibitions, "
                                     "ignored effects, ...)", bounds.judgements, "judgements"))
    return Answer(shown, atoms, frozenset(facts), program.rules, len(models))
