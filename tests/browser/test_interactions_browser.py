"""The interactions report's page in headless Chromium: the ranked pairs are listed, the filters
narrow them, a pair's panel shows its differences with both verdicts worded as rulings, and the
page asks the network for nothing."""

from __future__ import annotations

import subprocess
import sys

from harness import ROOT

TEMPLATES = ROOT / "examples" / "berserk" / "interactions"
CARDS = ["Арбалетчик", "Пеший латник", "Кочевник"]


def test_interactions_page_lists_filters_and_opens_a_pair(page, tmp_path, screenshot):
    report = tmp_path / "interactions.html"
    subprocess.run([sys.executable, "-m", "pybridge", "interactions", "--cards", "name=" + ",".join(CARDS),
                    "--template", str(TEMPLATES / "range-2.yaml"), "--template", str(TEMPLATES / "face-to-face.yaml"),
                    "--jobs", "2", "--cache", str(tmp_path / "cache.jsonl"), "-o", str(report)],
                   check=True, capture_output=True, timeout=600, cwd=ROOT)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(report.as_uri())
    page.wait_for_selector("#pairs tr.pair")
    assert requested == [report.as_uri()], "the page asked for something besides itself"
    # pairs are ranked by their number of differences, most first
    counts = [int(row.locator("td").nth(3).text_content()) for row in page.locator("#pairs tr.pair").all()]
    assert counts and counts == sorted(counts, reverse=True)

    page.select_option("#feature", "protection:shot")
    shooter_pair = [row for row in page.locator("#pairs tr.pair").all()
                    if row.locator("td").nth(1).text_content() == "Арбалетчик"
                    and row.locator("td").nth(2).text_content() == "Пеший латник"]
    assert len(shooter_pair) == 1  # protection from shots against a shooter
    shooter_pair[0].click()
    panel = page.locator("#panel")
    assert "no_effect(B, shot)" in panel.text_content()
    rulings = panel.locator(".ruling")
    assert "p1: shot(a, b) — LEGAL" in rulings.first.text_content()
    assert "531.1" in rulings.first.text_content()
    screenshot(page, "interactions")

    page.select_option("#feature", "")
    page.fill("#card", "Кочевник")
    names = [row.locator("td").nth(1).text_content() + "|" + row.locator("td").nth(2).text_content()
             for row in page.locator("#pairs tr.pair").all()]
    assert names and all("Кочевник" in n for n in names)
