"""The card catalogue of whole sets (asp/berserk/sets/*.yaml, first of all set 1 "Война стихий").

Two kinds of test. The data tests read the catalogue: every card has its facts with sane types,
names are unique across the catalogue files, and every feature a card has is either one the
rules base reads by that name or is listed in the card's `unmodelled` with a reason (nothing is
silently simplified). The board tests put every set card on a board with the real solver: in the
first row of the active player, an opposing creature in front of it, in the choice phase of the
main stage of its controller's turn; the check must be clean (no JudgeError), and each feature the
rules base reads must yield at least one candidate action of that card, or be one that modifies
other actions (a modifier, with the reason stated below).

The board puts five set cards against five feature-bearing set cards per situation. By default
each card plays on the active side once and every feature-bearing card faces some card; with
CCG_JUDGE_CATALOGUE_PAIRS=all every card meets every feature-bearing card (1,600 solves; about
13 CPU minutes at the time of writing).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from pybridge import api
from pybridge.errors import JudgeError
from pybridge.game.catalogue import load_game
from pybridge.game.encodings import asp_root
from pybridge.input.situation import situation_from_data

GAME = load_game("berserk")
SETS_DIR = GAME.directory / "sets"
SET_CARDS: list[dict[str, Any]] = sorted((c for c in GAME.cards.values() if "set" in c),
                                         key=lambda c: (c["set"], c.get("number", 0), c["name"]))
RULES_TEXT = "\n".join(p.read_text(encoding="utf-8") for p in sorted((asp_root() / "berserk").glob("*.lp")))

PAIRS_VARIABLE = "CCG_JUDGE_CATALOGUE_PAIRS"
PAIRS = os.environ.get(PAIRS_VARIABLE, "ci")
if PAIRS not in ("ci", "all"):
    raise RuntimeError(f"{PAIRS_VARIABLE} must be 'ci' or 'all', got {PAIRS!r}")

SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
ELEMENTS = {"steppe", "mountains", "forest", "swamp", "dark", "neutral"}
TYPES = {"creature", "hero", "equipment", "spell", "artefact", "terrain"}
UNMODELLED_KINDS = ("feature", "protection", "text")

# --- What the rules base makes of a feature it reads --------------------------------------------
# A feature that is an action of its own: the action's name; the card is its first argument.
ACTION_OF = {
    "shot": "shot",
    "discharge": "discharge",
    "magic_strike": "magic_strike",
    "finishing_blow": "finishing_blow",
    "destroy": "destroy",
    "resurrect": "resurrect",
    "reveals_card": "reveal",   # needs a revealed card of the controller's deck: the board has one
}
# A feature with a triggered declaration, met only in its own moment (see the scenario tests).
TRIGGERED = {
    "on_strike_grant": "after the card struck this turn (feature:on-strike-grant)",
}
# A feature that changes other actions and has none of its own.
MODIFIERS = {
    "directed_strike": "bars defenders against the card's strike attacks (defender-simple-strike)",
    "prevention": "lowers the wounds strikes deal to the card (prevention)",
    "forced_target_ranged": "restricts the targets of the opponent's shots and throws (feature:forced-target)",
    "accompanying": "adds a marker to the consequences of the ability it accompanies (feature:accompanying)",
    "ignores_protection": "lets the card's abilities through a protection (531.2)",
    "range_bonus": "widens the range of the card's ability once it moved this turn (feature:range-bonus)",
}


def declares(params: dict[str, Any], feature: str) -> bool:
    """The rules offer a declaration `declare(card, feature, value)` for a feature with a fixed
    number (512 numeric abilities), an X the player declares (512.4) or an X that is paid (512.4.1)."""
    fixed_number = isinstance(params.get("value"), int) and feature not in ACTION_OF
    return fixed_number or params.get("amount") == "X" or params.get("x") == "cost"


def turn_start_trigger(params: dict[str, Any]) -> bool:
    """A trigger at the start of the turn tied to the row the card stands in (feature:turn-start-trigger)."""
    return params.get("trigger") == "turn_start" and isinstance(params.get("row"), int)


def features_of(entry: dict[str, Any]) -> dict[str, dict[str, Any]]:
    result: dict[str, dict[str, Any]] = {}
    for feature in entry.get("features") or []:
        if isinstance(feature, str):
            result[feature] = {}
        else:
            for name, params in feature.items():
                result[name] = dict(params or {})
    return result


def unmodelled(entry: dict[str, Any], kind: str) -> set[str]:
    return {str(item[kind]) for item in entry.get("unmodelled") or [] if kind in item}


# Keywords the basic rules read by name (asp/berserk/basic_*.lp): a modifier of fights and wounds,
# a trigger at the start of the turn, or moves of the card.
BASIC = {
    "armour": "modifier", "attack_experience": "modifier", "defence_experience": "modifier",
    "clumsiness": "modifier", "best_of_two_rolls": "modifier", "regeneration": "trigger", "jump": "move",
}
USE_WITNESS = {"activated": "use", "triggered": "trigger", "constant": "modifier"}


def composed_use(name: str, params: dict[str, Any]) -> str | None:
    """activated, triggered or constant for a composed feature (its template filled in), else None."""
    feature = GAME.vocabulary.features.get(name)
    composition = feature.composition(params) if feature is not None else None
    return composition["use"] if composition else None


def witness(name: str, params: dict[str, Any]) -> str | None:
    """How a feature the rules read shows in a check of its card, or None if they do not read it."""
    use = composed_use(name, params)
    if use is not None:
        return USE_WITNESS[use]
    if name in BASIC:
        return BASIC[name]
    if name in ACTION_OF:
        return "action"
    if declares(params, name):
        return "declare"
    if name in TRIGGERED or turn_start_trigger(params):
        return "trigger"
    if name in MODIFIERS:
        return "modifier"
    return None


def known_protection_kinds() -> set[str]:
    text = (asp_root() / "berserk" / "531_complex_protections.lp").read_text(encoding="utf-8")
    kinds = set(re.findall(r"complex_protection\((\w+), (\w+)\)", text))
    # Kinds the rules read by name elsewhere (protection from weak strikes: the fight's dice).
    named = set(re.findall(r"has_protection\(\w+, ([a-z]\w+)\)", RULES_TEXT))
    return ({k for pair in kinds for k in pair} | set(re.findall(r"protection_feature\(\w+, (\w+)\)", text))
            | set(re.findall(r"attacker_protection\((\w+)", text)) | named)


def card_id(entry: dict[str, Any]) -> str:
    return f"{entry['set']}-{entry.get('number', entry['name'])}"


# --- The data ------------------------------------------------------------------------------------


def test_every_set_file_loads_and_set_1_has_at_least_150_cards():
    files = sorted(SETS_DIR.glob("*.yaml"))
    assert files, "no set file under asp/berserk/sets/"
    for path in files:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert data["game"] == "berserk" and SNAKE.match(data["set"].replace("-", "_")), path.name
        assert all(GAME.cards[c["name"]]["set"] == data["set"] for c in data["cards"]), path.name
    assert sum(1 for c in SET_CARDS if c["set"] == "war-of-elements") >= 150


@pytest.mark.parametrize("entry", SET_CARDS, ids=card_id)
def test_every_card_has_its_facts_with_sane_types(entry):
    assert isinstance(entry["name"], str) and entry["name"].strip()
    assert isinstance(entry.get("number"), int) and entry["number"] >= 1
    assert isinstance(entry.get("sources"), str) and entry["sources"].strip()
    text = entry.get("text")
    assert isinstance(text, str) and text.strip() and "\n" not in text, "text: one line of paraphrase"
    props = entry["properties"]
    assert props["type"] in TYPES
    assert props["element"] in ELEMENTS
    assert isinstance(props["cost"], int) and props["cost"] >= 0
    assert props["rank"] in ("elite", "ordinary")
    if props["type"] == "creature":
        strike = props["strike"]
        assert isinstance(strike, list) and len(strike) == 3, "strike: weak, medium, strong"
        assert all(isinstance(v, int) and v >= 0 for v in strike)
        assert isinstance(props["health"], int) and props["health"] > 0
        assert props["movement"] == "flying" or (isinstance(props["movement"], int) and props["movement"] > 0)
    if "class" in props:
        assert isinstance(props["class"], str) and props["class"].strip()
    for feature in entry["features"]:
        assert isinstance(feature, str) or (isinstance(feature, dict) and len(feature) == 1), feature
    for name, params in features_of(entry).items():
        assert SNAKE.match(name), f"feature name {name!r} is not snake_case"
        assert all(SNAKE.match(key) for key in params), f"{name}: parameter names {sorted(params)}"
    assert len(features_of(entry)) == len(entry["features"]), "a feature name appears twice"
    for kind in entry.get("protections") or []:
        assert SNAKE.match(kind), f"protection kind {kind!r}"
    for item in entry.get("unmodelled") or []:
        named = [k for k in UNMODELLED_KINDS if k in item]
        assert len(named) == 1 and set(item) == {named[0], "reason"}, f"unmodelled entry {item}"
        assert isinstance(item["reason"], str) and item["reason"].strip()


def test_names_are_unique_within_each_file_and_across_the_catalogue():
    seen: dict[str, str] = {}
    for path in [GAME.directory / "cards.yaml", *sorted(SETS_DIR.glob("*.yaml"))]:
        for entry in yaml.safe_load(path.read_text(encoding="utf-8"))["cards"]:
            assert entry["name"] not in seen, f"{entry['name']} in {seen.get(entry['name'])} and {path.name}"
            seen[entry["name"]] = path.name
    assert set(seen) == set(GAME.cards)


def test_a_name_in_two_catalogue_files_is_an_error_naming_both(tmp_path, monkeypatch):
    import pybridge.game.catalogue as catalogue

    for name in ("game.yaml", "clauses.yaml", "cards.yaml", "phrases.yaml"):
        (tmp_path / name).write_text((GAME.directory / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "sets").mkdir()
    (tmp_path / "sets" / "extra.yaml").write_text(
        "game: berserk\nset: extra\ncards:\n  - {name: Волнорез, sources: test, properties: {}, features: []}\n",
        encoding="utf-8")
    monkeypatch.setattr(catalogue, "game_dir", lambda game: tmp_path)
    with pytest.raises(JudgeError) as caught:
        catalogue.load_game("berserk-with-a-clash")
    assert "cards.yaml" in str(caught.value) and "sets/extra.yaml" in str(caught.value)
    assert "Волнорез" in str(caught.value)


def test_at_least_190_of_the_200_cards_of_set_1_have_no_unmodelled_part():
    """Issue 25's target: a card's whole text judged on one board, but for squad building."""
    cards = [c for c in SET_CARDS if c["set"] == "war-of-elements"]
    whole = [c["name"] for c in cards if not c.get("unmodelled")]
    assert len(cards) == 200
    assert len(whole) >= 190, f"{len(whole)} of 200 cards have no unmodelled part"
    for entry in cards:
        for item in entry.get("unmodelled") or []:
            assert "squad" in item["reason"] or "deck" in item["reason"], (
                f"{entry['name']}: {item} is not about squad or deck building")


def test_every_composed_feature_of_set_1_names_a_use():
    """A composed feature is read by the composition's rules (asp/berserk/abilities.lp): each card's
    use of it says how it is used."""
    for entry in SET_CARDS:
        for name, params in features_of(entry).items():
            feature = GAME.vocabulary.features[name]
            if feature.composed:
                assert composed_use(name, params) in USE_WITNESS, f"{entry['name']}: {name}"


def test_the_features_said_to_be_read_by_the_rules_are_in_the_rules_base():
    for name in [*ACTION_OF, *TRIGGERED, *MODIFIERS, *BASIC]:
        mention = (rf"has_feature\(\w+, {name}\)|constant_feature\({name}\)|feature_param\(\w+, {name},"
                   rf"|die_modifier_feature\({name},")
        assert re.search(mention, RULES_TEXT), f"asp/berserk/*.lp never reads the feature {name!r}"


@pytest.mark.parametrize("entry", SET_CARDS, ids=card_id)
def test_every_feature_is_read_by_the_rules_or_listed_as_unmodelled(entry):
    features = features_of(entry)
    listed = unmodelled(entry, "feature")
    for name, params in features.items():
        assert witness(name, params) or name in listed, (
            f"{entry['name']}: the rules base does not read the feature {name!r}, and the card's "
            f"unmodelled list does not name it")
    assert listed <= set(features), f"unmodelled names features the card lacks: {sorted(listed - set(features))}"
    protections = set(entry.get("protections") or [])
    listed_protections = unmodelled(entry, "protection")
    for kind in protections - known_protection_kinds():
        assert kind in listed_protections, f"{entry['name']}: protection from {kind!r} is not a kind the rules know"
    assert listed_protections <= protections


def test_the_features_page_lists_every_feature_of_set_1_with_its_count():
    page = (Path(__file__).resolve().parents[1] / "docs" / "set-1-features.md").read_text(encoding="utf-8")
    features_section = page.split("\n## Features\n", 1)[1].split("\n## ", 1)[0]
    listed = {name: int(n) for name, n in re.findall(r"^\| `(\w+)` \|[^|]*\| (\d+) \|", features_section, re.M)}
    used: dict[str, int] = {}
    for entry in (c for c in SET_CARDS if c["set"] == "war-of-elements"):
        for name in features_of(entry):
            used[name] = used.get(name, 0) + 1
    assert listed == used, "docs/set-1-features.md is out of date with the set files"


# --- The board -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Board:
    """Set cards of the active player (p1) in the first row, opposing ones facing them."""

    mine: tuple[str, ...]
    foes: tuple[str, ...]

    def ids(self) -> dict[str, str]:
        return {f"mine{i}": name for i, name in enumerate(self.mine, 1)}


def board_data(mine: list[str], foes: list[str], *, stage: str = "main", rows: list[int] | None = None,
               history: list[dict] | None = None) -> dict[str, Any]:
    rows = rows or [1] * len(mine)

    def placed(name: str, column: int, row: int) -> dict[str, Any]:  # a flyer lives in the flying zone
        return {"zone": "flying"} if is_flyer(name) else {"cell": {"column": column, "row": row}}

    cards = [{"id": f"mine{i}", "card": name, "controller": "p1", "arrived": 1, **placed(name, i, row)}
             for i, (name, row) in enumerate(zip(mine, rows), 1)]
    # The opponent's columns run the other way: p1's column i faces p2's column 6 - i.
    cards += [{"id": f"foe{i}", "card": name, "controller": "p2", "arrived": 2, **placed(name, 6 - i, 1)}
              for i, name in enumerate(foes, 1)]
    # A revealed deck card (for prophecies, reveals_card) and a dead creature (for resurrection).
    cards += [{"id": "shown", "card": "Кочевник", "controller": "p1", "zone": "deck", "revealed": True},
              {"id": "fallen", "card": "Кочевник", "controller": "p1", "zone": "graveyard"}]
    return {"game": "berserk", "viewpoint": "p1",
            "turn": {"number": 3, "active": "p1", "stage": stage, "phase": "choice"},
            "players": [{"id": "p1", "first": True}, {"id": "p2"}],
            "cards": cards, "history": history or []}


def is_flyer(name: str) -> bool:
    return GAME.cards[name]["properties"].get("movement") == "flying"


def actions_by_actor(report) -> dict[str, list[tuple[str, list[str]]]]:
    found: dict[str, list[tuple[str, list[str]]]] = {}
    for verdict in report.verdicts:
        name, _, rest = verdict.action.partition("(")
        args = [a.strip() for a in rest.rstrip(")").split(",")] if rest else []
        if verdict.player == "p1" and args:
            found.setdefault(args[0], []).append((name, args))
    return found


def chunks(items: list[str], size: int = 5) -> list[tuple[str, ...]]:
    """Groups of `size`; the last one is filled up from the start, so every card has a partner."""
    padded = items + items[:(-len(items)) % size]
    return [tuple(padded[i:i + size]) for i in range(0, len(padded), size)]


def boards() -> list[Board]:
    names = [c["name"] for c in SET_CARDS]
    bearing = [c["name"] for c in SET_CARDS if c.get("features") or c.get("protections")]
    mine_groups, foe_groups = chunks(names), chunks(bearing)
    if PAIRS == "all":
        return [Board(m, f) for m in mine_groups for f in foe_groups]
    count = max(len(mine_groups), len(foe_groups))  # every group on each side at least once
    return [Board(mine_groups[i % len(mine_groups)], foe_groups[i % len(foe_groups)]) for i in range(count)]


def board_id(board: Board) -> str:
    number = {c["name"]: c["number"] for c in SET_CARDS}
    return f"{number[board.mine[0]]}-{number[board.mine[-1]]}-vs-{number[board.foes[0]]}-{number[board.foes[-1]]}"


@pytest.mark.parametrize("board", boards(), ids=board_id)
def test_every_card_on_a_board_checks_clean_and_its_features_yield_actions(board):
    report = api.check(situation_from_data(board_data(list(board.mine), list(board.foes)),
                                           source="catalogue board"))
    by_actor = actions_by_actor(report)
    for card, name in board.ids().items():
        entry = GAME.cards[name]
        front = f"foe{card.removeprefix('mine')}"
        actions = by_actor.get(card, [])
        # A creature in a cell does not strike a flyer (model:strike-reach); a flyer strikes any character.
        if is_flyer(name) or not is_flyer(board.foes[int(card.removeprefix("mine")) - 1]):
            assert ("strike_attack", [card, front]) in actions, f"{name}: no strike attack at the creature in front"
        for feature, params in features_of(entry).items():
            how = witness(feature, params)
            if feature in unmodelled(entry, "feature") or how in (None, "modifier", "trigger"):
                continue
            if how == "use" and not aim_met_on_the_board(params, feature):
                continue
            wanted = {"action": ACTION_OF.get(feature), "use": "use", "move": "move"}.get(how, "declare")
            hits = [args for kind, args in actions
                    if kind == wanted and (how in ("action", "move") or args[1] == feature)]
            assert hits, f"{name}: the feature {feature!r} yields no {wanted} action in the check"


# Aim conditions the generic board meets: an enemy creature in front, the card itself, any card.
BOARD_AIMS = {"side", "type", "other", "reach", "range", "metric"}
BOARD_REACHES = {"adjacent", "anywhere", "range", "any_cell", "ground", "self", "self_or_adjacent", "opposite"}


def aim_met_on_the_board(params: dict[str, Any], feature: str) -> bool:
    """Whether the generic board gives an activated composition a card to aim at: an aim of only
    side, type, reach next to it, range or anywhere (the foe in front, its neighbour, itself), and no
    while-condition (which the board may not meet)."""
    composition = GAME.vocabulary.features[feature].composition(params)
    aim = composition.get("aim") or {}
    return (set(aim) <= BOARD_AIMS and aim.get("reach", "anywhere") in BOARD_REACHES
            and "while" not in composition and "lives" not in composition)


def test_printed_protections_reach_the_solver_but_not_from_a_card_the_viewer_may_not_see():
    """Циклоп is printed with protection from magic: an opposing magic strike at it has no effect
    (531.1); hidden, the opponent's Циклоп shows p1 no protection at all."""
    data = board_data(["Циклоп"], ["Циклоп"])
    report = api.check(situation_from_data(data, source="catalogue protections"))
    assert "no_effect(foe1, magic_strike)" in report.verdict("p1", "magic_strike(mine1, foe1)").consequence_texts
    data["cards"][1]["hidden"] = True
    facts = [str(f) for f in api.facts_for(situation_from_data(data, source="catalogue protections"))]
    assert [f for f in facts if f.startswith("protection(")] == [
        'protection("mine1",magic)', 'protection("mine1",poison)']


TRIGGER_CARDS = [(c["name"], name, params) for c in SET_CARDS for name, params in features_of(c).items()
                 if witness(name, params) == "trigger" and name not in unmodelled(c, "feature")
                 and composed_use(name, params) is None and name not in BASIC]


@pytest.mark.parametrize("name, feature, params", TRIGGER_CARDS, ids=lambda v: v if isinstance(v, str) else "")
def test_a_triggered_feature_is_declared_in_its_moment(name, feature, params):
    """A turn-start trigger tied to a row, in the start stage with the card in that row; a
    trigger on the card's strike, after it struck this turn."""
    foe = SET_CARDS[0]["name"]
    if turn_start_trigger(params):
        data = board_data([name], [foe], stage="start", rows=[params["row"]])
    else:
        assert feature in TRIGGERED
        data = board_data([name], [foe], history=[{"turn": 3, "action": "strike_attack",
                                                   "actor": "mine1", "target": "foe1"}])
    report = api.check(situation_from_data(data, source="catalogue trigger"))
    actions = actions_by_actor(report).get("mine1", [])
    assert ("declare_trigger", ["mine1", feature]) in actions, f"{name}: {feature} is not declared"


# --- Composed triggered abilities -------------------------------------------------------------------
# The moment each trigger word names, as a board shows it: the turn's stage and whose turn it is, or
# an event of the turn's history (by the card, mine1; by an ally beside it, mine2; by the foe in front).
STAGE_MOMENTS = {
    "turn_start": ("p1", "start"), "your_next_turn_start": ("p1", "start"), "turn_end": ("p1", "end"),
    "opponent_turn_start": ("p2", "start"), "opponent_turn_end": ("p2", "end"), "before_your_turn": ("p2", "end"),
    "battle_start": ("p1", "start"), "valhalla": ("p1", "start"),
}
OTHER_EVENTS = {
    "creature_dies": ("dies", "foe1", None), "ground_creature_dies": ("dies", "foe1", None),
    "enemy_dies_or_ally_incarnates": ("dies", "foe1", None),
    "ally_incarnates": ("incarnates", "mine2", None), "ally_heals": ("heals", "mine2", None),
    "ally_misses": ("misses", "mine2", None), "enemy_heals": ("heals", "foe1", None),
    "ranged_attack_at_adjacent_creature": ("shot", "foe1", "mine2"), "ranged_attack_at_ally": ("shot", "foe1", "mine2"),
    "ranged_attack_at_it": ("shot", "foe1", "mine1"), "nonmagical_attack_at_it": ("strike_attack", "foe1", "mine1"),
    "strike_at_it": ("strike_attack", "foe1", "mine1"), "melee_strike_at_it": ("strike_attack", "foe1", "mine1"),
    "on_strike": ("strike_attack", "mine1", "foe1"), "strike_or_missed_attack": ("strike_attack", "mine1", "foe1"),
    "strikes_back": ("reflect", "mine1", "foe1"), "becomes_defender": ("defend", "mine1", "foe1"),
    "moved_to_adjacent_cell": ("move", "mine1", None),
}
# Abilities the generic board does not set off or give a target, each with why.
NOT_ON_THE_GENERIC_BOARD = {
    "flyer_dies": "needs a flyer that died; the board's foe is a ground creature",
    "formation_open_ally": "formation (in_formation/2) comes from the basic rules of formation",
    "formation_chip": "formation (in_formation/2) comes from the basic rules of formation",
    "redirect_ranged_attack": "its aim is a formation mate (in_formation/2, the basic rules of formation)",
    "shot_on_move": "its condition needs an ally of cost 7 or more beside it",
    "block_enemy_heal": "its condition needs more than 8 health; the card has 8",
    "double_own_heal": "its condition needs less than 8 health; the card has 8",
    "summon_swamp_creature": "its aim is a swamp creature in the deck; the board's deck shows a steppe one",
    "valhalla@Оборотень": "its aim is a Йордлинг of its controller; the board has none",
}
COMPOSED_TRIGGERS = [(c["name"], name, params) for c in SET_CARDS for name, params in features_of(c).items()
                     if composed_use(name, params) == "triggered" and "row" not in params]


def trigger_board(name: str, feature: str, params: dict[str, Any]) -> dict[str, Any]:
    composition = GAME.vocabulary.features[feature].composition(params)
    trigger = composition["trigger"]
    data = board_data([name, "Кочевник"], [SET_CARDS[0]["name"], SET_CARDS[0]["name"]])
    data["cards"][0]["chips"] = {"plain": 3}  # abilities paid with chips, or on while it holds one
    marker = (composition.get("aim") or {}).get("marker")
    if marker:  # an aim at marked cards: the foe in front carries the marker
        data["cards"][2]["markers"] = {marker: 1}
    if composition.get("while") == "moving_second":
        data["players"] = [{"id": "p1"}, {"id": "p2", "first": True}]
    if trigger in STAGE_MOMENTS:
        active, stage = STAGE_MOMENTS[trigger]
        data["turn"].update(active=active, stage=stage)
        if trigger == "battle_start":
            data["turn"]["number"] = 1
            for card in data["cards"]:
                if "arrived" in card:
                    card["arrived"] = 1
        if trigger == "valhalla":
            data["cards"][0] = {"id": "mine1", "card": name, "controller": "p1", "zone": "graveyard"}
        return data
    action, actor, target = OTHER_EVENTS.get(trigger, (trigger, "mine1", None))
    event = {"turn": 3, "action": action, "actor": actor}
    if target:
        event["target"] = target
    data["history"] = [event]
    return data


@pytest.mark.parametrize("name, feature, params", COMPOSED_TRIGGERS, ids=lambda v: v if isinstance(v, str) else "")
def test_a_composed_triggered_ability_is_a_use_in_its_moment(name, feature, params):
    """In the moment its trigger names (a stage of the turn, or an event in the turn's history), a
    composed triggered ability is among check's actions as a use of its card."""
    trigger = GAME.vocabulary.features[feature].composition(params)["trigger"]
    for key in (trigger, feature, f"{feature}@{name}"):
        if key in NOT_ON_THE_GENERIC_BOARD:
            pytest.skip(NOT_ON_THE_GENERIC_BOARD[key])
    report = api.check(situation_from_data(trigger_board(name, feature, params), source="catalogue trigger"))
    uses = [args for kind, args in actions_by_actor(report).get("mine1", []) if kind == "use" and args[1] == feature]
    assert uses, f"{name}: {feature} (trigger {trigger}) is no use in its moment"
