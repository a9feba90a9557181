"""Property-based fuzzing of the whole path: situation data ->
situation_from_data -> api.check -> report JSON, for every game under asp/.

Properties: only JudgeError ever escapes, and it names the file and a field
that is in the input; valid situations get a report in which every verdict
cites clauses of the game's catalogue; the same input gives the same bytes,
also in a fresh process with another hash seed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pybridge import api
from pybridge.errors import JudgeError
from pybridge.ground import specialise
from pybridge.input.situation import parse_text, situation_from_data

from .oracle import SOURCE, assert_clear, check_report, judge, report_json
from .strategies import (BYTES, HOSTILE_STRINGS, Choices, GameSpace, fuzz_settings, fuzzable_games, game_names,
                         game_space, json_like, mutated, situations)

GAMES = game_names()
SHARE = 1 / max(1, len(fuzzable_games()))


def space_or_skip(name: str) -> GameSpace:
    space = game_space(name)
    if isinstance(space, str):
        pytest.skip(f"{name}: {space}")
    return space


@pytest.mark.parametrize("name", GAMES)
@fuzz_settings(0.1 * SHARE)
@given(data=st.data())
def test_valid_situations_get_cited_verdicts(name, data, fuzz_cases):
    space = space_or_skip(name)
    raw = data.draw(situations(space), label="situation")
    fuzz_cases[f"valid situations ({name})"] += 1
    try:
        situation = situation_from_data(raw, source=SOURCE)
    except JudgeError as exc:  # the generator makes valid situations only
        pytest.fail(f"a valid situation was refused: {exc.render()}")
    report = api.check(situation)
    check_report(report, space, situation)
    if data.draw(st.integers(0, 3), label="check twice") == 0:
        assert report_json(api.check(situation)) == report_json(report)


@pytest.mark.parametrize("name", GAMES)
@fuzz_settings(0.01 * SHARE)
@given(data=st.data())
def test_the_specialised_program_answers_as_the_whole(name, data, fuzz_cases):
    """pybridge.ground.specialise leaves out only rules that cannot fire: on random situations (features,
    effects and cards drawn from the whole vocabulary) the report is the same byte for byte."""
    space = space_or_skip(name)
    situation = situation_from_data(data.draw(situations(space), label="situation"), source=SOURCE)
    fuzz_cases[f"specialised against whole ({name})"] += 1
    reports, before = [], specialise.ENABLED
    try:
        for enabled in (True, False):
            specialise.ENABLED = enabled
            specialise.forget()
            reports.append(report_json(api.check(situation)))
    finally:
        specialise.ENABLED = before
    assert reports[0] == reports[1]


@pytest.mark.parametrize("name", GAMES)
@fuzz_settings(0.45 * SHARE)
@given(data=st.data())
def test_invalid_situations_get_a_clear_error(name, data, fuzz_cases):
    space = space_or_skip(name)
    raw, change = data.draw(mutated(space), label="mutated situation")
    fuzz_cases[f"mutated situations ({name})"] += 1
    result = judge(raw)
    if result is not None:  # the change kept it valid: then it must be judged properly
        check_report(result[1], space, result[0])


ODD_TEXTS = ("a: &a [*a]", "- - - - [", "{a: 1, a: 2}", "!!python/object/apply:os.system [echo hi]",
             "a: !!binary AAAA", "? [a, b]\n: c", "1e999", "[1, 2", "\ufeffgame: x", "a: *nope", "%YAML 9.9\n---\n{}",
             "game: " + "9" * 5000, "[" * 200 + "]" * 200, "&a a: b")


@fuzz_settings(0.45)
@given(raw=BYTES, text=st.one_of(st.text(max_size=120), st.sampled_from(HOSTILE_STRINGS + ODD_TEXTS)))
def test_arbitrary_data_and_text_never_crash(raw, text, fuzz_cases):
    fuzz_cases["arbitrary data and text"] += 1
    c = Choices(raw)
    if c.coin():
        document = json_like(c)
    else:
        try:
            document = parse_text(text, source=SOURCE, fmt=c.pick(("yaml", "json")))
        except JudgeError as exc:
            assert_clear(exc, None)
            return
    judge(document)


DETERMINISM_SCRIPT = """
import json, sys
from pybridge import api
from pybridge.ground import specialise
from pybridge.input.situation import situation_from_data
from pybridge.report.render import to_json
for line in sys.stdin:
    print(json.dumps(to_json(api.check(situation_from_data(json.loads(line), source="fuzz.yaml")))))
"""


@pytest.mark.parametrize("name", GAMES)
@fuzz_settings(0.0002 * SHARE)
@given(data=st.data())
def test_same_bytes_in_a_fresh_process(name, data, fuzz_cases):
    space = space_or_skip(name)
    batch = data.draw(st.lists(situations(space, max_cards=5), min_size=10, max_size=10), label="situations")
    fuzz_cases[f"fresh-process determinism ({name})"] += len(batch)
    here = [report_json(api.check(situation_from_data(raw, source=SOURCE))) for raw in batch]
    env = dict(os.environ, PYTHONHASHSEED=str(data.draw(st.integers(1, 2**32 - 1), label="hash seed")))
    done = subprocess.run([sys.executable, "-c", DETERMINISM_SCRIPT], input="".join(json.dumps(r) + "\n" for r in batch),
                          capture_output=True, text=True, env=env, timeout=300, check=True)
    there = [json.loads(line) for line in done.stdout.splitlines()]
    assert there == here
