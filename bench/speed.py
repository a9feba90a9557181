"""How fast ccg-judge judges, side by side with plain clingo on the same rules and facts.

Run from the repository root:  python bench/speed.py [--quick] [--repeat N] [--markdown FILE]

--markdown FILE also writes the results as Markdown tables (the documentation's performance page
includes docs/snippets/speed.md, written this way).

Columns, each the median (and p99) CPU time of one situation, in milliseconds:
  floor    plain clingo: a fresh Control, the game's main.lp, the facts `ccg-judge facts` dumps,
           ground, solve, read the shown atoms (what `python -m clingo` does, in-process);
  oracle   plain clingo on an oracle's trim of main.lp for this situation: only the rules that have
           a ground instance on its facts, read off clingo's own grounding (bench/oracle.py; its
           answer is compared with the floor's). The least any specialiser could keep: check/oracle
           shows the room left to that limit;
  check    warm `pybridge.api.check` (cites and first-level reasons), from the loaded situation;
  bare     warm `api.check(reasons=False)`: the verdicts and their cites without the because-lines
           (what batch judges its rows with, and what check was before it gave them), so that what
           the because-lines cost shows apart from what grounding the rules costs;
  trees    warm `api.check(trees=True)` (every verdict's graph in full);
  explain  warm `api.explain` of one listed action, with its full graph;
(warm: the rules compiled and parsed in this process; what the specialiser found for a situation's
shape is forgotten before every run, so each run pays for it as a new situation would)
and the ratios to the floor (check also to the oracle), how many solves (clingo Controls) a check
makes, the size of `check --json`, and, for cold processes, the CPU time of
`ccg-judge check S --json` against `python -m clingo main.lp facts.lp` (medians of 11 runs each,
taken in turns), and peak RSS.
Situations: every ruling file (as one group per game) and generated Berserk boards of 10, 30, 60,
120 and 240 cards with 0, 3 and 8 hidden cards (bench/boards.py, fixed seed), plain and in the mixes
users bring: `while` (the viewer's own hidden cards have a feature that holds only while a condition
does) and `air` (many flyers and spells in hand). Boards over the default limits are judged with the
limits raised through their documented variables (CCG_JUDGE_MAX_CARDS, CCG_JUDGE_MAX_JUDGEMENTS),
and the output says so. Times are CPU times of the
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
sys.path.insert(0, str(ROOT))  # this checkout's pybridge, not an installed one

from boards import board  # noqa: E402

import oracle  # noqa: E402

from pybridge import api  # noqa: E402
from pybridge.errors import JudgeError  # noqa: E402
from pybridge.game.catalogue import load_game  # noqa: E402
from pybridge.game.encodings import entry_file  # noqa: E402
from pybridge.ground import specialise  # noqa: E402
from pybridge.ground.facts import render_facts  # noqa: E402
from pybridge.input.situation import load_situation, situation_from_data  # noqa: E402
from pybridge.report.render import to_json  # noqa: E402
from pybridge.tools.rulings import ruling_files  # noqa: E402

SIZES = [(10, 0, "plain"), (10, 3, "plain"), (30, 0, "plain"), (30, 3, "plain"), (30, 8, "plain"), (60, 0, "plain"),
         (60, 3, "plain"), (60, 8, "plain"), (120, 0, "plain"), (120, 3, "plain"), (120, 8, "plain"),
         (30, 3, "while"), (60, 8, "while"), (30, 3, "air"), (60, 8, "air"), (240, 8, "plain")]
QUICK_SIZES = [(10, 0, "plain"), (30, 3, "plain"), (60, 3, "plain"), (120, 8, "plain"), (30, 3, "while"),
               (30, 3, "air")]
# The limits a board the defaults refuse is judged with (the defaults: 150 cards, 6,000 judgements),
# through the variables a user would set: the 240-card board gives 21,298 judgements, the 60-card
# air board 7,707. (An air board of 120 cards does not finish grounding within the default 20 s.)
RAISED_LIMITS = {"CCG_JUDGE_MAX_CARDS": "300", "CCG_JUDGE_MAX_JUDGEMENTS": "100000"}


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


def solves_of_a_check(situation) -> int:
    """How many clingo Controls one check makes (a second solve shows as 2)."""
    made = [0]
    plain_init = clingo.Control.__init__

    def counting_init(self, *args, **kwargs):
        made[0] += 1
        plain_init(self, *args, **kwargs)

    clingo.Control.__init__ = counting_init
    try:
        specialise.forget()
        api.check(situation)
    finally:
        clingo.Control.__init__ = plain_init
    return made[0]


def oracle_program(game: str, facts: str) -> tuple[str, int, int, bool]:
    """The oracle's trim for these facts, the rules it keeps of those with a body, and whether
    its answer is the whole program's."""
    main_lp = entry_file(game, load_game(game).entry)
    text, fired, with_body = oracle.trimmed_text(main_lp, facts)
    whole = main_lp.read_text(encoding="utf-8").replace('#include "', f'#include "{main_lp.parent}/')
    return text, fired, with_body, oracle.shown(text, facts) == oracle.shown(whole, facts)


def trimmed_floor(text: str, facts: str) -> None:
    ctl = clingo.Control(["--models=2", "--warn=none"])
    ctl.add("base", [], text)
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    ctl.solve(on_model=lambda m: m.symbols(shown=True))


def measure(situation, repeat: int) -> dict[str, list[float]]:
    """Interleaved runs of each column, so drift in the machine's load hits all alike."""
    game = situation.game
    facts = render_facts(api.facts_for(situation))
    report = api.check(situation)  # warm: the rules are compiled and cached once per process
    action = report.verdicts[len(report.verdicts) // 2].action if report.verdicts else None
    trimmed, fired, with_body, same = oracle_program(game, facts)
    times: dict[str, list[float]] = {"floor": [], "oracle": [], "check": [], "bare": [], "trees": [], "explain": []}
    for _ in range(repeat):
        times["floor"].append(cpu(lambda: floor(game, facts)))
        times["oracle"].append(cpu(lambda: trimmed_floor(trimmed, facts)))
        times["check"].append(cpu(lambda: api.check(situation)))
        times["bare"].append(cpu(lambda: api.check(situation, reasons=False)))
        times["trees"].append(cpu(lambda: api.check(situation, trees=True)))
        if action is not None:
            times["explain"].append(cpu(lambda: api.explain(situation, action)))
    times["json_kb"] = [len(to_json(report, indent=None).encode("utf-8")) / 1000]
    times["verdicts"] = [len(report.verdicts)]
    times["solves"] = [solves_of_a_check(situation)]
    times["oracle_rules"] = [fired, with_body]
    times["oracle_same"] = [int(same)]
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
    o = statistics.median(times["oracle"])
    cells = [f"{name:<22}", f"{int(times['verdicts'][0]):>5}", f"{f:>7.1f} {percentile(times['floor'], .99):>7.1f}",
             f"{o:>7.1f} {o / f:>5.2f}x"]
    for column in ("check", "bare", "trees", "explain"):
        values = times[column]
        if values:
            m = statistics.median(values)
            cells.append(f"{m:>7.1f} {percentile(values, .99):>7.1f} {m / f:>5.2f}x")
            if column == "check":
                cells.append(f"{m / o:>5.2f}x")
        else:
            cells.append(f"{'-':>7} {'-':>7} {'-':>6}")
    cells.append(f"{_solves(times):>6}")
    cells.append(f"{times['json_kb'][0]:>8.1f}")
    return "  ".join(cells)


def _solves(times: dict[str, list[float]]) -> str:
    """Solves per check: one number for a board, the range over a group of ruling files."""
    low, high = min(times["solves"]), max(times["solves"])
    return f"{low:g}" if low == high else f"{low:g}-{high:g}"


HEADER = (f"{'situations':<22}  {'verd.':>5}  {'floor p50':>7} {'p99':>7}  {'oracle':>7} {'/floor':>6}  "
          f"{'check p50':>7} {'p99':>7} {'/floor':>6} {'/oracl':>6}  {'bare p50':>7} {'p99':>7} {'/floor':>6}"
          f"  {'trees p50':>7} {'p99':>7} {'/floor':>6}  {'explain':>7} {'p99':>7} {'/floor':>6}  {'solves':>6}"
          f"  {'json KB':>8}")


def markdown_row(name: str, times: dict[str, list[float]]) -> str:
    """The row as the documentation shows it: medians, and each column's ratio to the floor."""
    f = statistics.median(times["floor"])
    o = statistics.median(times["oracle"])
    cells = [name, f"{times['verdicts'][0]:g}", f"{f:.1f}", f"{o:.1f}", f"{o / f:.2f}×"]
    for column in ("check", "bare", "trees", "explain"):
        values = times[column]
        m = statistics.median(values) if values else None
        cells += [f"{m:.1f}", f"{m / f:.2f}×"] if m is not None else ["–", "–"]
        if column == "check":
            cells.append(f"{m / o:.2f}×" if m is not None else "–")
    cells += [_solves(times), f"{times['json_kb'][0]:.0f} KB"]
    return "| " + " | ".join(cells) + " |"


MARKDOWN_HEADER = ("| situations | verdicts | floor | oracle | /floor | check | /floor | /oracle | bare | /floor "
                   "| trees | /floor | explain | /floor | solves | JSON |\n"
                   "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def measure_row(spec: str, repeat: int, quick: bool) -> dict[str, list[float]]:
    """One row of the table, measured in this process: ``rulings:GAME`` (each ruling file of the
    game contributes its medians, so the row's figures are medians of medians) or
    ``board:CARDS:HIDDEN:MIX``."""
    kind, *rest = spec.split(":")
    if kind == "board":
        situation, refused = within_limits(board(int(rest[0]), int(rest[1]), mix=rest[2]))
        return {**measure(situation, repeat), "refused": [refused] if refused else []}
    merged: dict[str, list] = {}
    for path in ruling_files([ROOT / "tests" / "rulings"])[:: 4 if quick else 1]:
        situation = load_situation(path)
        if situation.game != rest[0]:
            continue
        for k, v in measure(situation, max(3, repeat // 3)).items():
            merged.setdefault(k, []).append(statistics.median(v) if v else None)
    merged = {k: [x for x in v if x is not None] for k, v in merged.items()}
    merged["oracle_same"] = [min(merged["oracle_same"])]
    merged["oracle_rules"] = [statistics.median(merged["oracle_rules"][0::2]), statistics.median(merged["oracle_rules"][1::2])]
    merged["json_kb"] = [statistics.median(merged["json_kb"])]
    merged["verdicts"] = [statistics.median(merged["verdicts"])]
    return merged


def within_limits(data: dict):
    """The board as a situation, and None; or, when the default limits refuse it, the situation
    judged from now on with RAISED_LIMITS (set in this row's process) and the refusal."""
    try:
        situation = situation_from_data(data)
        api.check(situation)
        return situation, None
    except JudgeError as exc:
        if "CCG_JUDGE_MAX_" not in exc.message:
            raise
        os.environ.update(RAISED_LIMITS)
        return situation_from_data(data), exc.message


def in_a_process_of_its_own(spec: str, repeat: int, quick: bool) -> dict[str, list[float]]:
    command = [sys.executable, str(Path(__file__).resolve()), "--row", spec, "--repeat", str(repeat)]
    run = subprocess.run(command + (["--quick"] if quick else []), capture_output=True, text=True, cwd=ROOT)
    if run.returncode != 0:
        raise SystemExit(f"measuring {spec} failed:\n{run.stderr}")
    return json.loads(run.stdout)


def _row_notes(name: str, times: dict) -> list[str]:
    """What a row's table cannot show: the oracle's trim, a differing answer, raised limits."""
    fired, with_body = times["oracle_rules"]
    note = (f"- {name}: the oracle keeps {fired:.0f} of {with_body:.0f} rules with a body"
            + ("" if times["oracle_same"][0] else "; ITS ANSWER DIFFERS from the whole program's"))
    for refused in times.get("refused", []):
        note += (f"; the default limits refuse it ({refused.rstrip('.')}), judged with "
                 + ", ".join(f"{k}={v}" for k, v in RAISED_LIMITS.items()))
    return [note]


def commit() -> str:
    """' at commit X' when the benchmark runs in a git checkout, so a table says which code it timed."""
    run = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    return f" at commit {run.stdout.strip()}" if run.returncode == 0 else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer boards and repeats")
    parser.add_argument("--repeat", type=int, default=None, help="runs per situation and column")
    parser.add_argument("--markdown", type=Path, help="also write the results as Markdown tables to this file")
    parser.add_argument("--no-rulings", action="store_true",
                        help="leave out the ruling files' rows (the boards and cold runs only)")
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
    notes: list[str] = []
    for game in [] if args.no_rulings else games:
        merged = in_a_process_of_its_own(f"rulings:{game}", repeat, args.quick)
        print(row(f"rulings {game} ({len(merged['floor'])})", merged), flush=True)
        markdown.append(markdown_row(f"rulings, {game} ({len(merged['floor'])}, median)", merged))
        notes += _row_notes(f"rulings {game}", merged)
    boards = {}
    for cards, hidden, mix in (QUICK_SIZES if args.quick else SIZES):
        boards[(cards, hidden, mix)] = board(cards, hidden, mix=mix)
        times = in_a_process_of_its_own(f"board:{cards}:{hidden}:{mix}", repeat, args.quick)
        named = f"board {cards}/{hidden}" + ("" if mix == "plain" else f" {mix}")
        print(row(named, times), flush=True)
        markdown.append(markdown_row(f"board of {cards} cards, {hidden} hidden" + ("" if mix == "plain" else f", {mix}"),
                                     times))
        notes += _row_notes(named, times)
    print("\n".join(notes) + "\n")
    markdown += ["", *notes]
    markdown += ["", "New processes (CPU ms, medians of runs taken in turns):", "",
                 "| situation | `ccg-judge check --format json` | `python -m clingo` | ratio |", "|---|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in (("example", ROOT / "examples" / "berserk" / "first-turn-rush.yaml"),
                           ("board 30/3", Path(tmp) / "board-30-3-plain.json"),
                           ("board 30/3 while", Path(tmp) / "board-30-3-while.json"),
                           ("board 30/3 air", Path(tmp) / "board-30-3-air.json")):
            if not path.exists():
                cards, hidden, mix = path.stem.split("-")[1:]
                data = boards.get((int(cards), int(hidden), mix)) or board(int(cards), int(hidden), mix=mix)
                path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            ours, theirs = cold(path, 3 if args.quick else 11)
            print(f"cold {name:<12} ccg-judge check --format json {ours:7.1f} ms CPU   python -m clingo {theirs:7.1f} ms"
                  f" CPU   ratio {ours / theirs:4.2f}x")
            markdown.append(f"| {name} | {ours:.1f} | {theirs:.1f} | {ours / theirs:.2f}× |")
    peak = peak_rss_mb(boards.get((120, 8, "plain")) or board(120, 8))
    print(f"peak RSS, a process judging the 120-card board with 8 hidden cards: {peak:.0f} MB")
    markdown += ["", f"Peak resident memory of a process judging the 120-card board with 8 hidden cards "
                 f"(check, then check --trees): {peak:.0f} MB."]
    if markdown_file:
        markdown_file.parent.mkdir(parents=True, exist_ok=True)
        markdown_file.write_text("\n".join(markdown) + "\n", encoding="utf-8")

if __name__ == "__main__":
    main()
