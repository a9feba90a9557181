"""A judgement pauses Python's cyclic collector while it runs and leaves it as it found it."""

from __future__ import annotations

import gc
import sys
import threading
from pathlib import Path

import pytest

from pybridge import api
from pybridge.errors import JudgeError
from pybridge.input.situation import situation_from_data

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from boards import board  # noqa: E402

EXAMPLE = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_off_during_a_check_and_on_after(collector_on, monkeypatch):
    seen = []
    real = api.build_report
    monkeypatch.setattr(api, "build_report", lambda *a, **k: seen.append(gc.isenabled()) or real(*a, **k))
    api.check(EXAMPLE)
    assert seen == [False]
    assert gc.isenabled()


def test_the_collector_is_on_again_after_a_failed_judgement(collector_on):
    with pytest.raises(JudgeError):
        api.explain(EXAMPLE, "no_such_action(x)")
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_caller_stays_off():
    was = gc.isenabled()
    gc.disable()
    try:
        api.check(EXAMPLE)
        assert not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


def test_overlapping_judgements_in_threads_leave_it_on(collector_on, monkeypatch):
    """The collector is one per process: it is off while any judgement runs and comes back on when
    the last of them ends, not the first."""
    entered = threading.Semaphore(0)
    release = {"first": threading.Event(), "second": threading.Event()}
    real = api.build_report

    def held(*args, **kwargs):
        entered.release()
        release[threading.current_thread().name].wait(timeout=60)
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "build_report", held)
    reports = {}

    def judge() -> None:
        reports[threading.current_thread().name] = api.check(EXAMPLE)

    threads = {name: threading.Thread(target=judge, name=name) for name in release}
    for t in threads.values():
        t.start()
    assert entered.acquire(timeout=60) and entered.acquire(timeout=60)  # both are inside
    states = [gc.isenabled()]
    release["first"].set()
    threads["first"].join(timeout=60)
    states.append(gc.isenabled())  # the second is still judging
    release["second"].set()
    threads["second"].join(timeout=60)
    states.append(gc.isenabled())
    assert states == [False, False, True]
    assert sorted(reports) == ["first", "second"] and reports["first"].verdicts  # both judged in full


@pytest.mark.parametrize("cards, hidden", [(30, 3), (60, 3)])
def test_a_check_leaves_nothing_for_the_collector(cards, hidden):
    """Everything a check makes is freed by reference counting as it returns: nothing is left in a
    reference cycle (a recursive inner function is one), which would hold the check's clingo program
    until the collector next ran and make the next judgement pay for freeing it."""
    situation = situation_from_data(board(cards, hidden))
    api.check(situation)  # compiled and cached
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        report = api.check(situation)
        assert any(v.because for v in report.verdicts)  # the because-lines' graph was made
        del report
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []
