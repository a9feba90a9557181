"""Load and validate a situation file (YAML or JSON) into typed models.

No clingo here. Errors name the file, the field path and what was
expected. Game-level checks (known stages, zones, cards, ids that refer to
each other) run after the structural ones, against the game's data files.

The models' annotations are evaluated when the module is imported (no ``from __future__ import
annotations``): msgspec would otherwise compile each annotation's text on the first situation a
process reads, about 3 ms of a cold check.
"""

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from msgspec import Meta

from pybridge.errors import JudgeError
from pybridge.game.catalogue import Game, load_game
from pybridge.game.encodings import known_games
from pybridge.game.vocabulary import Context, load_vocabulary, shared_schemas, situation_schema
from pybridge.input import limits
from pybridge.input.structs import PRINTABLE, Model, convert

SCHEMA_VERSION = 1
MAX_FILE_BYTES = limits.DEFAULTS.file_bytes  # the default; see pybridge/input/limits.py
# Ids of the unknown cards a viewpoint projection makes (pybridge/input/viewpoint.py).
RESERVED_PREFIX = "hidden@"

# The name given to standard input (a situation argument of "-").
STDIN = "<stdin>"


def about(text: str, **constraints: Any) -> Meta:
    """A field's description (and constraints), as the JSON Schema shows it."""
    return Meta(description=text, **constraints)


# Game vocabulary (features, properties, action kinds, zones, ...) becomes clingo
# constants, so it is restricted to plain identifiers; which words a game knows is
# declared in its vocabulary (asp/<game>/vocabulary.yaml) and checked against the game.
# (?!\n): Python's $ also matches before a final newline, which a name must not end in.
Name = Annotated[str, Meta(pattern=r"^[a-z][a-z0-9_]*(?!\n)$", max_length=64)]
# Ids of cards, players and effects are data: any printable text, kept as clingo strings.
Ident = Annotated[str, Meta(min_length=1, max_length=200), PRINTABLE]
# Other texts a report may print (card names, editions, ruling titles).
Text = Annotated[str, PRINTABLE]
Scalar = int | str
PropertyValue = int | Annotated[str, Meta(max_length=500)] | list[int]
Count = Annotated[int, Meta(ge=0)]

# Models are strict: "3" and 3.0 are not integers; 1 is not true (structs.convert). Their
# required fields come first: msgspec wants it so for positional construction.


class Turn(Model):
    number: Annotated[int, about("Turn number; 1 is the first player's first turn.", ge=1)]
    active: Annotated[Ident, about("Id of the player whose turn it is.")]
    stage: Annotated[Name, about("Stage of the turn (the game lists its stages).")]
    phase: Annotated[Name | None, about("Phase or subphase within the stage.")] = None
    step: Annotated[Name | None, about("Step within the phase, where the game has steps.")] = None


class Player(Model):
    id: Ident
    first: Annotated[bool, about("This player took the first turn of the game.")] = False
    pool: Annotated[dict[Name, Count], about(
        "What the player has in their pool, by kind (the game lists its pool kinds; Magic: "
        "unspent mana by type).")] = {}


class Cell(Model):
    column: Annotated[int, about("Column from that player's left, from 1.", ge=1, le=100)]
    row: Annotated[int, about("Row from the centre line, 1 = front.", ge=1, le=100)]
    side: Annotated[Ident | None, about("Whose half of the board; default: the controller's.")] = None


Feature = Name | dict[Name, dict[Name, Any] | None]


class Card(Model):
    id: Annotated[Ident, about("Unique id of this card in the situation.")]
    controller: Ident
    card: Annotated[Text | None, about("Name of the card in the game's catalogue.")] = None
    name: Annotated[Text | None, about("Printed name, for a card defined inline.")] = None
    owner: Annotated[Ident | None, about("Default: the controller.")] = None
    zone: Name = "battlefield"
    cell: Cell | None = None
    open: Annotated[bool, about("Open (untapped); false = closed (tapped).")] = True
    hidden: Annotated[bool, about("Face down.")] = False
    revealed: Annotated[bool, about("A card in a private zone (hand, deck) shown to every player.")] = False
    arrived: Annotated[Count | None, about("Turn it came under its controller's control.")] = None
    properties: dict[Name, PropertyValue] = {}
    features: list[Feature] = []
    remove_features: Annotated[list[Name], about("Catalogue features this copy lacks.")] = []
    protections: list[Name] = []
    markers: dict[Name, Count] = {}
    chips: dict[Name, Count] = {}
    non_game: Annotated[dict[str, Any], about(
        "Non-game elements (legend, artist, rarity, ...). Accepted and never used (109).")] = {}


EffectKind = Literal["grant", "remove", "forbid", "permit", "oblige", "modify", "set"]


# An effect's target chosen by a condition: the game's selector conditions (vocabulary
# `selectors:`), each a word, a number or true/false; the effect reaches every card in play that
# meets all of them.
Selector = Annotated[dict[Name, bool | int | Name], Meta(min_length=1)]


class Effect(Model):
    id: Ident
    target: Annotated[Ident | Selector, about(
        "Id of the card the effect applies to, or a selector: conditions every card it "
        "reaches meets (the game's vocabulary lists them).")]
    kind: EffectKind
    what: Annotated[Name, about("Feature, action kind or property the effect is about.")]
    timestamp: Annotated[int, about("When the effect was applied; later is larger.", ge=0)]
    value: Annotated[Scalar | None, about(
        "Delta for modify, new value for set; for permit, the condition of the rules the card "
        "text explicitly overrides; for forbid, what the prohibition is restricted to.")] = None
    source: Annotated[Ident | None, about("Id of the card whose feature made it.")] = None
    feature: Annotated[Name | None, about("The source's feature that made it (e.g. stealth).")] = None
    constant: Annotated[bool, about("Made by a constant feature.")] = True


# A die's face: a roll outside 1-6 is refused where the file is read, naming the field.
Die = Annotated[int, Meta(ge=1, le=6)]


class Rolls(Model):
    """The dice of a declared attack, as they fell (model:fight-rolls): the attacker's, and the
    struck card's when it rolls too (an open creature in a fight). A creature that rolls twice
    and keeps either result (best_of_two_rolls) states both dice."""

    attacker: Annotated[list[Die], about("The attacker's die (two for a creature that rolls twice).",
                                         min_length=1, max_length=2)]
    defender: Annotated[list[Die], about("The struck creature's die, in a fight (two if it rolls twice).",
                                         max_length=2)] = []


class Event(Model):
    """Something done earlier in the game: its turn, its action word and who did it (to whom).
    The history keeps no order within a turn; so in Berserk a card recorded dead this turn, off
    the board, after a recorded step that took it to the air or landed it, is refused unless the
    card states the movement it died with as `properties.movement` (model:died-as-flyer)."""

    turn: Annotated[int, Meta(ge=1)]
    action: Name
    actor: Ident
    target: Ident | None = None
    rolls: Annotated[Rolls | None, about(
        "The die rolls of this attack, where they are known (an event the game lets state rolls).")] = None


class ResolvedExpectation(Model):
    outcome: Literal["executed", "not executed but paid"]
    cites: Annotated[list[str], about("Clause ids the resolution cites, exactly.")]


class Invariance(Model):
    """A part of the situation the rules must ignore: the runner judges the situation again
    without it and expects the very same report. The clauses saying it should be ignored
    are covered by this check rather than by a citation."""

    drop: Annotated[Literal["non_game"], about("non_game: every card's non-game elements (109).")]
    clauses: Annotated[list[str], about("Clause ids that say this part does not count.", min_length=1)]


class Expectation(Model):
    """Expected verdicts of a ruling file: action text -> clause ids cited."""

    legal: dict[str, list[str]] = {}
    illegal: dict[str, list[str]] = {}
    impossible: Annotated[dict[str, list[str]], about(
        "Actions check does not list, which explain answers as not possible "
        "here: action -> the clauses whose definitions they fail, exactly.")] = {}
    obliged: dict[str, list[str]] = {}
    exact: Annotated[bool, about("The legal and illegal sets must match exactly.")] = True
    unlisted: Annotated[list[Name], about(
        "Actions (by name, e.g. move) a ruling about something else leaves out of its exact sets.")] = []
    player: Annotated[Ident | None, about("Whose actions; default: the viewpoint.")] = None
    cites: Annotated[list[str], about("Ids the report must cite somewhere.")] = []
    certainty: Annotated[dict[str, Literal["every", "some"]], about(
        "Action -> under every admissible treatment of hidden cards, or some.")] = {}
    consequences: Annotated[dict[str, list[str]], about(
        "Action -> its consequences, exactly (as the report words them).")] = {}
    consequence_cites: Annotated[dict[str, dict[str, list[str]]], about(
        "Action -> consequence (as the report words it) -> exactly the clause ids it cites.")] = {}
    because: Annotated[dict[str, Text], about(
        "Action -> words its because-line (why it is illegal, as check says it) must contain.")] = {}
    resolved: Annotated[dict[str, ResolvedExpectation], about(
        "Action -> its resolution against the truth (hidden cards revealed).")] = {}
    invariant: Annotated[list[Invariance], about(
        "Parts of the situation whose removal must not change the report.")] = []


class Ruling(Model):
    title: Text
    clauses: Annotated[list[str], about("Clause ids this ruling is about.")]
    expect: Expectation
    example: Annotated[str | None, about("Id of the seed example it reproduces.")] = None
    note: str | None = None


class Situation(Model):
    game: Name
    viewpoint: Annotated[Ident, about("The player asking.")]
    turn: Turn
    players: Annotated[list[Player], Meta(min_length=2, max_length=2)]
    schema_version: Literal[1] = SCHEMA_VERSION
    edition: Annotated[Text | None, about("Rules edition; default: the game's.")] = None
    options: Annotated[dict[Name, Name], about("Interpretation options.")] = {}
    # How many cards, effects and events a file may hold is a limit (pybridge/input/limits.py), not schema.
    cards: list[Card] = []
    effects: list[Effect] = []
    history: list[Event] = []
    ruling: Ruling | None = None


def json_schema() -> dict[str, Any]:
    """The situation schema: the models' structure, and per known game (``if`` its ``game``)
    the words and value types its vocabulary declares."""
    import msgspec.json  # the schema is for the schema command and tests, not for a check

    definitions = msgspec.json.schema(Situation)["$defs"]
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
              "$id": "https://ccg-judge.invalid/schema/situation-v1.json",
              **definitions.pop("Situation"), "title": "ccg-judge situation (version 1)",
              "$defs": definitions, "allOf": []}
    for game in known_games():
        name = f"vocabulary-{game}"
        vocabulary = load_vocabulary(game)
        schema["$defs"][name] = situation_schema(vocabulary)
        schema["$defs"].update(shared_schemas(vocabulary))
        schema["allOf"].append({"if": {"properties": {"game": {"const": game}}, "required": ["game"]},
                                "then": {"$ref": f"#/$defs/{name}"}})
    return schema


# --------------------------------------------------------------------------
# Loading


def parse_text(text: str, *, source: str, fmt: str | None = None) -> Any:
    fmt = fmt or ("json" if source.endswith(".json") else "yaml")
    try:
        if fmt == "json":
            return json.loads(text, object_pairs_hook=limits.json_object)
        from pybridge.input import yaml_input  # PyYAML: only for YAML text

        return yaml_input.load_yaml(text, source=source)
    except json.JSONDecodeError as exc:
        raise JudgeError(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", source=source) from None
    except RecursionError:
        raise limits.too_deep_to_read(source) from None
    except ValueError:  # Python refuses integers of thousands of digits
        raise JudgeError("a number has too many digits to read", source=source) from None


def load_situation(path: str | Path) -> Situation:
    """A situation file, or standard input for ``-`` (YAML, or JSON if it starts with ``{``
    and reads as JSON); the same limits apply."""
    limit = limits.current().file_bytes
    if str(path) == "-":
        raw = sys.stdin.buffer.read(limit + 1)
        return _from_bytes(raw, STDIN, limit, fmt="json" if _looks_like_json(raw) else None)
    source = str(path)
    return _from_bytes(limits.read_input_file(path, source=source), source, limit)


def _looks_like_json(raw: bytes) -> bool:
    """Standard input has no file name to tell: a text that opens an object and parses as
    JSON is JSON (YAML would read most JSON too, but not with JSON's exact rules)."""
    if not raw.lstrip().startswith(b"{"):
        return False
    try:
        json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return True


def _from_bytes(raw: bytes, source: str, limit: int, fmt: str | None = None) -> Situation:
    if len(raw) > limit:
        what = "the input is too large" if source == STDIN else "the file is too large"
        raise JudgeError(limits.over(what, limit, "file_bytes", " bytes"), source=source)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise JudgeError("not UTF-8 text", source=source) from None
    data = parse_text(text, source=source, fmt=fmt)
    try:
        return situation_from_data(data, source=source)
    except JudgeError as exc:  # where the field is in the file, as file:line:column
        if exc.field is None or exc.line is not None or exc.source != source:
            raise
        from pybridge.input.yaml_input import position  # read again only for the error

        found = position(text, exc.field)
        if found is None:
            raise
        raise exc.located(line=found[0], column=found[1]) from None


def situation_from_data(data: Any, *, source: str = "<situation>") -> Situation:
    if not isinstance(data, dict):
        raise JudgeError(f"expected a mapping at the top level, got {type(data).__name__}", source=source)
    limits.check_data(data, source=source)
    try:
        situation = convert(data, Situation, source=source)
        check_against_game(situation, source=source)
    except RecursionError:  # only under a depth limit raised past what Python's stack holds
        raise limits.too_deep_to_read(source) from None
    return situation


# --------------------------------------------------------------------------
# Checks against the game's data


def check_against_game(s: Situation, *, source: str) -> None:
    try:
        game = load_game(s.game)
    except JudgeError as exc:
        if exc.field != "game":  # not the situation's fault (a game's data file, the environment): as it is
            raise
        raise exc.located(source=source, field="game", line=None, column=None) from None

    def fail(message: str, field: str) -> None:
        raise JudgeError(message, source=source, field=field)

    if s.edition is not None and s.edition not in game.editions:
        fail(f"unknown edition {s.edition!r}; {game.name} has {_alternatives(game.editions)}", "edition")
    for key, value in s.options.items():
        option = game.options.get(key)
        if option is None:
            fail(f"unknown option; {game.name} has {_alternatives(game.options)}", f"options.{key}")
        elif value not in option.values:
            fail(f"unknown value {value!r}; expected {_alternatives(option.values)}", f"options.{key}")

    player_ids = [p.id for p in s.players]
    _no_duplicates(player_ids, "players", "player", fail)
    for i, player_id in enumerate(player_ids):
        if player_id.startswith(RESERVED_PREFIX):  # a player so named would merge with an unknown card
            fail(f"ids starting with {RESERVED_PREFIX!r} are reserved for cards a player cannot see",
                 f"players[{i}].id")
    if sum(p.first for p in s.players) > 1:
        fail("only one player can be first", "players")
    if s.viewpoint not in player_ids:
        fail(f"unknown player {s.viewpoint!r}; expected one of {_alternatives(player_ids)}", "viewpoint")
    if s.turn.active not in player_ids:
        fail(f"unknown player {s.turn.active!r}; expected one of {_alternatives(player_ids)}", "turn.active")
    for attr, allowed in (("stage", game.stages), ("phase", game.phases), ("step", game.steps)):
        value = getattr(s.turn, attr)
        if value is not None and allowed and value not in allowed:
            fail(f"unknown {attr} {value!r}; expected one of {_alternatives(allowed)}", f"turn.{attr}")

    card_ids = [c.id for c in s.cards]
    _no_duplicates(card_ids, "cards", "card", fail)
    occupied: dict[tuple[str, int, int], str] = {}
    for i, card in enumerate(s.cards):
        where = f"cards[{i}]"
        if card.id in player_ids:
            fail(f"card id {card.id!r} is also a player's id; ids must tell cards and players apart", f"{where}.id")
        if card.id.startswith(RESERVED_PREFIX):
            fail(f"ids starting with {RESERVED_PREFIX!r} are reserved for cards a player cannot see",
                 f"{where}.id")
        if card.card is None and card.name is None:
            fail("a card needs either 'card' (a catalogue name) or 'name' (an inline card)", where)
        if card.card is not None:
            game.card(card.card, source=source, field_path=f"{where}.card")
        for attr in ("controller", "owner"):
            value = getattr(card, attr)
            if value is not None and value not in player_ids:
                fail(f"unknown player {value!r}; expected one of {_alternatives(player_ids)}", f"{where}.{attr}")
        if game.zones and card.zone not in game.zones:
            fail(f"unknown zone {card.zone!r}; expected one of {_alternatives(game.zones)}", f"{where}.zone")
        if card.cell is not None:
            if card.zone != "battlefield":
                fail(f"a card in zone {card.zone!r} has no cell", f"{where}.cell")
            side = card.cell.side or card.controller
            if side not in player_ids:
                fail(f"unknown player {side!r}", f"{where}.cell.side")
            if game.board is None:
                fail(f"{game.name} has no board cells; give the card a zone only", f"{where}.cell")
            for attr, size in (("column", game.board.columns), ("row", game.board.rows_per_side)):
                if getattr(card.cell, attr) > size:
                    fail(f"{attr} {getattr(card.cell, attr)} is off the board ({game.board.columns} columns, "
                         f"{game.board.rows_per_side} rows per side)", f"{where}.cell.{attr}")
            key = (side, card.cell.column, card.cell.row)
            if key in occupied:
                fail(f"cell already taken by card {occupied[key]!r}", f"{where}.cell")
            occupied[key] = card.id
        for placement in game.placements:
            printed = card.properties.get(placement.property)
            if printed is None and card.card is not None:
                printed = game.card(card.card, source=source, field_path=f"{where}.card")["properties"].get(
                    placement.property)
            if str(printed) == placement.value and card.cell is not None and not card.hidden:
                fail(f"a card with {placement.property} {placement.value!r} is in play in zone "
                     f"{placement.zone!r}, not in a cell ({placement.summary})", f"{where}.cell")
        if card.hidden and card.zone in ("hand", "deck", "graveyard"):
            fail(f"a card in zone {card.zone!r} cannot be hidden (face down is a battlefield state)", f"{where}.hidden")
        if card.hidden and game.board is not None and card.zone != "battlefield":
            fail(f"a hidden card lies face down in a cell of the battle zone, not in zone {card.zone!r}",
                 f"{where}.zone")
        if card.hidden and game.board is not None and card.cell is None:
            fail("a hidden card lies face down in a cell of the battle zone: give its cell", f"{where}.cell")
        if card.revealed and card.zone not in game.private_zones:
            fail(f"only a card in a private zone ({_alternatives(game.private_zones)}) can be revealed; "
                 f"this one is in {card.zone!r}", f"{where}.revealed")
        if card.arrived is not None and card.arrived > s.turn.number:
            fail(f"turn {card.arrived} is after the current turn {s.turn.number}", f"{where}.arrived")

    effect_ids = [e.id for e in s.effects]
    _no_duplicates(effect_ids, "effects", "effect", fail)
    known = set(card_ids)
    for i, effect in enumerate(s.effects):
        if isinstance(effect.target, str) and effect.target not in known:
            fail(f"no card with id {effect.target!r}", f"effects[{i}].target")
        if effect.source is not None and effect.source not in known:
            fail(f"no card with id {effect.source!r}", f"effects[{i}].source")
    for i, event in enumerate(s.history):
        if event.turn > s.turn.number:
            fail(f"turn {event.turn} is after the current turn {s.turn.number}", f"history[{i}].turn")
        for attr in ("actor", "target"):
            value = getattr(event, attr)
            if value is not None and value not in known:
                fail(f"no card with id {value!r}", f"history[{i}].{attr}")
    check_vocabulary(s, game, source=source)
    limits.check_sums(_summed_numbers(s, game), _total_in_words, source=source)


def check_vocabulary(s: Situation, game: Game, *, source: str) -> None:
    """Every word of the situation is one the game declares, every value of its type."""
    vocabulary = game.vocabulary

    def fail(message: str, parts: tuple) -> None:
        raise JudgeError(message, source=source, field=limits.field_path(parts))

    context = Context(cards=frozenset(c.id for c in s.cards), players=frozenset(p.id for p in s.players))
    for i, player in enumerate(s.players):
        vocabulary.check_words("pool", player.pool, ("players", i, "pool"), fail, keyed=True)
    for i, card in enumerate(s.cards):
        where = ("cards", i)
        vocabulary.check_properties(card.properties, (*where, "properties"), fail, context)
        vocabulary.check_features(card.features, (*where, "features"), fail, context)
        printed = _feature_names(game.cards.get(card.card or "", {}).get("features") or [])
        for j, name in enumerate(card.remove_features):
            if name not in vocabulary.features:
                fail(vocabulary.unknown("feature", name, vocabulary.features), (*where, "remove_features", j))
            if name not in printed:
                fail(f"the catalogue gives this card no feature {name!r} to remove"
                     + (f" (it has {', '.join(repr(f) for f in sorted(printed))})" if printed else ""),
                     (*where, "remove_features", j))
        vocabulary.check_words("protection", card.protections, (*where, "protections"), fail)
        vocabulary.check_words("marker", card.markers, (*where, "markers"), fail, keyed=True)
        vocabulary.check_words("chip", card.chips, (*where, "chips"), fail, keyed=True)
    for i, effect in enumerate(s.effects):
        vocabulary.check_effect(effect.kind, effect.what, effect.value, ("effects", i), fail, context)
        if not isinstance(effect.target, str):
            vocabulary.check_selector(effect.target, effect.source is not None, ("effects", i, "target"), fail,
                                      context)
        if effect.feature is not None and effect.feature not in vocabulary.features:
            fail(vocabulary.unknown("feature", effect.feature, vocabulary.features), ("effects", i, "feature"))
    for i, event in enumerate(s.history):
        vocabulary.check_event(event.action, event.target is not None, ("history", i), fail,
                               has_rolls=event.rolls is not None)
        if event.rolls is not None:
            _check_two_dice(s, game, event, ("history", i, "rolls"), fail)
    _check_flight_before_death(s, game, fail)
    _check_selection_is_not_circular(s, vocabulary, fail)


# The feature that lets a creature roll twice and keep either die (model:fight-rolls).
ROLLS_TWICE = "best_of_two_rolls"


def _check_two_dice(s: Situation, game: Game, event: Event, path: tuple, fail) -> None:
    """Two dice are stated only for a creature that rolls twice: a second die of any other would
    be a roll the rules never read."""
    cards = {c.id: c for c in s.cards}
    for side, who in (("attacker", event.actor), ("defender", event.target)):
        dice = getattr(event.rolls, side)
        card = cards.get(who) if who is not None else None
        if len(dice) < 2 or card is None:
            continue
        printed = game.cards.get(card.card or "", {}).get("features") or []
        features = _feature_names(printed) - set(card.remove_features) | _feature_names(card.features)
        granted = any(e.kind == "grant" and e.what == ROLLS_TWICE and e.target == who for e in s.effects)
        if ROLLS_TWICE not in features and not granted:
            fail(f"two dice are stated for {who!r}, which rolls once (only a creature with "
                 f"{ROLLS_TWICE} rolls twice)", (*path, side))


# The move steps that take a creature to the air or land it, and the property that says which it is
# (model:died-as-flyer): a death off the board is read by the movement the situation gives the card.
FLIGHT_MOVES = frozenset({"fly", "land"})
MOVEMENT = "movement"


def _check_flight_before_death(s: Situation, game: Game, fail) -> None:
    """A creature recorded dead this turn and no longer on the board died a flyer or not as its
    movement says; where this turn's history also records a step of an ability taking it to the
    air or landing it, its printed movement may no longer be the one it died with, and the history
    keeps no order within a turn: the situation must state it."""
    cards = {c.id: c for c in s.cards}
    board_zones = {"battlefield"} | {p.zone for p in game.placements}
    this_turn = [(i, e) for i, e in enumerate(s.history) if e.turn == s.turn.number]
    for i, death in this_turn:
        dead = cards.get(death.actor) if death.action == "dies" and death.actor is not None else None
        if dead is None or dead.zone in board_zones or MOVEMENT in dead.properties:
            continue
        for j, step in this_turn:
            if step.action != "dies" and _changes_flight_of(game, cards, step, dead.id):
                where = next(k for k, c in enumerate(s.cards) if c.id == dead.id)
                fail(f"{dead.id!r} died this turn off the board, and history[{j}] ({step.action}) may have taken "
                     f"it to the air or landed it first (the history keeps no order within a turn): state the "
                     f"movement it died with as cards[{where}].properties.{MOVEMENT}", ("history", i))


def _changes_flight_of(game: Game, cards: dict, event: Event, who: str) -> bool:
    """Whether the ability the event records has a move step taking ``who`` to the air or landing it:
    a step on its own card (to: self, or an ability aimed at nothing) or on the event's target."""
    actor = cards.get(event.actor) if event.actor is not None else None
    if actor is None:
        return False
    params = resolved_card(game, actor)["features"].get(event.action)
    feature = game.vocabulary.features.get(event.action)
    composition = feature.composition(params or {}) if feature is not None and params is not None else params
    if not isinstance(composition, dict):
        return False
    for step in composition.get("do") or []:
        move = step.get("move") if isinstance(step, dict) else None
        how = move.get("how") if isinstance(move, dict) else move
        if how not in FLIGHT_MOVES:
            continue
        to = move.get("to", "target") if isinstance(move, dict) else "target"
        on_own_card = to == "self" or (to == "target" and "aim" not in composition)
        receiver = event.actor if on_own_card else event.target
        if receiver == who or (to not in ("self", "target") and who in (event.actor, event.target)):
            return True
    return False


def _check_selection_is_not_circular(s: Situation, vocabulary, fail) -> None:
    """Who a selector effect reaches is read off the cards as they are; an effect that reaches its
    cards by a selector may not change what any selector of the situation reads (a property it
    sets, a feature it grants or removes), or who it reaches would depend on itself."""
    read: dict[str, str] = {}  # word -> what reads it
    for effect in s.effects:
        if not isinstance(effect.target, str):
            for key, value in effect.target.items():
                if key in vocabulary.properties:
                    read.setdefault(key, f"effect {effect.id!r} selects by {key}")
                    if key in ("type", "subtype"):  # 108.2-2: losing a given type restores both
                        read.setdefault("type", f"effect {effect.id!r} selects by {key}")
                elif key in vocabulary.selector_features:
                    read.setdefault(str(value), f"effect {effect.id!r} selects by feature {value!r}")
    for i, effect in enumerate(s.effects):
        if isinstance(effect.target, str):
            continue
        changed = effect.what if effect.kind in ("set", "grant", "remove") else None
        if changed in read:
            fail(f"a {effect.kind} effect that reaches its cards by a selector cannot change {changed!r}, "
                 f"which a selector reads ({read[changed]}): who it reaches would depend on itself; "
                 "give the cards it reaches by id", ("effects", i, "what"))


def _feature_names(features: list[Any]) -> set[str]:
    return {name for f in features for name in ([f] if isinstance(f, str) else f)}


def _summed_numbers(s: Situation, game: Game):
    """The numbers the rules add up, by the total they go into (see limits.check_sums): a
    card's value of a key with the modifiers of that key on it (core:zero, numeric
    abilities), and one parameter of one feature over all cards (a squad's reductions)."""
    for i, card in enumerate(s.cards):
        data = resolved_card(game, card)
        for key, value in data["properties"].items():
            for number in _numbers_in(value):
                yield ("value", card.id, key), number, ("cards", i, "properties" if key in card.properties else "card")
        for feature, params in data["features"].items():
            for key, value in params.items():
                for number in _numbers_in(value):
                    if key == "value":
                        yield ("value", card.id, feature), number, ("cards", i)
                    yield ("parameter", feature, key), number, ("cards", i)
    for i, effect in enumerate(s.effects):
        if effect.kind == "modify" and isinstance(effect.value, int):
            # A selector effect may reach any card: its modifier counts towards every card's total.
            targets = [effect.target] if isinstance(effect.target, str) else [c.id for c in s.cards]
            for target in targets:
                yield ("value", target, effect.what), effect.value, ("effects", i, "value")


def _total_in_words(group: tuple) -> str:
    kind, first, second = group
    if kind == "value":
        return f"the value of {second!r} of card {first!r} and its modifiers"
    return f"the {second!r} parameters of {first!r} over all cards"


def _numbers_in(value: Any) -> list[int]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, list):
        return [max((abs(v) for v in value if isinstance(v, int) and not isinstance(v, bool)), default=0)]
    return []


def _alternatives(values: Any) -> str:
    items = [repr(v) for v in values]
    return ", ".join(items) if items else "(none)"


def _no_duplicates(ids: list[str], field: str, what: str, fail: Any) -> None:
    seen: set[str] = set()
    for i, value in enumerate(ids):
        if value in seen:
            fail(f"duplicate {what} id {value!r}", f"{field}[{i}].id")
        seen.add(value)


def resolved_card(game: Game, card: Card) -> dict[str, Any]:
    """A card's properties and features: the catalogue entry, then the situation's own."""
    entry = game.cards.get(card.card or "", {})
    properties = dict(entry.get("properties") or {})
    properties.update(card.properties)
    features: dict[str, dict[str, Any]] = {}
    for feature in list(entry.get("features") or []) + list(card.features):
        if isinstance(feature, str):
            features[feature] = {}
        else:
            for key, params in feature.items():
                features[key] = dict(params or {})
    for name in card.remove_features:
        features.pop(name, None)
    return {"name": card.name or card.card, "properties": properties, "features": features}
