"""Shared test fixtures."""

import json
from collections import Counter
from pathlib import Path

import pytest
from longest_first import DURATIONS, recorded_durations

# --- fuzz case counter (tests/fuzz, test_injection, test_metamorphic) -------
# Each generated or tabled case adds one under its test's name; the total is
# printed in pytest's terminal summary, with or without -s. Names with ": "
# count a subset of another entry ("x: with a hidden card") and are not added.
FUZZ_CASES = pytest.StashKey[Counter]()


@pytest.fixture(scope="session")
def fuzz_cases(pytestconfig) -> Counter:
    return pytestconfig.stash.setdefault(FUZZ_CASES, Counter())


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    counts = config.stash.get(FUZZ_CASES, None)
    if counts:
        total = sum(count for name, count in counts.items() if ": " not in name)
        terminalreporter.write_sep("-", f"fuzz: {total} generated cases ran")
        for name, count in sorted(counts.items()):
            terminalreporter.write_line(f"{count:8d}  {name}")


# --- the longest tests first (tests/durations.json) -------------------------
# A CI run of two workers paid at its end for a long test that started late: one worker ran it
# while the other sat idle. The tests a recorded run found long go first (xdist deals the first
# tests out in turn, so the longest are spread over the workers), their modules kept together so
# that a module's fixtures are made once a worker. ``--record-durations FILE`` writes a record
# from the run's own durations; a test missing from tests/durations.json only loses its place
# at the front, and tests/test_durations_record.py holds every name in it to a test that exists.
def pytest_addoption(parser):
    parser.addoption("--record-durations", metavar="FILE", type=Path,
                     help="write the tests of this run that took --record-from seconds or more, for "
                          f"tests/{DURATIONS.name}")
    parser.addoption("--record-from", metavar="SECONDS", type=float, default=5.0,
                     help="the shortest test --record-durations keeps (a shorter one cannot leave a worker "
                          "idle for long) [default: 5]")


def _module(item) -> str:
    return item.nodeid.split("::")[0]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    seconds = recorded_durations()
    longest: dict[str, float] = {}
    for item in items:
        longest[_module(item)] = max(longest.get(_module(item), 0.0), seconds.get(item.nodeid, 0.0))
    items.sort(key=lambda item: (-longest[_module(item)], _module(item),
                                 -seconds.get(item.nodeid, 0.0)))


# --- a situation file's tests on one worker (tests/judged.py) ----------------
# Several modules test every situation file, each parametrized by it ("...[<file>.yaml]"). Under
# xdist's default `load` distribution they are scheduled as one unit, keyed by the file's name, so
# that one worker runs them one after another and judges the file once for all of them. (xdist's own
# `loadgroup` marks do not reach the scheduler under pytest 9: it renames the test after pytest
# stopped reading the name it writes.) Scopes keep their collection order: the longest tests first.
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class BySituationFile(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return situation_file_scope(nodeid)

    if config.getoption("dist") != "load":
        return None
    config.option.loadscopereorder = False
    return BySituationFile(config, log)


def situation_file_scope(nodeid: str) -> str:
    """The unit a test is scheduled in: its situation file's name when it is parametrized by one
    alone, else the test itself."""
    parameters = nodeid[nodeid.find("[") + 1:-1] if nodeid.endswith("]") else ""
    return "situation:" + parameters.rsplit("/", 1)[-1] if parameters.endswith(".yaml") else nodeid


class DurationRecorder:
    """Sums each test's setup, call and teardown (under xdist the controller hears every worker's)."""

    def __init__(self, path: Path, shortest: float):
        self.path, self.shortest = path, shortest
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report):
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self, session):
        long = {node: round(s, 1) for node, s in sorted(self.seconds.items()) if s >= self.shortest}
        self.path.write_text(json.dumps({"recorded_with": "python -m pytest -n 2 --record-durations FILE",
                                         "seconds": long}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def pytest_configure(config):
    path = config.getoption("--record-durations")
    if path is not None and not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationRecorder(path, config.getoption("--record-from")), "duration-recorder")
