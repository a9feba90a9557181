"""The record of the suite's longest tests (tests/durations.json), read by tests/conftest.py to start
them first and by tests/test_durations_record.py to hold it to tests that exist. A module of its own:
``from conftest import ...`` would find whichever conftest.py came first on the path (tests/browser
has one too)."""

from __future__ import annotations

import json
from pathlib import Path

DURATIONS = Path(__file__).with_name("durations.json")


def recorded_durations() -> dict[str, float]:
    if not DURATIONS.exists():
        return {}
    return json.loads(DURATIONS.read_text(encoding="utf-8"))["seconds"]
