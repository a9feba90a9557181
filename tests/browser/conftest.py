"""Fixtures of the browser tests: one headless Chromium per session, skipped (with the reason)
where Chromium or Playwright is missing or the browser will not start."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness import BrowserUnavailable, chromium

# Set to a folder (the repository keeps them in docs/) to save the screenshots the tests take.
SCREENSHOTS = os.environ.get("CCG_JUDGE_SCREENSHOTS")


@pytest.fixture(scope="session")
def browser_context():
    manager = chromium()
    try:
        context = manager.__enter__()
    except BrowserUnavailable as exc:
        pytest.skip(f"browser tests skipped: {exc}")
    try:
        yield context
    finally:
        manager.__exit__(None, None, None)


@pytest.fixture
def page(browser_context):
    """A fresh tab; the test fails on any script error the page reports."""
    tab = browser_context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    yield tab
    tab.close()
    assert errors == [], f"the page reported errors: {errors}"


@pytest.fixture
def screenshot():
    """save(tab, name): a PNG of the tab in $CCG_JUDGE_SCREENSHOTS, when that is set."""
    def save(tab, name: str, *, full_page: bool = True) -> None:
        if SCREENSHOTS:
            folder = Path(SCREENSHOTS)
            folder.mkdir(parents=True, exist_ok=True)
            tab.screenshot(path=str(folder / f"{name}.png"), full_page=full_page)
    return save
