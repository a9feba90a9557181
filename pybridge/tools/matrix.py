"""Card × card interaction matrices: one situation per ordered pair of catalogue cards.

A template is a situation file whose text values may hold the placeholders ``{A}`` and
``{B}``. They are filled in the parsed data (never in text that is parsed again), one
situation per ordered pair of the selected cards, and the situations are checked with
the batch machinery. A cell shows the verdicts on actions that name both the card that
took ``{A}`` and the card that took ``{B}`` (by their ids), with those ids written as A
and B; the HTML page also holds each verdict's justification.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pybridge.errors import JudgeError, close_matches
from pybridge.game.catalogue import Game, load_game
from pybridge.input import limits
from pybridge.input.situation import parse_text, situation_from_data
from pybridge.input.viewpoint import unknown_card_ids
from pybridge.tools.batch import Outcome, Task, spreadsheet_cell

SLOTS = ("A", "B")
PLACEHOLDER = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*)\}")
# Card entries whose card (catalogue name) or name (inline card) holds a placeholder take the pair's card.
CARD_FIELDS = ("card", "name")
ALL = "all"
FLYING = "flying"
# Where a card of a kind lives when the template puts it in a cell (the board is for creatures).
ZONE_OF_TYPE = {"spell": "hand"}
UNPLACEABLE_TYPES = {"equipment": "equipment goes on a creature, and the situation format has no way to attach it",
                     "artifact": "an artifact goes on a creature, and the situation format has no way to attach it",
                     "terrain": "a terrain has no place on the board of the situation format"}


# --------------------------------------------------------------------------
# Templates


@dataclass(frozen=True)
class Template:
    source: str
    data: dict[str, Any]
    game: str


def _walk(value: Any, path: list[Any]) -> Iterator[tuple[list[Any], Any, bool]]:
    """Every text of the data with its field path; the flag says whether it is a key."""
    if isinstance(value, str):
        yield path, value, False
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                yield path + [key], key, True
            yield from _walk(item, path + [key])
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _walk(item, path + [i])


def load_template(path: str | Path) -> Template:
    """Read a template and check its placeholders: {A} and {B}, in values only."""
    source = str(path)
    raw = limits.read_input_file(path, source=source)
    try:
        data = parse_text(raw.decode("utf-8"), source=source)
    except UnicodeDecodeError:
        raise JudgeError("not UTF-8 text", source=source) from None
    if not isinstance(data, dict):
        raise JudgeError(f"expected a mapping at the top level, got {type(data).__name__}", source=source)
    limits.check_data(data, source=source)
    for parts, text, is_key in _walk(data, []):
        for match in PLACEHOLDER.finditer(text):
            where = limits.field_path(parts)
            if match.group(1) not in SLOTS:
                raise JudgeError(f"unknown placeholder {match.group(0)}; a template has {{A}} and {{B}}",
                                 source=source, field=where)
            if is_key:
                raise JudgeError(f"placeholder {match.group(0)} in a key; placeholders go in values",
                                 source=source, field=where)
    cards = data.get("cards") if isinstance(data.get("cards"), list) else []
    taken = {m.group(1) for card in cards if isinstance(card, dict) for name in CARD_FIELDS
             if isinstance(card.get(name), str) for m in PLACEHOLDER.finditer(card[name])}
    missing = [f"{{{slot}}}" for slot in SLOTS if slot not in taken]
    if missing:
        raise JudgeError(f"no card takes {' or '.join(missing)}: a matrix needs a card whose 'card' (catalogue "
                         "name) or 'name' holds {A} and one for {B}, e.g. card: \"{A}\"", source=source)
    game = data.get("game")
    if not isinstance(game, str):
        raise JudgeError("is required: the game whose catalogue the cards come from", source=source, field="game")
    try:
        load_game(game)
    except JudgeError as exc:
        raise exc.located(source=source, field="game", line=None, column=None) from None
    return Template(source, data, game)


def fill(value: Any, cards: dict[str, str]) -> Any:
    """The data with every placeholder replaced by its card's name (one pass: a name that
    itself looks like a placeholder is left as it is)."""
    if isinstance(value, str):
        return PLACEHOLDER.sub(lambda m: cards.get(m.group(1), m.group(0)), value)
    if isinstance(value, dict):
        return {key: fill(item, cards) for key, item in value.items()}
    if isinstance(value, list):
        return [fill(item, cards) for item in value]
    return value


def slot_of(card: Any) -> str | None:
    """The slot a template's card entry takes (its card or name holds {A} or {B}), or None."""
    if not isinstance(card, dict):
        return None
    for name in CARD_FIELDS:
        text = card.get(name)
        if isinstance(text, str):
            match = PLACEHOLDER.search(text)
            if match:
                return match.group(1)
    return None


def slot_ids(template: Template, filled: dict[str, Any]) -> dict[str, set[str]]:
    """Slot -> ids (in the filled situation) of the cards that took that slot's card."""
    ids: dict[str, set[str]] = {slot: set() for slot in SLOTS}
    for before, after in zip(template.data.get("cards") or [], filled.get("cards") or []):
        if not isinstance(before, dict) or not isinstance(after, dict):
            continue
        for name in CARD_FIELDS:
            text = before.get(name)
            if isinstance(text, str):
                for match in PLACEHOLDER.finditer(text):
                    if isinstance(after.get("id"), str):
                        ids[match.group(1)].add(after["id"])
    return ids


# --------------------------------------------------------------------------
# Placing a card where its kind lives


def unplaceable(entry: dict[str, Any]) -> str | None:
    """Why a card cannot be put into a template's situation, or None."""
    kind = (entry.get("properties") or {}).get("type")
    if kind is None:
        return "its type is not known (the catalogue omits it), so there is no telling where it lives"
    return UNPLACEABLE_TYPES.get(kind)


def place(card: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """A template's card entry moved to where its card's kind lives: a face-up flyer in the flying
    zone (a hidden one stays face down in its cell, 532), a spell in its owner's hand."""
    properties = entry.get("properties") or {}
    zone = ZONE_OF_TYPE.get(properties.get("type"))
    if zone is None and properties.get("movement") == FLYING and not card.get("hidden"):
        zone = FLYING
    if zone is None or "cell" not in card:
        return card
    moved = {k: v for k, v in card.items() if k != "cell"}
    moved["zone"] = zone
    if zone != FLYING:
        moved.pop("arrived", None)
    return moved


def place_slots(template: Template, filled: dict[str, Any], entries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The filled template with each slot's card placed where its kind lives (see place)."""
    cards = [place(after, entries[slot]) if (slot := slot_of(before)) and isinstance(after, dict) else after
             for before, after in zip(template.data.get("cards") or [], filled.get("cards") or [])]
    return {**filled, "cards": cards}


# --------------------------------------------------------------------------
# Selecting cards


def card_feature_names(entry: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for feature in entry.get("features") or []:
        names.update([feature] if isinstance(feature, str) else feature)
    return names


def _card_values(entry: dict[str, Any], key: str) -> set[str]:
    if key == "name":
        return {str(entry["name"])}
    if key == "feature":
        return card_feature_names(entry)
    if key == "set":
        return {str(entry["set"])} if entry.get("set") else set()
    value = (entry.get("properties") or {}).get(key)
    if value is None:
        return set()
    return {str(v) for v in value} if isinstance(value, list) else {str(value)}


def _nearest(word: str, choices: Iterable[str]) -> str:
    close = close_matches(word, sorted(choices), n=3, cutoff=0.5)
    return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""


def select_cards(game: Game, selection: Iterable[str]) -> list[str]:
    """Catalogue cards matching every filter, in catalogue order.

    A filter is ``all`` or ``KEY=VALUE[,VALUE...]`` (any of the values): KEY is ``name``,
    ``feature``, ``set`` (the set file a card comes from) or a card property of the catalogue (``type``, ``element``, ...)."""
    entries = list(game.cards.values())
    properties = sorted({key for e in entries for key in (e.get("properties") or {})})
    keys = ["name", "feature", "set", *properties]
    chosen = entries
    for text in selection:
        text = text.strip()
        if text == ALL:
            continue
        key, sep, values_text = text.partition("=")
        key = key.strip()
        values = [v.strip() for v in values_text.split(",") if v.strip()]
        if not sep or not values:
            raise JudgeError(f"a card selection is 'all' or KEY=VALUE[,VALUE...], got {text!r}", field="--cards")
        if key not in keys:
            raise JudgeError(f"unknown key {key!r}; the {game.name} catalogue has {', '.join(keys)}"
                             + _nearest(key, keys), field="--cards")
        present = {v for e in entries for v in _card_values(e, key)}
        for value in values:
            if value not in present:
                raise JudgeError(f"no card of the {game.name} catalogue has {key}={value!r}"
                                 + _nearest(value, present), field="--cards")
        chosen = [e for e in chosen if _card_values(e, key) & set(values)]
    if not chosen:
        raise JudgeError(f"no card of the {game.name} catalogue matches every filter: {', '.join(selection)}",
                         field="--cards")
    return [str(e["name"]) for e in chosen]


# --------------------------------------------------------------------------
# Pairs and cells


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    ids: dict[str, set[str]]

    @property
    def label(self) -> str:
        return f"A={self.a}, B={self.b}"


def ids_as_seen(ids: dict[str, set[str]], filled: dict[str, Any], player: str | None) -> dict[str, set[str]]:
    """Add the neutral ids (``hidden@p2:3.1``) the asking player's verdicts use for slot cards
    hidden from them. An invalid situation adds nothing here: its check reports the error."""
    try:
        situation = situation_from_data(filled)
        neutral = unknown_card_ids(situation, player or situation.viewpoint)
    except JudgeError:
        return ids
    return {slot: found | {neutral[i] for i in found if i in neutral} for slot, found in ids.items()}


def pairs(template: Template, cards: list[str], *, player: str | None = None) -> Iterator[tuple[Pair, Task]]:
    """Every ordered pair (a card with itself included) and the situation to check for it."""
    game = load_game(template.game)
    for a in cards:
        for b in cards:
            filled = place_slots(template, fill(template.data, {"A": a, "B": b}), {"A": game.cards[a], "B": game.cards[b]})
            pair = Pair(a, b, ids_as_seen(slot_ids(template, filled), filled, player))
            yield pair, Task(f"{template.source} ({pair.label})", data=filled)


def id_pattern(ids: Iterable[str]) -> re.Pattern | None:
    ids = sorted(ids, key=len, reverse=True)
    if not ids:
        return None
    return re.compile(r"(?<=[(, ])(" + "|".join(re.escape(i) for i in ids) + r")(?=[,)])")


@dataclass
class Cell:
    a: str
    b: str
    situation: str
    verdicts: list[dict[str, Any]] = field(default_factory=list)  # shown ones, with "pair_action"
    error: dict[str, Any] | None = None

    @property
    def state(self) -> str:
        if self.error:
            return "error"
        kinds = {v["verdict"] for v in self.verdicts}
        return "none" if not kinds else kinds.pop() if len(kinds) == 1 else "mixed"


def _kind(action: str) -> str:
    return action.split("(", 1)[0]


def cell(pair: Pair, outcome: Outcome, *, actions: Iterable[str] = ()) -> Cell:
    """The verdicts of a pair's situation on actions naming both its A card and its B card."""
    result = Cell(pair.a, pair.b, outcome.situation, error=outcome.error)
    pattern_a, pattern_b = id_pattern(pair.ids["A"]), id_pattern(pair.ids["B"])
    both = id_pattern(pair.ids["A"] | pair.ids["B"])
    wanted = set(actions)
    if outcome.error or pattern_a is None or pattern_b is None:
        return result
    slot = {i: "A" for i in pair.ids["A"]} | {i: "B" for i in pair.ids["B"]}
    for verdict in outcome.verdicts:
        action = verdict["action"]
        if wanted and _kind(action) not in wanted:
            continue
        if pattern_a.search(action) and pattern_b.search(action):
            shown = {**verdict, "pair_action": both.sub(lambda m: slot[m.group(1)], action)}
            result.verdicts.append(shown)
    return result


def unmatched_actions(actions: Iterable[str], outcomes: Iterable[Outcome]) -> str | None:
    """A sentence naming the --action kinds no verdict of any pair has (a typo, most likely)."""
    seen = {_kind(v["action"]) for o in outcomes for v in o.verdicts}
    missing = [kind for kind in dict.fromkeys(actions) if kind not in seen]
    if not missing:
        return None
    hints = "".join(f" ({kind!r}{_nearest(kind, seen)})" if _nearest(kind, seen) else "" for kind in missing)
    return (f"no verdict of any pair is a {', '.join(repr(k) for k in missing)} action{hints}; "
            f"the kinds in this matrix are {', '.join(sorted(seen)) or '(none)'}")


# --------------------------------------------------------------------------
# Writing the table


MARK = {"legal": "✓", "illegal": "✗"}


def _entry(v: dict[str, Any], with_player: bool) -> str:
    who = f"{v['player']}: " if with_player else ""
    cites = f" ({', '.join(v['cites'])})" if v["verdict"] == "illegal" and v["cites"] else ""
    some = " (some)" if v.get("certainty") == "some" else ""
    return f"{MARK[v['verdict']]} {who}{v['pair_action']}{some}{cites}"


def cell_lines(c: Cell) -> list[str]:
    if c.error:
        return [f"error: {c.error.get('field') + ': ' if c.error.get('field') else ''}{c.error['message']}"]
    if not c.verdicts:
        return ["—"]
    with_player = len({v["player"] for v in c.verdicts}) > 1
    return [_entry(v, with_player) for v in c.verdicts]


def _grid(cells: list[Cell]) -> tuple[list[str], list[str], dict[tuple[str, str], Cell]]:
    rows = list(dict.fromkeys(c.a for c in cells))
    columns = list(dict.fromkeys(c.b for c in cells))
    return rows, columns, {(c.a, c.b): c for c in cells}


def _md(text: str) -> str:
    return html.escape(text, quote=False).replace("|", "\\|")


def markdown(cells: list[Cell], *, title: str) -> str:
    rows, columns, at = _grid(cells)
    out = [f"# {_md(title)}", "",
           "Rows: card A; columns: card B. ✓ legal, ✗ illegal (with the clauses that bar it); "
           "(some): legal under some treatment of hidden cards only; — no action names both cards.", "",
           "| A \\ B | " + " | ".join(_md(b) for b in columns) + " |",
           "|---|" + "---|" * len(columns)]
    for a in rows:
        out.append(f"| **{_md(a)}** | " + " | ".join("<br>".join(_md(line) for line in cell_lines(at[a, b]))
                                                   if (a, b) in at else "" for b in columns) + " |")
    return "\n".join(out) + "\n"


CSV_COLUMNS = ("a", "b", "situation", "player", "action", "pair_action", "verdict", "cites", "certainty",
               "error_file", "error_field", "error_message")


def csv_text(cells: list[Cell]) -> str:
    """One row per shown verdict (a pair with none: one row with empty verdict columns)."""
    buffer = io.StringIO()
    table = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n")
    table.writeheader()

    def write(row: dict[str, str]) -> None:  # as batch writes its cells: no formula, no raw control
        table.writerow({k: spreadsheet_cell(v) for k, v in row.items()})

    for c in cells:
        base = {"a": c.a, "b": c.b, "situation": c.situation}
        if c.error or not c.verdicts:
            error = c.error or {}
            write({**base, "error_file": error.get("file") or "", "error_field": error.get("field") or "",
                   "error_message": error.get("message") or ""})
        for v in c.verdicts:
            write({**base, "player": v["player"], "action": v["action"], "pair_action": v["pair_action"],
                   "verdict": v["verdict"], "cites": " ".join(v["cites"]), "certainty": v["certainty"]})
    return buffer.getvalue()


_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}th,td{border:1px solid #bbb;padding:2px 3px;vertical-align:top}
th{background:#f2f2f2;font-size:11px;font-weight:normal}thead th{writing-mode:vertical-rl;max-height:12em;overflow:hidden}
th.row{text-align:left;white-space:nowrap}
td{cursor:pointer;font-size:11px;text-align:center;min-width:1.2em}td:hover{outline:2px solid #36c}
.legal{background:#e3f4e1}.illegal{background:#f9e0de}.mixed{background:#fbf0cf}.none{background:#fff;color:#888}
.error{background:#ddd}.selected{outline:3px solid #36c}
#detail{margin-top:1.5em;border-top:2px solid #36c;padding-top:.5em}
#detail pre{background:#f7f7f7;padding:.5em;white-space:pre-wrap;font-size:12px}
"""

# A cell of the grid is one mark; its verdicts and their rulings show below the grid on a click.
STATE_MARK = {"legal": "✓", "illegal": "✗", "mixed": "±", "none": "·", "error": "!"}

_SCRIPT = """
const data = JSON.parse(document.getElementById('cells').textContent);
const texts = data.texts;
// A cell is [row card, column card, verdict numbers, error]; a verdict is stored once for every cell showing it.
const cells = data.cells.map(([a, b, refs, error]) => ({a: data.cards[a], b: data.cards[b], error, verdicts: refs.map(i => data.verdicts[i])}));
const detail = document.getElementById('detail');
function add(parent, tag, text) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; parent.appendChild(e); return e; }
function show(td) {
  document.querySelectorAll('td.selected').forEach(e => e.classList.remove('selected'));
  td.classList.add('selected');
  const c = cells[Number(td.dataset.cell)];
  detail.replaceChildren();
  add(detail, 'h2', 'A = ' + c.a + ', B = ' + c.b);
  if (c.error) { add(detail, 'p', 'Error: ' + (c.error.field ? c.error.field + ': ' : '') + c.error.message); return; }
  if (!c.verdicts.length) { add(detail, 'p', 'No action of this situation names both cards.'); return; }
  for (const v of c.verdicts) {
    add(detail, 'h3', v.player + ': ' + v.action + ' \\u2014 ' + v.verdict + (v.certainty === 'some' ? ' (under some treatment of hidden cards)' : ''));
    add(detail, 'p', 'Cites: ' + (v.cites.length ? v.cites.join(', ') : '(none)'));
    add(detail, 'pre', texts[v.text].join('\\n'));
  }
}
document.querySelectorAll('td[data-cell]').forEach(td => td.addEventListener('click', () => show(td)));
"""


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no '</' or '<!--' can end or change it."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _page_data(cells: list[Cell]) -> dict[str, Any]:
    """The cells as [row, column, verdict numbers, error], each distinct verdict (and each ruling
    text) stored once: the texts name the template's own ids, so most pairs share them and a whole
    set's page stays a few megabytes."""
    rows, columns, _ = _grid(cells)
    names = list(dict.fromkeys(rows + columns))
    number = {name: i for i, name in enumerate(names)}
    texts: dict[tuple[str, ...], int] = {}
    verdicts: dict[str, int] = {}
    shown = []
    for c in cells:
        refs = []
        for v in c.verdicts:
            lines = tuple(v.get("text") or ())
            entry = {**{k: v.get(k) for k in ("player", "action", "verdict", "cites", "certainty")},
                     "text": texts.setdefault(lines, len(texts))}
            refs.append(verdicts.setdefault(json.dumps(entry, ensure_ascii=False, sort_keys=True), len(verdicts)))
        shown.append([number[c.a], number[c.b], refs, c.error])
    return {"cards": names, "cells": shown, "verdicts": [json.loads(v) for v in verdicts],
            "texts": [list(lines) for lines in texts]}


def html_page(cells: list[Cell], *, title: str) -> str:
    """A self-contained page: inline CSS and script, the data embedded; nothing is fetched."""
    rows, columns, at = _grid(cells)
    index = {(c.a, c.b): i for i, c in enumerate(cells)}
    e = html.escape
    head = "".join(f"<th>{e(b)}</th>" for b in columns)
    body = []
    for a in rows:
        tds = []
        for b in columns:
            c = at.get((a, b))
            if c is None:
                tds.append("<td></td>")
                continue
            tds.append(f'<td class="{c.state}" data-cell="{index[a, b]}">{STATE_MARK[c.state]}</td>')
        body.append(f'<tr><th class="row">{e(a)}</th>{"".join(tds)}</tr>')
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>'
            f"<style>{_STYLE}</style></head><body><h1>{e(title)}</h1>"
            "<p>Rows: card A; columns: card B. ✓ legal, ✗ illegal, ± both, · no action names both cards, "
            "! an error. Click a cell for its verdicts, their clauses and their rulings.</p>"
            f"<table><thead><tr><th>A \\ B</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            '<div id="detail"><p>Click a cell.</p></div>'
            f'<script type="application/json" id="cells">{_script_json(_page_data(cells))}</script>'
            f"<script>{_SCRIPT}</script></body></html>\n")


FORMATS = {".md": "md", ".markdown": "md", ".csv": "csv", ".html": "html", ".htm": "html"}


def render(cells: list[Cell], fmt: str, *, title: str) -> str:
    if fmt == "md":
        return markdown(cells, title=title)
    if fmt == "csv":
        return csv_text(cells)
    return html_page(cells, title=title)


def format_of(path: Path, formats: dict[str, str] = FORMATS, what: str = "table") -> str:
    """The output format an --output path's suffix names (one of ``formats``)."""
    try:
        return formats[path.suffix.lower()]
    except KeyError:
        raise JudgeError(f"cannot tell the {what} format from the suffix {path.suffix!r}; use "
                         + ", ".join(sorted(formats)), field="--output") from None
