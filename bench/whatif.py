"""How long whatif takes, side by side with a plain check of the same board in the same run.

Run from the repository root:  python bench/whatif.py [--repeat N] [--cards 30]

For generated Berserk boards (bench/boards.py, fixed seed) of --cards cards with 0, 3 and 8 hidden
cards, and for each board one legal and one illegal action of the viewer (the first check lists),
the columns are medians of --repeat runs, taken in turns in one process, in milliseconds of wall
time (the targets are wall time; CPU time beside it, which other load on a shared machine moves
less):
  check    warm `api.check` of the board;
  top 1    warm `whatif(..., top=1)`: the verdict now (explain), the search, the alternative made as a
           situation and explained again;
  top 3    the same with three alternatives (found: how many there were);
and the ratios of top 1 and top 3 to check. Then one cold run of each command in a new process
(`ccg-judge check S --format json` and `ccg-judge whatif S ACTION --format json`), wall and CPU time.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]  # this checkout's pybridge, then the boards

from boards import board  # noqa: E402

from pybridge import api  # noqa: E402
from pybridge.api import whatif  # noqa: E402
from pybridge.input.situation import situation_from_data  # noqa: E402

HIDDEN = (0, 3, 8)


def timed(run) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def actions(s) -> list[tuple[str, str]]:
    """One legal and one illegal action of the viewer, as check lists them: strike attacks and shots
    first (what a player moves cards for), else any."""
    report = api.check(s)
    mine = sorted((v for v in report.verdicts if v.player == s.viewpoint),
                  key=lambda v: not v.action.startswith(("strike_attack", "shot")))
    chosen = []
    for verdict in ("legal", "illegal"):
        found = next((v.action for v in mine if v.verdict == verdict), None)
        if found:
            chosen.append((verdict, found))
    return chosen


def measure(s, action: str, repeat: int) -> dict[str, list[tuple[float, float]]]:
    runs = {"check": lambda: api.check(s), "top 1": lambda: whatif(s, action, top=1),
            "top 3": lambda: whatif(s, action, top=3)}
    for run in runs.values():  # warm: the rules parsed, the neighbourhood program built
        run()
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            times[name].append(timed(run))
    return times


def median(pairs: list[tuple[float, float]], i: int) -> float:
    return statistics.median(p[i] for p in pairs)


def cold(data: dict, action: str) -> list[tuple[float, float]]:
    """Wall and CPU ms of a new process's check, then of its whatif (top 1)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "board.json"
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        runs = []
        for command in (["check", str(path), "--format", "json"], ["whatif", str(path), action, "--format", "json"]):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pybridge", *command], check=True, capture_output=True, cwd=ROOT)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
            runs.append(((time.perf_counter() - start) * 1000, cpu))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per board, action and column")
    parser.add_argument("--cards", type=int, default=30, help="cards on each board")
    args = parser.parse_args()
    print("| board | action | now | found | check | top 1 | /check | top 3 | /check | cold check | cold whatif |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for hidden in HIDDEN:
        data = board(args.cards, hidden)
        s = situation_from_data(data)
        for verdict, action in actions(s):
            times = measure(s, action, args.repeat)
            check, one, three = (median(times[k], 0) for k in ("check", "top 1", "top 3"))
            cpus = [median(times[k], 1) for k in ("check", "top 1", "top 3")]
            (cold_check, cold_check_cpu), (cold_whatif, cold_whatif_cpu) = cold(data, action)
            found = len(whatif(s, action, top=3).alternatives)
            print(f"| {args.cards} cards, {hidden} hidden | `{action}` | {verdict} | {found} | "
                  f"{check:.0f} ({cpus[0]:.0f}) | {one:.0f} ({cpus[1]:.0f}) | {one / check:.1f}x | "
                  f"{three:.0f} ({cpus[2]:.0f}) | {three / check:.1f}x | {cold_check:.0f} ({cold_check_cpu:.0f}) | "
                  f"{cold_whatif:.0f} ({cold_whatif_cpu:.0f}) |", flush=True)
    print(f"\nwall ms (CPU ms), medians of {args.repeat} runs in turns; found: alternatives of a top-3 search; "
          "cold: one run each in a new process")


if __name__ == "__main__":
    main()
