"""An oracle's trim of a game's rules for one situation: only the rules that have a ground instance.

What is left is the least a specialiser could keep for that situation, found by looking at the
answer (hence "oracle"): clingo grounds the whole program once with a marker beside every rule,
``oracle_fired(I) :- BODY.``, and a rule whose marker clingo's own grounding holds as a possible
atom had a ground instance; the others cannot contribute anything on these facts. Plain clingo on
the trimmed text is the limit a check could approach, so the bench sets it beside the floor.

The benchmarks use it only: nothing in the product reads it."""

from __future__ import annotations

from pathlib import Path

import clingo
from clingo import ast

MARKER = "oracle_fired"


def _statements(main_lp: Path) -> list[ast.AST]:
    statements: list[ast.AST] = []
    ast.parse_files([str(main_lp)], lambda s: statements.append(s) if s.ast_type != ast.ASTType.Comment else None)
    return statements


def _marker(statement: ast.AST, index: int) -> ast.AST:
    """``oracle_fired(index) :- body.`` for a rule with a body (its head left out)."""
    location = statement.location
    head = ast.Literal(location, ast.Sign.NoSign,
                       ast.SymbolicAtom(ast.Function(location, MARKER, [ast.SymbolicTerm(location, clingo.Number(index))], 0)))
    return ast.Rule(location, head, statement.body)


def fired_rules(main_lp: Path, facts: str) -> tuple[list[ast.AST], set[int]]:
    """Every statement of the program, and the indices of the rules with a body that have a
    ground instance on ``facts`` (read off clingo's grounding: its symbolic atoms)."""
    statements = _statements(main_lp)
    ctl = clingo.Control(["--warn=none"])
    with ast.ProgramBuilder(ctl) as builder:
        for i, statement in enumerate(statements):
            builder.add(statement)
            if statement.ast_type == ast.ASTType.Rule and statement.body:
                builder.add(_marker(statement, i))
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    fired = {atom.symbol.arguments[0].number for atom in ctl.symbolic_atoms.by_signature(MARKER, 1)}
    return statements, fired


def trimmed_text(main_lp: Path, facts: str, only: frozenset[str] | None = None) -> tuple[str, int, int]:
    """The program with only the rules that fire on ``facts`` (rules without a body and every other
    statement kept), as text; and how many rules with a body it keeps out of how many. With
    ``only`` (file names), only the rules of those files are trimmed and counted."""
    statements, fired = fired_rules(main_lp, facts)
    kept: list[str] = []
    kept_with_body = with_body = 0
    for i, statement in enumerate(statements):
        has_body = statement.ast_type == ast.ASTType.Rule and bool(statement.body)
        trimmed = has_body and (only is None or file_name(statement) in only)
        with_body += trimmed
        kept_with_body += trimmed and i in fired
        if not trimmed or i in fired:
            kept.append(str(statement))
    return "\n".join(kept) + "\n", kept_with_body, with_body


def text_without(main_lp: Path, left_out: frozenset[str]) -> str:
    """The program without any statement of the files named (as if they were empty), as text."""
    return "\n".join(str(s) for s in _statements(main_lp) if file_name(s) not in left_out) + "\n"


def file_name(statement: ast.AST) -> str:
    return Path(statement.location.begin.filename).name


def shown(program: str, facts: str) -> frozenset[clingo.Symbol]:
    """The shown atoms of the program's answer on the facts (for comparing the trim's answer)."""
    ctl = clingo.Control(["--models=2", "--warn=none"])
    ctl.add("base", [], program)
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    answer: frozenset[clingo.Symbol] = frozenset()
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            answer = frozenset(model.symbols(shown=True))
    return answer
