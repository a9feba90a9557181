"""Every valid situation has exactly one answer (issue 29): generated boards of set-1 cards, open
and hidden, are judged by the real solver, and each must give one model: no "the rules have no
answer" (unsatisfiable, as the five-card Демон зависти board was) and no second answer.

``CCG_JUDGE_FUZZ_PROFILE=ci`` (the default) judges a fixed set of boards in this process, in about
half a minute. ``nightly`` judges ``CCG_JUDGE_BOARDS`` boards (default 100 000) on batch's recycled
worker processes at every core, and prints how many it judged, at what rate; SECURITY.md records
the last deep run."""

from __future__ import annotations

import os
import time

import pytest

from boards import board
from pybridge import api
from pybridge.tools import batch
from pybridge.errors import JudgeError
from pybridge.input.situation import situation_from_data

PROFILE = os.environ.get("CCG_JUDGE_FUZZ_PROFILE", "ci")
CI_BOARDS = 300
CI_SEED = 29
DEEP_BOARDS = int(os.environ.get("CCG_JUDGE_BOARDS", "100000"))
# What a valid board must never get: the solver found no answer, or more than one.
NO_ONE_ANSWER = ("the rules have no answer", "more than one answer")


def _valid(data: dict):
    """The situation, or None when the generator made a board the input rules refuse."""
    try:
        return situation_from_data(data, source="generated")
    except JudgeError:
        return None


@pytest.mark.skipif(PROFILE != "ci", reason="the nightly profile runs the deep version")
def test_generated_boards_have_one_answer():
    judged, wrong = 0, []
    for number in range(CI_BOARDS):
        situation = _valid(board(CI_SEED, number))
        if situation is None:
            continue
        try:
            api.check(situation, time_limit=60)
        except JudgeError as exc:
            wrong.append((number, exc.message))
        judged += 1
    assert judged >= CI_BOARDS * 0.9, "the generator should make valid boards"
    assert not wrong, f"boards of seed {CI_SEED} without exactly one answer: {wrong[:5]}"


def test_the_five_card_board_that_had_no_answer_has_one():
    """The reproducer: two Демон зависти side by side, one next to two enemy Посвященный Дзара."""
    demon, mage = "Демон зависти", "Посвященный Дзара"
    cards = [(demon, "p1", 3), (demon, "p2", 3), (mage, "p2", 2), (mage, "p1", 2), (mage, "p1", 4)]
    data = {"game": "berserk", "viewpoint": "p1", "players": [{"id": "p1", "first": True}, {"id": "p2"}],
            "turn": {"number": 3, "active": "p1", "stage": "main", "phase": "choice"},
            "cards": [{"id": f"c{i}", "card": n, "controller": p, "cell": {"column": c, "row": 1}}
                      for i, (n, p, c) in enumerate(cards)]}
    report = api.check(situation_from_data(data))
    assert {v.action for v in report.verdicts if v.verdict == "legal"} >= {"magic_strike(c0, c1)"}


def _deep_tasks(count: int):
    for number in range(count):
        yield batch.Task(f"board {number}", data=board(CI_SEED + 1, number))


@pytest.mark.skipif(PROFILE != "nightly", reason="CCG_JUDGE_FUZZ_PROFILE=nightly runs it")
def test_generated_boards_have_one_answer_deep():
    summary = batch.Summary()
    wrong, refused = [], 0
    started = time.monotonic()
    with batch.LocalPool(batch.all_cores()) as pool:
        for outcome in batch.run(_deep_tasks(DEEP_BOARDS), batch.Settings(time_limit=120), pool, chunk=8,
                                 summary=summary):
            if summary.situations % 5000 == 0:
                print(f"{summary.situations} boards, {len(wrong)} without one answer, "
                      f"{summary.situations / (time.monotonic() - started):.1f} boards/s", flush=True)
            if outcome.error is None:
                continue
            if any(text in outcome.error["message"] for text in NO_ONE_ANSWER):
                wrong.append((outcome.situation, outcome.error["message"]))
            elif outcome.error.get("field") is not None:
                refused += 1  # the generator made a board the input rules refuse: not a valid situation
            else:
                wrong.append((outcome.situation, outcome.error["message"]))
    seconds = time.monotonic() - started
    print(f"\none-answer deep profile: {summary.situations} boards, {refused} refused as invalid, "
          f"{len(wrong)} without one answer, {seconds:.0f} s, {summary.situations / seconds:.1f} boards/s")
    assert not wrong, wrong[:5]
