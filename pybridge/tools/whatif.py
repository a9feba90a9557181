"""A folder of rulings under ``ccg-judge whatif``: for every verdict a ruling states, the smallest
change of its situation that makes the ruling fail (:func:`pybridge.api.whatif`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pybridge import api
from pybridge.errors import JudgeError
from pybridge.input.situation import Situation, load_situation
from pybridge.report.whatif import RulingChange


def ruling_questions(s: Situation) -> list[tuple[str, str, str]]:
    """(action, what the ruling says of it, the verdict that makes the ruling fail) for each verdict a
    ruling states: an illegal action made legal, a legal one illegal, one it says is obliged made
    illegal, one it says is not obliged (``obliged: {action: []}``) made obliged."""
    if s.ruling is None:
        return []
    expect = s.ruling.expect
    bound = {a for a, cites in expect.obliged.items() if cites}
    questions = [(a, "illegal", "legal") for a in expect.illegal]
    questions += [(a, "obliged" if a in bound else "legal", "illegal") for a in expect.legal]
    questions += [(a, "not obliged", "obliged") for a, cites in expect.obliged.items() if not cites]
    return questions


def whatif_rulings(paths: Iterable[Path], *, top: int = 1, scope: str = "action", write: Path | None = None,
                   time_limit: float | None = None) -> list[RulingChange]:
    """For every verdict every ruling file states, the cheapest edits that make it fail."""
    from pybridge.tools.rulings import ruling_files

    changes = []
    for path in ruling_files(paths):
        try:
            s = load_situation(path)
        except JudgeError as exc:
            changes.append(RulingChange(str(path), "", "", "", error=exc.render()))
            continue
        for action, expected, wanted in ruling_questions(s):
            try:
                result = api.whatif(s, action, wanted=wanted, top=top, scope=scope, time_limit=time_limit,
                                write=write, name=str(path))
                changes.append(RulingChange(str(path), action, expected, wanted, result))
            except JudgeError as exc:
                changes.append(RulingChange(str(path), action, expected, wanted, error=exc.render()))
    return changes
