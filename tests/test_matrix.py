"""ccg-judge matrix: card selection, templates filled in the parsed data, and the three tables,
checked against single api.check calls (real workers, the real solver, a handful of pairs)."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from html.parser import HTMLParser

import pytest
import yaml

from batch_inputs import ROOT
from pybridge import api
from pybridge.errors import JudgeError
from pybridge.game.catalogue import load_game
from pybridge.input.situation import situation_from_data
from pybridge.report.render import verdict_text
from pybridge.tools.matrix import fill, load_template, select_cards

BERSERK = load_game("berserk")
RULINGS: dict[tuple[str, str], list[list[str]]] = {}  # each pair's verdicts as a ruling words them, checked here

TEMPLATE = {
    "game": "berserk", "viewpoint": "p1",
    "turn": {"number": 3, "active": "p1", "stage": "main", "phase": "choice"},
    "players": [{"id": "p1", "first": True}, {"id": "p2"}],
    "cards": [
        {"id": "mine", "card": "{A}", "controller": "p1", "cell": {"column": 3, "row": 1}, "arrived": 1,
         "non_game": {"legend": "{A} meets {B}"}},
        {"id": "theirs", "card": "{B}", "controller": "p2", "cell": {"column": 3, "row": 1}, "arrived": 1},
    ],
}


def write(tmp_path, data, name="template.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


# --------------------------------------------------------------------------
# Selecting cards


def test_selection_by_property_feature_and_name_in_catalogue_order():
    creatures = [n for n, c in BERSERK.cards.items() if (c.get("properties") or {}).get("type") == "creature"]
    assert select_cards(BERSERK, ["type=creature"]) == creatures
    assert select_cards(BERSERK, ["all"]) == list(BERSERK.cards)
    assert select_cards(BERSERK, ["name=Вайл,Ассасин"]) == [n for n in BERSERK.cards if n in ("Вайл", "Ассасин")]
    shooters = select_cards(BERSERK, ["feature=shot"])
    assert shooters and all("shot" in json.dumps(BERSERK.cards[n]["features"]) for n in shooters)
    # Every filter must hold; values of one filter are alternatives.
    assert select_cards(BERSERK, ["type=creature", "element=forest,dark"]) == [
        n for n in creatures if BERSERK.cards[n]["properties"].get("element") in ("forest", "dark")]
    # A set is the set file a card comes from; the game's own cards file is no set.
    set_1 = select_cards(BERSERK, ["set=war-of-elements"])
    assert set_1 == [n for n, c in BERSERK.cards.items() if c.get("set") == "war-of-elements"] and len(set_1) == 200


@pytest.mark.parametrize("selection, message", [
    (["typ=creature"], "did you mean 'type'"),
    (["type=creatur"], "did you mean 'creature'"),
    (["name=Вайлл"], "did you mean 'Вайл'"),
    (["creature"], "KEY=VALUE"),
    (["type=spell", "element=forest"], "no card of the berserk catalogue matches"),
])
def test_a_bad_selection_says_what_is_there(selection, message):
    with pytest.raises(JudgeError, match=re.escape(message)):
        select_cards(BERSERK, selection)


# --------------------------------------------------------------------------
# Templates


def test_placeholders_are_filled_in_the_parsed_data():
    odd = 'x", controller: p2} #{B}'  # would break YAML if pasted into the text; stays one value here
    filled = fill(TEMPLATE, {"A": odd, "B": "Вайл"})
    assert filled["cards"][0]["card"] == odd
    assert filled["cards"][0]["non_game"]["legend"] == f"{odd} meets Вайл"
    assert filled["cards"][1]["card"] == "Вайл"
    assert TEMPLATE["cards"][0]["card"] == "{A}", "the template itself is not changed"


@pytest.mark.parametrize("change, field, message", [
    (lambda t: t["cards"][1].update(card="{C}"), "cards[1].card", "unknown placeholder {C}"),
    (lambda t: t["cards"][1].update(card="Вайл"), None, "no card takes {B}"),
    (lambda t: t["cards"][1]["cell"].update({"{B}": 1}), "cards[1].cell.{B}", "in a key"),
])
def test_a_bad_template_names_the_field(tmp_path, change, field, message):
    data = json.loads(json.dumps(TEMPLATE))
    change(data)
    with pytest.raises(JudgeError) as caught:
        load_template(write(tmp_path, data))
    assert message in caught.value.message
    assert caught.value.field == field
    assert caught.value.source.endswith("template.yaml")


# --------------------------------------------------------------------------
# The command, end to end


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self.scripts, self.external, self._in = [], [], [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "td" and "data-cell" in attrs:
            self.cells.append(attrs["class"])
        if tag == "script":
            self._in = attrs.get("id", "")
            if "src" in attrs:
                self.external.append(attrs["src"])
        if tag in ("link", "img", "iframe") or (tag == "a" and "href" in attrs):
            self.external.append(tag)

    def handle_data(self, data):
        if self._in == "cells":
            self.scripts.append(data)

    def handle_endtag(self, tag):
        if tag == "script":
            self._in = None


def pair_verdicts(template, a, b, ids=("mine", "theirs")):
    """The verdicts of one pair's situation on actions naming both cards, checked alone here."""
    report = api.check(situation_from_data(fill(template, {"A": a, "B": b})), trees=True)
    named = [v for v in report.verdicts if all(re.search(rf"[(, ]{i}[,)]", v.action) for i in ids)]
    RULINGS[a, b] = [verdict_text(v, report, BERSERK.phrases) for v in named]  # what the page shows on click
    return named


def test_matrix_writes_markdown_csv_and_a_self_contained_page(tmp_path):
    template = write(tmp_path, TEMPLATE)
    cards = ["Вайл", "Эльф-всадник"]
    result = subprocess.run(
        [sys.executable, "-m", "pybridge", "matrix", "--cards", "name=" + ",".join(cards), "--template", template,
         "--jobs", "2", "-o", tmp_path / "m.md", "-o", tmp_path / "m.csv", "-o", tmp_path / "m.html"],
        capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    order = [n for n in BERSERK.cards if n in cards]
    expected = {(a, b): pair_verdicts(TEMPLATE, a, b) for a in order for b in order}
    assert any(expected.values()), "the template must give actions between the two cards"

    table = list(csv.DictReader(io.StringIO((tmp_path / "m.csv").read_text(encoding="utf-8"))))
    got = [(r["a"], r["b"], r["player"], r["action"], r["verdict"], r["cites"].split(), r["certainty"])
           for r in table if r["verdict"]]
    want = [(a, b, v.player, v.action, v.verdict, list(v.cites), v.certainty)
            for (a, b), vs in expected.items() for v in vs]
    assert got == want
    assert {r["pair_action"] for r in table if r["verdict"]} <= {
        v.action.replace("mine", "A").replace("theirs", "B") for vs in expected.values() for v in vs}

    page = _Cells()
    page.feed((tmp_path / "m.html").read_text(encoding="utf-8"))
    assert page.external == [], "the page loads nothing from elsewhere"
    data = json.loads("".join(page.scripts))
    cells = [(data["cards"][a], data["cards"][b], [data["verdicts"][i] for i in refs]) for a, b, refs, _ in data["cells"]]
    assert [(a, b) for a, b, _ in cells] == list(expected)
    for a, b, verdicts in cells:
        assert [data["texts"][v["text"]] for v in verdicts] == RULINGS[a, b]
        assert [(v["action"], v["verdict"]) for v in verdicts] == [(v.action, v.verdict) for v in expected[a, b]]
    states = [("none" if not vs else vs[0].verdict if len({v.verdict for v in vs}) == 1 else "mixed")
              for vs in expected.values()]
    assert page.cells == states

    markdown = (tmp_path / "m.md").read_text(encoding="utf-8")
    rows = [line for line in markdown.splitlines() if line.startswith("| **")]
    assert [line.split("|")[1].strip() for line in rows] == [f"**{a}**" for a in order]


def test_matrix_never_shows_the_hidden_card_to_the_asker(tmp_path):
    data = json.loads(json.dumps(TEMPLATE))
    data["cards"][1]["hidden"] = True
    template = write(tmp_path, data)
    result = subprocess.run(
        [sys.executable, "-m", "pybridge", "matrix", "--cards", "name=Вайл,Эльф-всадник", "--template", template,
         "--jobs", "1", "--format", "html"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    page = _Cells()
    page.feed(result.stdout)
    data = json.loads("".join(page.scripts))
    cells = [{"a": data["cards"][a], "b": data["cards"][b],
              "verdicts": [{**data["verdicts"][i], "text": data["texts"][data["verdicts"][i]["text"]]} for i in refs]}
             for a, b, refs, _ in data["cells"]]
    shown = [v for c in cells for v in c["verdicts"]]
    assert shown, "verdicts on the hidden card are shown under its neutral id"
    for c in cells:
        text = json.dumps(c["verdicts"], ensure_ascii=False)
        assert "theirs" not in text
        if c["a"] != c["b"]:
            assert c["b"] not in text
        assert all("hidden@p2:3.1" in v["action"] for v in c["verdicts"])


def test_the_shipped_template_is_one():
    template = load_template(ROOT / "examples" / "berserk" / "matrix-face-to-face.yaml")
    filled = fill(template.data, {"A": "Вайл", "B": "Ассасин"})
    assert [c.card for c in situation_from_data(filled).cards] == ["Вайл", "Ассасин"]


def test_an_action_kind_no_verdict_has_is_reported(tmp_path):
    template = write(tmp_path, TEMPLATE)
    result = subprocess.run(
        [sys.executable, "-m", "pybridge", "matrix", "--cards", "name=Вайл", "--template", template, "--jobs", "1",
         "--action", "strike_atack", "--action", "strike_attack"], capture_output=True, text=True, timeout=600,
        cwd=ROOT)
    assert result.returncode == 1
    assert "no verdict of any pair is a 'strike_atack' action" in result.stderr
    assert "did you mean 'strike_attack'" in result.stderr
    assert "strike_attack(A, B)" in result.stdout
