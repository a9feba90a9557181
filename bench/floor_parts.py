"""What a part of the rules base costs plain clingo, and how much of that is rules that do not fire.

Run from the repository root:

    python bench/floor_parts.py                       # the composed layer, on the 30/3 and 120/8 boards
    python bench/floor_parts.py --files selectors.lp --boards 30:3:while --rounds 9

For each board (bench/boards.py: cards, hidden cards, mix) plain clingo's floor (a fresh Control,
the program, the facts the board's situation gives, ground, solve, read the shown atoms; as
bench/speed.py's floor column) is measured for three programs:
  whole     Berserk's main.lp as it is;
  firing    the named files' rules kept only where they have a ground instance on the board (an
            oracle's trim of those files alone, bench/oracle.py), the rest as it is: what the
            files would cost if a rule that does nothing on the board cost nothing;
  without   the named files left out altogether (no abilities at all, for the default files);
and `no facts`: the whole program with no facts at all, what plain clingo pays for the rules
before any board (parsing them, and grounding where nothing can fire).
The answer of `firing` is checked to be the whole program's. Each run is a process of its own
(clingo keeps every symbol a process makes), the programs taken in turns and in alternating order,
so the machine's load falls on all alike; medians, and the ratio to `whole`, are printed.
Rules and body literals per file: bench/statements.py. The benchmarks use it only: nothing in the
product reads it."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import clingo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))  # this checkout's pybridge, not an installed one

import oracle  # noqa: E402
from boards import board  # noqa: E402

COMPOSED = ("abilities.lp", "ability_steps.lp", "ability_conditions.lp", "selectors.lp", "ability_bans.lp")
MAIN_LP = ROOT / "asp" / "berserk" / "main.lp"
PROGRAMS = ("whole", "firing", "without")
NO_FACTS = "no facts"  # the whole program on an empty facts file


def board_facts(spec: str) -> str:
    """The facts of the board named CARDS:HIDDEN[:MIX], as `ccg-judge facts` renders them."""
    from pybridge import api
    from pybridge.ground.facts import render_facts
    from pybridge.input.situation import situation_from_data

    cards, hidden, *mix = spec.split(":")
    return render_facts(api.facts_for(situation_from_data(board(int(cards), int(hidden), mix=mix[0] if mix else "plain"))))


def floor_runs(program: Path, facts: Path, runs: int) -> list[float]:
    """CPU milliseconds of each of `runs` floors of the program on the facts, in this process."""
    text, given = program.read_text(encoding="utf-8"), facts.read_text(encoding="utf-8")
    times = []
    for _ in range(runs):
        start = time.process_time()
        ctl = clingo.Control(["--models=2", "--warn=none"])
        ctl.add("base", [], text)
        ctl.add("base", [], given)
        ctl.ground([("base", [])])
        ctl.solve(on_model=lambda m: m.symbols(shown=True))
        times.append((time.process_time() - start) * 1000)
    return times


def write_programs(folder: Path, spec: str, files: frozenset[str]) -> tuple[Path, int, int]:
    """The board's facts and the three programs as files in `folder`; the named files' rules with
    a body that fire on the board, and how many they have."""
    facts = board_facts(spec)
    firing, fired, with_body = oracle.trimmed_text(MAIN_LP, facts, only=files)
    whole = MAIN_LP.read_text(encoding="utf-8").replace('#include "', f'#include "{MAIN_LP.parent}/')
    if oracle.shown(firing, facts) != oracle.shown(whole, facts):
        raise SystemExit(f"board {spec}: the trim of {', '.join(sorted(files))} answers otherwise than the whole")
    (folder / "facts.lp").write_text(facts, encoding="utf-8")
    (folder / "whole.lp").write_text(whole, encoding="utf-8")
    (folder / "firing.lp").write_text(firing, encoding="utf-8")
    (folder / "without.lp").write_text(oracle.text_without(MAIN_LP, files), encoding="utf-8")
    (folder / "empty.lp").write_text("", encoding="utf-8")
    return folder / "facts.lp", fired, with_body


def measure_board(spec: str, files: frozenset[str], rounds: int, runs: int) -> dict[str, list[float]]:
    """Each program's floors on one board, in processes of their own taken in turns."""
    times: dict[str, list[float]] = {name: [] for name in (*PROGRAMS, NO_FACTS)}
    with tempfile.TemporaryDirectory() as tmp:
        facts, fired, with_body = write_programs(Path(tmp), spec, files)
        runs_of = {name: (Path(tmp) / f"{name}.lp", facts) for name in PROGRAMS}
        runs_of[NO_FACTS] = (Path(tmp) / "whole.lp", Path(tmp) / "empty.lp")
        for round_ in range(rounds):
            for name in runs_of if round_ % 2 == 0 else list(runs_of)[::-1]:
                program, given = runs_of[name]
                done = subprocess.run([sys.executable, __file__, "--child", str(program), str(given), str(runs)],
                                      capture_output=True, text=True, check=True)
                times[name].extend(json.loads(done.stdout)[1:])  # the first run of a process warms it
    times["rules"] = [fired, with_body]
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", default=",".join(COMPOSED), help="the part: file names under asp/berserk, comma-separated")
    parser.add_argument("--boards", default="30:3,120:8", help="boards as CARDS:HIDDEN[:MIX], comma-separated")
    parser.add_argument("--rounds", type=int, default=5, help="processes per program and board (default 5)")
    parser.add_argument("--runs", type=int, default=4, help="floors per process, the first not counted (default 4)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)  # PROGRAM FACTS RUNS: one process's floors
    args = parser.parse_args()
    if args.child:
        print(json.dumps(floor_runs(Path(args.child[0]), Path(args.child[1]), int(args.child[2]))))
        return 0
    if args.runs < 2:
        parser.error("--runs must be at least 2 (the first run of a process is not counted)")
    files = frozenset(args.files.split(","))
    unknown = sorted(name for name in files if not (MAIN_LP.parent / name).is_file())
    if unknown:
        parser.error(f"no such file under asp/berserk: {', '.join(unknown)}")
    print(f"part: {', '.join(sorted(files))}")
    for spec in args.boards.split(","):
        times = measure_board(spec, files, args.rounds, args.runs)
        whole = statistics.median(times["whole"])
        fired, with_body = times["rules"]
        cells = "  ".join(f"{name} {statistics.median(times[name]):.1f} ms ({statistics.median(times[name]) / whole:.2f})"
                          for name in (*PROGRAMS, NO_FACTS))
        print(f"board {spec}: {cells}; the part's rules firing {fired} of {with_body}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
