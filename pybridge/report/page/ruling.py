"""A ``ruling:`` block made from a report: the verdicts as judged, written as the exact
expectations of a ruling file (docs/rulings.md), so a playground session can be kept as a test."""

from __future__ import annotations

from typing import Any

from pybridge.input.situation import Ruling
from pybridge.why.justify import Report


def ruling_block(report: Report, *, title: str, hidden_cards: bool, previous: Ruling | None = None) -> dict[str, Any]:
    """Every verdict of the viewpoint player: legal and illegal actions with their cites, the
    obligations with their clauses, the consequences, and (when the viewer faces hidden
    cards) the certainty of each legal action. A previous block's title and note are kept."""
    mine = [v for v in report.verdicts if v.player == report.viewpoint]
    expect: dict[str, Any] = {"player": report.viewpoint, "exact": True,
                              "legal": {v.action: list(v.cites) for v in mine if v.verdict == "legal"},
                              "illegal": {v.action: list(v.cites) for v in mine if v.verdict == "illegal"}}
    obliged = {v.action: sorted({r.clause for r in v.obligations}) for v in mine if v.obligations}
    if obliged:
        expect["obliged"] = obliged
    consequences = {v.action: sorted(v.consequence_texts) for v in mine if v.consequences}
    if consequences:
        expect["consequences"] = consequences
    if hidden_cards:
        expect["certainty"] = {v.action: v.certainty for v in mine if v.verdict == "legal"}
    block: dict[str, Any] = {
        "title": previous.title if previous else title,
        "clauses": sorted({c for v in mine for c in v.cites}),
    }
    note = previous.note if previous and previous.note else (
        "Made in the ccg-judge playground from the verdicts as judged: check each against the rules "
        "before keeping it as a ruling.")
    block["note"] = note
    block["expect"] = expect
    return block
