"""Headless Chromium for the browser tests, the screenshots and the playground benchmark.

The browser is Debian's ``chromium`` (``/usr/bin/chromium``), driven by Playwright for Python;
Playwright never downloads a browser of its own here. Each launch gets a fresh profile folder,
removed afterwards. The playground runs as a real server process on a free loopback port and
is stopped by its pid.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

CHROMIUM = os.environ.get("CCG_JUDGE_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
ROOT = Path(__file__).resolve().parents[2]
VIEWPORT = {"width": 1440, "height": 900}


class BrowserUnavailable(Exception):
    """Chromium or Playwright is missing, or the browser would not start."""


@contextlib.contextmanager
def chromium() -> Iterator[object]:
    """A Playwright browser context on a fresh profile; BrowserUnavailable when it cannot start."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError as exc:
        raise BrowserUnavailable(f"Playwright for Python is not installed ({exc}); pip install playwright") from None
    if not Path(CHROMIUM).exists():
        raise BrowserUnavailable(f"no Chromium at {CHROMIUM}; install Debian's package: apt-get install chromium")
    profile = tempfile.mkdtemp(prefix="ccg-judge-chromium-")
    try:
        with sync_playwright() as playwright:
            try:
                context = playwright.chromium.launch_persistent_context(
                    profile, executable_path=CHROMIUM, headless=True, args=FLAGS, viewport=VIEWPORT)
            except Error as exc:
                first_line = exc.message.splitlines()[0]
                raise BrowserUnavailable(f"Chromium at {CHROMIUM} would not start: {first_line}") from None
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class Playground:
    """``ccg-judge serve`` as a child process on a free loopback port."""

    def __init__(self, situation: Path, *extra: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pybridge", "serve", str(situation), "--port", "0", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        self.url = self._wait_for_address()

    def _wait_for_address(self, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        assert self.process.stdout is not None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
            if found:
                return found.group(1)
        self.stop()
        said = self.process.stderr.read() if self.process.stderr else ""
        raise RuntimeError("the playground did not start: " + said)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> "Playground":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def full_board(hidden_rows: tuple[int, ...] = (3,)) -> dict:
    """A Berserk situation with every cell of the board taken: 30 cards, the opponent's back
    row face down. The playground's answer time is measured on it."""
    names = ["Вайл", "Ассасин", "Посвященный Дзара", "Демон зависти", "Эльф-всадник"]
    cards = []
    for side in ("p1", "p2"):
        for column in range(1, 6):
            for row in range(1, 4):
                card = {"id": f"{side}-{column}.{row}", "card": names[len(cards) % len(names)], "controller": side,
                        "cell": {"column": column, "row": row}, "arrived": 1}
                if side == "p2" and row in hidden_rows:
                    card["hidden"] = True
                cards.append(card)
    return {"game": "berserk", "viewpoint": "p1", "players": [{"id": "p1", "first": True}, {"id": "p2"}],
            "turn": {"number": 3, "active": "p1", "stage": "main", "phase": "choice"}, "cards": cards}
