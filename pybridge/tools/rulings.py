"""Run ruling files: situations with the verdicts and clause ids a judge
expects. One generic runner; adding a ruling never touches Python."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from pybridge.api import check, explain, normalise_action, resolve
from pybridge.errors import JudgeError, TimeLimitError
from pybridge.input.situation import Situation, load_situation
from pybridge.input.structs import replace
from pybridge.report.render import to_json
from pybridge.why.justify import Report, sort_clause_ids


@dataclass
class RulingResult:
    path: str
    title: str
    problems: list[str] = field(default_factory=list)
    error: str | None = None
    timed_out: bool = False  # the error is a run stopped at its time limit (nothing was decided)

    @property
    def passed(self) -> bool:
        return not self.problems and self.error is None


def ruling_files(paths: Iterable[str | Path]) -> list[Path]:
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            # Not only regular files: a FIFO or device named like a ruling is listed, to be refused
            # by name when it is read, rather than skipped in silence.
            found.extend(sorted(p for p in path.rglob("*")
                                if p.suffix in (".yaml", ".yml", ".json") and not p.is_dir()))
        else:
            found.append(path)
    return found


def cited_anywhere(report: Report) -> set[str]:
    """Every clause the report names: verdicts' cites and reasons, consequences, treatments,
    obligations, effects set aside and clamped values."""
    ids: set[str] = set()
    for v in report.verdicts:
        ids.update(v.cites)
        for reason in v.reasons + v.obligations:
            ids.add(reason.clause)
            if reason.by:
                ids.add(reason.by)
        for c in v.consequences:
            ids.update(c.cites)
        ids.update(t.clause for t in v.treatment)
    ids.update(o.clause for o in report.overridden_effects if o.clause)
    ids.update(c.clause for c in report.clamped)
    return ids


def judge_ruling(situation: Situation, report: Report) -> list[str]:
    """Differences between what the ruling expects and what the rules say."""
    expect = situation.ruling.expect
    player = expect.player or situation.viewpoint
    mine = {normalise_action(v.action): v for v in report.verdicts if v.player == player}
    problems: list[str] = []
    for wanted, field_name in (("legal", "legal"), ("illegal", "illegal")):
        expected = {normalise_action(a): sorted(set(c)) for a, c in getattr(expect, field_name).items()}
        actual = {a for a, v in mine.items() if v.verdict == wanted}
        for action in sorted(set(expected) - actual):
            got = mine[action].verdict if action in mine else "not a possible action"
            problems.append(f"{action}: expected {wanted}, got {got}")
        if expect.exact:
            for action in sorted(actual - set(expected)):
                if action.split("(", 1)[0] not in expect.unlisted:
                    problems.append(f"{action}: {wanted}, but the ruling does not list it")
        for action, cites in expected.items():
            if action in actual and sorted(mine[action].cites) != sorted(cites):
                problems.append(f"{action}: expected citations {cites}, got {mine[action].cites}")
    impossible_cites: set[str] = set()
    for action, cites in expect.impossible.items():
        wanted = normalise_action(action)
        if wanted in mine:
            problems.append(f"{wanted}: expected not possible, but check lists it ({mine[wanted].verdict})")
            continue
        try:
            answer = explain(situation, action, player=player).verdicts[0]
        except TimeLimitError:
            raise  # the run's limit, not a mismatch: the ruling as a whole is undecided
        except JudgeError as exc:
            problems.append(f"{wanted}: cannot be explained: {exc.render()}")
            continue
        impossible_cites.update(answer.cites)
        if answer.verdict != "impossible" or answer.cites != sort_clause_ids(cites):
            problems.append(f"{wanted}: expected not possible citing {sort_clause_ids(cites)}, got "
                            f"{answer.verdict} citing {answer.cites}")
    for action, cites in expect.obliged.items():
        verdict = mine.get(normalise_action(action))
        got = sorted({r.clause for r in verdict.obligations}) if verdict else []
        if got != sorted(set(cites)):
            problems.append(f"{normalise_action(action)}: expected obligation by {sorted(set(cites))}, got {got}")
    for action, wanted in expect.certainty.items():
        verdict = mine.get(normalise_action(action))
        if verdict is not None and verdict.certainty != wanted:
            problems.append(f"{normalise_action(action)}: expected certainty {wanted!r}, got {verdict.certainty!r}")
    for action, effects in expect.consequences.items():
        verdict = mine.get(normalise_action(action))
        got = sorted(verdict.consequence_texts) if verdict else []
        if got != sorted(effects):
            problems.append(f"{normalise_action(action)}: expected consequences {sorted(effects)}, got {got}")
    for action, wanted_cites in expect.consequence_cites.items():
        verdict = mine.get(normalise_action(action))
        got_cites = {c.effect: c.cites for c in verdict.consequences} if verdict else {}
        for effect, cites in sorted(wanted_cites.items()):
            if effect not in got_cites:
                problems.append(f"{normalise_action(action)}: expected the consequence {effect!r}, "
                                f"got {sorted(got_cites)}")
            elif got_cites[effect] != sort_clause_ids(cites):
                problems.append(f"{normalise_action(action)}: consequence {effect!r}: expected citations "
                                f"{sort_clause_ids(cites)}, got {got_cites[effect]}")
    for action, words in expect.because.items():
        verdict = mine.get(normalise_action(action))
        line = verdict.because if verdict else None
        if line is None or words not in line:
            problems.append(f"{normalise_action(action)}: expected a because-line saying {words!r}, got {line!r}")
    resolution_cites: set[str] = set()
    for action, wanted in expect.resolved.items():
        try:
            result, _ = resolve(situation, action)
        except TimeLimitError:
            raise  # the run's limit, not a mismatch: the ruling as a whole is undecided
        except JudgeError as exc:
            problems.append(f"{normalise_action(action)}: cannot be resolved: {exc.render()}")
            continue
        resolution_cites.update(result.cites)
        if (result.outcome, sorted(result.cites)) != (wanted.outcome, sorted(set(wanted.cites))):
            problems.append(f"{normalise_action(action)}: expected resolution {wanted.outcome!r} citing "
                            f"{sorted(set(wanted.cites))}, got {result.outcome!r} citing {sorted(result.cites)}")
    invariant_cites: set[str] = set()
    for invariance in expect.invariant:
        problem = _check_invariance(situation, report, invariance.drop)
        if problem:
            problems.append(problem)
        else:
            invariant_cites.update(invariance.clauses)
    everywhere = cited_anywhere(report) | resolution_cites | invariant_cites | impossible_cites
    for clause_id in sorted(set(expect.cites) | set(situation.ruling.clauses)):
        if clause_id not in everywhere:
            problems.append(f"clause {clause_id} is not cited anywhere in the report")
    return problems


def _check_invariance(situation: Situation, report: Report, drop: str) -> str | None:
    """Judge the situation again without the dropped part; the report must not change."""
    # drop is "non_game", the one part the model admits so far
    if not any(card.non_game for card in situation.cards):
        return f"invariant {drop}: the situation has no non-game elements to drop"
    cards = [replace(card, non_game={}) for card in situation.cards]
    variant = replace(situation, cards=cards)
    if to_json(check(variant, trees=report.trees)) != to_json(report):
        return f"invariant {drop}: dropping it changed the report"
    return None


def run_ruling(path: Path) -> RulingResult:
    try:
        situation = load_situation(path)
        if situation.ruling is None:
            return RulingResult(str(path), "", error="no 'ruling' section: not a ruling file")
        report = check(situation)
        problems = judge_ruling(situation, report)
    except TimeLimitError as exc:
        return RulingResult(str(path), "", error=exc.render(), timed_out=True)
    except JudgeError as exc:
        return RulingResult(str(path), "", error=exc.render())
    return RulingResult(str(path), situation.ruling.title, problems)
