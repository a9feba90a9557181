"""The playground, as a real server process on a loopback port, used through headless Chromium:
the board and verdicts are drawn, a verdict's tree is fetched when opened, switching the viewpoint
turns the other player's hidden card into an unknown one, an edit is judged again (and timed on
a full board), an error is shown at its line, a dragged card moves in the text, and the ruling
file it downloads passes the ruling runner."""

from __future__ import annotations

import time

import pytest
import yaml

from harness import Playground, full_board
from pybridge.api import check
from pybridge.input.situation import load_situation
from pybridge.tools.rulings import judge_ruling
from pybridge.web.serve import starter_text

SLOW = 120_000  # ms: a full board takes seconds to judge with every justification tree


@pytest.fixture(scope="module")
def starter(tmp_path_factory, browser_context):
    path = tmp_path_factory.mktemp("playground") / "starter.yaml"
    path.write_text(starter_text(), encoding="utf-8")
    with Playground(path) as server:
        yield server


def _judged(page) -> int:
    return int(page.get_attribute(".page-root", "data-judged") or "0")


def _wait_judged_after(page, before: int, timeout: float = 30_000) -> None:
    """Until the page has drawn a judgement newer than ``before``. Polled from here: the page's
    Content-Security-Policy (rightly) refuses the string evaluation of wait_for_function."""
    deadline = time.monotonic() + timeout / 1000
    while _judged(page) <= before:
        assert time.monotonic() < deadline, "the playground did not draw a new judgement in time"
        page.wait_for_timeout(25)


def _open(page, server) -> None:
    page.goto(server.url)
    page.wait_for_selector(".verdict")


def _set_text(page, text: str) -> None:
    page.fill("textarea.source", text)


def test_playground_draws_the_board_and_fetches_a_tree(page, starter, screenshot):
    _open(page, starter)
    assert page.locator(".board .cell").count() == 30
    assert page.locator('.card[data-card-id="elf"]').count() == 1
    item = page.locator(".verdict", has=page.locator("code.action", has_text="shot(elf, foe)")).first
    item.locator(".verdict-head").click()
    item.locator(".tree .node").first.wait_for()
    assert "possible under" in item.locator(".tree").text_content()
    assert "hl-actor" in page.locator('.card[data-card-id="elf"]').get_attribute("class").split()
    aloft = page.locator('.zone[data-zone="flying"] .card[data-card-id="aloft"]')
    # the vocabulary declares discharge's argument roles: its target is highlighted as one
    page.locator(".verdict", has=page.locator("code.action", has_text="discharge(dzara, aloft)")).first \
        .locator(".verdict-head").click()
    assert "hl-target" in aloft.get_attribute("class").split()
    shot = page.locator(".verdict", has=page.locator("code.action", has_text="shot(elf, aloft)")).first
    shot.locator(".verdict-head").click()
    shot.locator(".tree .node").first.wait_for()
    assert "hl-target" in aloft.get_attribute("class").split()
    screenshot(page, "playground", full_page=False)


def test_switching_viewpoint_makes_a_hidden_card_unknown(page, starter):
    _open(page, starter)
    runner = page.locator('.card[data-card-id="runner"]')
    assert "face-down" in runner.get_attribute("class").split()
    assert "unknown" not in runner.get_attribute("class").split()
    before = _judged(page)
    page.select_option("select[name=viewpoint]", "p2")
    _wait_judged_after(page, before)
    assert runner.count() == 0
    unknown = page.locator('.cell[data-side="p1"][data-column="4"][data-row="1"] .card')
    assert "unknown" in unknown.get_attribute("class").split()
    assert "Бегущая по кронам" not in page.text_content(".page-root")
    # ...and the other player's own hidden card is now known.
    assert "unknown" not in page.locator('.card[data-card-id="serpent"]').get_attribute("class").split()
    assert "as seen by p2" in page.text_content(".ruling-head")


def test_an_edit_is_judged_again(page, starter):
    _open(page, starter)
    shot = page.locator(".verdict", has=page.locator("code.action", has_text="shot(elf, aloft)")).first
    assert "legal" in shot.get_attribute("class").split()
    text = page.input_value("textarea.source")
    rush = "effects:\n  - {id: rush-from-spell, target: elf, kind: grant, what: rush, timestamp: 10}\n"
    assert rush in text
    before = _judged(page)
    _set_text(page, text.replace(rush, "effects: []\n"))
    _wait_judged_after(page, before)
    assert "illegal" in shot.get_attribute("class").split()


def test_a_schema_error_is_shown_at_its_line(page, starter):
    _open(page, starter)
    text = page.input_value("textarea.source")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "id: dzara" in row)
    _set_text(page, text.replace("{id: dzara, card: Посвященный Дзара, controller: p1, cell: {column: 2, row: 2}",
                                 "{id: dzara, card: Посвященный Дзара, controller: p1, cell: {column: 2, row: 9}"))
    page.wait_for_selector(".error-box .error-message")
    assert "cards[1].cell.row" in page.text_content(".error-box")
    assert page.text_content(".line-number.error-line") == str(line)


def test_dragging_a_card_to_a_cell_moves_it_in_the_text(page, starter):
    page.set_viewport_size({"width": 1440, "height": 1400})  # the card and the cell in view at once
    _open(page, starter)
    before = _judged(page)
    page.drag_and_drop('.card[data-card-id="dzara"]', '.cell[data-side="p1"][data-column="5"][data-row="3"]')
    _wait_judged_after(page, before)
    assert page.locator('.cell[data-side="p1"][data-column="5"][data-row="3"] .card[data-card-id="dzara"]').count() == 1
    moved = next(c for c in yaml.safe_load(page.input_value("textarea.source"))["cards"] if c["id"] == "dzara")
    assert moved["cell"] == {"column": 5, "row": 3}


def test_the_downloaded_ruling_file_passes(page, starter, tmp_path):
    _open(page, starter)
    before = _judged(page)
    page.select_option("select[name=edition]", "515")
    _wait_judged_after(page, before)
    with page.expect_download() as download:
        page.click("text=download ruling")
    path = tmp_path / "ruling.yaml"
    download.value.save_as(path)
    situation = load_situation(path)
    assert situation.edition == "515" and situation.ruling is not None
    assert situation.ruling.expect.legal
    assert judge_ruling(situation, check(situation)) == []


def test_an_edit_on_a_full_board_updates_the_verdicts(page, tmp_path, capsys):
    path = tmp_path / "full.yaml"
    path.write_text(yaml.safe_dump(full_board(), allow_unicode=True, sort_keys=False), encoding="utf-8")
    with Playground(path) as server:
        page.goto(server.url)
        page.wait_for_selector(".verdict", timeout=SLOW)
        text = page.input_value("textarea.source")
        before = _judged(page)
        started = time.perf_counter()
        # Close the viewer's card in 1.1: it can no longer attack.
        marker = "    column: 1\n    row: 1\n  arrived: 1\n"
        edited = text.replace(marker, marker + "  open: false\n", 1)
        assert edited != text
        _set_text(page, edited)
        _wait_judged_after(page, before, timeout=SLOW)
        seconds = time.perf_counter() - started
        status = page.text_content(".status")
    with capsys.disabled():
        print(f"\nplayground, 30-card board: an edit was judged and drawn {seconds:.2f} s after it was typed "
              f"(debounce included); the page says: {status}")
    assert "verdicts" in status


def test_a_server_failure_says_so(browser_context, starter):
    """A server that fails (a 500 with a text body) is reported as such, not as a JSON parse error.
    (A tab of its own: the browser logs the 500 itself, which the page fixture counts as an error.)"""
    page = browser_context.new_page()
    script_errors: list[str] = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))
    _open(page, starter)
    page.route("**/api/judge", lambda route: route.fulfill(status=500, body="Internal Server Error",
                                                          content_type="text/plain"))
    _set_text(page, page.input_value("textarea.source") + "\n")
    deadline = time.monotonic() + 10
    while "server failed" not in (page.text_content(".status") or ""):
        assert time.monotonic() < deadline, page.text_content(".status")
        page.wait_for_timeout(50)
    assert page.text_content(".status") == "the server failed; see its terminal"
    page.unroute("**/api/judge")
    page.close()
    assert script_errors == []


def test_the_verdict_column_is_wide_enough(page, starter):
    _open(page, starter)
    verdicts = page.locator(".verdicts").bounding_box()
    assert verdicts["width"] >= 480  # 30rem: a tree line is not broken every few words
