"""Checks of a game's rules base against its clause catalogue: every id the
encodings use is catalogued; every catalogued clause is covered by a ruling —
named by one, and, with ``fired=True`` (``lint --strict``), on a derivation of
one (pybridge.coverage)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import clingo
from clingo import ast

from pybridge.catalogue import load_game
from pybridge.rulings import ruling_files
from pybridge.situation import load_situation
from pybridge.compiler import parse_rules
from pybridge.encodings import entry_file

_JUDGEMENTS = {"candidate": 2, "forbidden": 2, "obliged": 2, "exempt": 3, "principle_clause": 1}


@dataclass
class LintResult:
    game: str
    unknown_ids: dict[str, list[str]] = field(default_factory=dict)  # id -> rules using it
    uncovered: list[str] = field(default_factory=list)
    never_fired: list[str] = field(default_factory=list)  # with fired=True: on no ruling's derivation
    rules_without_clause: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.unknown_ids and not self.rules_without_clause


def _rules(game: str):
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
    for banner, text, head in _rules(game):
        if banner:
            used.setdefault(banner, []).append(text)
        position = _JUDGEMENTS.get(head.name) if head.ast_type == ast.ASTType.Function else None
        if position is not None and len(head.arguments) > position:
            arg = head.arguments[position]
            if arg.ast_type == ast.ASTType.SymbolicTerm and arg.symbol.type == clingo.SymbolType.String:
                used.setdefault(arg.symbol.string, []).append(text)
    return used


def covered_ids(paths: list[Path], game: str) -> set[str]:
    covered: set[str] = set()
    for path in ruling_files(paths):
        try:
            situation = load_situation(path)
        except Exception:  # a broken ruling file is reported by `test`, not here
            continue
        if situation.game != game or situation.ruling is None:
            continue
        ruling = situation.ruling
        covered.update(ruling.clauses)
        covered.update(ruling.expect.cites)
        for invariance in ruling.expect.invariant:
            covered.update(invariance.clauses)
        for mapping in (ruling.expect.legal, ruling.expect.illegal, ruling.expect.obliged):
            for cites in mapping.values():
                covered.update(cites)
    return covered


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


def rulebook_clause(clause_id: str) -> bool:
    """A clause of the game's rules, not one of the core's mechanisms or the model's readings."""
    return not clause_id.startswith(("core:", "model:"))


def lint(game: str, ruling_paths: list[Path], *, fired: bool = False) -> LintResult:
    catalogue = load_game(game).clauses
    result = LintResult(game)
    for clause_id, rules in sorted(ids_in_encodings(game).items()):
        if clause_id not in catalogue:
            result.unknown_ids[clause_id] = rules
    result.rules_without_clause = [text for banner, text, _ in _rules(game) if banner is None]
    covered = covered_ids(ruling_paths, game)
    # A parent clause is covered when one of its parts is: "531.1-2" covers "531.1", "532.6" covers "532".
    covered |= {parent for c in covered for parent in parent_clauses(c)}
    result.uncovered = sorted(c for c, clause in catalogue.items()
                              if c not in covered and clause.kind == "rule" and rulebook_clause(c))
    if fired:
        from pybridge.coverage import coverage  # it judges every ruling: only when asked

        found = coverage(ruling_paths, [game]).games[game]
        result.never_fired = [c for c in found.never_fired if rulebook_clause(c)]
    return result
