"""How fast ccg-judge judges, side by side with plain clingo on the same rules and facts.

Run from the repository root:  python bench/speed.py [--quick] [--repeat N] [--markdown FILE]

--markdown FILE also writes the results as Markdown tables (the documentation's performance page
includes docs/snippets/speed.md, written this way).

Columns, each the median (and p99) CPU time of one situation, in milliseconds:
  floor    plain clingo: a fresh Control, the game's main.lp, the facts `ccg-judge facts` dumps,
           ground, solve, read the shown atoms (what `python -m clingo` does, in-process);
  check    warm `pybridge.api.check` (cites and first-level reasons), from the loaded situation;
  trees    warm `api.check(trees=True)` (every verdict's graph in full);
  explain  warm `api.explain` of one listed action, with its full graph;
(warm: the rules compiled and parsed in this process; what the specialiser found for a situation's
shape is forgotten before every run, so each run pays for it as a new situation would)
and the ratios to the floor, the size of `check --json`, and, for cold processes, the CPU time of
`ccg-judge check S --json` against `python -m clingo main.lp facts.lp` (medians of 11 runs each,
taken in turns), and peak RSS.
Situations: every ruling file (as one group per game) and generated Berserk boards of 10, 30, 60 and
120 cards with 0, 3 and 8 hidden cards (bench/boards.py, fixed seed). Times are CPU times of the
measuring process (or of the child, for cold runs), so other load on the machine matters less than
for wall time; read the ratios, which are measured in the same process.

Each row is measured in a process of its own: clingo 5 keeps every symbol it makes for the life of
the process, so a process that has judged other large boards grounds slower, plain clingo as much as
ccg-judge (the floor of the 60-card board, 57 ms in a new process, was 132 ms after 30 plain runs of
120-card boards with other card ids). `ccg-judge batch` recycles its workers for the same reason.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import clingo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from boards import board  # noqa: E402

from pybridge import api  # noqa: E402
from pybridge.game.catalogue import load_game  # noqa: E402
from pybridge.game.encodings import entry_file  # noqa: E402
from pybridge.ground import specialise  # noqa: E402
from pybridge.ground.facts import render_facts  # noqa: E402
from pybridge.input.situation import load_situation, situation_from_data  # noqa: E402
from pybridge.report.render import to_json  # noqa: E402
from pybridge.tools.rulings import ruling_files  # noqa: E402

SIZES = [(10, 0), (10, 3), (30, 0), (30, 3), (30, 8), (60, 0), (60, 3), (60, 8), (120, 0), (120, 3), (120, 8)]
QUICK_SIZES = [(10, 0), (30, 3), (60, 3), (120, 8)]


def cpu(run) -> float:
    # Each run is a new situation to the specialiser: its answer for the facts' shape is forgotten
    # first, so a repeat measures what a new situation costs, not a remembered one.
    specialise.forget()
    start = time.process_time()
    run()
    return (time.process_time() - start) * 1000


def floor(game: str, facts: str) -> None:
    ctl = clingo.Control(["--models=2", "--warn=none"])
    ctl.load(str(entry_file(game, load_game(game).entry)))
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    ctl.solve(on_model=lambda m: m.symbols(shown=True))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def measure(situation, repeat: int) -> dict[str, list[float]]:
    """Interleaved runs of each column, so drift in the machine's load hits all alike."""
    game = situation.game
    facts = render_facts(api.facts_for(situation))
    report = api.check(situation)  # warm: the rules are compiled and cached once per process
    action = report.verdicts[len(report.verdicts) // 2].action if report.verdicts else None
    times: dict[str, list[float]] = {"floor": [], "check": [], "trees": [], "explain": []}
    for _ in range(repeat):
        times["floor"].append(cpu(lambda: floor(game, facts)))
        times["check"].append(cpu(lambda: api.check(situation)))
        times["trees"].append(cpu(lambda: api.check(situation, trees=True)))
        if action is not None:
            times["explain"].append(cpu(lambda: api.explain(situation, action)))
    times["json_kb"] = [len(to_json(report, indent=None).encode("utf-8")) / 1000]
    times["verdicts"] = [len(report.verdicts)]
    return times


def cold(path: Path, repeat: int) -> tuple[float, float]:
    """CPU time of a new process: `ccg-judge check PATH --json`, and `python -m clingo` on its facts.

    Both with Python's bytecode cache, as an installed package has it (pip compiles it at install;
    a source checkout writes it on the first run): a machine that sets PYTHONDONTWRITEBYTECODE would
    otherwise compile every module of the package from source in every run. The cache goes to a
    folder of its own, and a first run of each command fills it."""
    with tempfile.TemporaryDirectory() as tmp:
        facts = Path(tmp) / "facts.lp"
        facts.write_text(api.facts_text(path), encoding="utf-8")
        game = load_situation(path).game
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "bytecode")
        commands = {"ccg-judge": [sys.executable, "-m", "pybridge", "check", str(path), "--format", "json"],
                    "clingo": [sys.executable, "-m", "clingo", str(entry_file(game, load_game(game).entry)),
                               str(facts), "--models=2", "--outf=2"]}
        spent: dict[str, list[float]] = {name: [] for name in commands}
        for command in commands.values():
            subprocess.run(command, capture_output=True, check=True, env=env)  # fills the bytecode cache
        for n in range(repeat):  # interleaved, in turns, so that the machine's load hits both alike
            for name in (list(commands) if n % 2 == 0 else list(reversed(commands))):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run(commands[name], capture_output=True, check=True, env=env)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                spent[name].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return statistics.median(spent["ccg-judge"]), statistics.median(spent["clingo"])


def peak_rss_mb(data: dict) -> float:
    """Peak resident memory of a new process that judges the situation (check, then check --trees),
    with the rules cache warm."""
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss across fork and exec, so a child would report
    # this (large) benchmark process's own peak instead of its own.
    script = ("import json, sys; from pybridge import api; from pybridge.input.situation import "
              "situation_from_data; s = situation_from_data(json.loads(sys.stdin.read())); api.check(s); "
              "api.check(s, trees=True); print(next(l.split()[1] for l in open('/proc/self/status') "
              "if l.startswith('VmHWM:')))")
    # Twice: the first run may compile a variant of the rules into the cache folder, which a user
    # pays once per installed version; the second is what every later process costs.
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", script], input=json.dumps(data), capture_output=True,
                             text=True, check=True, cwd=ROOT)
    return int(run.stdout.strip()) / 1024


def row(name: str, times: dict[str, list[float]]) -> str:
    f = statistics.median(times["floor"])
    cells = [f"{name:<16}", f"{int(times['verdicts'][0]):>5}", f"{f:>7.1f} {percentile(times['floor'], .99):>7.1f}"]
    for column in ("check", "trees", "explain"):
        values = times[column]
        if values:
            m = statistics.median(values)
            cells.append(f"{m:>7.1f} {percentile(values, .99):>7.1f} {m / f:>5.2f}x")
        else:
            cells.append(f"{'-':>7} {'-':>7} {'-':>6}")
    cells.append(f"{times['json_kb'][0]:>8.1f}")
    return "  ".join(cells)


HEADER = (f"{'situations':<16}  {'verd.':>5}  {'floor p50':>7} {'p99':>7}  {'check p50':>7} {'p99':>7} {'/floor':>6}"
          f"  {'trees p50':>7} {'p99':>7} {'/floor':>6}  {'explain':>7} {'p99':>7} {'/floor':>6}  {'json KB':>8}")


def markdown_row(name: str, times: dict[str, list[float]]) -> str:
    """The row as the documentation shows it: medians, and each column's ratio to the floor."""
    f = statistics.median(times["floor"])
    cells = [name, f"{times['verdicts'][0]:g}", f"{f:.1f}"]
    for column in ("check", "trees", "explain"):
        values = times[column]
        m = statistics.median(values) if values else None
        cells += [f"{m:.1f}", f"{m / f:.2f}×"] if m is not None else ["–", "–"]
    cells.append(f"{times['json_kb'][0]:.0f} KB")
    return "| " + " | ".join(cells) + " |"


MARKDOWN_HEADER = ("| situations | verdicts | floor | check | /floor | trees | /floor | explain | /floor | JSON |\n"
                   "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def measure_row(spec: str, repeat: int, quick: bool) -> dict[str, list[float]]:
    """One row of the table, measured in this process: ``rulings:GAME`` (each ruling file of the
    game contributes its medians, so the row's figures are medians of medians) or
    ``board:CARDS:HIDDEN``."""
    kind, *rest = spec.split(":")
    if kind == "board":
        return measure(situation_from_data(board(int(rest[0]), int(rest[1]))), repeat)
    merged: dict[str, list] = {}
    for path in ruling_files([ROOT / "tests" / "rulings"])[:: 4 if quick else 1]:
        situation = load_situation(path)
        if situation.game != rest[0]:
            continue
        for k, v in measure(situation, max(3, repeat // 3)).items():
            merged.setdefault(k, []).append(statistics.median(v) if v else None)
    merged = {k: [x for x in v if x is not None] for k, v in merged.items()}
    merged["json_kb"] = [statistics.median(merged["json_kb"])]
    merged["verdicts"] = [statistics.median(merged["verdicts"])]
    return merged


def in_a_process_of_its_own(spec: str, repeat: int, quick: bool) -> dict[str, list[float]]:
    command = [sys.executable, str(Path(__file__).resolve()), "--row", spec, "--repeat", str(repeat)]
    run = subprocess.run(command + (["--quick"] if quick else []), capture_output=True, text=True, cwd=ROOT)
    if run.returncode != 0:
        raise SystemExit(f"measuring {spec} failed:\n{run.stderr}")
    return json.loads(run.stdout)


def commit() -> str:
    """' at commit X' when the benchmark runs in a git checkout, so a table says which code it timed."""
    run = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    return f" at commit {run.stdout.strip()}" if run.returncode == 0 else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer boards and repeats")
    parser.add_argument("--repeat", type=int, default=None, help="runs per situation and column")
    parser.add_argument("--markdown", type=Path, help="also write the results as Markdown tables to this file")
    parser.add_argument("--row", help=argparse.SUPPRESS)  # one row, in a process of its own, as JSON
    args = parser.parse_args()
    repeat = args.repeat or (5 if args.quick else 11)
    markdown_file = args.markdown.resolve() if args.markdown else None
    os.chdir(ROOT)
    if args.row:
        print(json.dumps(measure_row(args.row, repeat, args.quick)))
        return
    machine = (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
               f"clingo {clingo.__version__}")
    print(f"machine: {machine}; CPU ms per situation, medians of {repeat} interleaved runs")
    print(HEADER)
    markdown = [f"Measured by `python bench/speed.py{' --quick' if args.quick else ''}`{commit()} on {machine} "
                f"(load average {os.getloadavg()[0]:.1f} at the start): CPU milliseconds per situation, medians "
                f"of {repeat} interleaved runs, each row in a process of its own.", "", MARKDOWN_HEADER]
    games = sorted({load_situation(p).game for p in ruling_files([ROOT / "tests" / "rulings"])})
    for game in games:
        merged = in_a_process_of_its_own(f"rulings:{game}", repeat, args.quick)
        print(row(f"rulings {game} ({len(merged['floor'])})", merged), flush=True)
        markdown.append(markdown_row(f"rulings, {game} ({len(merged['floor'])}, median)", merged))
    boards = {}
    for cards, hidden in (QUICK_SIZES if args.quick else SIZES):
        boards[(cards, hidden)] = board(cards, hidden)
        times = in_a_process_of_its_own(f"board:{cards}:{hidden}", repeat, args.quick)
        print(row(f"board {cards}/{hidden} hidden", times), flush=True)
        markdown.append(markdown_row(f"board of {cards} cards, {hidden} hidden", times))
    print()
    markdown += ["", "New processes (CPU ms, medians of runs taken in turns):", "",
                 "| situation | `ccg-judge check --format json` | `python -m clingo` | ratio |", "|---|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in (("example", ROOT / "examples" / "berserk" / "first-turn-rush.yaml"),
                           ("board 30/3", Path(tmp) / "board-30-3.json")):
            if not path.exists():
                path.write_text(json.dumps(boards.get((30, 3)) or board(30, 3), ensure_ascii=False), encoding="utf-8")
            ours, theirs = cold(path, 3 if args.quick else 11)
            print(f"cold {name:<12} ccg-judge check --format json {ours:7.1f} ms CPU   python -m clingo {theirs:7.1f} ms"
                  f" CPU   ratio {ours / theirs:4.2f}x")
            markdown.append(f"| {name} | {ours:.1f} | {theirs:.1f} | {ours / theirs:.2f}× |")
    peak = peak_rss_mb(boards.get((120, 8)) or board(120, 8))
    print(f"peak RSS, a process judging the 120-card board with 8 hidden cards: {peak:.0f} MB")
    markdown += ["", f"Peak resident memory of a process judging the 120-card board with 8 hidden cards "
                 f"(check, then check --trees): {peak:.0f} MB."]
    if markdown_file:
        markdown_file.parent.mkdir(parents=True, exist_ok=True)
        markdown_file.write_text("\n".join(markdown) + "\n", encoding="utf-8")

if __name__ == "__main__":
    main()
