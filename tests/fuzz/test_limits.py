"""Every resource limit (pybridge/input/limits.py) stops a too-big situation early
with a message naming the field, the limit and how to raise it; raising the
limit lets the same situation through."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest

from pybridge import api
from pybridge.errors import JudgeError
from pybridge.input import limits
from pybridge.input.situation import load_situation, situation_from_data

from .strategies import base_situation, fuzzable_games, game_space

GAME = fuzzable_games()[0]


@pytest.fixture
def base():
    return base_situation(game_space(GAME))


def refused(data, source="big.yaml") -> JudgeError:
    with pytest.raises(JudgeError) as caught:
        situation_from_data(data, source=source)
    return caught.value


def many_cards(base, count):
    """The base's cards and more, ``count`` in all."""
    template = {k: v for k, v in base["cards"][0].items() if k != "cell"}
    return base["cards"] + [dict(template, id=f"card{i}") for i in range(count - len(base["cards"]))]


def test_defaults_are_documented_in_security_md():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "SECURITY.md").read_text(encoding="utf-8")
    for name, variable in limits.ENVIRONMENT.items():
        assert variable in text, f"{variable} is not documented"
        value = getattr(limits.DEFAULTS, name)
        shown = f"{value:g}" if isinstance(value, float) else f"{value:,}".replace(",", " ")
        assert shown in text, f"the default of {variable} ({shown}) is not documented"


@pytest.mark.parametrize("key, name", [("cards", "cards"), ("effects", "effects"), ("history", "history")])
def test_too_many_entries(base, key, name, monkeypatch):
    limit = getattr(limits.DEFAULTS, name)
    base[key] = (many_cards(base, limit + 1) if key == "cards"
                 else [dict(base.get(key, [{}])[0], id=f"x{i}") for i in range(limit + 1)])
    error = refused(base)
    assert error.field == key and f"{limit + 1} entries" in error.message
    assert limits.ENVIRONMENT[name] in error.message
    if key == "cards":  # raised, the same count passes this check (and the rest of validation)
        monkeypatch.setenv(limits.ENVIRONMENT[name], str(limit + 1))
        assert len(situation_from_data(base).cards) == limit + 1


def test_long_text_names_the_field(base):
    base["cards"][0]["name"] = "Ж" * (limits.DEFAULTS.string_chars + 1)
    error = refused(base)
    assert error.field == "cards[0].name" and "CCG_JUDGE_MAX_STRING" in error.message


def test_deep_nesting_in_data_names_the_field(base):
    value = "bottom"
    for _ in range(200):
        value = [value]
    base["cards"][0]["non_game"] = {"notes": value}
    error = refused(base)
    assert error.field.startswith("cards[0].non_game.notes[0]") and "CCG_JUDGE_MAX_DEPTH" in error.message


def test_numbers_out_of_range_name_the_field(base):
    base["turn"]["number"] = 2**40
    error = refused(base)
    assert error.field == "turn.number" and "out of range" in error.message
    base["turn"]["number"] = 2
    base["cards"][0]["non_game"] = {"barcode": 2**40}  # never reaches the solver: any number
    situation_from_data(base)


def test_file_size(tmp_path, monkeypatch, base):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(base), encoding="utf-8")
    monkeypatch.setenv("CCG_JUDGE_MAX_FILE_BYTES", str(path.stat().st_size - 1))
    with pytest.raises(JudgeError, match="too large; the limit is .* bytes .*CCG_JUDGE_MAX_FILE_BYTES"):
        load_situation(path)
    monkeypatch.setenv("CCG_JUDGE_MAX_FILE_BYTES", str(path.stat().st_size))
    load_situation(path)


def test_endless_file_and_directory_are_refused(tmp_path):
    started = time.monotonic()
    with pytest.raises(JudgeError, match="not a regular file"):  # never read: it would not end
        load_situation("/dev/zero")
    assert time.monotonic() - started < 10
    with pytest.raises(JudgeError, match="is a folder, not a regular file"):
        load_situation(tmp_path)


BILLION_LAUGHS = "".join(
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9) if i else ', '.join(['lol'] * 9)}]\n" for i in range(10))


@pytest.mark.parametrize("text, words", [
    (BILLION_LAUGHS, "more than 100 000 values (aliases expanded)"),
    ("a: &a [*a]\n", "nested more than 32 levels"),
    ("[" * 50_000 + "]" * 50_000, "nested more than 32 levels deep (line 1)"),
    ("{game: " + "9" * 5000 + "}", "too many digits"),
])
def test_hostile_yaml_is_refused_quickly(tmp_path, text, words):
    path = tmp_path / "bomb.yaml"
    path.write_text(text, encoding="utf-8")
    started = time.monotonic()
    with pytest.raises(JudgeError) as caught:
        load_situation(path)
    assert time.monotonic() - started < 10
    assert words in caught.value.message and caught.value.source == str(path)


def test_deep_json_is_refused(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(JudgeError, match="nested too deeply"):
        load_situation(path)


def test_solver_time_limit_names_itself(base, tmp_path, monkeypatch):
    base["cards"] = many_cards(base, 150)
    path = tmp_path / "slow.json"
    path.write_text(json.dumps(base), encoding="utf-8")
    monkeypatch.setenv("CCG_JUDGE_MAX_JUDGEMENTS", "10000000")
    with pytest.raises(JudgeError) as caught:
        api.check(path, time_limit=0.001)
    assert caught.value.source == str(path)
    assert "time limit; the limit is 0.001 s (raise it with --time-limit or CCG_JUDGE_TIME_LIMIT)" in caught.value.message


def test_judgement_limit_is_checked_before_justifying(base, monkeypatch):
    situation = situation_from_data(base)
    report = api.check(situation, atoms=True)
    monkeypatch.setenv("CCG_JUDGE_MAX_JUDGEMENTS", str(max(1, len(report.atoms) - 1)))
    with pytest.raises(JudgeError, match="judgements .* the limit is .*CCG_JUDGE_MAX_JUDGEMENTS"):
        api.check(situation)


def test_bad_limit_setting_is_named(base, monkeypatch):
    monkeypatch.setenv("CCG_JUDGE_MAX_CARDS", "lots")
    with pytest.raises(JudgeError, match="CCG_JUDGE_MAX_CARDS must be a positive number, got 'lots'"):
        situation_from_data(base)


def test_command_line_reports_a_limit_without_a_traceback(tmp_path, base):
    path = tmp_path / "big.json"
    base["cards"] = many_cards(base, 151)
    path.write_text(json.dumps(base), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pybridge", "check", str(path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert re.match(rf"error: {re.escape(str(path))}:\d+:\d+: field cards: 151 entries; the limit is 150",
                    done.stderr)
