"""The ruling page (check/explain --html): what its data holds, that the file is self-contained,
that no text of the situation can become markup, and that a player's page never depends on
the opponent's hidden cards (swapped as in test_information_flow; the page must be byte-identical)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

from pybridge.api import check, with_overrides
from pybridge.cli import cli
from pybridge.game.catalogue import load_game
from pybridge.input.situation import load_situation, situation_from_data
from pybridge.input.viewpoint import project
from pybridge.report.page.html import json_block
from pybridge.report.page.model import UnprojectedSituation, action_arguments, page_data
from pybridge.web.ruling_page import ruling_page
from test_information_flow import _names, _with, boards

ROOT = Path(__file__).resolve().parent.parent
BERSERK = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"
MTG = ROOT / "examples" / "mtg" / "cryptic-coat.yaml"


def _data(situation) -> dict:
    s = situation if not isinstance(situation, Path) else load_situation(situation)
    return page_data(project(s), check(s, trees=True), load_game(s.game))


class _Document(HTMLParser):
    """Every start tag with its attributes, and the text inside each script and style."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.bodies: dict[str, list[str]] = {"script": [], "style": []}
        self._open: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in self.bodies:
            self._open = tag
            self.bodies[tag].append("")

    def handle_endtag(self, tag):
        self._open = None

    def handle_data(self, data):
        if self._open:
            self.bodies[self._open][-1] += data


def _parse(document: str) -> _Document:
    parsed = _Document()
    parsed.feed(document)
    return parsed


def _payload(document: str) -> dict:
    parsed = _parse(document)
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    index = next(i for i, attrs in enumerate(scripts) if attrs.get("id") == "ccg-data")
    return json.loads(parsed.bodies["script"][index])


# --------------------------------------------------------------------------
# What the page shows


def test_berserk_page_data_has_the_board_the_cards_and_the_verdicts():
    data = _data(BERSERK)
    game = load_game("berserk")
    assert (data["game"]["name"], data["edition"]["id"], data["viewpoint"]) == ("berserk", "531", "p1")
    assert {o["name"] for o in data["options"]} == set(game.options)
    cells = data["board"]["cells"]
    assert len(cells) == 30 and {(c["x"], c["y"]) for c in cells} == {(x, y) for x in range(1, 6) for y in range(1, 7)}
    # The viewer's half is the bottom one; the opponent's columns run the other way.
    mine = next(c for c in cells if (c["side"], c["column"], c["row"]) == ("p1", 1, 1))
    theirs = next(c for c in cells if (c["side"], c["column"], c["row"]) == ("p2", 1, 1))
    assert (mine["x"], mine["y"]) == (1, 4) and (theirs["x"], theirs["y"]) == (5, 3)
    assert {c["id"] for c in data["cards"]} == {"elf", "veteran", "foe"}
    elf = next(c for c in data["cards"] if c["id"] == "elf")
    assert elf["name"] == "Эльф-всадник" and [e["text"] for e in elf["effects"]] == ["grant rush"]
    report = check(BERSERK)
    assert [(v["player"], v["action"], v["cites"]) for v in data["verdicts"]] == \
        [(v.player, v.action, v.cites) for v in report.verdicts]
    shot = next(v for v in data["verdicts"] if v["action"] == "shot(elf, foe)")
    assert (shot["actor"], shot["target"], shot["named"]) == (["elf"], ["foe"], [])
    assert shot["tree"]["children"], "a verdict carries its justification tree"
    for v in data["verdicts"]:
        for clause_id in v["cites"]:
            assert data["clauses"][clause_id]["heading"] == game.clauses[clause_id].heading


def test_mtg_page_data_shows_the_opponents_face_down_card_as_unknown():
    data = _data(MTG)
    assert data["board"] is None
    zones = {(z["player"], z["zone"]): z for z in data["zones"]}
    theirs = zones[("p2", "battlefield")]
    assert theirs["count"] == 1 and len(theirs["cards"]) == 1
    unknown = next(c for c in data["cards"] if c["id"] == theirs["cards"][0])
    assert unknown["unknown"] and unknown["name"] is None and unknown["id"].startswith("hidden@p2")
    assert unknown["public"] == [["face_down_by", "cloak"]]
    bears = next(c for c in data["cards"] if c["id"] == "bears")
    assert bears["hidden"] and not bears["unknown"] and bears["name"] == "Grizzly Bears"
    duty = next(v for v in data["verdicts"] if v["action"] == "keep_distinguishable(p1)")
    assert duty["verdict"] == "obliged"


def test_private_zones_show_counts_and_only_what_the_viewer_may_see():
    situation = situation_from_data({
        "game": "berserk", "viewpoint": "p1", "players": [{"id": "p1", "first": True}, {"id": "p2"}],
        "turn": {"number": 3, "active": "p1", "stage": "main", "phase": "choice"},
        "cards": [{"id": "mine", "card": "Ядовитое пламя", "controller": "p1", "zone": "hand"},
                  {"id": "theirs-1", "card": "Ядовитое пламя", "controller": "p2", "zone": "hand"},
                  {"id": "theirs-2", "card": "Вайл", "controller": "p2", "zone": "hand"},
                  {"id": "aloft", "card": "Мерцающий змей", "controller": "p2", "zone": "flying"}]})
    zones = {(z["player"], z["zone"]): z for z in _data(situation)["zones"]}
    assert (zones[("p1", "hand")]["cards"], zones[("p1", "hand")]["unknown"]) == (["mine"], 0)
    theirs = zones[("p2", "hand")]
    assert (theirs["count"], theirs["cards"], theirs["unknown"]) == (2, [], 2)
    assert zones[("p2", "flying")]["cards"] == ["aloft"]


def test_action_arguments_are_matched_against_card_ids_first():
    known = {"elf", "a, b", "hidden@p2:3.1"}
    assert action_arguments("shot(elf, hidden@p2:3.1)", known) == ("shot", ["elf", "hidden@p2:3.1"])
    assert action_arguments("strike_attack(a, b, elf)", known) == ("strike_attack", ["a, b", "elf"])
    assert action_arguments("cast_x(elf, f(g, h), 3)", known) == ("cast_x", ["elf", "f(g, h)", "3"])
    assert action_arguments("pass", known) == ("pass", [])


def test_a_page_needs_the_projected_situation():
    s = load_situation(MTG)
    with pytest.raises(UnprojectedSituation):
        page_data(s, check(s, trees=True), load_game("mtg"))


# --------------------------------------------------------------------------
# The file


@pytest.mark.parametrize("example", [BERSERK, MTG], ids=["berserk", "mtg"])
def test_the_page_is_self_contained(example):
    document = ruling_page(example)
    parsed = _parse(document)
    for tag, attrs in parsed.tags:
        assert tag not in ("link", "img", "iframe", "object", "embed", "base", "form"), tag
        assert not {"src", "href", "srcset", "action", "style"} & set(attrs), (tag, attrs)
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
    assert "://" not in document and "@import" not in document and "url(" not in document
    # The policy allows exactly the inline scripts and styles the page has, and no network.
    policy = next(a["content"] for t, a in parsed.tags
                  if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    hashes = set(re.findall(r"'sha256-([^']+)'", policy))
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    code = [body for body, attrs in zip(parsed.bodies["script"], scripts, strict=True)
            if attrs.get("type") != "application/json"] + parsed.bodies["style"]
    assert hashes == {base64.b64encode(hashlib.sha256(c.encode()).digest()).decode() for c in code}
    assert "default-src 'none'" in policy and "connect-src 'none'" in policy
    assert _payload(document)["data"]["viewpoint"] == "p1"


@pytest.mark.parametrize("text", ["</script><script>alert(1)</script>", "<!--", "]]>&amp;<b>"])
def test_situation_text_cannot_end_the_data_block(text):
    block = json_block({"name": text})
    assert "<" not in block and ">" not in block and "&" not in block
    assert json.loads(block) == {"name": text}
    situation = situation_from_data({
        "game": "berserk", "viewpoint": "p1", "players": [{"id": "p1", "first": True}, {"id": "p2"}],
        "turn": {"number": 3, "active": "p1", "stage": "main", "phase": "choice"},
        "cards": [{"id": text, "name": text, "controller": "p1", "cell": {"column": 1, "row": 1}}]})
    document = ruling_page(situation)
    parsed = _parse(document)
    assert [t for t, _ in parsed.tags].count("script") == 2  # the data block and the page's script
    assert _payload(document)["data"]["cards"][0]["name"] == text


def test_scripts_build_the_page_without_parsing_html():
    for folder, name in (("report/page", "page.js"), ("web", "playground.js")):
        source = (ROOT / "pybridge" / folder / "assets" / name).read_text(encoding="utf-8")
        for forbidden in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                          "new Function", "setTimeout(\"", "</script"):
            assert forbidden not in source, (name, forbidden)


# --------------------------------------------------------------------------
# Viewpoint safety: the page is made from the projection, so the hidden cards cannot change it


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=boards())
def test_page_does_not_depend_on_the_opponents_hidden_cards(board, fuzz_cases):
    situation, first, second = board
    page_first = ruling_page(situation_from_data(_with(situation, first)))
    page_second = ruling_page(situation_from_data(_with(situation, second)))
    fuzz_cases["page_information_flow"] += 1
    assert page_first == page_second
    for secret in _names(first) | _names(second):
        assert secret not in page_first


def test_the_controller_sees_the_difference():
    """The swap above is not vacuous: the hidden card's controller gets another page."""
    base = {"game": "berserk", "viewpoint": "p2", "players": [{"id": "p1", "first": True}, {"id": "p2"}],
            "turn": {"number": 3, "active": "p1", "stage": "main", "phase": "choice"},
            "cards": [{"id": "mine0", "card": "Вайл", "controller": "p1", "cell": {"column": 3, "row": 1}}]}
    serpent = {"id": "secret-a", "card": "Ледяной змей", "controller": "p2", "cell": {"column": 3, "row": 1},
               "hidden": True}
    dzara = {**serpent, "card": "Посвященный Дзара"}
    own = [ruling_page(situation_from_data(_with(base, [h]))) for h in (serpent, dzara)]
    assert own[0] != own[1]
    seen = [ruling_page(situation_from_data({**_with(base, [h]), "viewpoint": "p1"})) for h in (serpent, dzara)]
    assert seen[0] == seen[1]


def test_mtg_page_does_not_depend_on_the_opponents_face_down_card():
    data = yaml.safe_load(MTG.read_text(encoding="utf-8"))
    pages = {}
    for name in load_game("mtg").cards:
        variant = json.loads(json.dumps(data))
        secret = next(c for c in variant["cards"] if c["id"] == "secret")
        secret["card"] = name
        s = situation_from_data(variant)
        pages[name] = (ruling_page(s), ruling_page(with_overrides(s, player="p2")))
    assert len({viewer for viewer, _ in pages.values()}) == 1
    visible = {c.get("card") for c in data["cards"] if c["id"] != "secret"}
    for name, (viewer, _) in pages.items():
        assert name in visible or name not in viewer
    assert len({own for _, own in pages.values()}) > 1  # the controller's page does change


# --------------------------------------------------------------------------
# The command line


def test_check_and_explain_write_pages(tmp_path):
    runner = CliRunner()
    out = tmp_path / "check.html"
    result = runner.invoke(cli, ["check", str(BERSERK), "--format", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert len(_payload(out.read_text(encoding="utf-8"))["data"]["verdicts"]) == len(check(BERSERK).verdicts)
    out = tmp_path / "explain.html"
    result = runner.invoke(cli, ["explain", str(BERSERK), "strike_attack( veteran,foe )", "--format", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    data = _payload(out.read_text(encoding="utf-8"))["data"]
    assert [v["action"] for v in data["verdicts"]] == ["strike_attack(veteran, foe)"] and data["selected"] == 0
    result = runner.invoke(cli, ["check", str(BERSERK), "--player", "p2", "--option", "edition=515",
                                 "--format", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    data = _payload(out.read_text(encoding="utf-8"))["data"]
    assert (data["viewpoint"], data["edition"]["id"]) == ("p2", "515")


def test_a_line_separator_is_inert_in_the_data_block():
    """Validation refuses U+2028 in ids and names; the data block escapes it all the same."""
    assert "\u2028" not in json_block({"name": "a\u2028b"}) and json.loads(json_block({"name": "a\u2028b"})) == \
        {"name": "a\u2028b"}


def test_a_page_for_an_impossible_action_shows_it_not_possible(tmp_path):
    out = tmp_path / "none.html"
    run = subprocess.run([sys.executable, "-m", "pybridge", "explain", str(BERSERK), "strike_attack(elf, elf)",
                          "--format", "html", "-o", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    [verdict] = _payload(out.read_text(encoding="utf-8"))["data"]["verdicts"]
    assert (verdict["verdict"], verdict["cites"]) == ("impossible", ["107.2"])


def test_a_page_for_an_unknown_card_is_an_error(tmp_path):
    out = tmp_path / "none.html"
    run = subprocess.run([sys.executable, "-m", "pybridge", "explain", str(BERSERK), "strike_attack(elf, nobody)",
                          "--format", "html", "-o", str(out)], capture_output=True, text=True)
    assert run.returncode == 2 and run.stderr.startswith("error: ") and "Traceback" not in run.stderr
    assert not out.exists()
