"""The interactions report as one self-contained HTML page: the ranked pairs with filters, and a
panel per pair with each difference and both verdicts worded as the ruling text words them.

The page is the ruling page's document (its JSON block, inline code and content policy) with a
script of its own; texts repeated across pairs are stored once and referred to by number, which
keeps a whole set's report to a few megabytes.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from pybridge.report.page.html import document


def _asset(name: str) -> str:
    return resources.files("pybridge.tools").joinpath("interactions_assets", name).read_text(encoding="utf-8")


class _Texts:
    """Each distinct ruling text once; a difference holds its number."""

    def __init__(self) -> None:
        self.index: dict[tuple[str, ...], int] = {}
        self.items: list[list[str]] = []

    def ref(self, lines: list[str]) -> int:
        key = tuple(lines)
        if key not in self.index:
            self.index[key] = len(self.items)
            self.items.append(list(lines))
        return self.index[key]


def payload(report) -> dict[str, Any]:
    texts = _Texts()
    by_pair: dict[tuple[str, str], list[list[Any]]] = {}
    for d in report.differences:
        by_pair.setdefault((d.a, d.b), []).append(
            [d.template, d.stand_in, d.player, d.action, d.change, d.real, d.plain, d.clauses, d.features,
             texts.ref(d.text), texts.ref(d.plain_text)])
    pairs = [{"a": a, "b": b, "count": count, "rows": by_pair[a, b]} for (a, b), count in report.ranked_pairs()]
    return {"title": report.title, "summary": report.summary_text(), "templates": report.templates,
            "pairs": pairs, "texts": texts.items, "perFeature": report.per_feature(),
            "perClause": report.per_clause(),
            "unplaced": [[template, card, why] for (template, card), why in sorted(report.unplaced.items())],
            "errors": report.errors}


def html_page(report) -> str:
    return document(report.title, payload(report), [_asset("interactions.css")], [_asset("interactions.js")],
                    connect=False)
