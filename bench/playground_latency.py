"""How long the playground takes to answer an edit on a full (30-card) Berserk board.

Measures, on the board of tests/browser/harness.py `full_board()`:
  * the judge alone: api.check, and its two parts (solving; building verdicts and trees);
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
from pybridge.catalogue import load_game  # noqa: E402
from pybridge.facts import situation_facts  # noqa: E402
from pybridge.justify import build_report  # noqa: E402
from pybridge.situation import situation_from_data  # noqa: E402
from pybridge.solve import solve  # noqa: E402
from pybridge.viewpoint import project  # noqa: E402


def judge_alone(runs: int) -> dict[str, float]:
    situation = situation_from_data(full_board())
    game = load_game("berserk")
    api.check(situation)  # warm: the rules parsed once, as in the playground
    totals, solves, reports, verdicts = [], [], [], 0
    for _ in range(runs):
        started = time.perf_counter()
        answer = solve("berserk", situation_facts(project(situation), game), entry=game.entry)
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
    return {"check": statistics.median(totals), "solve": statistics.median(solves),
            "verdicts_and_trees": statistics.median(reports), "verdicts": verdicts}


def judge_without_trees(runs: int) -> float:
    """An estimate for the core's rewrite: api.check with every justification cut at its root
    (the premises of each node left out), i.e. what a check that builds no trees would cost.
    It stubs an internal of pybridge.justify for the measurement only."""
    from pybridge import justify

    situation = situation_from_data(full_board())
    node = justify.Explainer._node
    justify.Explainer._node = lambda self, atom, support, depth: node(self, atom, support, 1 << 20)
    try:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            api.check(situation)
            times.append(time.perf_counter() - started)
    finally:
        justify.Explainer._node = node
    return statistics.median(times)


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
                started = time.perf_counter()
                page.fill("textarea.source", edited)
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
    print(f"30-card board, {alone['verdicts']} verdicts (median of {args.runs}):")
    print(f"  api.check                    {alone['check']:7.2f} s")
    print(f"    solving                    {alone['solve']:7.2f} s")
    print(f"    verdicts and their trees   {alone['verdicts_and_trees']:7.2f} s")
    without = judge_without_trees(args.runs)
    print(f"  api.check without trees      {without:7.2f} s   (an estimate: see judge_without_trees)")
    timings = playground(args.edits)
    for seconds, status in timings:
        print(f"  playground edit: drawn after {seconds:6.2f} s  ({status})")
    print(f"  playground edit, median      {statistics.median(t for t, _ in timings):7.2f} s   (goal: under 1 s)")


if __name__ == "__main__":
    main()
