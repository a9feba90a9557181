"""The ruling pages of the shipped examples, opened in headless Chromium: the board and the
verdicts are drawn, a chosen verdict shows its tree and marks its cards, and the page asks
the network for nothing."""

from __future__ import annotations

import json

import pytest

from harness import ROOT
from pybridge import api
from pybridge.game.catalogue import load_game
from pybridge.web.ruling_page import ruling_page

BERSERK = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"
MTG = ROOT / "examples" / "mtg" / "cryptic-coat.yaml"


def _open(page, tmp_path, situation, name: str, **kwargs) -> dict:
    """Write the page, open it, and return the data it was drawn from."""
    document = ruling_page(situation, **kwargs)
    path = tmp_path / f"{name}.html"
    path.write_text(document, encoding="utf-8")
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(path.as_uri())
    page.wait_for_selector(".verdict")
    assert requested == [path.as_uri()], "the page asked for something besides itself"
    block = page.text_content("#ccg-data")
    return json.loads(block)["data"]


def _verdict(page, action: str):
    return page.locator(".verdict", has=page.locator("code.action", has_text=action)).first


def test_berserk_page_draws_the_board_and_the_verdicts(page, tmp_path, screenshot):
    data = _open(page, tmp_path, BERSERK, "berserk")
    board = load_game("berserk").board
    assert page.locator(".board .cell").count() == board.columns * board.rows_per_side * 2
    for card in data["cards"]:
        where = page.locator(f'.cell[data-side="{card["cell"]["side"]}"][data-column="{card["cell"]["column"]}"]'
                             f'[data-row="{card["cell"]["row"]}"] .card')
        assert where.get_attribute("data-card-id") == card["id"]
    # The viewer's half is drawn below the opponent's.
    mine = page.locator('.cell[data-side="p1"][data-column="3"][data-row="1"]').bounding_box()
    theirs = page.locator('.cell[data-side="p2"][data-column="3"][data-row="1"]').bounding_box()
    assert mine["y"] > theirs["y"]
    assert page.locator(".verdict").count() == len(data["verdicts"])
    assert "531" in page.text_content(".ruling-head") and "p1" in page.text_content(".ruling-head")


def test_choosing_a_verdict_opens_its_tree_and_marks_its_cards(page, tmp_path, screenshot):
    data = _open(page, tmp_path, BERSERK, "berserk")
    chosen = next(v for v in data["verdicts"] if v["action"] == "shot(elf, foe)")
    item = _verdict(page, "shot(elf, foe)")
    assert item.locator(".tree").count() == 0
    item.locator(".verdict-head").click()
    tree = item.locator(".tree")
    assert tree.is_visible()
    assert "possible under" in tree.text_content()
    assert page.locator('.card[data-card-id="elf"]').get_attribute("class").split().count("hl-actor") == 1
    assert "hl-target" in page.locator('.card[data-card-id="foe"]').get_attribute("class").split()
    assert "hl-actor" not in page.locator('.card[data-card-id="veteran"]').get_attribute("class").split()
    # Each cite names its clause's heading on hover.
    clauses = load_game("berserk").clauses
    for clause_id in chosen["cites"]:
        title = item.locator(f'.cites abbr[data-clause="{clause_id}"]').get_attribute("title")
        assert clauses[clause_id].heading in title
    # A nested step of the tree opens on click.
    closed = tree.locator("details:not([open])").first.element_handle()
    closed.query_selector("summary").click()
    assert closed.get_attribute("open") is not None
    screenshot(page, "page-berserk", full_page=False)


def test_mtg_page_shows_face_down_permanents(page, tmp_path, screenshot):
    data = _open(page, tmp_path, MTG, "mtg")
    assert page.locator(".board").count() == 0
    unknown = page.locator('.zone[data-player="p2"][data-zone="battlefield"] .card')
    assert unknown.count() == 1
    assert "unknown" in unknown.get_attribute("class").split()
    assert unknown.get_attribute("data-card-id").startswith("hidden@p2")
    assert "Elvish Visionary" not in page.content()
    known = page.locator('.card[data-card-id="bears"]')
    assert "face-down" in known.get_attribute("class").split() and "Grizzly Bears" in known.text_content()
    assert "closed" in page.locator('.card[data-card-id="arbor"]').get_attribute("class").split()
    look = next(v for v in data["verdicts"] if v["action"].startswith("look_at(hidden@"))
    _verdict(page, look["action"]).locator(".verdict-head").click()
    assert "hl-actor" in unknown.get_attribute("class").split()
    _verdict(page, "turn_face_up(bears, mana_cost)").locator(".verdict-head").click()
    assert "hl-actor" not in unknown.get_attribute("class").split()
    assert "hl-actor" in known.get_attribute("class").split()
    _verdict(page, "equip(coat, bears)").locator(".verdict-head").click()
    assert "hl-actor" in page.locator('.card[data-card-id="coat"]').get_attribute("class").split()
    assert "hl-target" in known.get_attribute("class").split()
    page.mouse.wheel(0, -10_000)
    screenshot(page, "page-mtg", full_page=False)


def test_explain_page_opens_its_one_verdict(page, tmp_path):
    _open(page, tmp_path, BERSERK, "explain", action="strike_attack(veteran, foe)")
    assert page.locator(".verdict").count() == 1
    assert page.locator(".verdict.selected .tree").is_visible()


@pytest.mark.parametrize("name", ["<img src=x onerror=alert(1)>", "</script><script>window.pwned=1</script>"])
def test_card_texts_are_shown_as_text(page, tmp_path, name):
    situation = {
        "game": "berserk", "viewpoint": "p1", "players": [{"id": "p1", "first": True}, {"id": "p2"}],
        "turn": {"number": 3, "active": "p1", "stage": "main", "phase": "choice"},
        "cards": [{"id": name, "name": name, "properties": {"type": "creature"}, "controller": "p1",
                   "cell": {"column": 3, "row": 1}},
                  {"id": "foe", "card": "Вайл", "controller": "p2", "cell": {"column": 3, "row": 1}}]}
    from pybridge.input.situation import situation_from_data
    _open(page, tmp_path, situation_from_data(situation), "injection")
    assert page.evaluate("window.pwned") is None
    assert page.locator(".board img").count() == 0
    assert page.locator(".card-name", has_text=name).count() == 1


def test_what_a_player_reads_off_the_page(page, tmp_path, screenshot):
    """Tiles show what a player reads off a card; the options header wraps instead of being cut; an
    illegal verdict says why in words; consequences are a list."""
    _open(page, tmp_path, BERSERK, "berserk-reads")
    veteran = page.locator('.card[data-card-id="veteran"] .card-stats').text_content()
    assert "strike 1-1-4" in veteran and "health 14" in veteran and "cost 6" in veteran
    width = page.viewport_size["width"]
    chips = page.locator(".ruling-head .option")
    assert chips.count() >= 8
    for i in range(chips.count()):
        box = chips.nth(i).bounding_box()
        assert box["x"] + box["width"] <= width, f"option {i} runs off the page"
    shot = _verdict(page, "shot(elf, foe)")
    assert shot.locator(".because").text_content() == \
        "because option shot_at_neighbour is barred and elf is next to foe"
    strike = _verdict(page, "strike_attack(veteran, foe)")
    items = strike.locator(".consequences li")
    # one list item per consequence the report gives (fight outcomes per roll included)
    report = api.check(BERSERK)
    wanted = next(v for v in report.verdicts if v.action == "strike_attack(veteran, foe)")
    assert items.count() == len(wanted.consequences) and "veteran's strong strike deals 4" in [
        items.nth(i).text_content() for i in range(items.count())]
    screenshot(page, "page-berserk-reads")


def test_magic_tiles_say_tapped_and_show_cost_and_power(page, tmp_path, screenshot):
    _open(page, tmp_path, MTG, "mtg-reads")
    arbor = page.locator('.card[data-card-id="arbor"]')
    assert "tapped" in arbor.locator(".card-state").text_content()
    assert "closed" not in page.text_content(".table")
    bears = page.locator('.card[data-card-id="bears"] .card-stats').text_content()
    assert "{1}{G}" in bears and "2/2" in bears
    unknown = page.locator(".card.unknown")
    assert unknown.count() == 1 and unknown.locator(".card-stats").count() == 0  # nothing of an unknown card
    screenshot(page, "page-mtg-reads")
