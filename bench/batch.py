"""Batch benchmark: `ccg-judge batch` workers vs a naive loop vs plain clingo, side by side.

    python bench/batch.py --quick                 # a small run: 20 mixed situations, once
    python bench/batch.py                         # 1,000 and 10,000 mixed situations, 3 runs each
    python bench/batch.py --sizes 200 --cards 30  # 200 situations of exactly 30 cards

Situations come from bench/boards.py: a mix of 10-60 cards with 0-8 of them hidden (or a fixed
size with --cards), one seed per situation, written as one JSONL file. The configurations:

- batch: the machinery of `ccg-judge batch --jobs N` (pybridge.tools.batch: LocalPool, run, RowWriter to
  /dev/null), driven through the API so each worker's memory samples can be read; the same code
  path as the command. One row per allocator of the workers: glibc's malloc, and jemalloc or
  mimalloc where installed (CCG_JUDGE_ALLOCATOR; the batch itself takes the first installed).
- naive loop: `api.check` on each situation in turn, in one fresh process.
- plain clingo: `ccg-judge facts` for each situation (done before the clock starts), then, in one
  fresh process, for each: clingo.Control, load asp/berserk/main.lp, add the facts, ground, solve,
  as `python -m clingo asp/berserk/main.lp facts.lp` would, without a process start per situation.
  With --jobs N > 1, also N such processes at once, each on its share: plain clingo on N cores.
- packed clingo (with --packing): the rules rewritten so that every atom carries a situation index,
  and K situations ground and solved in one Control, against K separate Controls over the same
  pre-parsed rules; the answers are compared situation by situation.

Each configuration runs --repeat times; the table shows medians: situations/s (wall clock, worker
start included), CPU seconds per situation (all processes; steadier than the wall clock on a
machine shared with other work), the peak resident memory of a worker, and how much a worker's
resident memory grew from the 10th percentile of the batch (the 1,000th of 10,000) to its end (per
worker life: a recycled worker starts afresh, so with recycling this is a life's growth), and the
largest resident memory of any worker in the last tenth of the batch against the second tenth (flat
when recycling bounds it).
No timing here is asserted anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from boards import MIXES, board  # noqa: E402

from pybridge.tools.batch import ALLOCATOR_VARIABLE, chunk_size  # noqa: E402

MB = 1024 * 1024


# --------------------------------------------------------------------------
# Inputs


def situations(count: int, cards: int | None, seed: int, mix: str = "plain") -> list[dict]:
    rng = random.Random(f"batch-bench:{seed}")
    made = []
    for i in range(count):
        size = cards or rng.randint(10, 60)
        made.append(board(size, rng.randint(0, 8), seed=seed * 1_000_003 + i, mix=mix))
    return made


def write_jsonl(data: list[dict], path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for d in data:
            out.write(json.dumps(d, ensure_ascii=False) + "\n")


def _rss_now() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak() -> int:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _cpu(who: str = "self") -> float:
    """CPU seconds (user + system) of this process, or of its ended children."""
    import resource
    usage = resource.getrusage(resource.RUSAGE_SELF if who == "self" else resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def growth(timeline: list[tuple[int, int]], total: int) -> float | None:
    """Relative growth of resident memory from the 10th percentile of the batch to its end.

    ``timeline`` holds (situations done, resident bytes) of one process."""
    mark = max(1, total // 10)
    after = [rss for done, rss in timeline if done >= mark]
    if len(after) < 2:
        return None
    return (after[-1] - after[0]) / after[0]


def drift(samples: list[tuple[int, int]], total: int) -> float | None:
    """Across the batch, however often workers are recycled: the largest resident memory of any
    process in the last tenth of the batch against the largest in its second tenth (the 1,000th to
    2,000th of 10,000). ``samples`` holds (situations done in all, resident bytes)."""
    tenth = max(1, total // 10)
    early = [rss for done, rss in samples if tenth <= done < 2 * tenth]
    late = [rss for done, rss in samples if done >= total - tenth]
    if not early or not late:
        return None
    return (max(late) - max(early)) / max(early)


# --------------------------------------------------------------------------
# The configurations (each in a fresh process: see main)


def run_batch(jsonl: Path, jobs: int, chunk: int, recycle: int) -> dict:
    from msgspec import field

    from pybridge.tools import batch

    class Timeline(batch.Summary):  # a msgspec Struct: a field with a factory, no __init__ of its own
        samples: list[tuple[int, int, int]] = field(default_factory=list)  # (situations done in all, pid, rss)

        def record(self, sample: batch.WorkerSample) -> None:
            super().record(sample)
            self.samples.append((self.situations, sample.pid, sample.rss or 0))

    summary = Timeline()
    started, cpu = time.perf_counter(), _cpu()
    with batch.LocalPool(jobs, recycle=recycle) as pool, open(os.devnull, "w") as sink:
        writer = batch.RowWriter(sink, "jsonl")
        for outcome in batch.run(batch.tasks_from_paths([jsonl]), batch.Settings(), pool, chunk=chunk,
                                 summary=summary):
            writer.write(outcome)
    seconds = time.perf_counter() - started  # worker start and warm-up included
    cpu = _cpu() - cpu + _cpu("children")  # the workers have ended and been waited for
    # Growth per worker life (a recycled worker starts afresh), the largest of any worker.
    by_pid: dict[int, list[tuple[int, int]]] = {}
    for done, pid, rss in summary.samples:
        by_pid.setdefault(pid, []).append((done, rss))
    growths = [g for t in by_pid.values() if (g := growth(t, summary.situations)) is not None]
    return {"situations": summary.situations, "errors": summary.errors, "seconds": seconds,
            "peak": max((w.peak for w in summary.workers.values()), default=0),
            "growth": max(growths) if growths else None, "workers": len(summary.workers), "cpu": cpu,
            "drift": drift([(done, rss) for done, _, rss in summary.samples], summary.situations)}


def run_naive(jsonl: Path) -> dict:
    from pybridge import api
    from pybridge.errors import JudgeError
    from pybridge.input.situation import situation_from_data

    lines = jsonl.read_text(encoding="utf-8").splitlines()
    timeline, errors = [], 0
    started, cpu = time.perf_counter(), _cpu()
    for i, line in enumerate(lines, start=1):
        try:
            api.check(situation_from_data(json.loads(line), source=f"{jsonl}:{i}"))
        except JudgeError:
            errors += 1
        timeline.append((i, _rss_now()))
    seconds = time.perf_counter() - started
    return {"situations": len(lines), "errors": errors, "seconds": seconds, "peak": _peak(),
            "growth": growth(timeline, len(lines)), "workers": 1, "cpu": _cpu() - cpu,
            "drift": drift(timeline, len(lines))}


def dump_facts(jsonl: Path, out: Path) -> None:
    """`ccg-judge facts` of every situation, one JSON string per line (before any clock starts)."""
    from pybridge import api
    from pybridge.input.situation import situation_from_data

    with out.open("w", encoding="utf-8") as handle:
        for line in jsonl.read_text(encoding="utf-8").splitlines():
            handle.write(json.dumps(api.facts_text(situation_from_data(json.loads(line)))) + "\n")


def run_clingo(facts_file: Path) -> dict:
    import clingo

    main_lp = str(ROOT / "asp" / "berserk" / "main.lp")
    programs = [json.loads(line) for line in facts_file.read_text(encoding="utf-8").splitlines()]
    timeline = []
    started, cpu = time.perf_counter(), _cpu()
    for i, facts in enumerate(programs, start=1):
        ctl = clingo.Control(["--models=2"], logger=lambda code, message: None)
        ctl.load(main_lp)
        ctl.add("base", [], facts)
        ctl.ground([("base", [])])
        with ctl.solve(yield_=True) as handle:
            for model in handle:
                model.symbols(shown=True)
        timeline.append((i, _rss_now()))
    seconds = time.perf_counter() - started
    return {"situations": len(programs), "errors": 0, "seconds": seconds, "peak": _peak(),
            "growth": growth(timeline, len(programs)), "workers": 1, "cpu": _cpu() - cpu,
            "drift": drift(timeline, len(programs))}


# --------------------------------------------------------------------------
# Packing several situations into one program


INDEX = "Situation_"
MEMBER = "_situation"


def packed_rules():
    """The Berserk rules with a situation index as every atom's first argument, and each rule
    bound to a known situation: many situations ground side by side in one program."""
    from clingo import ast

    class Indexed(ast.Transformer):
        def visit_SymbolicAtom(self, node):
            term = node.symbol
            if term.ast_type == ast.ASTType.Function:
                index = ast.Variable(term.location, INDEX)
                term = ast.Function(term.location, term.name, [index, *term.arguments], term.external)
            return node.update(symbol=term)

    def member(location):
        atom = ast.Function(location, MEMBER, [ast.Variable(location, INDEX)], 0)
        return ast.Literal(location, ast.Sign.NoSign, ast.SymbolicAtom(atom))

    statements = []

    def take(statement):
        kind = statement.ast_type
        if kind == ast.ASTType.Rule:
            rule = Indexed()(statement)
            statements.append(rule.update(body=[*rule.body, member(rule.location)]))
        elif kind in (ast.ASTType.ShowSignature, ast.ASTType.Defined):
            statements.append(statement.update(arity=statement.arity + 1))
        elif kind == ast.ASTType.Program:
            statements.append(statement)
        elif kind != ast.ASTType.Comment:
            raise SystemExit(f"packing does not handle {kind} yet: {statement}")

    ast.parse_files([str(ROOT / "asp" / "berserk" / "main.lp")], take)
    return statements


def plain_rules():
    from clingo import ast

    statements = []
    ast.parse_files([str(ROOT / "asp" / "berserk" / "main.lp")],
                    lambda s: statements.append(s) if s.ast_type != ast.ASTType.Comment else None)
    return statements


def _solve(statements, facts) -> set:
    import clingo
    from clingo import ast

    ctl = clingo.Control(["--models=2"], logger=lambda code, message: None)
    with ast.ProgramBuilder(ctl) as builder:
        for statement in statements:
            builder.add(statement)
    with ctl.backend() as backend:
        for symbol in facts:
            backend.add_rule([backend.add_atom(symbol)])
    ctl.ground([("base", [])])
    shown: set = set()
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            shown = set(model.symbols(shown=True))
    return shown


def run_packing(jsonl: Path, group: int) -> dict:
    """K separate Controls vs one Control for K situations, over the same pre-parsed rules."""
    import clingo

    from pybridge import api
    from pybridge.input.situation import situation_from_data

    facts = [api.facts_for(situation_from_data(json.loads(line)))
             for line in jsonl.read_text(encoding="utf-8").splitlines()]
    plain, packed = plain_rules(), packed_rules()

    started = time.perf_counter()
    alone = [_solve(plain, f) for f in facts]
    separate = time.perf_counter() - started

    started = time.perf_counter()
    together: list[set] = []
    for first in range(0, len(facts), group):
        part = facts[first:first + group]
        indexed = []
        for k, fs in enumerate(part):
            indexed.append(clingo.Function(MEMBER, [clingo.Number(k)]))
            indexed.extend(clingo.Function(f.name, [clingo.Number(k), *f.arguments], f.positive) for f in fs)
        shown = _solve(packed, indexed)
        split: list[set] = [set() for _ in part]
        for atom in shown:
            split[atom.arguments[0].number].add(clingo.Function(atom.name, atom.arguments[1:], atom.positive))
        together.extend(split)
    one_program = time.perf_counter() - started
    return {"situations": len(facts), "separate": separate, "packed": one_program, "group": group,
            "same": together == alone}


# --------------------------------------------------------------------------
# Driver


def in_fresh_process(kind: str, *args, allocator: str | None = None) -> dict:
    """Run one configuration in a new interpreter, so memory and caches start from nothing
    (``allocator``: the batch workers' CCG_JUDGE_ALLOCATOR)."""
    command = [sys.executable, __file__, "--run", kind, *map(str, args)]
    env = dict(os.environ, **({ALLOCATOR_VARIABLE: allocator} if allocator else {}))
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{kind} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def clingo_in_processes(facts_file: Path, processes: int, work: Path) -> dict:
    """Plain clingo in ``processes`` processes at once, each on its share of the situations: the
    throughput two cores give plain clingo, to set beside ``batch --jobs 2``."""
    lines = facts_file.read_text(encoding="utf-8").splitlines(keepends=True)
    parts = []
    for k in range(processes):
        part = work / f"{facts_file.stem}-part{k}.jsonl"
        part.write_text("".join(lines[k::processes]), encoding="utf-8")
        parts.append(part)
    running = [subprocess.Popen([sys.executable, __file__, "--run", "clingo", str(part)], stdout=subprocess.PIPE,
                                text=True) for part in parts]
    results = [json.loads(proc.communicate()[0].strip().splitlines()[-1]) for proc in running]
    if any(proc.returncode for proc in running):
        raise SystemExit("plain clingo in processes failed")
    # Each process's own clock, from its first situation (its start and imports left out, which
    # the batch rows include): the stricter comparison for ccg-judge.
    return {"situations": sum(r["situations"] for r in results), "errors": 0,
            "seconds": max(r["seconds"] for r in results), "peak": max(r["peak"] for r in results),
            "growth": max((r["growth"] for r in results if r["growth"] is not None), default=None),
            "workers": processes, "cpu": sum(r["cpu"] for r in results),
            "drift": max((r["drift"] for r in results if r["drift"] is not None), default=None)}


def allocators_to_measure() -> list[str]:
    """glibc's malloc, and each faster allocator installed here (said once when there is none)."""
    from pybridge.tools.batch import FASTER_ALLOCATORS, _installed

    found = [name for name in FASTER_ALLOCATORS if _installed(name)]
    if not found:
        print("no jemalloc or mimalloc installed: the batch workers are measured on glibc's malloc only")
    return ["glibc", *found]


def _median(results: list[dict], key: str):
    values = [r[key] for r in results if r.get(key) is not None]
    return statistics.median(values) if values else None


def table(rows: list[tuple[str, list[dict]]]) -> str:
    lines = ["| configuration | situations | situations/s | CPU per situation | peak RSS per worker "
             "| RSS growth (10%→end) | largest RSS, 2nd tenth→last |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, results in rows:
        rate = statistics.median(r["situations"] / r["seconds"] for r in results)
        peak = _median(results, "peak")
        grow = _median(results, "growth")
        drift_ = _median(results, "drift")
        cpu = statistics.median(r["cpu"] / r["situations"] for r in results)
        lines.append(f"| {name} | {results[0]['situations']} | {rate:.2f} | {cpu * 1000:.0f} ms | "
                     f"{peak / MB:.0f} MB | {'n/a' if grow is None else f'{grow:+.1%}'} | "
                     f"{'n/a' if drift_ is None else f'{drift_:+.1%}'} |")
    return "\n".join(lines)


def against_clingo(rows: list[tuple[str, list[dict]]]) -> str:
    """Each batch row's throughput over plain clingo's on as many processes (same run)."""
    rate = {name: statistics.median(r["situations"] / r["seconds"] for r in results) for name, results in rows}
    clingo = next((r for name, r in rate.items() if "processes at once" in name),
                  next((r for name, r in rate.items() if name.startswith("plain clingo")), None))
    if clingo is None:
        return ""
    return "\n".join(f"{name}: x{r / clingo:.2f} plain clingo's situations/s on as many processes"
                     for name, r in rate.items() if name.startswith("ccg-judge batch"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 situations, one run of each configuration")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--cards", type=int, default=None, help="every situation this many cards (default: 10-60)")
    parser.add_argument("--mix", choices=MIXES, default="plain",
                        help="the kind of board (bench/boards.py): plain, while (the viewer's own hidden cards "
                             "with a `while` feature), air (many flyers and spells in hand)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=None, help="default: as ccg-judge batch chooses")
    parser.add_argument("--recycle", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip", nargs="*", default=[], choices=["batch", "naive", "clingo"],
                        help="configurations to leave out (the naive loop is slow at large sizes)")
    parser.add_argument("--packing", type=int, nargs="*", default=None, metavar="K",
                        help="also measure K situations packed in one program (e.g. --packing 8 32)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--run", nargs="+", help=argparse.SUPPRESS)  # internal: one configuration
    args = parser.parse_args()

    if args.run:
        kind, *rest = args.run
        if kind == "batch":
            result = run_batch(Path(rest[0]), int(rest[1]), int(rest[2]), int(rest[3]))
        elif kind == "naive":
            result = run_naive(Path(rest[0]))
        elif kind == "clingo":
            result = run_clingo(Path(rest[0]))
        elif kind == "facts":
            dump_facts(Path(rest[0]), Path(rest[1]))
            result = {}
        else:
            result = run_packing(Path(rest[0]), int(rest[1]))
        print(json.dumps(result))
        return

    sizes, repeat = ([20], 1) if args.quick else (args.sizes, args.repeat)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; "
          f"Python {sys.version.split()[0]}; {args.mix} situations of {args.cards or '10-60'} cards, 0-8 hidden; "
          f"{repeat} run(s) each, medians")
    allocators = allocators_to_measure() if "batch" not in args.skip else []
    with tempfile.TemporaryDirectory(prefix="ccg-judge-bench-") as work:
        for size in sizes:
            jsonl = Path(work) / f"situations-{size}.jsonl"
            write_jsonl(situations(size, args.cards, args.seed, args.mix), jsonl)
            rows = []
            chunk = args.chunk or chunk_size(size, args.jobs)
            if "batch" not in args.skip:
                for allocator in allocators:
                    rows.append((f"ccg-judge batch --jobs {args.jobs}, workers on {allocator}",
                                 [in_fresh_process("batch", jsonl, args.jobs, chunk, args.recycle, allocator=allocator)
                                  for _ in range(repeat)]))
            if "naive" not in args.skip:
                rows.append(("naive loop of api.check (1 process)",
                             [in_fresh_process("naive", jsonl) for _ in range(repeat)]))
            if "clingo" not in args.skip:
                facts = Path(work) / f"facts-{size}.jsonl"
                in_fresh_process("facts", jsonl, facts)
                rows.append(("plain clingo on the dumped facts (1 process)",
                             [in_fresh_process("clingo", facts) for _ in range(repeat)]))
                if args.jobs > 1:
                    rows.append((f"plain clingo on the dumped facts ({args.jobs} processes at once)",
                                 [clingo_in_processes(facts, args.jobs, Path(work)) for _ in range(repeat)]))
            print(f"\n{size} situations\n" + table(rows))
            print(against_clingo(rows))
            for group in args.packing or []:
                result = in_fresh_process("packing", jsonl, group)
                gain = result["separate"] / result["packed"]
                print(f"packing {group} situations per program: {result['situations'] / result['separate']:.1f} "
                      f"situations/s separately, {result['situations'] / result['packed']:.1f} packed "
                      f"(x{gain:.2f}); same answers: {result['same']}")


if __name__ == "__main__":
    main()
