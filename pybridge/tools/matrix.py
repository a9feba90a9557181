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
        raise JudgeError(exc.message, source=source, field="game") from None
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
# Selecting cards


def _features(entry: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for feature in entry.get("features") or []:
        names.update([feature] if isinstance(feature, str) else feature)
    return names


def _card_values(entry: dict[str, Any], key: str) -> set[str]:
    if key == "name":
        return {str(entry["name"])}
    if key == "feature":
        return _features(entry)
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
    ``feature`` or a card property of the catalogue (``type``, ``element``, ...)."""
    entries = list(game.cards.values())
    properties = sorted({key for e in entries for key in (e.get("properties") or {})})
    keys = ["name", "feature", *properties]
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


def _as_seen(ids: dict[str, set[str]], filled: dict[str, Any], player: str | None) -> dict[str, set[str]]:
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
    for a in cards:
        for b in cards:
            filled = fill(template.data, {"A": a, "B": b})
            pair = Pair(a, b, _as_seen(slot_ids(template, filled), filled, player))
            yield pair, Task(f"{template.source} ({pair.label})", data=filled)


def _id_pattern(ids: Iterable[str]) -> re.Pattern | None:
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
    pattern_a, pattern_b = _id_pattern(pair.ids["A"]), _id_pattern(pair.ids["B"])
    both = _id_pattern(pair.ids["A"] | pair.ids["B"])
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
table{border-collapse:collapse}th,td{border:1px solid #bbb;padding:4px 6px;vertical-align:top}
th{background:#f2f2f2;position:sticky;top:0}th.row{position:static;text-align:left}
td{cursor:pointer;font-size:12px;white-space:nowrap}td:hover{outline:2px solid #36c}
.legal{background:#e3f4e1}.illegal{background:#f9e0de}.mixed{background:#fbf0cf}.none{background:#fff;color:#888}
.error{background:#ddd}.selected{outline:3px solid #36c}
#detail{margin-top:1.5em;border-top:2px solid #36c;padding-top:.5em}
#detail pre{background:#f7f7f7;padding:.5em;max-height:30em;overflow:auto;font-size:12px}
"""

_SCRIPT = """
const cells = JSON.parse(document.getElementById('cells').textContent);
const detail = document.getElementById('detail');
function add(parent, tag, text) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; parent.appendChild(e); return e; }
function show(td) {
  document.querySelectorAll('td.selected').forEach(e => e.classList.remove('selected'));
  td.classList.add('selected');
  const c = cells[Number(td.dataset.cell)];
  detail.replaceChildren();
  add(detail, 'h2', 'A = ' + c.a + ', B = ' + c.b);
  add(detail, 'p', 'Situation: ' + c.situation);
  if (c.error) { add(detail, 'p', 'Error: ' + (c.error.field ? c.error.field + ': ' : '') + c.error.message); return; }
  if (!c.verdicts.length) { add(detail, 'p', 'No action of this situation names both cards.'); return; }
  for (const v of c.verdicts) {
    add(detail, 'h3', v.player + ': ' + v.action + ' \\u2014 ' + v.verdict + (v.certainty === 'some' ? ' (under some treatment of hidden cards)' : ''));
    add(detail, 'p', 'Cites: ' + (v.cites.length ? v.cites.join(', ') : '(none)'));
    add(detail, 'pre', JSON.stringify(v.justification, null, 2));
  }
}
document.querySelectorAll('td[data-cell]').forEach(td => td.addEventListener('click', () => show(td)));
"""


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no '</' or '<!--' can end or change it."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


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
            lines = "<br>".join(e(line) for line in cell_lines(c))
            tds.append(f'<td class="{c.state}" data-cell="{index[a, b]}" title="{e(c.situation)}">{lines}</td>')
        body.append(f'<tr><th class="row">{e(a)}</th>{"".join(tds)}</tr>')
    data = [{"a": c.a, "b": c.b, "situation": c.situation, "error": c.error,
             "verdicts": [{k: v.get(k) for k in ("player", "action", "verdict", "cites", "certainty", "justification")}
                          for v in c.verdicts]} for c in cells]
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>'
            f"<style>{_STYLE}</style></head><body><h1>{e(title)}</h1>"
            "<p>Rows: card A; columns: card B. ✓ legal, ✗ illegal (with the clauses that bar it); "
            "— no action names both cards. Click a cell for its verdicts' citations and justifications.</p>"
            f"<table><thead><tr><th>A \\ B</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            '<div id="detail"><p>Click a cell.</p></div>'
            f'<script type="application/json" id="cells">{_script_json(data)}</script>'
            f"<script>{_SCRIPT}</script></body></html>\n")


FORMATS = {".md": "md", ".markdown": "md", ".csv": "csv", ".html": "html", ".htm": "html"}


def render(cells: list[Cell], fmt: str, *, title: str) -> str:
    if fmt == "md":
        return markdown(cells, title=title)
    if fmt == "csv":
        return csv_text(cells)
    return html_page(cells, title=title)


def format_of(path: Path) -> str:
    try:
        return FORMATS[path.suffix.lower()]
    except KeyError:
        raise JudgeError(f"cannot tell the table format from the suffix {path.suffix!r}; use "
                         + ", ".join(sorted(FORMATS)), field="--output") from None
