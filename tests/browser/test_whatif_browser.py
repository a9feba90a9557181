"""The whatif page in headless Chromium: each alternative's edits, its ruling page, and a moved
card drawn both where it stands now and, faded, where it was."""

from __future__ import annotations

import json

from harness import ROOT
from pybridge.api import whatif_situations
from pybridge.input.situation import load_situation
from pybridge.report.page.whatif import whatif_page

RULING = ROOT / "tests" / "rulings" / "berserk" / "107" / "107.5-example-2.yaml"


def test_whatif_page_draws_a_moved_card_at_both_places(page, tmp_path, screenshot):
    answer, edited = whatif_situations(load_situation(RULING), "shot(elf, foe)", top=2)
    moves = [a for a in answer.alternatives if a.moved]
    assert moves, "the ruling's cheapest alternatives are moves"
    path = tmp_path / "whatif.html"
    path.write_text(whatif_page(answer, edited), encoding="utf-8")
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(path.as_uri())
    page.wait_for_selector(".whatif-alternative")
    assert requested == [path.as_uri()], "the page asked for something besides itself"
    data = json.loads(page.text_content("#ccg-data"))["data"]
    sections = page.locator(".whatif-alternative")
    assert sections.count() == len(answer.alternatives)
    for i, alternative in enumerate(answer.alternatives):
        section = sections.nth(i)
        assert [e.says for e in alternative.edits] == section.locator(".whatif-edits li").all_text_contents()
        for card, was, now in alternative.moved:
            side, _, place = now.rpartition(":")
            column, _, row = place.partition(".")
            here = section.locator(f'.cell[data-side="{side}"][data-column="{column}"][data-row="{row}"] '
                                   f'.card.moved[data-card-id="{card}"]')
            assert here.count() == 1
            side, _, place = was.rpartition(":")
            column, _, row = place.partition(".")
            there = section.locator(f'.cell[data-side="{side}"][data-column="{column}"][data-row="{row}"] '
                                    f'.card.moved-from[data-card-id="{card}"]')
            assert there.count() == 1
            assert float(there.evaluate("node => getComputedStyle(node).opacity")) < 1
        # the verdict of the edited situation is drawn, opened
        assert section.locator(".verdict").count() == len(data["alternatives"][i]["page"]["verdicts"])
    screenshot(page, "whatif", full_page=False)  # the first alternative: docs/whatif.png
