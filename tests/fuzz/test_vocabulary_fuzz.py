"""Fuzzing the input boundary (issue 10):

- a word of the game's vocabulary, misspelt anywhere in a valid generated situation, is
  refused with an error naming exactly that field, never judged as if it meant nothing;
- `ccg-judge facts` text, read back by clingo, is exactly the Symbols the bridge built,
  for generated situations whose ids and texts hold quotes, backslashes, ASP syntax and
  other scripts (plain clingo, in a subprocess, for a sample of them).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import clingo
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pybridge import api
from pybridge.errors import JudgeError
from pybridge.game.vocabulary import ANY_WORD, Vocabulary
from pybridge.input.limits import field_path
from pybridge.input.situation import situation_from_data

from .oracle import SOURCE
from .strategies import (BYTES, TEXTS, Choices, GameSpace, base_feature, build_situation, fuzz_settings,
                         fuzzable_games, game_space, text_parameter)

GAMES = fuzzable_games()
SHARE = 1 / max(1, len(GAMES))


@dataclass(frozen=True)
class Place:
    """A word of the vocabulary in a situation: what it is, the word, the words valid there,
    where it stands (a list item, a mapping key, or a mapping value), and whether an error
    about it names the misspelt key (else the field stays the same)."""

    what: str
    word: str
    valid: frozenset[str]
    container: tuple
    slot: Any
    role: str  # item | key | value
    field: tuple | None = None  # the field an error names, if not the word's own place

    def expected_field(self, new: str) -> str:
        if self.field is not None:
            return field_path(self.field)
        return field_path([*self.container, new if self.role == "key" else self.slot])

    def apply(self, data: dict, new: str) -> None:
        node = data
        for part in self.container:
            node = node[part]
        if self.role == "key":  # renamed in place, order kept
            items = list(node.items())
            node.clear()
            node.update((new if k == self.slot else k, v) for k, v in items)
        else:
            node[self.slot] = new


def word_places(data: dict[str, Any], vocabulary: Vocabulary) -> list[Place]:
    places = []
    features = frozenset(vocabulary.features)
    for i, card in enumerate(data.get("cards", [])):
        at = ("cards", i)
        for j, entry in enumerate(card.get("features", [])):
            if isinstance(entry, str):
                places.append(Place("feature", entry, features, (*at, "features"), j, "item"))
                continue
            for name, params in entry.items():
                places.append(Place("feature", name, features, (*at, "features", j), name, "key",
                                    field=(*at, "features", j)))
                for key in params or {}:
                    places.append(Place("parameter", key, frozenset(vocabulary.features[name].params),
                                        (*at, "features", j, name), key, "key"))
        for key, value in card.get("properties", {}).items():
            places.append(Place("property", key, frozenset(vocabulary.properties), (*at, "properties"), key, "key"))
            t = vocabulary.properties[key].type
            if t.kind == "one_of" and isinstance(value, str):
                places.append(Place("property value", value, frozenset(map(str, t.values)), (*at, "properties"),
                                    key, "value"))
        for section, key in (("marker", "markers"), ("chip", "chips")):
            known = frozenset(vocabulary.words(section))
            if ANY_WORD not in known:
                places += [Place(section, name, known, (*at, key), name, "key") for name in card.get(key, {})]
        known = frozenset(vocabulary.words("protection"))
        if ANY_WORD not in known:
            places += [Place("protection", name, known, (*at, "protections"), k, "item")
                       for k, name in enumerate(card.get("protections", []))]
    every_word = features | set(vocabulary.properties) | set(vocabulary.action_kinds) | \
        set(vocabulary.action_classes) | set(vocabulary.conditions) | {"type", "receive", "all_abilities", "look_at"}
    for i, effect in enumerate(data.get("effects", [])):
        places.append(Place("effect what", effect["what"], frozenset(every_word), ("effects", i), "what", "value"))
        if "feature" in effect:
            places.append(Place("effect feature", effect["feature"], features, ("effects", i), "feature", "value"))
    for i, event in enumerate(data.get("history", [])):
        places.append(Place("history event", event["action"], frozenset(vocabulary.history), ("history", i),
                            "action", "value"))
    return places


def misspelt(c: Choices, word: str, valid: frozenset[str]) -> str | None:
    """A plain-identifier misspelling of ``word`` that is no valid word there, or None."""
    for _ in range(6):
        at = c.number(0, len(word))
        how = c.number(0, 3)
        if how == 0:
            new = word[:at] + c.pick("aeioux") + word[at:]
        elif how == 1 and len(word) > 2:
            new = word[:max(at, 1) - 1] + word[max(at, 1):]
        elif how == 2 and len(word) > 2 and at < len(word) - 1:
            new = word[:at] + word[at + 1] + word[at] + word[at + 2:]
        else:
            new = word + word[-1]
        if new != word and new not in valid and new[:1].isalpha() and new != "not":
            return new
    return None


@pytest.mark.parametrize("name", GAMES)
@fuzz_settings(0.05 * SHARE)
@given(raw=BYTES, more=st.binary(min_size=16, max_size=24))
def test_a_misspelt_word_is_refused_where_it_stands(name, raw, more, fuzz_cases):
    space = game_space(name)
    data = build_situation(Choices(raw), space)
    places = word_places(data, space.vocabulary)
    if not places:
        return
    c = Choices(more)
    place = c.pick(places)
    new = misspelt(c, place.word, place.valid)
    if new is None:
        return
    changed = copy.deepcopy(data)
    place.apply(changed, new)
    fuzz_cases[f"misspelt vocabulary words ({name})"] += 1
    with pytest.raises(JudgeError) as caught:
        situation_from_data(changed, source=SOURCE)
    assert caught.value.field == place.expected_field(new), \
        f"{place.what} {place.word!r} -> {new!r}: {caught.value.render()}"


# --------------------------------------------------------------------------
# facts round trip


def read_back(text: str) -> set[clingo.Symbol]:
    control = clingo.Control(logger=lambda code, message: None)
    control.add("base", [], text)
    control.ground([("base", [])])
    return {atom.symbol for atom in control.symbolic_atoms}


def with_texts(c: Choices, space: GameSpace, data: dict) -> dict:
    """Free texts wherever the game takes them (a text parameter, a text property, an inline
    card's name), so that every generated case carries quotes, backslashes and keywords."""
    vocabulary = space.vocabulary
    chosen = text_parameter(space)
    texts = sorted(k for k, p in vocabulary.properties.items() if p.type.kind == "text" and not p.type.pattern)
    for card in data.get("cards", []):
        if chosen and c.coin():
            feature = base_feature(space)
            feature[chosen[0]][chosen[1]] = c.pick(TEXTS)
            card["features"] = [f for f in card.get("features", []) if chosen[0] not in (f if isinstance(f, dict)
                                                                                         else {f: None})] + [feature]
        if texts and c.coin():
            card.setdefault("properties", {})[texts[0]] = c.pick(TEXTS)
        if "name" in card and c.coin():
            card["name"] = c.pick(TEXTS)
    return data


@pytest.mark.parametrize("name", GAMES)
@fuzz_settings(0.02 * SHARE)
@given(raw=BYTES, more=st.binary(min_size=16, max_size=24), viewer=st.integers(0, 1))
def test_facts_read_back_as_the_symbols_built(name, raw, more, viewer, fuzz_cases):
    space = game_space(name)
    data = with_texts(Choices(more), space, build_situation(Choices(raw), space))
    situation = situation_from_data(data, source=SOURCE)
    player = situation.players[viewer].id
    fuzz_cases[f"facts round trip ({name})"] += 1
    built = api.facts_for(situation, player=player)
    assert read_back(api.facts_text(situation, player=player)) == set(built)


@pytest.mark.parametrize("name", GAMES)
def test_plain_clingo_reads_the_facts_command_back_exactly(name, tmp_path):
    """The `ccg-judge facts` command's output through `python -m clingo`: its answer set
    (facts only, nothing shown away) is the Symbols the bridge built."""
    space: GameSpace = game_space(name)
    for seed in range(6):
        raw = bytes((seed * 37 + i * 101) % 256 for i in range(360))
        data = with_texts(Choices(raw[::-1]), space, build_situation(Choices(raw), space))
        path = tmp_path / f"s{seed}.json"
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        facts = subprocess.run([sys.executable, "-m", "pybridge", "facts", str(path)],
                               capture_output=True, text=True, check=True, encoding="utf-8").stdout
        facts_file = tmp_path / f"s{seed}.lp"
        facts_file.write_text(facts, encoding="utf-8")
        run = subprocess.run([sys.executable, "-m", "clingo", str(facts_file), "--outf=2"],
                             capture_output=True, text=True, encoding="utf-8", timeout=120)
        answer = json.loads(run.stdout)["Call"][0]["Witnesses"][0]["Value"]
        built = api.facts_for(situation_from_data(data, source=str(path)))
        assert {clingo.parse_term(atom) for atom in answer} == set(built), f"seed {seed}"
