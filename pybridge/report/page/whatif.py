"""The page of a whatif answer: for each alternative its edits and the ruling page of the edited
situation, as its asker sees it, with every moved card drawn at both places."""

from __future__ import annotations

from typing import Any

from pybridge.game.catalogue import load_game
from pybridge.input.situation import Situation
from pybridge.input.viewpoint import project
from pybridge.report.page.html import render_whatif
from pybridge.report.page.model import page_data
from pybridge.report.whatif import WhatIf


def whatif_page(answer: WhatIf, edited: list[Situation]) -> str:
    """``edited``: each alternative's edited situation (pybridge.api.whatif_situations)."""
    game = load_game(answer.game)
    alternatives = []
    for alternative, situation in zip(answer.alternatives, edited):
        viewed = project(situation)
        data = page_data(viewed, alternative.report, game, selected=0)
        data["moved"] = [{"card": card, "from": _cell(was)} for card, was, _ in alternative.moved]
        alternatives.append({"cost": alternative.cost, "edits": [{"says": e.says} for e in alternative.edits],
                             "assumed": alternative.assumed, "page": data})
    return render_whatif({"action": answer.action, "player": answer.player, "now": answer.now,
                          "wanted": answer.wanted, "searched": answer.searched, "alternatives": alternatives})


def _cell(text: str) -> dict[str, Any]:
    """``p1:3.1`` -> the cell as page data names it."""
    side, _, place = text.rpartition(":")
    column, _, row = place.partition(".")
    return {"side": side, "column": int(column), "row": int(row)}
