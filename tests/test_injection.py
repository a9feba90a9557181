"""Hostile strings in every string field of a situation: ASP syntax, quotes,
backslashes, newlines, NUL, other scripts, very long text.

Each one is either refused with a JudgeError that names the field, or kept
as data: the `ccg-judge facts` text reads back with clingo into exactly the
intended facts (nothing injected, nothing lost), and no verdict changes
except by the renaming itself.
"""

from __future__ import annotations

import json
from typing import Callable

import clingo
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.oracle import SOURCE, assert_clear, rename, substitute
from fuzz.strategies import (BETA, EFFECT, HOSTILE_STRINGS, P2, GameSpace, base_situation, fuzz_settings,
                             fuzzable_games, game_space)
from pybridge import api
from pybridge.errors import JudgeError
from pybridge.input.situation import situation_from_data
from pybridge.report.render import to_json

GAMES = fuzzable_games()
def set_name(data, payload):
    data["cards"][0]["name"] = payload


def set_catalogue_name(data, payload):
    data["cards"][2]["card"] = payload


def set_property(data, payload):
    """A free-text property where the game declares one (else an undeclared one, refused)."""
    vocabulary = game_space(data["game"]).vocabulary
    texts = sorted(k for k, p in vocabulary.properties.items() if p.type.kind == "text" and not p.type.pattern)
    data["cards"][0]["properties"][texts[0] if texts else "flavour"] = payload


def set_feature_parameter(data, payload):
    """The base's feature has a free-text parameter where the game declares one (else the
    payload goes into an undeclared parameter, which is refused)."""
    feature = data["cards"][0].get("features", [{"x": {}}])[0]
    params = next(iter(feature.values()))
    texts = [k for k, v in params.items() if v == "plain"]
    params[texts[0] if texts else "note"] = payload


def set_non_game(data, payload):
    data["cards"][0]["non_game"] = {"legend": payload, payload: "key", "artist": [payload]}


def set_option(data, payload):
    data["options"] = {next(iter(data["options"]), "some_option"): payload}


def set_word(path: tuple) -> Callable:
    def apply(data, payload):
        target = data
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = payload
    return apply


# field -> (apply payload, the id the payload replaces everywhere, or None; where a refusal must point)
FIELDS: dict[str, tuple[Callable, str | None, str]] = {
    "player id": (None, P2, "players"),
    "card id": (None, BETA, "cards"),
    "effect id": (None, EFFECT, "effects"),
    "inline card name": (set_name, None, "cards[0].name"),
    "catalogue card name": (set_catalogue_name, None, "cards[2].card"),
    "property text": (set_property, None, "cards[0].properties"),
    "feature parameter": (set_feature_parameter, None, "cards[0].features"),
    "non-game element": (set_non_game, None, "cards[0].non_game"),
    "option value": (set_option, None, "options"),
    "edition": (set_word(("edition",)), None, "edition"),
    "stage": (set_word(("turn", "stage")), None, "turn.stage"),
    "zone": (set_word(("cards", 0, "zone")), None, "cards[0].zone"),
    "effect kind word": (set_word(("effects", 0, "what")), None, "effects[0].what"),
    "history action": (set_word(("history", 0, "action")), None, "history[0].action"),
}


def facts_read_back(situation) -> None:
    """The facts text, read by clingo, is exactly the facts the solver gets."""
    text = api.facts_text(situation)
    control = clingo.Control(logger=lambda code, message: None)
    control.add("base", [], text)
    control.ground([("base", [])])
    read = {atom.symbol for atom in control.symbolic_atoms}
    assert read == set(api.facts_for(situation)), "the facts text does not read back as the same facts"


def verdict_table(report_text: str) -> set:
    report = json.loads(report_text)
    return {(v["player"], v["action"], v["verdict"], tuple(v["cites"])) for v in report["verdicts"]}


def try_payload(space: GameSpace, field: str, payload: str, baseline: dict) -> str:
    apply, replaced, where = FIELDS[field]
    data = base_situation(space)
    if field in ("effect kind word", "history action") and not data.get(where.split("[")[0]):
        return "not applicable"
    if replaced:
        data = rename(data, {replaced: payload})
    else:
        apply(data, payload)
    try:
        situation = situation_from_data(data, source=SOURCE)
    except JudgeError as exc:
        assert_clear(exc, data)
        prefix = "players" if field == "player id" else where
        assert exc.field.startswith(prefix) or field in ("player id", "card id", "effect id"), exc.render()
        return "refused"
    facts_read_back(situation)
    text = to_json(api.check(situation))
    if replaced:
        assert substitute(text, {}) == substitute(baseline["text"], {replaced: payload}), \
            f"{field} {payload!r}: verdicts changed beyond the renaming"
    else:
        assert verdict_table(text) == verdict_table(baseline["text"]), f"{field} {payload!r} changed a verdict"
    return "kept as data"


@pytest.fixture(scope="module")
def baselines():
    found = {}
    for name in GAMES:
        space = game_space(name)
        situation = situation_from_data(base_situation(space), source=SOURCE)
        found[name] = {"text": to_json(api.check(situation))}
    return found


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("field", sorted(FIELDS))
def test_hostile_strings_are_refused_or_kept_as_data(name, field, baselines, fuzz_cases):
    space = game_space(name)
    outcomes = {}
    for payload in HOSTILE_STRINGS:
        outcomes[payload] = try_payload(space, field, payload, baselines[name])
        fuzz_cases[f"hostile strings ({name})"] += 1
    # Game vocabulary is a plain identifier: every payload here is refused.
    if field in ("option value", "edition", "stage", "zone", "effect kind word", "history action"):
        assert set(outcomes.values()) <= {"refused", "not applicable"}, outcomes
    # A NUL would cut the text short inside clingo: never kept.
    assert outcomes["a\x00b"] in ("refused", "not applicable")


def test_a_nul_or_lone_surrogate_is_named():
    space = game_space(GAMES[0])
    for bad in ("a\x00b", "\ud800"):
        data = rename(base_situation(space), {BETA: bad})
        with pytest.raises(JudgeError) as caught:
            situation_from_data(data, source=SOURCE)
        assert caught.value.field == "players[1].id" or caught.value.field.startswith("cards[1]"), caught.value
        assert "NUL" in caught.value.message or "Unicode" in caught.value.message


@pytest.mark.parametrize("name", GAMES)
@fuzz_settings(0.004)
@given(payload=st.text(max_size=40), field=st.sampled_from(sorted(FIELDS)))
def test_random_text_is_refused_or_kept_as_data(name, payload, field, baselines, fuzz_cases):
    fuzz_cases[f"random text in a field ({name})"] += 1
    try_payload(game_space(name), field, payload, baselines[name])
