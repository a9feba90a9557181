"""Hypothesis strategies for situations, driven by each game's own data files.

Everything game-specific (stages, phases, zones, actions, options, editions,
catalogue cards, their features and properties, the board) is read from
``asp/<game>/game.yaml`` and the card catalogue, so a new game under ``asp/``
is fuzzed as soon as its files are complete. A game whose files are not
(yet) complete is skipped with the reason.

Profiles: ``CCG_JUDGE_FUZZ_PROFILE=ci`` (default; a fixed, derandomised
budget of generated cases for every run) or ``nightly`` (many more, random).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from pybridge.errors import JudgeError
from pybridge.game.catalogue import Game, load_game
from pybridge.game.encodings import asp_root
from pybridge.game.vocabulary import ANY_WORD, ValueType, Vocabulary
from pybridge.input.situation import RESERVED_PREFIX

# --------------------------------------------------------------------------
# Profiles

PROFILE_VARIABLE = "CCG_JUDGE_FUZZ_PROFILE"
# Generated cases over all fuzz tests together (each test takes a share).
BUDGETS = {"ci": 10_400, "nightly": 250_000}
PROFILE = os.environ.get(PROFILE_VARIABLE, "ci")
if PROFILE not in BUDGETS:
    raise RuntimeError(f"{PROFILE_VARIABLE} must be one of {sorted(BUDGETS)}, got {PROFILE!r}")

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
          HealthCheck.large_base_example]
settings.register_profile("ccg-judge-fuzz-ci", deadline=None, derandomize=True, database=None,
                          print_blob=True, suppress_health_check=_QUIET)
settings.register_profile("ccg-judge-fuzz-nightly", deadline=None, print_blob=True,
                          suppress_health_check=_QUIET)


def fuzz_settings(share: float) -> settings:
    """This test's part of the profile's budget of generated cases."""
    return settings(settings.get_profile(f"ccg-judge-fuzz-{PROFILE}"),
                    max_examples=max(1, int(BUDGETS[PROFILE] * share)))


# --------------------------------------------------------------------------
# What each game offers, read from its files


@dataclass(frozen=True)
class GameSpace:
    name: str
    game: Game
    stages: tuple[str, ...]
    phases: tuple[str, ...]
    steps: tuple[str, ...]
    zones: tuple[str, ...]
    actions: tuple[str, ...]
    catalogue: tuple[str, ...]
    features: tuple[str, ...]  # features that may be written bare (no required parameters)
    properties: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    columns: int = 0
    rows: int = 0

    @property
    def vocabulary(self) -> Vocabulary:
        return self.game.vocabulary

    @property
    def card_types(self) -> tuple[Any, ...]:
        return self.properties.get("type", ("creature",))


def _incomplete(name: str) -> str | None:
    directory = asp_root() / name
    meta_path = directory / "game.yaml"
    if not meta_path.is_file():
        return f"asp/{name}/game.yaml is missing"
    meta = yaml.safe_load(meta_path.read_text(encoding="utf-8")) or {}
    for key, default in (("entry", "main.lp"), ("clauses", "clauses.yaml"), ("cards", "cards.yaml"),
                         ("vocabulary", "vocabulary.yaml")):
        if not (directory / str(meta.get(key, default))).is_file():
            return f"asp/{name}/{meta.get(key, default)} is missing"
    try:
        load_game(name)
    except (JudgeError, KeyError, TypeError, ValueError) as exc:
        return f"asp/{name} does not load: {exc}"
    return None


def game_names() -> list[str]:
    """Every folder of asp/ that is or will be a game (core excluded)."""
    return sorted(p.name for p in asp_root().iterdir() if p.is_dir() and p.name != "core"
                  and not p.name.startswith((".", "_")))


@cache
def game_space(name: str) -> GameSpace | str:
    """The game's vocabulary, or the reason it cannot be fuzzed yet."""
    reason = _incomplete(name)
    if reason:
        return reason
    game = load_game(name)
    meta = yaml.safe_load((game.directory / "game.yaml").read_text(encoding="utf-8")) or {}
    features = {n for n, f in game.vocabulary.features.items() if not any(p.required for p in f.params.values())}
    properties: dict[str, set] = {}
    for entry in game.cards.values():
        for key, value in (entry.get("properties") or {}).items():
            if isinstance(value, (int, str)) and not isinstance(value, bool):
                properties.setdefault(key, set()).add(value)
    board = meta.get("board") or {}
    return GameSpace(
        name=name, game=game,
        stages=game.stages or ("main",), phases=game.phases, steps=game.steps,
        zones=game.zones or ("battlefield",), actions=tuple(game.actions),
        catalogue=tuple(sorted(game.cards)), features=tuple(sorted(features)),
        properties={k: tuple(sorted(v, key=str)) for k, v in sorted(properties.items())},
        columns=int(board.get("columns", 0)), rows=int(board.get("rows_per_side", 0)),  # no board: no cells
    )


def fuzzable_games() -> list[str]:
    return [g for g in game_names() if isinstance(game_space(g), GameSpace)]


class Choices:
    """Every choice of a generator, read from one byte string Hypothesis draws.

    One draw per case keeps generation cheap (a Hypothesis draw costs far more
    than a solver-free check), and Hypothesis still shrinks: shorter strings and
    smaller bytes mean earlier alternatives, so every choice lists its simplest
    alternative first. Past the end of the string every choice is 0."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def number(self, low: int, high: int) -> int:
        span = high - low + 1
        value = 0
        for _ in range(1 if span <= 256 else 3):
            value = value * 256 + (self.data[self.at] if self.at < len(self.data) else 0)
            self.at += 1
        return low + value % span

    def pick(self, values):
        values = values if isinstance(values, (list, tuple)) else list(values)
        return values[self.number(0, len(values) - 1)]

    def coin(self, one_in: int = 2) -> bool:
        """True with probability 1/one_in (False is the simpler answer)."""
        return self.number(0, one_in - 1) == one_in - 1


BYTES = st.binary(min_size=300, max_size=400)  # short strings would make most choices 0


# --------------------------------------------------------------------------
# Valid situations (small, so that solving them stays cheap)

# Ids are data: plain ones first (simplest), then text made of awkward characters (printable
# ones: control and format characters are refused in ids, see test_injection).
PLAIN_IDS = ("p1", "p2", "a", "b", "elf", "foe", "x1", "card_7", "Вайл", "Алиса", "Bob", 'q"t', "a b", "1")
ID_CHARACTERS = 'ab1_ XZ"\'\\.:,;()%#{}[]-éЖ日🂡\u00a0'
# Texts for text-typed values: plain, quoted, ASP-looking, other scripts.
TEXTS = ("plain", "open_self", "not", "{2}{U}", 'say "hi"', "a\\b", 'q\\"', "a :- b.", "#show.", "Лес", "%*", "x" * 40)
WORDS = ("alpha", "beta_2", "gold", "elf")


def an_id(c: Choices) -> str:
    if not c.coin(4):
        return c.pick(PLAIN_IDS)
    text = "".join(c.pick(ID_CHARACTERS) for _ in range(c.number(1, 6)))
    return text if not text.startswith(RESERVED_PREFIX) else "x" + text


def distinct_ids(c: Choices, count: int, taken: set[str]) -> list[str]:
    """``count`` ids, distinct from each other and from ``taken``."""
    found: list[str] = []
    while len(found) < count:
        candidate = an_id(c)
        if candidate in taken:
            candidate = f"{candidate}~{len(taken)}"
        if candidate not in taken:
            taken.add(candidate)
            found.append(candidate)
    return found


def _cells(space: GameSpace, players: list[str]) -> list[tuple[str, int, int]]:
    return [(p, col, row) for p in players for col in range(1, space.columns + 1) for row in range(1, space.rows + 1)]


def a_value(c: Choices, vocabulary: Vocabulary, t: ValueType, ids: dict[str, list[str]],
            about: str | None = None) -> Any:
    """A valid value of type ``t`` (simplest alternatives first)."""
    kind = t.kind
    if kind == "int":
        low = t.minimum if t.minimum is not None else -2
        high = t.maximum if t.maximum is not None else max(low, 0) + 5
        return c.number(low, high)
    if kind == "bool":
        return c.coin()
    if kind == "text":
        candidates = [x for x in TEXTS if t.compiled is None or t.compiled.fullmatch(x)] or ["{1}"]
        return c.pick(candidates)
    if kind == "word":
        return c.pick(WORDS)
    if kind in ("card", "player"):
        return c.pick(ids[kind])
    if kind == "one_of":
        return c.pick(t.values)
    if kind == "list":
        return [a_value(c, vocabulary, t.item, ids) for _ in range(t.length if t.length is not None else c.number(0, 3))]
    if kind == "any":
        return a_value(c, vocabulary, c.pick(t.options), ids, about)
    if kind == "selector":  # one condition of the game's selectors
        condition = c.pick(sorted(vocabulary.selectors))
        return {condition: a_value(c, vocabulary, vocabulary.selectors[condition].type, ids)}
    if kind == "steps":  # one step of a composed ability: a primitive with its required parameters
        name = c.pick(sorted(vocabulary.primitives))
        params = {p: a_value(c, vocabulary, param.type, ids)
                  for p, param in sorted(vocabulary.primitives[name].params.items()) if param.required}
        return [{name: params or None}]
    if t.section == "property_value":
        return a_value(c, vocabulary, vocabulary.properties[about].type, ids)
    words = [w for w in vocabulary.words(t.section) if w != ANY_WORD]
    return c.pick(words or WORDS)


def a_feature(c: Choices, vocabulary: Vocabulary, ids: dict[str, list[str]]) -> Any:
    """A feature as a card lists it: bare, or with some of its parameters (the required ones always)."""
    name = c.pick(sorted(vocabulary.features))
    feature = vocabulary.features[name]
    chosen = {p: a_value(c, vocabulary, param.type, ids) for p, param in sorted(feature.params.items())
              if param.required or c.coin(3)}
    return {name: chosen} if chosen or feature.params and c.coin() else name


def an_effect(c: Choices, vocabulary: Vocabulary, ids: dict[str, list[str]]) -> tuple[str, str, Any]:
    """kind, what and value of an effect in one of the forms the game declares."""
    kinds = [k for k, e in sorted(vocabulary.effects.items()) if any(_form_words(vocabulary, f) for f in e.forms)]
    kind = c.pick(kinds)
    form = c.pick([f for f in vocabulary.effects[kind].forms if _form_words(vocabulary, f)])
    what = c.pick(_form_words(vocabulary, form))
    if form.value is None:
        return kind, what, None
    if form.value.kind == "section" and form.value.section == "condition":
        fitting = [n for n, d in sorted(vocabulary.conditions.items())
                   if what in d.of or ("declare" in d.of and what in vocabulary.declarable_features)]
        return (kind, what, c.pick(fitting)) if fitting else (kind, what, None)
    return kind, what, a_value(c, vocabulary, form.value, ids, about=what)


def _form_words(vocabulary: Vocabulary, form) -> list:
    t = form.what
    words = list(t.values) if t.kind == "one_of" else list(vocabulary.words(t.section))
    if form.value is not None and form.value.kind == "section" and form.value.section == "condition":
        words = [w for w in words if any(w in d.of or ("declare" in d.of and w in vocabulary.declarable_features)
                                         for d in vocabulary.conditions.values())]
    return [w for w in words if w != ANY_WORD]


def kinds_of(vocabulary: Vocabulary, section: str) -> list[str]:
    """The kinds a card's protections, markers or chips may name (a word for an open section)."""
    words = list(vocabulary.words(section))
    return [w for w in words if w != ANY_WORD] + (list(WORDS[:2]) if ANY_WORD in words else [])


def build_card(c: Choices, space: GameSpace, card_id: str, players: list[str], turn_number: int,
               cells: list[tuple[str, int, int]], card_ids: list[str] | None = None) -> dict[str, Any]:
    controller = c.pick(players)
    card: dict[str, Any] = {"id": card_id, "controller": controller}
    if space.catalogue and not c.coin(4):
        card["card"] = c.pick(space.catalogue)
    else:
        card["name"] = c.pick(("Inline", "Страж", "A 'quoted' name"))
        card["properties"] = {"type": c.pick(space.card_types)}
    if c.coin(5):
        card["owner"] = c.pick(players)
    on_board = "battlefield" in space.zones and not c.coin(5)
    card["zone"] = "battlefield" if on_board else c.pick(space.zones)
    if card["zone"] == "battlefield" and cells and not c.coin(6):
        side, column, row = cells.pop(c.number(0, len(cells) - 1))
        card["cell"] = {"column": column, "row": row}
        if side != controller or c.coin():
            card["cell"]["side"] = side
    if c.coin(4):
        card["open"] = False
    # On a game with a board a hidden card lies in a cell (validation refuses it elsewhere).
    if card["zone"] == "battlefield" and ("cell" in card or not space.columns) and c.coin(5):
        card["hidden"] = True
    if not c.coin(3):
        card["arrived"] = c.number(0, turn_number)
    vocabulary = space.vocabulary
    ids = {"card": card_ids or [card_id], "player": players}
    if vocabulary.features and c.coin(4):
        card["features"] = [a_feature(c, vocabulary, ids) for _ in range(c.number(0, 2))]
    if "name" in card and c.coin(4):
        prop = c.pick(sorted(vocabulary.properties))
        if vocabulary.properties[prop].type.kind != "card":
            card["properties"][prop] = a_value(c, vocabulary, vocabulary.properties[prop].type, ids)
    markers = kinds_of(vocabulary, "marker")
    if markers and c.coin(6):
        card["markers"] = {c.pick(markers): c.number(0, 3) for _ in range(c.number(0, 2))}
    chips = kinds_of(vocabulary, "chip")
    if chips and c.coin(8):
        card["chips"] = {c.pick(chips): c.number(0, 2)}
    protections = kinds_of(vocabulary, "protection")
    if protections and c.coin(8):
        card["protections"] = sorted({c.pick(protections) for _ in range(c.number(1, 2))})
    if c.coin(6):
        card["non_game"] = {"artist": c.pick(("A. Artist", "Мастер")), "rarity": c.pick(("common", "rare")),
                            "collector_number": c.number(1, 300)}
    return placed(space, card)


def placed(space: GameSpace, card: dict[str, Any]) -> dict[str, Any]:
    """An open card the game places in a zone of its own (a Berserk flyer) goes there, not in a cell."""
    printed = {**(space.game.cards[card["card"]]["properties"] if "card" in card else {}), **card.get("properties", {})}
    for placement in space.game.placements:
        if str(printed.get(placement.property)) == placement.value and "cell" in card and not card.get("hidden"):
            del card["cell"]
            card["zone"] = placement.zone
    return card


def build_situation(c: Choices, space: GameSpace, max_cards: int = 4) -> dict[str, Any]:
    """A valid situation of ``space``'s game, as plain data."""
    players = distinct_ids(c, 2, set())
    turn_number = c.number(1, 5)
    turn: dict[str, Any] = {"number": turn_number, "active": c.pick(players), "stage": c.pick(space.stages)}
    for key, values in (("phase", space.phases), ("step", space.steps)):
        if values and not c.coin(4):
            turn[key] = c.pick(values)
    first = c.pick(players)
    data: dict[str, Any] = {
        "game": space.name,
        "viewpoint": c.pick(players),
        "players": [{"id": p, "first": True} if p == first else {"id": p} for p in players],
        "turn": turn,
    }
    if c.coin():
        data["edition"] = c.pick(sorted(space.game.editions))
    options = {k: c.pick(sorted(option.values)) for k, option in sorted(space.game.options.items()) if c.coin(3)}
    if options:
        data["options"] = options
    card_ids = distinct_ids(c, c.number(0, max_cards), set(players))
    if not card_ids:
        return data
    cells = _cells(space, players)
    data["cards"] = [build_card(c, space, card_id, players, turn_number, cells, card_ids) for card_id in card_ids]
    vocabulary = space.vocabulary
    ids = {"card": card_ids, "player": players}
    effects = []
    for i in range(c.number(0, 3)):
        kind, what, value = an_effect(c, vocabulary, ids)
        effect: dict[str, Any] = {"id": f"e{i}", "target": c.pick(card_ids), "kind": kind,
                                  "what": what, "timestamp": c.number(0, 4)}
        if value is not None:
            effect["value"] = value
        if c.coin():
            effect["source"] = c.pick(card_ids)
            if c.coin(3):
                effect["feature"] = c.pick(sorted(vocabulary.features))
        if c.coin(4):
            effect["constant"] = False
        effects.append(effect)
    if effects:
        data["effects"] = effects
    if vocabulary.history:
        history = []
        for _ in range(c.number(0, 2)):
            action = c.pick(sorted(vocabulary.history))
            event = {"turn": c.number(1, turn_number), "action": action, "actor": c.pick(card_ids)}
            target = vocabulary.history[action].target
            if target == "required" or (target == "optional" and c.coin()):
                event["target"] = c.pick(card_ids)
            history.append(event)
        if history:
            data["history"] = history
    return data


def situations(space: GameSpace, max_cards: int = 4) -> st.SearchStrategy[dict[str, Any]]:
    return BYTES.map(lambda raw: build_situation(Choices(raw), space, max_cards))


# --------------------------------------------------------------------------
# One fixed situation per game

# Ids that occur nowhere else in a report, so they can be swapped for a payload in it.
P1, P2, ALPHA, BETA, EFFECT = "Pone7Z", "Ptwo7Z", "Calpha7Z", "Cbeta7Z", "Eone7Z"


def base_situation(space: GameSpace) -> dict[str, Any]:
    """Three cards, an effect from one card on another, a history event, options."""
    def card(card_id: str, controller: str, column: int) -> dict[str, Any]:
        entry: dict[str, Any] = {"id": card_id, "name": "Plain", "controller": controller,
                                 "properties": {"type": space.card_types[0]}, "zone": "battlefield",
                                 "arrived": 1}
        if space.columns:
            entry["cell"] = {"column": column, "row": 1}
        return entry

    data: dict[str, Any] = {
        "game": space.name, "viewpoint": P1,
        "players": [{"id": P1, "first": True}, {"id": P2}],
        "turn": {"number": 2, "active": P1, "stage": space.stages[min(1, len(space.stages) - 1)]},
        "cards": [card(ALPHA, P1, 2), card(BETA, P2, 3), card("Cgamma7Z", P1, 4)],
        "options": {k: o.default for k, o in sorted(space.game.options.items())},
    }
    if space.phases:
        data["turn"]["phase"] = space.phases[min(1, len(space.phases) - 1)]
    if space.catalogue:
        data["cards"][2].pop("name")
        data["cards"][2]["card"] = space.catalogue[0]
    vocabulary = space.vocabulary
    if vocabulary.features:
        data["cards"][0]["features"] = [base_feature(space)]
        data["effects"] = [{"id": EFFECT, "target": ALPHA, "source": BETA, "kind": "grant",
                            "what": next(iter(data["cards"][0]["features"][0])), "timestamp": 1}]
    events = [name for name, event in vocabulary.history.items() if event.target != "none"]
    if events:
        data["history"] = [{"turn": 1, "action": events[0], "actor": ALPHA, "target": BETA}]
    data["cards"][0]["non_game"] = {"legend": "plain", "artist": "plain"}
    return data


def text_parameter(space: GameSpace) -> tuple[str, str] | None:
    """A feature with a free-text parameter, and that parameter, if the game has one."""
    for name, feature in sorted(space.vocabulary.features.items()):
        for key, param in sorted(feature.params.items()):
            if param.type.kind == "text" and param.type.pattern is None:
                return name, key
    return None


def base_feature(space: GameSpace) -> dict[str, Any]:
    """The base situation's feature: one with a text parameter where the game has one
    (set to "plain"), its required parameters given their simplest values."""
    vocabulary = space.vocabulary
    chosen = text_parameter(space)
    name = chosen[0] if chosen else sorted(vocabulary.features)[0]
    c = Choices(b"")
    params = {key: a_value(c, vocabulary, param.type, {"card": [ALPHA], "player": [P1]})
              for key, param in sorted(vocabulary.features[name].params.items()) if param.required}
    if chosen:
        params[chosen[1]] = "plain"
    return {name: params}


# --------------------------------------------------------------------------
# Hostile values and invalid variants


HOSTILE_STRINGS = (
    '").', '"). #include "x".', '#include "x".', "a :- b.", ":-", "%", "% comment", "%* block *%",
    '"', "'", "\\", '\\"', "\\n", "\n", "a\nb", "\r\n", "\t", "\x00", "a\x00b", "\x7f", "\u202e",
    "\u2028", "é", "日本語", "🂡", "Ж" * 300, "x" * 5_000, " ", "", "hidden@p2:1.1", "#show.", "}.{",
)
ODD_VALUES = (None, True, False, 0, -1, 1.5, float("nan"), float("inf"), 10**7, -(10**7), 2**40, "", "x", [], {},
              [None], {"": None}, {"a": [1, {"b": "c"}]}, ["a", 1], "\ud800", "\x00")


def odd_value(c: Choices, depth: int = 0) -> Any:
    """A value of the wrong type, size or content for most fields."""
    kind = c.number(0, 5)
    if kind <= 2 or depth > 3:
        return c.pick(ODD_VALUES)
    if kind == 3:
        return c.pick(HOSTILE_STRINGS)
    if kind == 4:
        return [odd_value(c, depth + 1) for _ in range(c.number(0, 3))]
    return {c.pick(("a", "id", "Bad Key", "", "x" * 3000, "\x00")): odd_value(c, depth + 1) for _ in range(c.number(0, 3))}


def paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path into a data tree (mappings and lists), the root excluded."""
    found = []
    if isinstance(data, dict):
        items = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        return found
    for key, value in items:
        found.append(prefix + (key,))
        found.extend(paths(value, prefix + (key,)))
    return found


def get(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data


def put(data: Any, path: tuple, value: Any) -> None:
    get(data, path[:-1])[path[-1]] = value


MUTATIONS = ("replace", "drop", "extra", "hostile_string", "duplicate_id", "cell_clash", "hidden_in_hand",
             "negative_marker", "dangling_effect", "unknown_player", "unknown_word", "future", "too_many",
             "deep", "long_string", "huge_number", "reserved_id")


def mutate(c: Choices, space: GameSpace, data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """One change to a valid situation that usually makes it invalid, and what the change was."""
    cards = data.get("cards", [])
    kind = c.pick(MUTATIONS)
    everything = paths(data)
    if kind == "drop":
        path = c.pick(everything)
        container = get(data, path[:-1])
        if isinstance(container, dict):
            del container[path[-1]]
        else:
            container.pop(path[-1])
        return data, f"drop {path}"
    if kind == "extra":
        path = c.pick([()] + [p for p in everything if isinstance(get(data, p), dict)])
        get(data, path)[c.pick(("colour", "artist", "Game", "cell "))] = 1
        return data, f"extra field at {path}"
    if kind == "hostile_string":
        strings = [p for p in everything if isinstance(get(data, p), str)]
        path = c.pick(strings)
        put(data, path, c.pick(HOSTILE_STRINGS))
        return data, f"hostile string at {path}"
    if kind == "duplicate_id":
        for key in ("cards", "effects", "players"):
            items = data.get(key, [])
            if len(items) >= 2:
                items[-1]["id"] = items[0]["id"]
                return data, f"duplicate id in {key}"
    if kind == "cell_clash":
        placed = [card for card in cards if "cell" in card]
        if len(placed) >= 2:
            first = placed[0]
            placed[1]["cell"] = dict(first["cell"], side=first["cell"].get("side", first["controller"]))
            placed[1]["zone"] = "battlefield"
            return data, "two cards in one cell"
    if kind == "reserved_id" and cards:
        c.pick(cards)["id"] = RESERVED_PREFIX + c.pick(("p2:1.1", "x"))
        return data, "reserved id"
    if cards and kind in ("hidden_in_hand", "negative_marker", "dangling_effect", "unknown_player", "future"):
        card = c.pick(cards)
        if kind == "hidden_in_hand" and "hand" in space.zones:
            card.update(zone="hand", hidden=True)
            card.pop("cell", None)
            return data, "hidden card in a hand"
        if kind == "negative_marker":
            card["markers"] = {"wound": c.number(-5, -1)}
            return data, "marker below zero"
        if kind == "dangling_effect":
            data.setdefault("effects", []).append(
                {"id": "dangling", "target": card["id"] + "-missing", "kind": "grant", "what": "x", "timestamp": 0})
            return data, "effect on a card that does not exist"
        if kind == "unknown_player":
            card[c.pick(("controller", "owner"))] = "nobody-" + card["controller"]
            return data, "unknown player"
        if kind == "future":
            card["arrived"] = data["turn"]["number"] + c.number(1, 3)
            return data, "arrived after the current turn"
    if kind == "unknown_word":
        path = c.pick((("game",), ("turn", "stage"), ("turn", "phase"), ("edition",), ("options", "no_such")))
        word = c.pick(("nonsense", "zzz_unknown"))
        if path[0] == "options":
            data.setdefault("options", {})[path[1]] = word
        else:
            put(data, path, word)
        return data, f"unknown word at {path}"
    if kind == "too_many":
        template = cards[0] if cards else {"id": "c", "name": "N", "controller": data["players"][0]["id"]}
        data["cards"] = [dict(template, id=f"c{i}", cell=None) for i in range(160)]
        return data, "too many cards"
    if kind == "deep":
        value: Any = "bottom"
        for _ in range(c.number(33, 60)):
            value = [value] if c.coin() else {"k": value}
        (cards[0] if cards else data)["non_game" if cards else "options"] = {"nested": value}
        return data, "deep nesting"
    if kind == "long_string":
        (cards[0] if cards else data["players"][0])["id"] = "x" * c.number(2_001, 4_000)
        return data, "long string"
    if kind == "huge_number":
        put(data, ("turn", "number"), c.pick((10**6 + 1, 2**31, 2**63, -(2**40))))
        return data, "huge number"
    path = c.pick(everything)  # "replace", and any change that does not fit this situation
    put(data, path, odd_value(c))
    return data, f"replace {path}"


def mutated(space: GameSpace) -> st.SearchStrategy[tuple[dict[str, Any], str]]:
    def build(raw: tuple[bytes, bytes]) -> tuple[dict[str, Any], str]:
        return mutate(Choices(raw[1]), space, build_situation(Choices(raw[0]), space))
    return st.tuples(BYTES, st.binary(min_size=24, max_size=40)).map(build)


def json_like(c: Choices, depth: int = 0) -> Any:
    """Arbitrary JSON-like data (the shape of a YAML or JSON document)."""
    if depth > 4 or c.number(0, 2) < 2:
        return odd_value(c, depth)
    if c.coin():
        return [json_like(c, depth + 1) for _ in range(c.number(0, 3))]
    keys = ("game", "viewpoint", "turn", "players", "cards", "effects", "history", "options", "id", "a")
    return {c.pick(keys): json_like(c, depth + 1) for _ in range(c.number(0, 4))}
