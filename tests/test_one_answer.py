"""Every valid situation has exactly one answer (issue 29): generated boards of set-1 cards, open
and hidden, are judged by the real solver, and each must give one model: no "the rules have no
answer" (unsatisfiable, as the five-card Демон зависти board was) and no second answer.

``CCG_JUDGE_FUZZ_PROFILE=ci`` (the default) judges a fixed set of boards in this process, in about
half a minute. ``nightly`` judges ``CCG_JUDGE_BOARDS`` boards (default 100 000) on batch's recycled
worker processes at every core, and prints how many it judged, at what rate; SECURITY.md records
the last deep run."""

from __future__ import annotations

import collections
import faulthandler
import os
import time
from pathlib import Path

import pytest

from boards import board
from pybridge import api
from pybridge.tools import batch
from pybridge.errors import JudgeError
from pybridge.input.situation import situation_from_data

PROFILE = os.environ.get("CCG_JUDGE_FUZZ_PROFILE", "ci")
CI_BOARDS = 300
CI_SEED = 29
STALL_SECONDS = 20
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
    """Counted as the deep profile counts (:func:`pybridge.api.answer_count`, half a check's cost);
    that the count is check's own is the next test's."""
    judged, wrong = 0, []
    for number in range(CI_BOARDS):
        situation = _valid(board(CI_SEED, number))
        if situation is None:
            continue
        try:
            count = api.answer_count(situation, time_limit=60)
            if count != 1:
                wrong.append((number, f"{count} answers"))
        except JudgeError as exc:
            wrong.append((number, exc.message))
        judged += 1
    assert judged >= CI_BOARDS * 0.9, "the generator should make valid boards"
    assert not wrong, f"boards of seed {CI_SEED} without exactly one answer: {wrong[:5]}"


def test_the_answer_count_of_the_deep_profile_agrees_with_check():
    """The deep profile counts answers without the why layer: on boards check judges, the count is one."""
    counted = 0
    for number in range(12):
        data = board(CI_SEED + 1, number)
        situation = _valid(data)
        if situation is None:
            continue
        api.check(situation)
        assert api.answer_count(data) == api.answer_count(situation) == 1
        counted += 1
    assert counted >= 10


def test_an_answer_count_past_its_time_limit_names_the_file():
    """A limit met while counting is the same error check raises, with the situation's file named."""
    from pybridge.errors import TimeLimitError

    example = Path(__file__).resolve().parent.parent / "examples" / "berserk" / "first-turn-rush.yaml"
    with pytest.raises(TimeLimitError) as caught:
        api.answer_count(example, time_limit=1e-6)
    assert caught.value.source == str(example)


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


def _deep_count(number: int) -> tuple[int, int | None, str | None]:
    """In a worker: how many answers a deep board has (None: the input rules refuse the board). A
    board that takes over STALL_SECONDS dumps every thread's stack to standard error: boards of a few
    cards take milliseconds, and the deep runs met rare stalls up to the time limit that a replay of
    the same board does not repeat — the stack says where one waits."""
    faulthandler.dump_traceback_later(STALL_SECONDS, exit=False)
    try:
        return number, api.answer_count(board(CI_SEED + 1, number), time_limit=120), None
    except JudgeError as exc:
        if exc.field is not None:
            return number, None, None  # the generator made a board the input rules refuse: not a valid situation
        return number, None, exc.message
    finally:
        faulthandler.cancel_dump_traceback_later()


@pytest.mark.skipif(PROFILE != "nightly", reason="CCG_JUDGE_FUZZ_PROFILE=nightly runs it")
def test_generated_boards_have_one_answer_deep():
    """The deep profile counts answers with :func:`pybridge.api.answer_count` (the rules kept for
    the board, ground and solved, without the why layer that cannot change the count): a third of a
    check's cost, which is what puts 100 000 boards within an hour of two cores."""
    wrong, refused, judged = [], 0, 0
    started = time.monotonic()
    with batch.LocalPool(batch.all_cores()) as pool:
        pending = collections.deque()
        for number in range(DEEP_BOARDS):
            pending.append(pool.submit(_deep_count, number))
            if len(pending) < 64:
                continue
            judged, refused = _take(pending.popleft().result(), wrong, judged, refused, started)
        while pending:
            judged, refused = _take(pending.popleft().result(), wrong, judged, refused, started)
    seconds = time.monotonic() - started
    print(f"\none-answer deep profile: {judged} boards, {refused} refused as invalid, "
          f"{len(wrong)} without one answer, {seconds:.0f} s, {judged / seconds:.1f} boards/s")
    assert judged == DEEP_BOARDS
    assert not wrong, wrong[:5]


def _take(outcome, wrong: list, judged: int, refused: int, started: float) -> tuple[int, int]:
    number, count, error = outcome
    judged += 1
    if count is None and error is None:
        refused += 1
    elif count != 1:
        wrong.append((number, error or f"{count} answers"))
        print(f"board {number} (seed {CI_SEED + 1}): {wrong[-1][1]}", flush=True)  # found at once, not only at the end
    if judged % 5000 == 0:
        print(f"{judged} boards, {len(wrong)} without one answer, "
              f"{judged / (time.monotonic() - started):.1f} boards/s", flush=True)
    return judged, refused
