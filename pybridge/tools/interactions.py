"""Which cards interact, and why: every ordered pair of cards against plain stand-ins.

For a pair (A, B) placed by a template, the situation with both cards is compared with the same
situation where B is a *plain stand-in* (an inline card with B's type, element, class, rank,
strike, health and movement, and no features, protections or text), and with the one where A is.
Only the actions naming both cards count, written with A and B in place of their ids. What differs
(an action, a verdict, a certainty, a consequence, an obligation) is an interaction, with the
clauses the real card's verdict cites and the stand-in's does not: the replaced card's feature and
the rule that reads it. A card with no features and no protections is its own stand-in, so a pair
of two such cards is not even judged.

Each situation is judged once per content: its key is the hash of the filled situation (catalogue
cards expanded to their entries) and of the rules base without the card catalogue, so a rerun after
editing one card judges again only the situations holding that card.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from pybridge.errors import JudgeError
from pybridge.game.catalogue import Game, load_game
from pybridge.tools import matrix
from pybridge.tools.batch import Outcome, Settings, Summary, Task, run

STAND_IN_PROPERTIES = ("type", "element", "class", "rank", "strike", "health", "movement")
STAND_IN_NAME = "plain stand-in"
EXTRA = "extra"  # the mark of a card read from an --extra-cards file, written inline into its situations  # one name for every stand-in, so equal stand-ins make equal situations
# What a judged situation's record holds; bumped when that changes, so older records are not reused.
RECORD_VERSION = 2
ROW_COLUMNS = ("a", "b", "template", "stand_in", "replaced", "player", "action", "kind", "change", "real",
               "plain", "clauses", "features")


# --------------------------------------------------------------------------
# Stand-ins and placement


def card_features(entry: dict[str, Any], *, with_unmodelled: bool = False) -> list[str]:
    """A catalogue card's feature names, then its protections as ``protection:KIND``. Without
    ``with_unmodelled``, the parts the catalogue lists under ``unmodelled`` (the rules base cannot
    read them yet, see docs/set-1-features.md) are left out: they cannot change a verdict."""
    unmodelled = [] if with_unmodelled else entry.get("unmodelled") or []
    skipped_features = {u.get("feature") for u in unmodelled if isinstance(u, dict)}
    skipped_protections = {u.get("protection") for u in unmodelled if isinstance(u, dict)}
    names = sorted(matrix.card_feature_names(entry) - skipped_features)
    return names + [f"protection:{kind}" for kind in entry.get("protections") or [] if kind not in skipped_protections]


def is_plain(entry: dict[str, Any], *, with_unmodelled: bool = False) -> bool:
    """Whether a card is its own stand-in: nothing on it the rules base reads."""
    return not card_features(entry, with_unmodelled=with_unmodelled)


def stand_in(entry: dict[str, Any]) -> dict[str, Any]:
    """The inline card that keeps a catalogue card's body and drops its text."""
    properties = entry.get("properties") or {}
    return {"name": STAND_IN_NAME, "properties": {k: properties[k] for k in STAND_IN_PROPERTIES if k in properties}}


def placed(template: matrix.Template, filled: dict[str, Any], entries: dict[str, dict[str, Any]],
           plain: str | None = None) -> dict[str, Any]:
    """The filled template with each slot card placed by its kind; the ``plain`` slot's card
    replaced by its stand-in."""
    data = matrix.place_slots(template, filled, entries)
    cards = []
    for before, after in zip(template.data.get("cards") or [], data.get("cards") or []):
        slot = matrix.slot_of(before)
        if slot is not None and isinstance(after, dict) and (slot == plain or entries[slot].get(EXTRA)):
            kept = {k: v for k, v in after.items() if k not in matrix.CARD_FIELDS + ("features", "protections")}
            after = {**kept, **(stand_in(entries[slot]) if slot == plain else inline(entries[slot]))}
        cards.append(after)
    return {**data, "cards": cards}


def inline(entry: dict[str, Any]) -> dict[str, Any]:
    """An extra card (not in the game's catalogue) written into the situation in full."""
    return {"name": entry["name"], **{k: entry[k] for k in ("properties", "features", "protections") if entry.get(k)}}


# --------------------------------------------------------------------------
# Content keys


def rules_key(game: Game) -> str:
    """The rules base's digest without the card catalogue (a card's entry goes into the key of
    each situation that holds it instead), and the compiler's version."""
    from pybridge.game.cache import combined_key, content_key, save_fingerprints
    from pybridge.game.encodings import asp_root
    from pybridge.ground import compiler, specialise

    root = asp_root()
    catalogue = {root / game.name / "sets"}
    parts = [compiler.COMPILER_VERSION, content_key(Path(compiler.__file__)), content_key(Path(specialise.__file__))]
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.name == "cards.yaml" or any(folder in path.parents for folder in catalogue):
            continue
        parts += [path.relative_to(root).as_posix(), content_key(path)]
    key = combined_key(parts)
    save_fingerprints()
    return key


def situation_key(data: dict[str, Any], game: Game, rules: str, settings: Settings) -> str:
    cards = sorted({c["card"] for c in data.get("cards") or [] if isinstance(c, dict) and isinstance(c.get("card"), str)})
    material = {"record": RECORD_VERSION, "situation": data, "catalogue": {name: game.cards.get(name) for name in cards}, "rules": rules,
                "settings": [settings.player, settings.edition, sorted(settings.options.items())]}
    return hashlib.sha256(msgspec.json.encode(material, order="sorted")).hexdigest()


class JudgedStore:
    """Judged situations by content key, kept in one JSON-lines file (the last line of a key wins)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.known: dict[str, dict[str, Any]] = {}
        if path is not None and path.exists():
            with path.open(encoding="utf-8") as handle:
                for line in handle:
                    try:
                        record = json.loads(line)
                    except json.JSONDecodeError:  # a line cut short by an interrupted run
                        continue
                    self.known[record["key"]] = record

    def add(self, records: list[dict[str, Any]]) -> None:
        for record in records:
            self.known[record["key"]] = record
        if self.path is not None and records:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


# --------------------------------------------------------------------------
# Planning: the situations each pair needs


@dataclass
class PairPlan:
    a: str
    b: str
    template: str
    ids: dict[str, set[str]]
    real: str                                              # key of the situation with both cards
    plain: dict[str, str] = field(default_factory=dict)    # slot -> key of the situation with its stand-in


@dataclass
class Plan:
    pairs: list[PairPlan] = field(default_factory=list)
    situations: dict[str, Task] = field(default_factory=dict)  # key -> the situation to judge
    unplaced: dict[tuple[str, str], str] = field(default_factory=dict)  # (template, card) -> why
    plain_pairs: int = 0  # pairs of two featureless cards, not judged


def plan(templates: list[matrix.Template], cards: list[str], game: Game, settings: Settings, *,
         with_unmodelled: bool = False) -> Plan:
    """The situations every pair needs. A card with nothing the rules base reads (``with_unmodelled``:
    nothing at all) gets no stand-in, and a pair of two such cards is not judged."""
    rules = rules_key(game)
    result = Plan()
    seen_ids: dict[str, dict[str, set[str]]] = {}
    for template in templates:
        name = Path(template.source).name
        placeable = []
        for card in cards:
            why = matrix.unplaceable(game.cards[card])
            if why:
                result.unplaced[name, card] = why
            else:
                placeable.append(card)
        for a in placeable:
            for b in placeable:
                entries = {"A": game.cards[a], "B": game.cards[b]}
                stand_ins = [slot for slot in matrix.SLOTS if not is_plain(entries[slot], with_unmodelled=with_unmodelled)]
                if not stand_ins:
                    result.plain_pairs += 1
                    continue
                filled = matrix.fill(template.data, {"A": a, "B": b})
                real = placed(template, filled, entries)
                ids = _slot_ids(template, real, settings.player, seen_ids)
                pair = PairPlan(a, b, name, ids, _add(result, real, f"{name} (A={a}, B={b})", game, rules, settings))
                for slot in stand_ins:
                    data = placed(template, filled, entries, plain=slot)
                    pair.plain[slot] = _add(result, data, f"{name} (A={a}, B={b}, {slot} plain)", game, rules, settings)
                result.pairs.append(pair)
    return result


def _slot_ids(template: matrix.Template, data: dict[str, Any], player: str | None,
              seen: dict[str, dict[str, set[str]]]) -> dict[str, set[str]]:
    """The slot cards' ids as the asking player sees them; the same for every pair whose slot cards
    sit in the same places, so worked out once per placement."""
    where = json.dumps([{k: c.get(k) for k in ("id", "cell", "zone", "hidden", "controller")}
                        for c in data.get("cards") or [] if isinstance(c, dict)], sort_keys=True)
    key = f"{template.source}|{where}"
    if key not in seen:
        seen[key] = matrix.ids_as_seen(matrix.slot_ids(template, data), data, player)
    return seen[key]


def _add(result: Plan, data: dict[str, Any], source: str, game: Game, rules: str, settings: Settings) -> str:
    key = situation_key(data, game, rules, settings)
    result.situations.setdefault(key, Task(source, data=data))
    return key


# --------------------------------------------------------------------------
# Judging


def judge(work: Plan, store: JudgedStore, pool, *, settings: Settings, chunk: int,
          summary: Summary | None = None, progress=None) -> int:
    """Judge the plan's situations the store does not know yet; returns how many were judged.
    ``progress`` is a bar (tqdm's interface: reset with the number to judge, update per situation)."""
    todo = [(key, task) for key, task in work.situations.items() if key not in store.known]
    if progress is not None:
        progress.reset(total=len(todo))
    ids_of = _ids_by_key(work)
    settings = Settings(player=settings.player, edition=settings.edition, options=settings.options,
                        time_limit=settings.time_limit, details=True)
    batch: list[dict[str, Any]] = []
    for (key, _), outcome in zip(todo, run((task for _, task in todo), settings, pool, chunk=chunk, summary=summary)):
        batch.append(_record(key, outcome, ids_of[key]))
        if progress is not None:
            progress.update(1)
        if len(batch) >= 500:
            store.add(batch)
            batch = []
    store.add(batch)
    return len(todo)


def _ids_by_key(work: Plan) -> dict[str, dict[str, set[str]]]:
    ids: dict[str, dict[str, set[str]]] = {}
    for pair in work.pairs:
        for key in (pair.real, *pair.plain.values()):
            ids[key] = pair.ids
    return ids


def _record(key: str, outcome: Outcome, ids: dict[str, set[str]]) -> dict[str, Any]:
    """What is kept of a judged situation: its verdicts on actions naming both slot cards, with
    A and B in place of their ids (the same ids in a pair's situation and its stand-ins')."""
    if outcome.error:
        return {"key": key, "error": outcome.error}
    pair = matrix.Pair("A", "B", ids)
    shown = matrix.cell(pair, outcome)
    slot = {i: s for s, found in ids.items() for i in found}
    rename = matrix.id_pattern(slot)
    kept = []
    for v in shown.verdicts:
        kept.append({"player": v["player"], "action": v["pair_action"], "verdict": v["verdict"],
                     "certainty": v["certainty"], "cites": v["cites"],
                     "consequences": [[rename.sub(lambda m: slot[m.group(1)], effect), cites]
                                      for effect, cites in zip(v["consequences"], v["consequence_cites"])],
                     "obligations": v["obliged_by"], "text": v["text"]})
    return {"key": key, "verdicts": kept}


# --------------------------------------------------------------------------
# Comparing a pair with its stand-ins


@dataclass
class Difference:
    a: str
    b: str
    template: str
    stand_in: str          # the slot whose card was replaced by its stand-in
    replaced: str          # that card's name
    player: str
    action: str            # with A and B in place of the ids
    change: str            # action, verdict, certainty, consequence, obligation
    real: str              # what holds with the real card
    plain: str             # what holds with the stand-in
    clauses: list[str]     # cited with the real card, not with the stand-in
    features: list[str]    # the replaced card's features those clauses read
    text: list[str] = field(default_factory=list)        # the real card's verdict, as a ruling reads it
    plain_text: list[str] = field(default_factory=list)  # the stand-in's verdict

    @property
    def kind(self) -> str:
        return self.action.split("(", 1)[0]

    def row(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "template": self.template, "stand_in": self.stand_in,
                "replaced": self.replaced, "player": self.player, "action": self.action, "kind": self.kind,
                "change": self.change, "real": self.real, "plain": self.plain, "clauses": self.clauses,
                "features": self.features}


def _state(v: dict[str, Any] | None) -> str:
    return "no such action" if v is None else v["verdict"]


def _cited(v: dict[str, Any] | None) -> set[str]:
    if v is None:
        return set()
    return set(v["cites"]) | {c for _, cites in v["consequences"] for c in cites} | set(v["obligations"])


def _changes(real: dict[str, Any] | None, plain: dict[str, Any] | None) -> Iterator[tuple[str, str, str]]:
    if real is None or plain is None:
        yield "action", _state(real), _state(plain)
        return
    if real["verdict"] != plain["verdict"]:
        yield "verdict", real["verdict"], plain["verdict"]
    if real["certainty"] != plain["certainty"]:
        yield "certainty", real["certainty"], plain["certainty"]
    real_effects = {effect for effect, _ in real["consequences"]}
    plain_effects = {effect for effect, _ in plain["consequences"]}
    for effect in sorted(real_effects - plain_effects):
        yield "consequence", effect, "—"
    for effect in sorted(plain_effects - real_effects):
        yield "consequence", "—", effect
    if real["obligations"] != plain["obligations"]:
        yield "obligation", " ".join(real["obligations"]) or "—", " ".join(plain["obligations"]) or "—"


def feature_clause(name: str) -> str:
    return "feature:" + name.replace("_", "-")


def _read_features(clauses: list[str], features: list[str]) -> list[str]:
    """The features the clauses name (``feature:NAME``). Protections are read by numbered rules, not
    by a clause named after them: failing a named feature, the card's protections are listed, and
    failing those, every feature of the card."""
    named = [f for f in features if feature_clause(f) in clauses]
    protections = [f for f in features if f.startswith("protection:")]
    return named or protections or features


def compare(pair: PairPlan, store: JudgedStore, game: Game) -> Iterator[Difference]:
    real = store.known[pair.real]
    for slot, key in pair.plain.items():
        plain = store.known[key]
        if real.get("error") or plain.get("error"):
            continue  # reported once, by judged_errors
        replaced = pair.a if slot == "A" else pair.b
        features = card_features(game.cards[replaced], with_unmodelled=True)
        with_real = {(v["player"], v["action"]): v for v in real["verdicts"]}
        with_plain = {(v["player"], v["action"]): v for v in plain["verdicts"]}
        for player, action in sorted(with_real.keys() | with_plain.keys()):
            r, p = with_real.get((player, action)), with_plain.get((player, action))
            for change, now, before in _changes(r, p):
                clauses = sorted(_cited(r) - _cited(p)) or sorted(_cited(p) - _cited(r))
                yield Difference(pair.a, pair.b, pair.template, slot, replaced, player, action, change, now, before,
                                 clauses, _read_features(clauses, features), r["text"] if r else [],
                                 p["text"] if p else [])


def judged_errors(work: Plan, store: JudgedStore) -> list[dict[str, Any]]:
    """Situations that could not be judged, one line per distinct message with a count and an example."""
    grouped: dict[str, dict[str, Any]] = {}
    for key, task in work.situations.items():
        error = store.known.get(key, {}).get("error")
        if error:
            message = f"{error.get('field') + ': ' if error.get('field') else ''}{error['message']}"
            seen = grouped.setdefault(message, {"message": message, "count": 0, "example": task.source})
            seen["count"] += 1
    return sorted(grouped.values(), key=lambda e: -e["count"])


# --------------------------------------------------------------------------
# The report


@dataclass
class Report:
    title: str
    cards: int
    templates: list[str]
    differences: list[Difference]
    unplaced: dict[tuple[str, str], str]
    errors: list[dict[str, Any]]
    pairs_judged: int
    plain_pairs: int
    situations: int
    judged_now: int

    def ranked_pairs(self) -> list[tuple[tuple[str, str], int]]:
        counts = Counter((d.a, d.b) for d in self.differences)
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    def per_feature(self) -> list[tuple[str, int]]:
        return Counter(f for d in self.differences for f in d.features).most_common()

    def per_clause(self) -> list[tuple[str, int]]:
        return Counter(c for d in self.differences for c in d.clauses).most_common()

    def summary_text(self) -> str:
        return (f"{self.cards} cards, {len(self.templates)} templates: {self.pairs_judged} pairs compared with their "
                f"stand-ins ({self.plain_pairs} pairs of plain cards skipped), {len(self.ranked_pairs())} interact, "
                f"{len(self.differences)} differences; {self.situations} situations, {self.judged_now} judged now "
                f"(the rest from the cache); {len(self.unplaced)} cards not placeable, {len(self.errors)} kinds of error")


def interactions(templates: list[matrix.Template], cards: list[str], *, pool, settings: Settings | None = None,
                 cache: Path | None = None, chunk: int = 8, summary: Summary | None = None, progress=None,
                 title: str = "Interactions", with_unmodelled: bool = False, game: Game | None = None) -> Report:
    """Plan, judge what the cache does not hold, compare; the report of every difference."""
    settings = settings or Settings()
    if not templates:
        raise JudgeError("at least one template is needed", field="--template")
    games = {t.game for t in templates}
    if len(games) > 1:
        raise JudgeError(f"the templates are of different games ({', '.join(sorted(games))}); one run is one game",
                         field="--template")
    game = game or load_game(games.pop())
    work = plan(templates, cards, game, settings, with_unmodelled=with_unmodelled)
    store = JudgedStore(cache)
    judged = judge(work, store, pool, settings=settings, chunk=chunk, summary=summary, progress=progress)
    differences = [d for pair in work.pairs for d in compare(pair, store, game)]
    return Report(title, len(cards), [Path(t.source).name for t in templates], differences, work.unplaced,
                  judged_errors(work, store), len(work.pairs), work.plain_pairs, len(work.situations), judged)


# --------------------------------------------------------------------------
# Writing it out


def jsonl_text(report: Report) -> str:
    return "".join(json.dumps({**d.row(), "text": d.text, "plain_text": d.plain_text}, ensure_ascii=False) + "\n"
                   for d in report.differences)


def csv_text(report: Report) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=ROW_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for d in report.differences:
        row = d.row()
        writer.writerow({**row, "clauses": " ".join(row["clauses"]), "features": " ".join(row["features"])})
    return buffer.getvalue()


def write_parquet(report: Report, path: Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise JudgeError("Parquet output needs pyarrow: pip install 'ccg-judge[parquet]'", field="--output") from None
    rows = [d.row() for d in report.differences]
    columns = {name: [r[name] for r in rows] for name in ROW_COLUMNS}
    table = pa.table({name: pa.array(values, type=pa.list_(pa.string()) if name in ("clauses", "features")
                                     else pa.string()) for name, values in columns.items()})
    pq.write_table(table, path)


FORMATS = {".jsonl": "jsonl", ".csv": "csv", ".parquet": "parquet", ".html": "html", ".htm": "html"}


def format_of(path: Path) -> str:
    return matrix.format_of(path, FORMATS, "report")


def write(report: Report, path: Path) -> None:
    fmt = format_of(path)
    if fmt == "parquet":
        write_parquet(report, path)
        return
    from pybridge.tools import interactions_page

    text = {"jsonl": jsonl_text, "csv": csv_text, "html": interactions_page.html_page}[fmt](report)
    path.write_text(text, encoding="utf-8")


def with_extra_cards(game: Game, path: str | Path) -> Game:
    """The game with more cards: a YAML file of ``cards:`` in the catalogue's entry shape (name,
    properties, features, protections), for cards a set does not have yet or a test needs."""
    from pybridge.game.cache import read_game_yaml

    source = str(path)
    data = read_game_yaml(Path(path), source=source)
    entries = data.get("cards") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise JudgeError("expected a mapping with a list 'cards' of card entries", source=source, field="cards")
    cards = dict(game.cards)
    for i, entry in enumerate(entries):
        where = f"cards[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise JudgeError("expected a card entry with a 'name'", source=source, field=where)
        if not isinstance(entry.get("properties"), dict):
            raise JudgeError("expected 'properties' (type, element, strike, ...), as in the catalogue",
                             source=source, field=f"{where}.properties")
        if entry["name"] in cards:
            raise JudgeError(f"card {entry['name']!r} is in the {game.name} catalogue already; give it another name",
                             source=source, field=f"{where}.name")
        cards[entry["name"]] = {**entry, EXTRA: source}
    return msgspec.structs.replace(game, cards=cards)


def default_cache() -> Path | None:
    from pybridge.game.cache import cache_dir

    folder = cache_dir()
    return folder / "interactions.jsonl" if folder is not None else None


def load_templates(paths: Iterable[str | Path]) -> list[matrix.Template]:
    return [matrix.load_template(p) for p in paths]


def run_interactions(templates: list[str | Path], selection: list[str], *, jobs: int | None = None,
                     executor_kind: str = "local", cache: str | Path | None = None, player: str | None = None) -> Report:
    """The Python entry of ``ccg-judge interactions`` (here, not in pybridge.api: the API is a stage
    below the tools). ``cache`` is the file of judged situations a later run reuses (None: no reuse)."""
    from pybridge.tools.batch import executor

    loaded = load_templates(templates)
    cards = matrix.select_cards(load_game(loaded[0].game), selection)
    with executor(executor_kind, jobs) as pool:
        return interactions(loaded, cards, pool=pool, settings=Settings(player=player),
                            cache=Path(cache) if cache is not None else None)
