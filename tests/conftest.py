"""Shared test fixtures."""

from collections import Counter

import pytest

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
