"""What every run of the whole path must satisfy, whatever the input."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import clingo

from pybridge import api
from pybridge.errors import JudgeError
from pybridge.input.situation import Situation, situation_from_data
from pybridge.report.render import to_json
from pybridge.why.justify import Report

from .strategies import GameSpace

SOURCE = "fuzz.yaml"


def field_resolves(data: Any, field: str) -> bool:
    """Does an error's field path (``cards[2].cell.row``) point into ``data``?

    The last step may name a key that is missing (a required field)."""

    def walk(node: Any, rest: str, first: bool) -> bool:
        if rest == "":
            return True
        if isinstance(node, list):
            match = re.match(r"\[(\d+)\]", rest)
            return bool(match) and int(match[1]) < len(node) and walk(node[int(match[1])], rest[match.end():], False)
        if not isinstance(node, dict):
            return False
        if not first:
            if not rest.startswith("."):
                return False
            rest = rest[1:]
        for key, value in node.items():
            for shown in (str(key), repr(str(key))):
                if rest.startswith(shown) and walk(value, rest[len(shown):], False):
                    return True
        return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", rest) is not None

    return field == "(top level)" or walk(data, field, True)


def assert_clear(exc: JudgeError, data: Any, source: str = SOURCE) -> None:
    """A JudgeError that says where: the file, and the field inside the data."""
    assert exc.message and "Traceback" not in exc.message, exc
    assert exc.source == source, f"the error does not name the file: {exc.render()}"
    if isinstance(data, dict):
        assert exc.field, f"the error does not name a field: {exc.render()}"
        assert field_resolves(data, exc.field), f"the error names a field not in the input: {exc.render()}"


def judge(data: Any) -> tuple[Situation, Report] | None:
    """The whole path for any data: a clear JudgeError (None), or a checked report."""
    try:
        situation = situation_from_data(data, source=SOURCE)
    except JudgeError as exc:
        assert_clear(exc, data)
        return None
    return situation, api.check(situation)


def check_report(report: Report, space: GameSpace, situation: Situation) -> None:
    """Every verdict cites a clause, and every cited clause is in the game's catalogue."""
    catalogue = space.game.clauses
    players = {p.id for p in situation.players}
    assert report.game == situation.game and report.viewpoint == situation.viewpoint

    def known(clause_id: str, what: str) -> None:
        assert clause_id in catalogue, f"{what} cites {clause_id!r}, which is not in the {space.name} catalogue"

    for v in report.verdicts:
        what = f"{v.player}: {v.action}"
        assert v.player in players, what
        assert v.cites, f"{what} cites no clause"
        for clause_id in v.cites:
            known(clause_id, what)
        assert v.reasons_of("granted"), f"{what} has no candidate clause"
        if v.verdict == "illegal":
            assert v.reasons_of("blocked"), f"{what} is illegal without a blocking clause"
        for reason in v.reasons + v.obligations:
            known(reason.clause, what)
            if reason.by:
                known(reason.by, what)
        for consequence in v.consequences:
            for clause_id in consequence.cites:
                known(clause_id, f"{what}: {consequence.effect}")
    for overridden in report.overridden_effects:
        if overridden.clause:
            known(overridden.clause, f"effect {overridden.effect}")
    for clamp in report.clamped:
        known(clamp.clause, f"clamp of {clamp.card}")


def canonical(value: Any) -> Any:
    """JSON data with every list sorted, to compare reports up to order."""
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False))
    return value


def report_json(report: Report) -> str:
    return to_json(report)


def rename(data: dict, mapping: dict[str, str]) -> dict:
    data = copy.deepcopy(data)
    swap = lambda value: mapping.get(value, value)  # noqa: E731
    data["viewpoint"] = swap(data["viewpoint"])
    data["turn"]["active"] = swap(data["turn"]["active"])
    for player in data["players"]:
        player["id"] = swap(player["id"])
    for card in data.get("cards", []):
        for key in ("id", "controller", "owner"):
            if key in card:
                card[key] = swap(card[key])
        if card.get("cell", {}).get("side"):
            card["cell"]["side"] = swap(card["cell"]["side"])
    for effect in data.get("effects", []):
        for key in ("id", "target", "source"):
            if key in effect:
                effect[key] = swap(effect[key])
    for event in data.get("history", []):
        for key in ("actor", "target"):
            if key in event:
                event[key] = swap(event[key])
    return data


# Report fields that are sentences a player reads: a name in them is shown with its characters that
# are not printable written as escapes (a report line cannot be forged), not as the situation gave it.
SENTENCES = frozenset({"because", "assuming"})


def shown(name: str) -> str:
    """A name as a sentence shows it: a character that is not printable (a space aside) escaped."""
    return "".join(ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")
                   for ch in name)


def substitute(report_text: str, back: dict[str, str]) -> dict:
    """A JSON report with some names replaced (``back``: name -> replacement), lists
    sorted. Judgement atoms print ids as clingo strings, so there the replacement is
    escaped as clingo does; sentences show it as :func:`shown` says."""
    report = json.loads(report_text)

    def undo(value, where=""):
        if isinstance(value, dict):
            return {k: undo(v, k if k in SENTENCES or k == "atoms" else where) for k, v in value.items()}
        if isinstance(value, list):
            return [undo(v, where) for v in value]
        if isinstance(value, str):
            for new, old in back.items():
                written = (str(clingo.String(old))[1:-1] if where == "atoms"
                           else shown(old) if where in SENTENCES else old)
                value = value.replace(new, written)
        return value

    return canonical(undo(report))
