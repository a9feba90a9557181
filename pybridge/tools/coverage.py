"""Which clauses of a game's catalogue fire — appear in a derivation — across a
set of ruling files, and which never do.

A ruling *names* clauses (its ``clauses`` and expected citations); coverage
asks the rules instead: every ruling is judged, and the clauses on the
derivations of its report are collected by :func:`clauses_fired`, the one
function that knows where a report keeps them (today: the justification
trees). A clause counts as fired when one of its parts did (``531.1-2``
covers ``531.1``), and when a ruling's invariance check, which the runner
verifies, is about it (``109``: non-game elements are ignored).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pybridge.api import check, normalise_action, resolve
from pybridge.errors import JudgeError
from pybridge.game.catalogue import load_game
from pybridge.input.situation import load_situation
from pybridge.tools.clause_ids import ids_in_encodings, parent_clauses
from pybridge.tools.rulings import judge_ruling, ruling_files
from pybridge.why.justify import Report, sort_clause_ids


def clauses_fired(report: Report) -> set[str]:
    """Every clause on a derivation of the report (a report made with trees): the clause of each rule
    instance in its graph and the banner above the rule (a core rule that derives a game's judgement
    names the game's clause in the instance), the verdicts' cites and reasons, the principles that set
    effects aside and the clamps of the zero rule. A near derivation is one that did not happen: it
    fires nothing."""
    fired: set[str] = set()
    for node in report.nodes.values():
        for d in node.derivations:
            if d.clause:
                fired.add(d.clause)
            rule = report.rules.get(str(d.rule))
            if rule is not None and rule.clause:
                fired.add(rule.clause)
            fired.update(d.cites)
    for v in report.verdicts:
        fired.update(v.cites)
        fired.update(r.clause for r in v.reasons + v.obligations if r.role != "definition")
        fired.update(r.by for r in v.reasons if r.by)
        fired.update(t.clause for t in v.treatment)
    fired.update(o.clause for o in report.overridden_effects if o.clause is not None)
    fired.update(c.clause for c in report.clamped)
    return fired


@dataclass
class Coverage:
    game: str
    rulings: int = 0
    # clause -> the ruling files in whose reports it fired
    fired: dict[str, list[str]] = field(default_factory=dict)
    catalogue: list[str] = field(default_factory=list)
    encoded: set[str] = field(default_factory=set)  # clauses with rules in asp/
    named: set[str] = field(default_factory=set)    # clauses the rulings name
    verified: set[str] = field(default_factory=set)  # clauses of a passing invariance check
    errors: list[str] = field(default_factory=list)

    @property
    def covered(self) -> set[str]:
        direct = set(self.fired) | self.verified
        return direct | {parent for clause in direct for parent in parent_clauses(clause)}

    @property
    def never_fired(self) -> list[str]:
        return [c for c in self.catalogue if c not in self.covered]

    @property
    def named_not_fired(self) -> list[str]:
        """Clauses a ruling names although no derivation of any ruling uses them."""
        return [c for c in self.never_fired if c in self.named]

    def as_json(self) -> dict[str, Any]:
        return {"game": self.game, "rulings": self.rulings, "catalogue": len(self.catalogue),
                "fired": {c: self.fired[c] for c in sort_clause_ids(self.fired)},
                "never_fired": [{"id": c, "encoded": c in self.encoded, "named_by_a_ruling": c in self.named}
                                for c in self.never_fired],
                "errors": self.errors}


def _named(situation) -> set[str]:
    ruling = situation.ruling
    named = set(ruling.clauses) | set(ruling.expect.cites)
    for mapping in (ruling.expect.legal, ruling.expect.illegal, ruling.expect.obliged):
        for cites in mapping.values():
            named.update(cites)
    for resolved in ruling.expect.resolved.values():
        named.update(resolved.cites)
    for invariance in ruling.expect.invariant:
        named.update(invariance.clauses)
    return named


@dataclass
class CoverageResult:
    games: dict[str, Coverage]
    errors: list[str] = field(default_factory=list)  # files that are not ruling files


def coverage(paths: Iterable[str | Path], games: Iterable[str] = ()) -> CoverageResult:
    """Judge every ruling file under ``paths`` and collect, per game, the clauses that fired."""
    wanted = set(games)
    result = CoverageResult({})

    def of(game: str) -> Coverage:
        if game not in result.games:
            result.games[game] = Coverage(game, catalogue=sort_clause_ids(load_game(game).clauses),
                                          encoded=set(ids_in_encodings(game)))
        return result.games[game]

    for game in sorted(wanted):
        of(game)
    for path in ruling_files(paths):
        try:
            situation = load_situation(path)
        except JudgeError as exc:
            result.errors.append(exc.render())
            continue
        if situation.ruling is None or (wanted and situation.game not in wanted):
            continue
        entry = of(situation.game)
        entry.rulings += 1
        entry.named |= _named(situation)
        try:
            report = check(situation, trees=True)
            fired = clauses_fired(report)
            for action in situation.ruling.expect.resolved:
                resolution, _ = resolve(situation, normalise_action(action))
                fired.update(resolution.cites)
                if resolution.truth is not None:
                    fired.update(resolution.truth.cites)
            if situation.ruling.expect.invariant and not any(
                    problem.startswith("invariant ") for problem in judge_ruling(situation, report)):
                for invariance in situation.ruling.expect.invariant:
                    entry.verified.update(invariance.clauses)
        except JudgeError as exc:
            entry.errors.append(f"{path}: {exc.render()}")
            continue
        for clause in fired:
            entry.fired.setdefault(clause, []).append(str(path))
    result.games = dict(sorted(result.games.items()))
    return result


def coverage_text(entry: Coverage) -> str:
    game = load_game(entry.game)
    covered = len(entry.catalogue) - len(entry.never_fired)
    lines = [f"{entry.game}: {covered} of {len(entry.catalogue)} clauses fired across {entry.rulings} rulings"]
    for clause in entry.never_fired:
        notes = []
        if clause not in entry.encoded:
            notes.append("no rule of asp/ carries it")
        if clause in entry.named:
            notes.append("named by a ruling, but no derivation uses it")
        heading = game.clauses[clause].heading if clause in game.clauses else ""
        lines.append(f"  never fired: {clause}  {heading}" + (f"  ({'; '.join(notes)})" if notes else ""))
    lines.extend(f"  error: {e}" for e in entry.errors)
    return "\n".join(lines) + "\n"
