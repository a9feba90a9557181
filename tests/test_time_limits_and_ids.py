"""Issue 29: time limits that are no limit (NaN, infinity, 1e309) are refused wherever they are
given; compiling the rules on a cold cache is not the situation's time; ids of the form the
viewpoint projection gives unknown cards are refused for players as for cards."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from batch_inputs import ROOT, RUSH
from pybridge import api
from pybridge.errors import JudgeError
from pybridge.input.situation import situation_from_data

RULING = ROOT / "tests" / "rulings" / "berserk" / "107" / "107.2-permits.yaml"


def cli(*args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "pybridge", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e309", "0", "-1", "1e300"])
def test_a_time_limit_flag_that_is_no_limit_is_refused(value):
    result = cli("check", RUSH, "--time-limit", value)
    assert result.returncode == 2, result.stdout
    assert "--time-limit must" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "1e309", "1e300"])
def test_a_time_limit_variable_that_is_no_limit_is_refused(value):
    result = cli("check", RUSH, env={"CCG_JUDGE_TIME_LIMIT": value})
    assert result.returncode == 2, result.stdout
    assert result.stderr.startswith("error: environment variable CCG_JUDGE_TIME_LIMIT must be a positive number")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 0.0, 1e300])
def test_the_api_refuses_a_time_limit_that_is_no_limit(value):
    with pytest.raises(JudgeError, match="time"):
        api.check(RUSH, time_limit=value)


def test_compiling_on_a_cold_cache_is_not_the_situations_time(tmp_path):
    """The first check of a fresh installation, with a tight limit a warm check meets easily."""
    result = cli("check", RULING, "--time-limit", "1", env={"CCG_JUDGE_CACHE": str(tmp_path / "cold")})
    assert result.returncode == 0, result.stderr


def players(*ids: str) -> dict:
    return {"game": "berserk", "viewpoint": ids[0], "players": [{"id": ids[0], "first": True}, {"id": ids[1]}],
            "turn": {"number": 1, "active": ids[0], "stage": "main"}}


@pytest.mark.parametrize("reserved", ["hidden@p2:battlefield#1", "hidden@p2:3.1", "hidden@"])
def test_a_player_id_of_the_neutral_form_is_refused(reserved):
    data = players("p2", reserved)
    data["cards"] = [{"id": "mine", "card": "Демон зависти", "controller": "p2", "cell": {"column": 3, "row": 1}}]
    with pytest.raises(JudgeError) as caught:
        situation_from_data(data, source="s.yaml")
    assert caught.value.field == "players[1].id" and "reserved" in caught.value.message
