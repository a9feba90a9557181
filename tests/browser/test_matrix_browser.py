"""The matrix page in headless Chromium: one mark per cell, and a click shows the cell's verdicts
with their ruling texts."""

from __future__ import annotations

import subprocess
import sys

from harness import ROOT


def test_matrix_page_shows_a_cell_s_rulings_on_click(page, tmp_path):
    out = tmp_path / "matrix.html"
    subprocess.run([sys.executable, "-m", "pybridge", "matrix", "--cards", "name=Арбалетчик,Вилохвост",
                    "--template", str(ROOT / "examples" / "berserk" / "matrix-face-to-face.yaml"), "--jobs", "1",
                    "-o", str(out)], check=True, capture_output=True, timeout=600, cwd=ROOT)
    page.goto(out.as_uri())
    marks = page.locator("td[data-cell]")
    assert marks.count() == 4
    assert set(marks.all_text_contents()) <= {"✓", "✗", "±", "·", "!"} and "!" not in marks.all_text_contents()
    marks.first.click()
    detail = page.locator("#detail")
    assert "A = Арбалетчик, B = Арбалетчик" in detail.locator("h2").text_content()
    assert "p1: shot(a, b)" in detail.locator("pre").first.text_content()
