"""Checks of a game's rules base against its clause catalogue: every id the
encodings use is catalogued; every catalogued clause is covered by a ruling —
named by one, and, with ``fired=True`` (``lint --strict``), on a derivation of
one (pybridge.tools.coverage)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pybridge.game.catalogue import load_game
from pybridge.input.situation import load_situation
from pybridge.tools.clause_ids import ids_in_encodings, parent_clauses, rules_of
from pybridge.tools.rulings import ruling_files


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


def rulebook_clause(clause_id: str) -> bool:
    """A clause of the game's rules, not one of the core's mechanisms or the model's readings."""
    return not clause_id.startswith(("core:", "model:"))


def lint(game: str, ruling_paths: list[Path], *, fired: bool = False) -> LintResult:
    catalogue = load_game(game).clauses
    result = LintResult(game)
    for clause_id, rules in sorted(ids_in_encodings(game).items()):
        if clause_id not in catalogue:
            result.unknown_ids[clause_id] = rules
    result.rules_without_clause = [text for banner, text, _ in rules_of(game) if banner is None]
    covered = covered_ids(ruling_paths, game)
    # A parent clause is covered when one of its parts is: "531.1-2" covers "531.1", "532.6" covers "532".
    covered |= {parent for c in covered for parent in parent_clauses(c)}
    result.uncovered = sorted(c for c, clause in catalogue.items()
                              if c not in covered and clause.kind == "rule" and rulebook_clause(c))
    if fired:
        from pybridge.tools.coverage import coverage  # it judges every ruling: only when asked

        found = coverage(ruling_paths, [game]).games[game]
        result.never_fired = [c for c in found.never_fired if rulebook_clause(c)]
    return result
