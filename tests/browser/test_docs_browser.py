"""The documentation site, built strictly (`mkdocs build --strict`, as CI does) and served on a
loopback port, opened in headless Chromium: the getting-started page with its board picture and
real output, a rules page whose clause banners are headings, and a card-set page whose table links
to each card."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from harness import ROOT


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if shutil.which("mkdocs") is None:
        pytest.skip("the docs extra is not installed (pip install '.[docs]'); the site cannot be built")
    folder = tmp_path_factory.mktemp("site")
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(["mkdocs", "build", "--strict", "--site-dir", str(folder)], cwd=ROOT, capture_output=True,
                         text=True, env=environment, timeout=600)
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout}\n{run.stderr}"
    return folder


@pytest.fixture(scope="module")
def served(site) -> str:
    """The built site on a free loopback port; the server is stopped by its pid."""
    server = subprocess.Popen([sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory",
                               str(site)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        banner = server.stdout.readline()  # "Serving HTTP on 127.0.0.1 port N (http://127.0.0.1:N/) ..."
        port = re.search(r"port (\d+)", banner)
        assert port, f"the file server did not start: {banner!r}"
        yield f"http://127.0.0.1:{port.group(1)}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server.pid, signal.SIGTERM)
        server.wait(timeout=10)


def test_getting_started_shows_the_board_and_real_output(page, served):
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{served}/getting-started/")
    page.wait_for_load_state("networkidle")
    assert all(url.startswith(served) for url in requested), "the site asked another host for something"
    board = page.locator('img[src$="board-coordinates.svg"]')
    board.scroll_into_view_if_needed()
    assert board.evaluate("image => image.complete && image.naturalWidth > 0"), "the board picture did not load"
    assert page.locator("code", has_text="strike_attack(kshar, foe) — ILLEGAL").count() >= 1
    assert page.locator("code", has_text="1 passed, 0 failed").count() == 1


def test_a_rules_page_shows_each_clause_as_a_heading_with_its_rules(page, served):
    page.goto(f"{served}/rules/berserk/532_assumptions/")
    heading = page.locator('h4[id="clause-532.6"]')
    assert heading.is_visible()
    assert "Targeting hidden cards" in heading.text_content()
    # The rules of the clause follow its heading, before the next clause's.
    following = heading.evaluate("h => { let n = h.nextElementSibling, code = '';"
                                 " while (n && n.tagName !== 'H4') { code += n.textContent; n = n.nextElementSibling; }"
                                 " return code; }")
    assert 'candidate(P, A, "532.6")' in following
    page.click('a[href="#clause-532.6-2"]')
    assert page.locator('h4[id="clause-532.6-2"]').is_visible()


def test_a_card_set_page_links_each_card(page, served):
    page.goto(f"{served}/cards/berserk-war-of-elements/")
    page.click('table a[href="#card-2"]')
    card = page.locator('h3[id="card-2"]')
    assert card.is_visible() and "Кшар" in card.text_content()
    assert page.locator("p", has_text="Not modelled:").count() > 0
