"""How long the playground takes to answer an edit on a full (30-card) Berserk board.

Measures, on the board of tests/browser/harness.py `full_board()`:
  * the judge alone: api.check, its two parts (solving; the verdicts with cites and reasons), and
    the check with trees the playground makes when a verdict is first opened;
  * the playground: a real `ccg-judge serve` process driven by headless Chromium, from the
    moment an edit is typed to the moment the new verdicts are drawn (debounce included).

Run: python bench/playground_latency.py [--edits N]   (needs the [test] extra and Debian's chromium)
The goal is under a second per edit (issue 15); the figures are printed, not asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from harness import Playground, chromium, full_board  # noqa: E402

from pybridge import api  # noqa: E402
from pybridge.game.catalogue import load_game  # noqa: E402
from pybridge.ground.facts import situation_facts  # noqa: E402
from pybridge.ground.solve import solve  # noqa: E402
from pybridge.input.situation import situation_from_data  # noqa: E402
from pybridge.input.viewpoint import project  # noqa: E402
from pybridge.why.build import build_report  # noqa: E402


def judge_alone(runs: int) -> dict[str, float]:
    """What the playground's judge pays per edit (api.check: cites and first-level reasons), its two
    parts, and what opening a verdict's tree costs the first time (the same check with trees)."""
    situation = situation_from_data(full_board())
    game = load_game("berserk")
    api.check(situation)  # warm: the rules compiled once, as in the playground
    api.check(situation, trees=True)
    totals, solves, reports, trees, verdicts = [], [], [], [], 0
    viewed = project(situation)
    for _ in range(runs):
        started = time.perf_counter()
        answer = solve("berserk", situation_facts(viewed, game), expected=api._expected(viewed, game))
        solved = time.perf_counter()
        report = build_report(answer, game, edition=game.default_edition,
                              options={k: o.default for k, o in sorted(game.options.items())}, viewpoint="p1")
        done = time.perf_counter()
        solves.append(solved - started)
        reports.append(done - solved)
        verdicts = len(report.verdicts)
        started = time.perf_counter()
        api.check(situation)
        totals.append(time.perf_counter() - started)
        started = time.perf_counter()
        api.check(situation, trees=True)
        trees.append(time.perf_counter() - started)
    return {"check": statistics.median(totals), "solve": statistics.median(solves),
            "verdicts": statistics.median(reports), "trees": statistics.median(trees), "count": verdicts}


def playground(edits: int) -> list[tuple[float, str]]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "full.yaml"
        path.write_text(yaml.safe_dump(full_board(), allow_unicode=True, sort_keys=False), encoding="utf-8")
        with Playground(path) as server, chromium() as context:
            page = context.new_page()
            page.goto(server.url)
            page.wait_for_selector(".verdict", timeout=300_000)
            results = []
            for i in range(edits):
                text = page.input_value("textarea.source")
                before = int(page.get_attribute(".page-root", "data-judged") or "0")
                # Each edit closes another card of the viewer: a text not judged before.
                marker = f"    column: {1 + i % 5}\n    row: {1 + i // 5 % 3}\n  arrived: 1\n"
                edited = text.replace(marker, marker + "  open: false\n", 1)
                assert edited != text
                # One edit is one input event, as a keystroke or a paste gives (Playwright's fill
                # of a long text fires hundreds, which would time the harness, not the playground).
                started = time.perf_counter()
                page.evaluate("""(text) => { const area = document.querySelector('textarea.source');
                    area.value = text; area.dispatchEvent(new Event('input')); }""", edited)
                while int(page.get_attribute(".page-root", "data-judged") or "0") <= before:
                    page.wait_for_timeout(10)
                results.append((time.perf_counter() - started, page.text_content(".status")))
            return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    alone = judge_alone(args.runs)
    print(f"30-card board, {alone['count']} verdicts (wall clock, median of {args.runs}):")
    print(f"  api.check                    {alone['check']:7.2f} s")
    print(f"    solving                    {alone['solve']:7.2f} s")
    print(f"    the verdicts (cites, reasons) {alone['verdicts']:7.2f} s")
    print(f"  api.check with trees         {alone['trees']:7.2f} s   (once, when a verdict is first opened)")
    timings = playground(args.edits)
    for seconds, status in timings:
        print(f"  playground edit: drawn after {seconds:6.2f} s  ({status})")
    print(f"  playground edit, median      {statistics.median(t for t, _ in timings):7.2f} s   (goal: under 1 s)")


if __name__ == "__main__":
    main()
