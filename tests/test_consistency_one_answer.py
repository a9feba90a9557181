"""core:one-answer (issue 29): the consistency search draws situations from the generator alone,
smallest first, and judges each with `check`: it must find a situation the rules give no answer, or
more than one, write it as a situation file `check` reruns, and name the clauses behind it. On the
shipped rules it finds nothing; on copies of the rules with a planted rule it finds the plant."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_consistency import planted

from pybridge import api
from pybridge.errors import AnswerCount
from pybridge.game.encodings import ROOT_VARIABLE, use_asp_root
from pybridge.input.situation import load_situation
from pybridge.tools.consistency import Bounds, search

ROOT = Path(__file__).resolve().parent.parent
ONE_ANSWER = "core:one-answer"
# Two cards on a board of one column (so that cards in cells often stand side by side), no effects
# or history: each search judges a few hundred situations at most.
SMALL = Bounds(cards=2, effects=0, hidden=1, events=0, columns=1)
BOARDS = 60

ADJACENT = "adjacent(C1, C2) :- distance(C1, C2, 1).\n"
# A constraint that kills the answer of any board with two allies side by side.
ALLIES_SIDE_BY_SIDE = "model:planted-allies-side-by-side"
NO_ANSWER = f"""
% --- {ALLIES_SIDE_BY_SIDE} ---------------------------------------
:- adjacent(C1, C2), controller(C1, P), controller(C2, P).
"""
# An even loop that leaves open whether a face-down card may be attacked: two answers.
EITHER_WAY = "model:planted-either-way"
TWO_ANSWERS = f"""
% --- {EITHER_WAY} -----------------------------------------------
taken_as_open(C) :- hidden(C), not taken_as_closed(C).
taken_as_closed(C) :- hidden(C), not taken_as_open(C).
"""


def one_answer(root: Path | None, out: Path):
    """The one-answer search on the small bounds, under the rules at ``root`` (None: the shipped ones)."""
    if root is None:
        return search("berserk", SMALL, only=[ONE_ANSWER], boards=BOARDS, out_dir=out, time_limit=600)
    with use_asp_root(root):
        return search("berserk", SMALL, only=[ONE_ANSWER], boards=BOARDS, out_dir=out, time_limit=600)


def answers_under(root: Path, situation) -> int:
    with use_asp_root(root):
        try:
            api.check(situation)
        except AnswerCount as exc:
            return exc.answers
    return 1


def test_the_shipped_rules_give_every_drawn_situation_one_answer(tmp_path):
    result = one_answer(None, tmp_path)
    (finding,) = result.findings
    assert finding.status == "held", finding.detail
    judged = int(finding.detail[0].split()[0])
    assert judged >= BOARDS, "the draws must give distinct situations of every size, not the same one again"
    assert not list(tmp_path.iterdir())


def test_a_planted_constraint_that_leaves_no_answer_is_found_and_named(tmp_path):
    root = planted(tmp_path, "berserk/board.lp", ADJACENT, ADJACENT + NO_ANSWER)
    result = one_answer(root, tmp_path / "found")
    (finding,) = result.violated
    assert ALLIES_SIDE_BY_SIDE in finding.clauses
    assert "model:board" in finding.clauses  # adjacency: the planted constraint reads it
    assert "no answer" in finding.witness and finding.cards == 2
    situation = load_situation(finding.counterexample)
    (first, second) = situation.cards
    assert first.controller == second.controller and first.cell and second.cell
    assert answers_under(root, situation) == 0
    assert answers_under(ROOT / "asp", situation) == 1  # the shipped rules answer it


def test_a_planted_even_loop_that_gives_two_answers_is_found_and_named(tmp_path):
    root = planted(tmp_path, "berserk/532_hidden_cards.lp", "% --- 532.1 ---", TWO_ANSWERS + "% --- 532.1 ---")
    result = one_answer(root, tmp_path / "found")
    (finding,) = result.violated
    assert finding.clauses == [EITHER_WAY]  # the loop alone gives two answers, whatever the rest says
    assert "more than one answer" in finding.witness
    assert any("taken_as_open" in line for line in finding.detail)
    situation = load_situation(finding.counterexample)
    assert [c.hidden for c in situation.cards] == [True], "shrunk to the one hidden card the loop needs"
    assert answers_under(root, situation) == 2


def test_the_command_reports_it_beside_the_others_and_check_reruns_the_file(tmp_path):
    root = planted(tmp_path, "berserk/board.lp", ADJACENT, ADJACENT + NO_ANSWER)
    env = {**os.environ, ROOT_VARIABLE: str(root)}
    run = subprocess.run(
        [sys.executable, "-m", "pybridge", "consistency", "--game", "berserk", "--cards", "2", "--effects", "0",
         "--events", "0", "--columns", "1", "--invariant", ONE_ANSWER, "--invariant", "core:value-below-zero",
         "--boards", str(BOARDS), "-o", str(tmp_path / "found"), "--format", "json", "--time-limit", "600"],
        capture_output=True, text=True, cwd=ROOT, timeout=900, env=env)
    assert run.returncode == 1, run.stderr
    data = json.loads(run.stdout)
    assert [(i["id"], i["status"]) for i in data["invariants"]] == [
        ("core:value-below-zero", "held"), (ONE_ANSWER, "violated")]
    found = data["invariants"][1]
    assert ALLIES_SIDE_BY_SIDE in found["clauses"]
    rerun = subprocess.run([sys.executable, "-m", "pybridge", "check", found["counterexample"]],
                           capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert rerun.returncode == 2 and "the rules have no answer" in rerun.stderr, rerun.stderr


@pytest.mark.parametrize("boards", ["-1", "x"])
def test_a_bad_number_of_boards_is_a_one_line_error(boards):
    run = subprocess.run([sys.executable, "-m", "pybridge", "consistency", "--game", "berserk", "--boards", boards],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 2 and "--boards" in run.stderr and "Traceback" not in run.stderr


def test_the_command_and_the_search_draw_the_same_number_by_default():
    from pybridge.cli import cli
    from pybridge.tools.consistency import DEFAULT_BOARDS

    (option,) = [p for p in cli.commands["consistency"].params if p.name == "boards"]
    assert option.default == DEFAULT_BOARDS
