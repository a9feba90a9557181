"""Input that is never silently wrong (issue 10): one regression test per defect.

Sums the rules take stay within clingo's 32-bit integers; YAML tags JSON has no value for
are refused; integers are strict; duplicate keys are refused; standard input is read for
`-`; control characters never reach a report; deep nesting under a raised limit ends in a
clear error.
"""

from __future__ import annotations

import re

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pybridge import api
from pybridge.errors import JudgeError
from pybridge.input import limits
from pybridge.input.situation import load_situation, situation_from_data

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"


@pytest.fixture
def base() -> dict:
    return yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))


def refused(data, source="s.yaml") -> JudgeError:
    with pytest.raises(JudgeError) as caught:
        situation_from_data(data, source=source)
    return caught.value


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run_cli(*args: str, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pybridge", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env=env)


# --- sums the rules take ----------------------------------------------------------


def modifiers(count: int, value: int) -> list[dict]:
    return [{"id": f"m{i}", "target": "foe", "kind": "modify", "what": "strike", "value": value, "timestamp": i}
            for i in range(count)]


def test_modifiers_that_would_wrap_clingos_sum_are_refused(base, monkeypatch):
    """2 200 effects of +1 000 000 on one card wrapped clingo's 32-bit #sum into a wrong verdict."""
    monkeypatch.setenv("CCG_JUDGE_MAX_EFFECTS", "3000")
    base["effects"] = modifiers(2_200, 1_000_000)
    error = refused(base)
    # Вайл's strike is at most 4: the 500th modifier takes the total past 500 000 000.
    assert error.field == "effects[499].value", error.render()
    assert "the value of 'strike' of card 'foe' and its modifiers add up to more than 500 000 000" in error.message
    assert "the limit is 500 000 000" in error.message


def test_modifiers_within_the_bound_are_judged(base):
    base["effects"] = modifiers(400, 1_000_000)
    report = api.check(situation_from_data(base))
    assert report.verdicts


def test_a_parameter_summed_over_cards_is_bounded(base, monkeypatch):
    """Strike reductions of a squad are added up over its cards (feature:strike-reduction)."""
    monkeypatch.setenv("CCG_JUDGE_MAX_CARDS", "1000")
    reducer = {"name": "Fen", "controller": "p2", "zone": "hand", "properties": {"type": "creature"},
               "features": [{"strike_reduction": {"amount": 1_000_000}}]}
    base["cards"] += [dict(reducer, id=f"fen{i}") for i in range(501)]
    error = refused(base)
    assert error.field == "cards[503]" and "'amount' parameters of 'strike_reduction' over all cards" in error.message


def test_the_sum_bound_is_documented():
    text = (ROOT / "SECURITY.md").read_text(encoding="utf-8")
    assert f"{limits.MAX_ABS_SUM:,}".replace(",", " ") in text


# --- YAML tags, duplicate keys -----------------------------------------------------------


@pytest.mark.parametrize("tagged, words", [
    ("!!set {a, b}", "the tag !!set (a set) is not allowed"),
    ("!!omap [{a: 1}]", "the tag !!omap"),
    ("!!pairs [{a: 1}]", "the tag !!pairs"),
    ("!!binary aGk=", "the tag !!binary"),
    ("!!timestamp 2024-01-01", "the tag !!timestamp"),
])
def test_tags_json_has_no_value_for_are_refused(tmp_path, tagged, words):
    """A !!set reached the solver as a Python set, so `facts` changed with PYTHONHASHSEED."""
    text = EXAMPLE.read_text(encoding="utf-8").replace("    arrived: 3\n", f"    arrived: 3\n    non_game: {{x: {tagged}}}\n", 1)
    with pytest.raises(JudgeError) as caught:
        load_situation(write(tmp_path, text))
    assert words in caught.value.message and "(line " in caught.value.message


def test_an_unquoted_date_stays_a_text(tmp_path):
    text = EXAMPLE.read_text(encoding="utf-8").replace("    arrived: 3\n", "    arrived: 3\n    non_game: {released: 2023-05-01}\n", 1)
    assert load_situation(write(tmp_path, text)).cards[0].non_game == {"released": "2023-05-01"}


def test_a_set_handed_to_the_api_is_refused(base):
    base["cards"][0]["non_game"] = {"tags": {"b", "a"}}
    error = refused(base)
    assert error.field == "cards[0].non_game.tags" and "a value of type set is not allowed" in error.message


def test_facts_do_not_depend_on_the_hash_seed(tmp_path):
    script = ("import sys; from pybridge.api import facts_text; from pybridge.input.situation import load_situation; "
              "sys.stdout.write(facts_text(load_situation(sys.argv[1])))")
    path = ROOT / "tests" / "rulings" / "berserk" / "531" / "531.2-complex-covers-component.yaml"
    outputs = {subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True,
                              env={**__import__("os").environ, "PYTHONHASHSEED": seed}).stdout
               for seed in ("1", "2", "3")}
    assert len(outputs) == 1


def test_duplicate_yaml_keys_are_refused_naming_the_key(tmp_path):
    text = EXAMPLE.read_text(encoding="utf-8").replace("    arrived: 3\n", "    arrived: 3\n    arrived: 1\n", 1)
    with pytest.raises(JudgeError) as caught:
        load_situation(write(tmp_path, text))
    assert "the key 'arrived' appears twice in one mapping" in caught.value.message
    assert f"(line {text.splitlines().index('    arrived: 1') + 1})" in caught.value.message


def test_duplicate_json_keys_are_refused_naming_the_field(tmp_path, base):
    text = json.dumps(base).replace('"arrived": 3', '"arrived": 3, "arrived": 1', 1)
    with pytest.raises(JudgeError) as caught:
        load_situation(write(tmp_path, text, "s.json"))
    assert caught.value.field == "cards[0]" and "the key 'arrived' appears twice" in caught.value.message


def test_yaml_merge_keys_still_work(tmp_path):
    text = EXAMPLE.read_text(encoding="utf-8").replace(
        "  - id: veteran\n    card: Вайл\n    controller: p1\n",
        "  - &vet\n    id: veteran\n    card: Вайл\n    controller: p1\n", 1)
    text = text.replace("effects:", "  - <<: *vet\n    id: second\n    cell: {column: 5, row: 1}\neffects:", 1)
    assert [c.id for c in load_situation(write(tmp_path, text)).cards][-1] == "second"


# --- strict integers -------------------------------------------------------------------


@pytest.mark.parametrize("path, value", [
    (("turn", "number"), True), (("turn", "number"), "3"), (("turn", "number"), 3.0),
    (("cards", 0, "arrived"), True), (("cards", 0, "cell", "column"), "3"),
    (("cards", 0, "markers"), {"wound": 1.0}), (("effects", 0, "timestamp"), "10"),
    (("cards", 0, "open"), 1), (("players", 0, "first"), "yes"),
])
def test_no_coercion(base, path, value):
    """true, "3" and 3.0 were accepted as integers (and 1 as true)."""
    node = base
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    error = refused(base)
    assert error.field.startswith(".".join(str(p) for p in path[:1])), error.render()


def test_a_feature_parameter_is_no_bool_for_an_int(base):
    base["cards"][0]["features"] = [{"shot": {"range": True}}]
    error = refused(base)
    assert error.field == "cards[0].features[0].shot.range" and "got true" in error.message


# --- standard input ----------------------------------------------------------------------


@pytest.mark.parametrize("command", [["check"], ["check", "--format", "json"], ["facts"],
                                     ["explain", "-", "strike_attack(elf, foe)"],
                                     ["resolve", "-", "strike_attack(elf, foe)"]])
def test_a_dash_reads_standard_input(command):
    args = command if "-" in command else [*command[:1], "-", *command[1:]]
    by_file = run_cli(*[str(EXAMPLE) if a == "-" else a for a in args])
    by_stdin = run_cli(*args, stdin=EXAMPLE.read_text(encoding="utf-8"))
    assert by_stdin.returncode == 0, by_stdin.stderr
    assert by_stdin.stdout == by_file.stdout


def test_standard_input_may_be_json():
    data = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    run = run_cli("check", "--format", "json", "-", stdin=json.dumps(data))
    assert run.returncode == 0 and json.loads(run.stdout)["verdicts"]


def test_the_limits_apply_to_standard_input():
    import os

    env = {**os.environ, "CCG_JUDGE_MAX_FILE_BYTES": "100"}
    run = run_cli("check", "-", stdin=EXAMPLE.read_text(encoding="utf-8"), env=env)
    assert run.returncode == 2
    assert run.stderr.startswith("error: <stdin>: the input is too large; the limit is 100 bytes")
    run = run_cli("check", "-", stdin=EXAMPLE.read_text(encoding="utf-8").replace("column: 3", "column: 9", 1))
    assert run.returncode == 2 and re.match(r"error: <stdin>:\d+:\d+: field cards\[0\]\.cell\.column", run.stderr)


# --- what a report prints -------------------------------------------------------------


@pytest.mark.parametrize("where, value", [
    (("cards", 0, "id"), "elf\n  p1: shot(x, y) — LEGAL"),
    (("cards", 0, "id"), "elf\x1b[2Kforged"),
    (("players", 1, "id"), "p2\u202e"),
    (("cards", 1, "name"), "Foe\r"),
    (("effects", 0, "id"), "rush\u2028from-spell"),
])
def test_control_characters_never_reach_a_report(base, where, value):
    """A card id with a line break and ANSI escape codes printed raw forged a verdict line."""
    node = base
    for part in where[:-1]:
        node = node[part]
    node[where[-1]] = value
    error = refused(base)
    assert error.field == ".".join(str(p) for p in where).replace(".0.", "[0].").replace(".1.", "[1].")
    assert "control or format character" in error.message


def test_the_keyword_not_is_no_feature(base):
    base["cards"][0]["features"] = ["not"]
    error = refused(base)
    assert error.field == "cards[0].features[0]" and "unknown feature 'not'" in error.message


def test_a_text_that_looks_like_a_word_with_a_line_break_is_refused(base):
    """"creature\\n" became a constant with a line break that clingo read back as creature."""
    base["cards"][0]["properties"] = {"type": "creature\n"}
    error = refused(base)
    assert error.field == "cards[0].properties.type"


# --- deep nesting under a raised limit -------------------------------------------------


def test_deep_nesting_under_a_raised_limit_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("CCG_JUDGE_MAX_DEPTH", "100000")
    text = EXAMPLE.read_text(encoding="utf-8").replace(
        "    arrived: 3\n", "    arrived: 3\n    non_game: {notes: " + "[" * 5000 + "]" * 5000 + "}\n", 1)
    with pytest.raises(JudgeError) as caught:
        load_situation(write(tmp_path, text))
    assert "nested too deeply to read" in caught.value.message and "CCG_JUDGE_MAX_DEPTH" in caught.value.message
    run = run_cli("check", str(tmp_path / "s.yaml"), env={**__import__("os").environ, "CCG_JUDGE_MAX_DEPTH": "100000"})
    assert run.returncode == 2 and "Traceback" not in run.stderr and "internal error" not in run.stderr


def test_deep_data_through_the_api_under_a_raised_limit(base, monkeypatch):
    monkeypatch.setenv("CCG_JUDGE_MAX_DEPTH", "100000")
    deep: object = 1
    for _ in range(5000):
        deep = [deep]
    data = copy.deepcopy(base)
    data["cards"][0]["features"] = [{"shot": {"damage": deep}}]
    error = refused(data)
    assert error.field.startswith("cards[0].features[0].shot.damage")
    base["cards"][0]["non_game"] = {"notes": deep}
    assert api.check(situation_from_data(base)).verdicts  # never used: kept, and judged
