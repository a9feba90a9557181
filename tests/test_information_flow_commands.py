"""Information flow for every command: nothing a player is told depends on, or names, the cards
they may not see (issue 10).

Generated Berserk and Magic situations come in pairs of truths that differ only in the cards the
viewer may not see: the opponent's hidden (face-down) cards and the cards of private zones (the
opponent's hand, every deck or library). What differs: the catalogue card, or an inline name and
properties; features, markers, chips and protections; the effects the card's own text makes (its
constant effects) and how many there are; the ids, kept or changed. Either player may be the
viewer. For both truths the viewer must be told byte for byte the same by

- ``check`` (its text and JSON, ``--atoms`` and ``--trees``), ``facts`` and ``diff``;
- ``explain`` of an action check lists, of a well-formed one it does not list, of a malformed one,
  and of one that names a hidden card by its real id (a guess);
- ``resolve`` of a legal action of the viewer (text, JSON and the report with it) and its
  refusals: an illegal action, the opponent's action, an action check does not list, a guess;
- ``whatif`` of an action of the viewer and of one at an unknown card, every card in scope (an
  unknown card may move), three alternatives: the edits, their words and each edited situation's
  explanation;
- ``check`` and ``resolve`` under a judgements limit set between the two truths' counts, and
  under a time limit no run can meet: an error is the same whatever the hidden truth.

Where resolving reveals cards (Berserk 532.3 turns face up the cards a declaration names), the
compared truths agree on those cards and differ in every other. No id or name of a card the viewer
may not see may appear in any output, except a card resolve reveals and an id the asker typed.

The bulk runs through the Python API (``diff`` through the command, in process); fixed pairs go
through the real command line in subprocesses, ``batch`` included. Every generated example asks
every question its board offers; CCG_JUDGE_FUZZ_PROFILE=nightly runs many more examples.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pybridge.api import CARD_ROLES, check, explain, facts_text, resolve, whatif
from pybridge.cli import cli
from pybridge.errors import JudgeError
from pybridge.game.catalogue import load_game
from pybridge.game.encodings import asp_root
from pybridge.input.situation import situation_from_data
from pybridge.input.viewpoint import project, unknown_card_ids
from pybridge.report.render import explain_text, report_text, resolution_text, to_json
from pybridge.report.whatif import whatif_text

from tests.test_mtg_viewpoint import BASES as MTG_BASES
from tests.test_mtg_viewpoint import SAMPLE as MTG_SAMPLE

ROOT = Path(__file__).resolve().parent.parent
# The fuzz profiles of tests/fuzz: ci (the default) runs a fixed, derandomised set of cases;
# nightly runs many more, random ones.
PROFILE = os.environ.get("CCG_JUDGE_FUZZ_PROFILE", "ci")
SCALE = {"ci": 1, "nightly": 40}[PROFILE]


def profile_settings(examples: int) -> settings:
    """``examples`` cases in the ci profile, SCALE times as many (and random) in nightly."""
    return settings(max_examples=examples * SCALE, deadline=None, derandomize=PROFILE == "ci", database=None,
                    print_blob=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------
# Pairs of truths


@dataclass
class Pair:
    """A board and the identities of its unknown cards in two truths. In ``board`` an unknown
    card is a slot: its public facts only, ``{"$slot": i}`` standing for its id wherever it is
    named; ``slot_positions[i]`` is the slot's place in ``board["cards"]``."""

    board: dict
    first: list[dict]
    second: list[dict]
    viewer: str
    opponent: str
    diff_options: tuple[str, str]
    slot_positions: list[int]

    def truth(self, identities: list[dict]) -> dict:
        ids = [identity["id"] for identity in identities]
        data = _fill_slots(self.board, ids)
        data.setdefault("effects", [])
        for identity, position in zip(identities, self.slot_positions):
            data["cards"][position].update({k: v for k, v in identity.items() if k != "effects"})
            data["effects"] += [{**_fill_slots(e, ids), "id": f"{identity['id']}-text-{k}", "source": identity["id"]}
                                for k, e in enumerate(identity.get("effects", []))]
        return data

    def mixed(self, keep: set[int]) -> dict:
        """The second truth, but the slots in ``keep`` as in the first."""
        return self.truth([a if i in keep else b for i, (a, b) in enumerate(zip(self.first, self.second))])

    def secrets(self, skip: set[int] = frozenset()) -> set[str]:
        """Ids and names of the unknown cards in both truths, but those of the slots in ``skip``."""
        return {identity[k] for i, both in enumerate(zip(self.first, self.second)) if i not in skip
                for identity in both for k in ("id", "name", "card") if k in identity}


def slot(i: int) -> dict:
    return {"$slot": i}


def _fill_slots(value, ids: list[str]):
    """A copy of ``value`` with every slot reference replaced by that slot's id."""
    if isinstance(value, dict):
        if set(value) == {"$slot"}:
            return ids[value["$slot"]]
        return {k: _fill_slots(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill_slots(v, ids) for v in value]
    return value


secret_ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=3, max_size=8)


@st.composite
def identity_ids(draw, count: int) -> tuple[list[str], list[str]]:
    """The slots' ids in both truths: kept, or changed (the slot number keeps them apart)."""
    first = [f"secret-{draw(secret_ids)}-{i}" for i in range(count)]
    if draw(st.booleans()):
        return first, list(first)
    return first, [f"secret-{draw(secret_ids)}-{i}x" for i in range(count)]


def own_effects(draw, forms: list[dict], targets: list) -> list[dict]:
    """Effects a card's own text makes (constant): any number of them, at any card (their ids
    are made from the card's id)."""
    chosen = draw(st.lists(st.tuples(st.sampled_from(forms), st.sampled_from(targets), st.integers(1, 30)),
                           max_size=3))
    return [{**form, "target": target, "timestamp": ts} for form, target, ts in chosen]


# --- Berserk ------------------------------------------------------------------

# The viewer may see these cards; hidden identities use other names, so a name found in an
# output can only have come from a hidden card.
VISIBLE = ["Вайл", "Ассасин", "Посвященный Дзара", "Демон зависти"]
HIDDEN_CREATURES = ["Мерцающий змей", "Резчик идолов", "Бегущая по кронам", "Ледяной змей"]
HAND_CARDS = ["Ядовитое пламя", "Мерцающий змей", "Ледяной змей"]
CELLS = [(c, r) for c in range(1, 6) for r in range(1, 4)]
TURNS = [
    {"number": 3, "active": "p1", "stage": "main", "phase": "choice"},
    {"number": 4, "active": "p2", "stage": "main", "phase": "choice"},
    {"number": 1, "active": "p1", "stage": "start", "phase": "reveal"},
    {"number": 2, "active": "p2", "stage": "start"},
]
SHOT = {"shot": {"damage": 1, "range": 3, "cost": "tap"}}
HIDDEN_FEATURES = [
    SHOT,
    {"discharge": {"damage": 2, "range": 1, "cost": "tap"}},
    {"forced_target_ranged": {"kinds": ["shot", "throw"]}},
    {"finishing_blow": {"value": 3, "cost": "tap"}},
    {"row_grant": {"trigger": "turn_start", "row": 3, "grants": "directed_strike"}},
    {"on_strike_grant": {"requires_any": ["discharge"], "amount": 1}},
    {"stealth": {}},
]
BERSERK_EFFECT_FORMS = [
    {"kind": "modify", "what": "health", "value": -1},
    {"kind": "modify", "what": "strike", "value": 1},
    {"kind": "forbid", "what": "shot"},
    {"kind": "forbid", "what": "strike_attack"},
    {"kind": "grant", "what": "protection_from_shot"},
]


@st.composite
def berserk_identity(draw, in_cell: bool, targets: list) -> dict:
    """Everything about an unknown card its viewer must not learn (the id apart)."""
    if not in_cell:
        return {"card": draw(st.sampled_from(HAND_CARDS)), "effects": own_effects(draw, BERSERK_EFFECT_FORMS, targets)}
    identity: dict = {}
    if draw(st.booleans()):
        identity["card"] = draw(st.sampled_from(HIDDEN_CREATURES))
    else:
        identity["name"] = draw(st.sampled_from(["Secret sentinel", "Secret seer", "Secret sniper"]))
        identity["properties"] = {"type": "creature", "element": draw(st.sampled_from(["dark", "forest", "swamp"])),
                                  "health": draw(st.integers(1, 12))}
    features = draw(st.lists(st.sampled_from(HIDDEN_FEATURES), max_size=2, unique_by=lambda f: next(iter(f))))
    if features:
        identity["features"] = features
    for key, kinds in (("markers", ["poison", "wound"]), ("chips", ["gold"])):
        counts = draw(st.dictionaries(st.sampled_from(kinds), st.integers(1, 3), max_size=2))
        if counts:
            identity[key] = counts
    protections = draw(st.lists(st.sampled_from(["shot", "magic", "poison", "discharge"]), max_size=2, unique=True))
    if protections:
        identity["protections"] = protections
    identity["effects"] = own_effects(draw, BERSERK_EFFECT_FORMS, targets)
    return identity


@st.composite
def berserk_pairs(draw) -> Pair:
    viewer, opponent = draw(st.sampled_from([("p1", "p2"), ("p2", "p1")]))
    cells = draw(st.lists(st.sampled_from(CELLS), min_size=2, max_size=6, unique=True))
    mine_count = draw(st.integers(1, min(3, len(cells) - 1)))
    hidden_count = draw(st.integers(1, min(3, len(cells) - mine_count)))
    mine_cells, hidden_cells = cells[:mine_count], cells[mine_count:mine_count + hidden_count]
    theirs_cells = cells[mine_count + hidden_count:]
    cards: list[dict] = []
    for i, (column, row) in enumerate(mine_cells):
        card = {"id": f"mine{i}", "card": draw(st.sampled_from(VISIBLE)), "controller": viewer,
                "cell": {"column": column, "row": row}, "open": draw(st.booleans()), "arrived": 1}
        if i == 0 or draw(st.booleans()):
            card["features"] = [SHOT, {"range_bonus_against": {"ability": "shot", "amount": 3, "element": "dark"}}]
        if i > 0 and draw(st.booleans()):
            card["hidden"] = True  # the viewer's own hidden card: the viewer knows it
        cards.append(card)
    for i, (column, row) in enumerate(theirs_cells):
        cards.append({"id": f"theirs{i}", "card": draw(st.sampled_from(VISIBLE)), "controller": opponent,
                      "cell": {"column": column, "row": row}, "arrived": 1})
    slots: list[tuple[dict, bool]] = []  # (public part, lies in a cell)
    for column, row in hidden_cells:
        slots.append(({"controller": opponent, "cell": {"column": column, "row": row}, "hidden": True,
                       "open": draw(st.booleans()), "arrived": 1}, True))
    for _ in range(draw(st.integers(0, 2))):
        slots.append(({"controller": opponent, "zone": "hand"}, False))
    if draw(st.booleans()):
        slots.append(({"controller": draw(st.sampled_from([viewer, opponent])), "zone": "deck"}, False))
    targets = [c["id"] for c in cards] + [slot(i) for i in range(len(slots))]
    slot_positions = []
    for i, (public, _) in enumerate(slots):
        slot_positions.append(len(cards))
        cards.append({**public, "id": slot(i)})
    # Public effects, the same in both truths: one on a hidden card, and one an action of a hidden
    # card made (not constant: it stays in the viewer's view, by the card's neutral id).
    effects = []
    if draw(st.booleans()):
        effects.append({"id": "public-wound", "target": slot(0), "kind": "modify", "what": "health", "value": -1,
                        "timestamp": 40, "source": "mine0", "constant": False})
    if draw(st.booleans()):
        effects.append({"id": "public-hex", "target": "mine0", "kind": "forbid", "what": draw(
            st.sampled_from(["shot", "strike_attack"])), "timestamp": 41, "source": slot(0), "constant": False})
    board = {"game": "berserk", "viewpoint": viewer, "edition": draw(st.sampled_from(["515", "531"])),
             "options": {"fast_actions_available": draw(st.sampled_from(["yes", "no"]))},
             "players": [{"id": "p1", "first": True}, {"id": "p2"}],
             "turn": draw(st.sampled_from(TURNS)), "cards": cards, "effects": effects}
    first_ids, second_ids = draw(identity_ids(len(slots)))
    first = [{**draw(berserk_identity(in_cell, targets)), "id": first_ids[i]} for i, (_, in_cell) in enumerate(slots)]
    second = [{**draw(berserk_identity(in_cell, targets)), "id": second_ids[i]}
              for i, (_, in_cell) in enumerate(slots)]
    options = draw(st.sampled_from([("edition=515", "edition=531"),
                                    ("fast_actions_available=yes", "fast_actions_available=no")]))
    return Pair(board, first, second, viewer, opponent, options, slot_positions)


# --- Magic --------------------------------------------------------------------

MTG_EFFECT_FORMS = [
    {"kind": "modify", "what": "power", "value": 1},
    {"kind": "modify", "what": "toughness", "value": -1},
    {"kind": "set", "what": "color", "value": "blue"},
]
PLAYER_KEYS = {"viewpoint", "controller", "owner", "active", "side"}


def _mirrored(value, key: str | None = None):
    """The same game with p1 and p2 changing places (the first player too)."""
    if isinstance(value, dict):
        if key == "players_entry":
            return {k: ({"p1": "p2", "p2": "p1"}[v] if k == "id" else v) for k, v in value.items()}
        return {k: (_mirrored(v, k) if k != "players" else [_mirrored(p, "players_entry") for p in v])
                for k, v in value.items()}
    if isinstance(value, list):
        return [_mirrored(v, key) for v in value]
    if key in PLAYER_KEYS and value in ("p1", "p2"):
        return {"p1": "p2", "p2": "p1"}[value]
    return value


def _with_slots(base: dict, hidden_ids: list[str]) -> tuple[dict, list[int]]:
    """A Magic base whose unknown cards become slots, every reference to them a slot reference."""
    index = {card_id: i for i, card_id in enumerate(hidden_ids)}
    card_properties = set(load_game("mtg").card_properties)

    def ref(card_id):
        return slot(index[card_id]) if card_id in index else card_id

    data = json.loads(json.dumps(base, ensure_ascii=False))
    positions = []
    for position, card in enumerate(data["cards"]):
        if card["id"] in index:
            positions.append((index[card["id"]], position))
            card.pop("card", None)
        card["id"] = ref(card["id"])
        for k, v in card.get("properties", {}).items():
            if k in card_properties:
                card["properties"][k] = ref(v)
    kept = []
    for e in data.get("effects", []):
        if e.get("source") in index and e.get("constant", True):
            continue  # the hidden card's own text: generated per truth below
        kept.append({**e, "target": ref(e["target"]), **({"source": ref(e["source"])} if "source" in e else {})})
    data["effects"] = kept
    data["history"] = [{**h, "actor": ref(h["actor"]), **({"target": ref(h["target"])} if "target" in h else {})}
                       for h in data.get("history", [])]
    return data, [p for _, p in sorted(positions)]


@st.composite
def mtg_pairs(draw) -> Pair:
    label, base, viewer, controller, hidden_ids, _ = draw(st.sampled_from(MTG_BASES))
    board, positions = _with_slots(base, hidden_ids)
    if draw(st.booleans()):
        board, viewer, controller = _mirrored(board), controller, viewer
    targets = [c["id"] for c in board["cards"]]
    first_ids, second_ids = draw(identity_ids(len(hidden_ids)))

    def identities(ids):
        return [{"id": card_id, "card": draw(st.sampled_from(MTG_SAMPLE)),
                 "effects": own_effects(draw, MTG_EFFECT_FORMS, targets)} for card_id in ids]

    first, second = identities(first_ids), identities(second_ids)
    options = ("effect_precedence=forbid_wins", "effect_precedence=conservativeness")
    return Pair(board, first, second, viewer, controller, options, positions)


# --------------------------------------------------------------------------
# What a player is told


def _outcome(run) -> str:
    """What a command tells its user: its output, or the error it stops with."""
    try:
        return run()
    except JudgeError as exc:
        return f"error: {exc.render()}"


@contextmanager
def _environment(**values: str):
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _checked(data: dict, **kwargs) -> str:
    report = check(situation_from_data(data), **kwargs)
    game = load_game(report.game)
    return report_text(report, title=game.title, phrases=game.phrases) + to_json(report)


def _explained(data: dict, action: str, **kwargs) -> str:
    report = explain(situation_from_data(data), action, **kwargs)
    return explain_text(report, report.verdicts[0], load_game(report.game).phrases) + to_json(report)


def _resolved(data: dict, action: str, **kwargs) -> str:
    result, report = resolve(situation_from_data(data), action, **kwargs)
    return resolution_text(result, report, load_game(report.game).phrases) + to_json(result) + to_json(report)


def _diffed(data: dict, options: tuple[str, str], path: Path) -> str:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(cli, ["diff", str(path), "--option", options[0], "--option", options[1], "--format", "json"])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a JudgeError is told as the command line tells it (_outcome)
    return f"exit {result.exit_code}\n{result.output}"


def _whatif(data: dict, action: str, **kwargs) -> str:
    result = whatif(situation_from_data(data), action, **kwargs)
    return whatif_text(result, load_game(result.game).phrases) + to_json(result)


def _whatif_board(data: dict, action: str) -> str:
    """whatif with every card in scope (an unknown card may move) and three alternatives."""
    return _whatif(data, action, scope="board", top=3)


def _arguments(action: str) -> tuple[str, list[str]]:
    name, _, rest = action.partition("(")
    return name, [a for a in re.split(r"[, ]+", rest.rstrip(")")) if a]


def _guessed(listed: list[str], unknown: set[str], guess: str) -> str:
    """A listed action with one card replaced by ``guess``: an unknown card's if it names one."""
    for action in listed:
        name, args = _arguments(action)
        if set(args) & unknown:
            index = next(i for i, a in enumerate(args) if a in unknown)
            return f"{name}({', '.join(guess if i == index else a for i, a in enumerate(args))})"
    name, args = _arguments(listed[0]) if listed else ("reveal_hidden", ["x"])
    return f"{name}({', '.join(args[:-1] + [guess])})"


def _named_slots(pair: Pair, action: str) -> set[int]:
    """The slots a resolve of ``action`` reveals (Berserk 532.3: the cards the declaration names)."""
    s = situation_from_data(pair.truth(pair.first))
    if load_game(s.game).resolution.reveal == "none":
        return set()
    neutral = unknown_card_ids(s, pair.viewer)
    arguments = set(_arguments(action)[1])
    return {i for i, identity in enumerate(pair.first) if neutral.get(identity["id"]) in arguments}


MALFORMED = ["shot(", "shoot(mine0, mine0)", "shot(mine0)", "cast(bolt, x, y)", "reveal_hidden(1.5)", "Shot(a)"]
NON_CARD_ARGUMENTS = ["1", "shot", "disguise", "wound"]


@dataclass
class Question:
    """One command asked of both truths. The second truth takes the first's identities for the
    slots in ``keep`` (the cards resolving reveals); ``allowed`` are the secrets the answer may
    name (the cards it reveals, an id the asker typed)."""

    kind: str
    text: str
    run: Callable[[dict], str]
    keep: set[int] = field(default_factory=set)
    allowed: set[str] = field(default_factory=set)


def _questions(pair: Pair, data, workdir: Path) -> list[Question]:
    """Every kind of question this board offers the viewer, chosen from what they are told."""
    s = situation_from_data(pair.truth(pair.first))
    game = load_game(s.game)
    report = check(s)
    listed = sorted(v.action for v in report.verdicts)
    mine = [v for v in report.verdicts if v.player == pair.viewer]
    unknown = set(unknown_card_ids(s, pair.viewer).values())
    ids = [c.id for c in project(s).cards] + [p.id for p in s.players]

    def well_formed() -> str:  # an action of the game, at cards the viewer sees
        name = data.draw(st.sampled_from(sorted(game.actions)))
        args = [data.draw(st.sampled_from(ids if role in CARD_ROLES | {"player"} else NON_CARD_ARGUMENTS))
                for role in game.actions[name]]
        return f"{name}({', '.join(args)})"

    not_listed = next((a for a in (well_formed() for _ in range(4)) if a not in listed), None)
    guess = pair.first[data.draw(st.integers(0, len(pair.first) - 1))]["id"]
    guessed = _guessed(listed, unknown, guess)
    legal = sorted(v.action for v in mine if v.verdict == "legal")
    groups = {
        "resolve a legal action at an unknown card": [a for a in legal if set(_arguments(a)[1]) & unknown],
        "resolve a legal action": [a for a in legal if not set(_arguments(a)[1]) & unknown],
        "resolve an illegal action": sorted(v.action for v in mine if v.verdict == "illegal"),
        "resolve the opponent's action": sorted(v.action for v in report.verdicts if v.player != pair.viewer),
        "resolve an action check does not list": [not_listed] if not_listed else [],
        "explain a listed action": listed,
        "explain an action check does not list": [not_listed] if not_listed else [],
        "explain a malformed action": MALFORMED,
        "whatif of an action at an unknown card": [v.action for v in mine if set(_arguments(v.action)[1]) & unknown],
        "whatif of a listed action": sorted(v.action for v in mine),
    }
    questions = [Question("check --trees", "check --trees",
                          lambda d: to_json(check(situation_from_data(d), trees=True))),
                 Question("diff", f"diff {pair.diff_options}",
                          lambda d: _diffed(d, pair.diff_options, workdir / "situation.json")),
                 Question("explain a guessed id", f"explain {guessed}", lambda d: _explained(d, guessed),
                          allowed={guess}),
                 Question("resolve a guessed id", f"resolve {guessed}", lambda d: _resolved(d, guessed),
                          allowed={guess})]
    for kind, actions in groups.items():
        if not actions:
            continue
        action = data.draw(st.sampled_from(actions))
        command, run = {"resolve": ("resolve", _resolved), "whatif": ("whatif", _whatif_board)}.get(
            kind.split()[0], ("explain", _explained))
        keep = _named_slots(pair, action) if kind.startswith("resolve a legal") else set()
        questions.append(Question(kind, f"{command} {action}", lambda d, r=run, a=action: r(d, a), keep=keep,
                                  allowed=pair.secrets() - pair.secrets(skip=keep)))
    return questions


def _assert_told_alike(pair: Pair, questions: list[Question], first: dict | None = None) -> list[str]:
    """Each question gets the same answer from both truths, and no secret but those allowed.
    The answers, for the first truth."""
    first = first or pair.truth(pair.first)
    secrets = pair.secrets() - _visible_names(pair) - _QUOTED
    told = []
    for question in questions:
        answers = [_outcome(lambda: question.run(truth)) for truth in (first, pair.mixed(question.keep))]
        assert answers[0] == answers[1], question.text
        for secret in secrets - question.allowed:
            assert secret not in answers[0], (question.text, secret)
        told.append(answers[0])
    return told


def _quoted_texts() -> str:
    """The texts reports quote (clause headings, phrases): a card name in them may appear in an
    output without having come from a hidden card."""
    return "".join(path.read_text(encoding="utf-8") for path in sorted(asp_root().glob("*/*.yaml"))
                   if path.name in ("clauses.yaml", "phrases.yaml"))


_QUOTED = {name for name in MTG_SAMPLE + HIDDEN_CREATURES + HAND_CARDS if name in _quoted_texts()}


def _visible_names(pair: Pair) -> set[str]:
    return {c["card"] for c in pair.board["cards"] if isinstance(c.get("card"), str)}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("information-flow")


def _property(pair: Pair, data, workdir: Path, fuzz_cases, name: str) -> None:
    asked = [Question("check", "check --atoms", lambda d: _checked(d, atoms=True)),
             Question("facts", "facts", lambda d: facts_text(situation_from_data(d)))] + _questions(pair, data, workdir)
    _assert_told_alike(pair, asked)
    fuzz_cases[name] += 1
    for question in asked:
        fuzz_cases[f"{name}: {question.kind}"] += 1


@profile_settings(12)
@given(pair=berserk_pairs(), data=st.data())
def test_berserk_every_command_ignores_the_cards_the_viewer_may_not_see(pair, data, workdir, fuzz_cases):
    _property(pair, data, workdir, fuzz_cases, "information_flow_commands (berserk)")


@profile_settings(5)
@given(pair=mtg_pairs(), data=st.data())
def test_magic_every_command_ignores_the_cards_the_viewer_may_not_see(pair, data, workdir, fuzz_cases):
    _property(pair, data, workdir, fuzz_cases, "information_flow_commands (mtg)")


# --------------------------------------------------------------------------
# Limits


def _judgements(data: dict, player: str) -> int:
    """How many judgements the rules give ``player`` here, read off the limit's own error."""
    with _environment(CCG_JUDGE_MAX_JUDGEMENTS="1"):
        refusal = _outcome(lambda: _checked(data, player=player))
    found = re.search(r"gives (\d+) judgements", refusal)
    assert found, refusal
    return int(found.group(1))


def _limits_property(pair: Pair, data, fuzz_cases, name: str) -> None:
    """Under a judgements limit between the two truths' counts (as the cards' controller is told,
    who sees every card of theirs), and under a time limit no run meets: check and a resolve
    that reveals nothing fail alike, or pass alike."""
    first, second = pair.truth(pair.first), pair.truth(pair.second)
    sizes = sorted(_judgements(truth, pair.opponent) for truth in (first, second))
    limit = data.draw(st.integers(sizes[0], max(sizes[0], sizes[1] - 1)))
    report = check(situation_from_data(first))
    legal = [v.action for v in report.verdicts
             if v.player == pair.viewer and v.verdict == "legal" and not _named_slots(pair, v.action)]
    runs = [("check", _checked)] + [(f"resolve {a}", lambda d, a=a, **k: _resolved(d, a, **k)) for a in legal[:1]]
    with _environment(CCG_JUDGE_MAX_JUDGEMENTS=str(limit)):
        _assert_told_alike(pair, [Question("judgements limit", f"{text} (judgements limit {limit})", run)
                                  for text, run in runs], first)
    timed_out = [Question("time limit", f"{text} (time limit)", lambda d, r=run: r(d, time_limit=1e-9))
                 for text, run in runs]
    assert all("time limit" in answer for answer in _assert_told_alike(pair, timed_out, first))
    fuzz_cases[name] += 1
    fuzz_cases[f"{name}: truths of different sizes"] += sizes[0] != sizes[1]


@profile_settings(10)
@given(pair=berserk_pairs(), data=st.data())
def test_berserk_limits_fail_alike_whatever_the_hidden_truth(pair, data, fuzz_cases):
    _limits_property(pair, data, fuzz_cases, "information_flow_limits (berserk)")


@profile_settings(4)
@given(pair=mtg_pairs(), data=st.data())
def test_magic_limits_fail_alike_whatever_the_hidden_truth(pair, data, fuzz_cases):
    _limits_property(pair, data, fuzz_cases, "information_flow_limits (mtg)")


# --------------------------------------------------------------------------
# Fixed pairs: the swap is not vacuous, and the real command line


def _fixed_berserk_pair() -> Pair:
    """p1 may shoot at p2's hidden card at 1.1 (the same card in both truths, as resolving the
    shot reveals it); p2's other hidden card at 3.1 is Мерцающий змей with an effect of its own
    text, or an inline creature; p2's card in hand is one spell or another."""
    board = {"game": "berserk", "viewpoint": "p1", "players": [{"id": "p1", "first": True}, {"id": "p2"}],
             "turn": TURNS[0],
             "cards": [{"id": "archer", "card": "Вайл", "controller": "p1", "cell": {"column": 2, "row": 1},
                        "arrived": 1, "features": [SHOT]},
                       {"id": "foe", "card": "Ассасин", "controller": "p2", "cell": {"column": 2, "row": 1},
                        "arrived": 1},
                       {"id": slot(0), "controller": "p2", "cell": {"column": 1, "row": 1}, "hidden": True},
                       {"id": slot(1), "controller": "p2", "cell": {"column": 3, "row": 1}, "hidden": True},
                       {"id": slot(2), "controller": "p2", "zone": "hand"}],
             "effects": []}
    first = [{"id": "secret-target", "card": "Резчик идолов"},
             {"id": "secret-serpent", "card": "Мерцающий змей", "markers": {"wound": 2},
              "effects": [{"kind": "modify", "what": "health", "value": -1, "target": "archer", "timestamp": 3}]},
             {"id": "secret-flame", "card": "Ядовитое пламя"}]
    second = [first[0],
              {"id": "secret-seer", "name": "Secret seer", "properties": {"type": "creature", "health": 3},
               "protections": ["magic"]},
              {"id": "secret-other", "card": "Ледяной змей"}]
    return Pair(board, first, second, "p1", "p2", ("edition=515", "edition=531"), [2, 3, 4])


def _fixed_mtg_pair() -> Pair:
    """The shipped Cryptic Coat example: p2's face-down card is one card or another, the second
    with an effect of its own text."""
    label, base, viewer, controller, hidden_ids, _ = MTG_BASES[0]
    board, positions = _with_slots(base, hidden_ids)
    first = [{"id": "secret-one", "card": "Exalted Angel"}]
    second = [{"id": "secret-two", "card": "Delver of Secrets",
               "effects": [{"kind": "modify", "what": "power", "value": 1, "target": board["cards"][0]["id"],
                            "timestamp": 3}]}]
    return Pair(board, first, second, viewer, controller,
                ("effect_precedence=forbid_wins", "effect_precedence=conservativeness"), positions)


@pytest.mark.parametrize("make_pair", [_fixed_berserk_pair, _fixed_mtg_pair], ids=["berserk", "mtg"])
def test_the_hidden_identities_matter_to_their_controller(make_pair):
    """For the cards' controller the two truths are told apart: the swap changes what the rules
    read (else the sameness for the viewer would prove nothing)."""
    pair = make_pair()
    told = [_checked(pair.truth(identities), player=pair.opponent) for identities in (pair.first, pair.second)]
    assert told[0] != told[1]


def _cli_runs(pair: Pair, commands: list[str]) -> list[tuple[list[str], dict[str, str]]]:
    """The commands named, as a user types them (the file's name goes second), and their environment."""
    s = situation_from_data(pair.truth(pair.first))
    report = check(s)
    listed = sorted(v.action for v in report.verdicts)
    mine = [v for v in report.verdicts if v.player == pair.viewer]
    legal = sorted((v.action for v in mine if v.verdict == "legal"), key=lambda a: not _named_slots(pair, a))
    others = [v.action for v in report.verdicts if v.player != pair.viewer] or ["reveal_hidden(foe)"]
    guessed = _guessed(listed, set(unknown_card_ids(s, pair.viewer).values()), pair.first[-1]["id"])
    limit = {"CCG_JUDGE_MAX_JUDGEMENTS": "5"}
    every = {"check": (["check"], {}), "check --json": (["check", "--format", "json"], {}),
             "check --trees": (["check", "--trees", "--format", "json"], {}), "facts": (["facts"], {}),
             "explain": (["explain", listed[0]], {}), "explain not listed": (["explain", "cast(foe, foe)"], {}),
             "explain malformed": (["explain", "shot("], {}), "explain guessed": (["explain", guessed], {}),
             "diff": (["diff", "--option", pair.diff_options[0], "--option", pair.diff_options[1]], {}),
             "resolve": (["resolve", legal[0]], {}), "resolve --json": (["resolve", legal[0], "--format", "json"], {}),
             "resolve guessed": (["resolve", guessed], {}), "resolve opponent's": (["resolve", others[0]], {}),
             "check limit": (["check", "--format", "json"], limit), "resolve limit": (["resolve", legal[0]], limit)}
    return [every[c] for c in commands]


CLI_COMMANDS = {  # each command once, on one game or the other
    "berserk": ["check", "check --trees", "explain guessed", "resolve", "resolve opponent's", "diff"],
    "mtg": ["check --json", "facts", "explain not listed", "resolve --json", "resolve limit"],
}


@pytest.mark.parametrize("make_pair", [_fixed_berserk_pair, _fixed_mtg_pair], ids=["berserk", "mtg"])
def test_the_command_line_tells_the_same_whatever_the_hidden_truth(make_pair, tmp_path):
    pair = make_pair()
    runs = _cli_runs(pair, CLI_COMMANDS[pair.board["game"]])
    path = tmp_path / "situation.yaml"  # one name for both truths: errors name the file
    told = []
    for identities in (pair.first, pair.second):
        path.write_text(yaml.safe_dump(pair.truth(identities), allow_unicode=True), encoding="utf-8")
        told.append([subprocess.run([sys.executable, "-m", "pybridge", command[0], str(path), *command[1:]],
                                    capture_output=True, cwd=ROOT, env={**os.environ, **env}, timeout=120)
                     for command, env in runs])
    secrets = pair.secrets() - _visible_names(pair) - _QUOTED
    for (command, env), first, second in zip(runs, *told):
        assert (first.returncode, first.stdout, first.stderr) == (second.returncode, second.stdout, second.stderr), \
            (command, env)
        typed = {secret for secret in secrets if secret in " ".join(command)}
        revealed = set()
        if command[0] == "resolve":
            revealed = pair.secrets() - pair.secrets(skip=_named_slots(pair, command[1]))
        for secret in secrets - typed - revealed:
            assert secret not in (first.stdout + first.stderr).decode("utf-8"), (command, secret)
    codes = {run.returncode for run in told[0]}
    assert {0, 2} <= codes  # some runs end in an error (the same for both truths), some do not


def test_batch_rows_are_the_same_whatever_the_hidden_truth(tmp_path):
    """``batch`` (one run, on worker processes): the rows of both truths of each fixed pair, one
    situation per JSONL line, differ only in the line they name."""
    pairs = [_fixed_berserk_pair(), _fixed_mtg_pair()]
    lines = [json.dumps(pair.truth(identities), ensure_ascii=False)
             for pair in pairs for identities in (pair.first, pair.second)]
    path = tmp_path / "truths.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pybridge", "batch", str(path), "--trees", "--jobs", "1"],
                          capture_output=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    rows: dict[int, list[dict]] = {}
    for row in map(json.loads, done.stdout.decode("utf-8").splitlines()):
        line = int(row.pop("situation").rsplit(":", 1)[1])
        rows.setdefault(line, []).append(row)
    for index, pair in enumerate(pairs):
        first, second = rows[2 * index + 1], rows[2 * index + 2]
        assert first and first == second, pair.board["game"]
        printed = json.dumps(first, ensure_ascii=False)
        for secret in pair.secrets() - _visible_names(pair) - _QUOTED:
            assert secret not in printed, secret
