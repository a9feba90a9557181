"""The clause ids a game's rules name, read from its parsed program, and the parents a clause id
covers. What lint checks against the catalogue and what coverage counts, shared by both."""

from __future__ import annotations

import clingo
from clingo import ast

from pybridge.game.catalogue import load_game
from pybridge.game.encodings import entry_file
from pybridge.ground.compiler import parse_rules

# Judgement heads that name a clause, and the position of the clause argument.
JUDGEMENTS = {"candidate": 2, "forbidden": 2, "obliged": 2, "exempt": 3, "principle_clause": 1}


def rules_of(game: str):
    """Every rule of the game's program: (clause banner, rule text, head term), from the parsed files."""
    for statement, banner, _ in parse_rules(entry_file(game, load_game(game).entry)):
        if statement.ast_type != ast.ASTType.Rule:
            continue
        head = statement.head
        if head.ast_type == ast.ASTType.Literal and head.atom.ast_type == ast.ASTType.SymbolicAtom:
            yield banner, str(statement), head.atom.symbol


def ids_in_encodings(game: str) -> dict[str, list[str]]:
    """Clause id -> texts of the rules that name it (by banner or in a judgement head)."""
    used: dict[str, list[str]] = {}
    for banner, text, head in rules_of(game):
        if banner:
            used.setdefault(banner, []).append(text)
        position = JUDGEMENTS.get(head.name) if head.ast_type == ast.ASTType.Function else None
        if position is not None and len(head.arguments) > position:
            arg = head.arguments[position]
            if arg.ast_type == ast.ASTType.SymbolicTerm and arg.symbol.type == clingo.SymbolType.String:
                used.setdefault(arg.symbol.string, []).append(text)
    return used


def parent_clauses(clause_id: str) -> list[str]:
    parents = []
    head, sep, tail = clause_id.rpartition("-")
    if sep and tail.isdigit():
        parents.append(head)
        clause_id = head
    parts = clause_id.split(".")
    if all(p.isdigit() for p in parts):
        parents += [".".join(parts[:i]) for i in range(1, len(parts))]
    return parents
