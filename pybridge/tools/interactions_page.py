"""The interactions report as one self-contained HTML page: the ranked pairs with filters, and a
panel per pair with each difference and both verdicts worded as the ruling text words them.

The page is the ruling page's document (its JSON block, inline code and content policy) with a
script of its own; texts repeated across pairs are stored once and referred to by number, which
keeps a whole set's report to a few megabytes (see payload).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from pybridge.report.page.html import document


def _asset(name: str) -> str:
    return resources.files("pybridge.tools").joinpath("interactions_assets", name).read_text(encoding="utf-8")


class _Interned:
    """Each distinct value once (a ruling text, a difference's shape); a use holds its number."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.items: list[Any] = []

    def ref(self, value: Any) -> int:
        key = json.dumps(value, ensure_ascii=False)
        if key not in self.index:
            self.index[key] = len(self.items)
            self.items.append(value)
        return self.index[key]


def payload(report) -> dict[str, Any]:
    """The page's data. Most pairs of a set differ from their stand-ins in the same few ways (A's
    shot where its stand-in has none, ...), so a difference is stored once as a shape and a pair
    lists the numbers of its shapes."""
    texts, shapes = _Interned(), _Interned()
    by_pair: dict[tuple[str, str], list[int]] = {}
    for d in report.differences:
        shape = [d.template, d.stand_in, d.player, d.action, d.change, d.real, d.plain, d.clauses, d.features,
                 texts.ref(d.text), texts.ref(d.plain_text)]
        by_pair.setdefault((d.a, d.b), []).append(shapes.ref(shape))
    pairs = [[a, b, by_pair[a, b]] for (a, b), _ in report.ranked_pairs()]
    return {"title": report.title, "summary": report.summary_text(), "templates": report.templates,
            "pairs": pairs, "shapes": shapes.items, "texts": texts.items, "perFeature": report.per_feature(),
            "perClause": report.per_clause(),
            "unplaced": [[template, card, why] for (template, card), why in sorted(report.unplaced.items())],
            "errors": report.errors}


def html_page(report) -> str:
    return document(report.title, payload(report), [_asset("interactions.css")], [_asset("interactions.js")],
                    connect=False)
