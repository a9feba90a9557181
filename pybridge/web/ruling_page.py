"""A ruling page for a situation file: judge it as its viewpoint player, project it, render."""

from __future__ import annotations

from pathlib import Path

from pybridge import api
from pybridge.game.catalogue import load_game
from pybridge.input.situation import Situation, load_situation
from pybridge.input.viewpoint import project
from pybridge.report.page.html import render_page
from pybridge.report.page.model import page_data


def ruling_page(situation: Situation | str | Path, *, action: str | None = None, player: str | None = None,
                edition: str | None = None, options: dict[str, str] | None = None,
                time_limit: float | None = None) -> str:
    """The HTML page of ``check`` (every verdict), or of ``explain`` when ``action`` is given
    (that verdict alone, opened). Built from the projected situation and the report only."""
    loaded = situation if isinstance(situation, Situation) else load_situation(situation)
    asked = api.with_overrides(loaded, edition=edition, options=options, player=player)
    if action is None:
        report, selected = api.check(asked, time_limit=time_limit, trees=True), None
    else:
        report, selected = api.explain(asked, action, time_limit=time_limit), 0
    return render_page(page_data(project(asked), report, load_game(asked.game), selected=selected))
