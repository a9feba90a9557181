"""Small things a newcomer meets: cards, --version, file:line:column in errors about a situation
file, test's -k/-x/-q/--jobs, and commands refusing a path that does not exist."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUSH = ROOT / "tests" / "rulings" / "berserk" / "107"


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pybridge", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


def test_cards_lists_the_catalogue_with_the_modelled_text():
    done = run("cards", "--game", "mtg", "cryptic")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Cryptic Coat  [mtg]") and "mana_cost {2}{U}" in done.stdout
    assert "return_to_hand (cost: {1}{U})" in done.stdout and "It has no equip ability." in done.stdout
    assert "1 card matching 'cryptic'" in done.stderr
    every = run("cards")
    assert "[berserk]" in every.stdout and "[mtg]" in every.stdout


def test_version():
    done = run("--version")
    assert re.fullmatch(r"ccg-judge \d+\.\d+\.\d+\n", done.stdout)


def test_an_error_in_a_situation_file_says_file_line_column(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("game: berserk\nviewpoint: p1\nplayers: [{id: p1}, {id: p2}]\n"
                    "turn: {number: 1, active: p1, stage: main, phase: choice}\ncards:\n"
                    "  - {id: a, card: Вайл, controller: p1}\n  - {id: b, card: Vial, controller: p1}\n",
                    encoding="utf-8")
    done = run("check", str(path))
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {path}:7:19: field cards[1].card: unknown card 'Vial'")


def test_test_runs_a_selection_quietly_in_parallel_and_stops_at_the_first_failure(tmp_path):
    quiet = run("test", "-q", "-k", "Рывок", "--jobs", "2", str(RUSH))
    assert quiet.returncode == 0 and quiet.stdout == "1 passed, 0 failed\n"
    loud = run("test", "-k", "107.2-c", str(RUSH))
    assert loud.stdout.splitlines()[0].startswith("PASS ") and loud.stdout.endswith("1 passed, 0 failed\n")
    broken = tmp_path / "rulings"
    broken.mkdir()
    for name in ("a.yaml", "b.yaml"):
        (broken / name).write_text("game: berserk\n", encoding="utf-8")
    first = run("test", "-x", str(broken))
    assert first.returncode == 1 and first.stdout.count("FAIL ") == 1 and first.stdout.endswith("0 passed, 1 failed\n")


@pytest.mark.parametrize("command", [["test", "nowhere"], ["coverage", "nowhere"], ["lint", "--rulings", "nowhere"],
                                     ["mutants", "--equivalent", "nowhere.yaml"]])
def test_a_path_that_does_not_exist_is_refused(command):
    done = run(*command)
    assert done.returncode == 2 and "no such file or folder" in done.stderr and "nowhere" in done.stderr
