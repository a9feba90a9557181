"""The least a check can cost with these rules and this why layer: a perfect specialiser, for free.

Run from the repository root:

    python bench/check_limit.py                          # a matrix's pair, boards of 4 to 120 cards, mixes
    python bench/check_limit.py --boards 120:8 30:3:while pair:Вайл:Кшар --rounds 9

A check grounds the rules kept for the situation and, on top of them, its why layer (the clauses
cited for every verdict and consequence, carried along the derivations that made them), then reads
the answer and builds the report. No specialiser can keep less than the statements of that program
that have a ground instance on the board, and none can cost less than nothing. This bench measures
a check given exactly that: of the statements the check keeps, only those with a ground instance
(read off clingo's own grounding, as bench/oracle.py does for main.lp), handed to it with no
specialising at all. Columns, CPU milliseconds per situation (medians of interleaved rounds) and
the ratio to the floor:
  floor     plain clingo on the whole main.lp (as bench/speed.py's floor);
  oracle    plain clingo on main.lp trimmed to its rules that fire (bench/speed.py's oracle);
  check     `api.check` as it is (cites and because-lines);
  perfect   `api.check` with the perfect, free specialiser;
  p. bare   the same without the because-lines (`reasons=False`);
  p. ground of `p. bare`, clingo's grounding alone (solving is a millisecond or two: nothing is
            searched; the rest is Python: the facts, handing the statements over, reading the
            answer, building the report).
`perfect` and `p. bare` are the least a check and a bare check (what batch judges its rows with)
can cost with these rules and this why layer, whatever the specialiser: one below them needs other
rules or another why layer, or less Python around them. Each board is measured in a process of its
own (clingo keeps every symbol a process makes). The benchmarks use it only: nothing in the product
reads it."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import clingo
from clingo import ast

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))  # this checkout's pybridge, not an installed one

import oracle  # noqa: E402
import speed  # noqa: E402
from boards import board  # noqa: E402

from pybridge import api  # noqa: E402
from pybridge.ground import solve, specialise  # noqa: E402
from pybridge.ground.facts import render_facts  # noqa: E402
from pybridge.input.situation import situation_from_data  # noqa: E402
from pybridge.tools import matrix  # noqa: E402

BOARDS = ("pair:Кочевник:Кшар", "4:0", "10:0", "30:3", "60:3", "120:8", "30:3:while", "30:3:air")
COLUMNS = ("floor", "oracle", "check", "perfect", "p. bare", "p. ground")


def kept_by_check(situation) -> dict[tuple, tuple[int, ...]]:
    """What the specialiser keeps in each of a check's calls (by program, near misses, layer)."""
    found: dict[tuple, tuple[int, ...]] = {}
    real = solve._kept

    def recording(compiled, facts, near, layer=True, present=None):
        kept = found[(id(compiled), near, layer)] = real(compiled, facts, near, layer, present)
        return kept

    solve._kept = recording
    try:
        specialise.forget()
        api.check(situation)
    finally:
        solve._kept = real
    return found


def with_an_instance(statements: list[ast.AST], facts: str) -> set[int]:
    """Which of the statements (indices) are rules with a body that have a ground instance on the
    facts, read off clingo's grounding of them all with a marker beside each (bench/oracle.py)."""
    ctl = clingo.Control(["--warn=none"])
    with ast.ProgramBuilder(ctl) as builder:
        for i, statement in enumerate(statements):
            if statement.ast_type == ast.ASTType.Program:
                continue  # every part in one: the layer reads the rules' atoms, nothing reads the layer
            builder.add(statement)
            if statement.ast_type == ast.ASTType.Rule and statement.body:
                builder.add(oracle._marker(statement, i))
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    return {atom.symbol.arguments[0].number for atom in ctl.symbolic_atoms.by_signature(oracle.MARKER, 1)}


def perfect_specialiser(situation, facts: str):
    """A stand-in for solve._kept that gives, for this situation, what the check keeps less every
    rule with no ground instance, at no cost; and how many rules with a body it keeps (of the last
    program the check ran, when a guess it made needed a second)."""
    kept = kept_by_check(situation)
    given: dict[tuple, tuple[int, ...]] = {}
    firing: set[int] = set()
    for program_id in dict.fromkeys(key[0] for key in kept):
        compiled = solve._ran[program_id]
        statements = list(solve._parsed(compiled.text)) + list(solve._parsed(compiled.near_text))
        every = sorted({i for key, indices in kept.items() if key[0] == program_id for i in indices})
        firing = {every[j] for j in with_an_instance([statements[i] for i in every], facts)}

        def useful(i: int) -> bool:
            statement = statements[i]
            return not (statement.ast_type == ast.ASTType.Rule and statement.body) or i in firing

        given.update({key: tuple(i for i in indices if useful(i)) for key, indices in kept.items()
                      if key[0] == program_id})
    return (lambda compiled, facts, near, layer=True, present=None: given[(id(compiled), near, layer)]), len(firing)


def situation_of(spec: str):
    """A board CARDS:HIDDEN[:MIX] (bench/boards.py), or a matrix's pair pair:A:B (the matrix's example
    template, examples/berserk/matrix-face-to-face.yaml, with cards A and B of the catalogue)."""
    kind, *rest = spec.split(":")
    if kind == "pair":
        template = matrix.load_template(ROOT / "examples" / "berserk" / "matrix-face-to-face.yaml")
        return situation_from_data(matrix.fill(template.data, dict(zip(matrix.SLOTS, rest))))
    return situation_from_data(board(int(kind), int(rest[0]), mix=rest[1] if len(rest) > 1 else "plain"))


def measure(spec: str, rounds: int) -> dict:
    situation = situation_of(spec)
    facts = render_facts(api.facts_for(situation))
    api.check(situation)  # warm: the rules compiled and parsed in this process
    trimmed, _, _, _ = speed.oracle_program(situation.game, facts)
    perfect, firing = perfect_specialiser(situation, facts)
    real = solve._kept
    ground_time: list[float] = []
    real_ground = solve._ground

    def timed_ground(*args):
        start = time.process_time()
        try:
            real_ground(*args)
        finally:
            ground_time.append(time.process_time() - start)

    def with_perfect(**options):
        solve._kept = perfect
        try:
            return api.check(situation, **options)
        finally:
            solve._kept = real

    def perfect_ground() -> float:
        ground_time.clear()
        solve._ground = timed_ground
        try:
            with_perfect(reasons=False)
        finally:
            solve._ground = real_ground
        return sum(ground_time) * 1000

    times: dict[str, list[float]] = {column: [] for column in COLUMNS}
    for _ in range(rounds):
        times["floor"].append(speed.cpu(lambda: speed.floor(situation.game, facts)))
        times["oracle"].append(speed.cpu(lambda: speed.trimmed_floor(trimmed, facts)))
        times["check"].append(speed.cpu(lambda: api.check(situation)))
        times["perfect"].append(speed.cpu(with_perfect))
        times["p. bare"].append(speed.cpu(lambda: with_perfect(reasons=False)))
        times["p. ground"].append(perfect_ground())
    same = speed.to_json(api.check(situation)) == speed.to_json(with_perfect())
    return {"board": spec, "firing": firing, "same": same,
            **{column: statistics.median(values) for column, values in times.items()}}


HEADER = f"{'board':<20} {'firing':>6}  " + "  ".join(f"{c:>15}" for c in COLUMNS) + "  same"


def line(r: dict) -> str:
    """A board's row: each column's median and its ratio to the floor; whether the perfect
    specialiser's report is the check's own."""
    cells = [f"{r[c]:7.1f} {r[c] / r['floor']:5.2f}x" for c in COLUMNS]
    return (f"{r['board']:<20} {r['firing']:>6}  " + "  ".join(f"{c:>15}" for c in cells)
            + f"  {'yes' if r['same'] else 'NO'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", nargs="+", default=list(BOARDS), metavar="CARDS:HIDDEN[:MIX] or pair:A:B")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a board measured in this process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.rounds)))
        return
    print(f"CPU ms per situation, medians of {args.rounds} interleaved rounds; `firing`: the rules with a body "
          "the perfect specialiser keeps")
    print(HEADER, flush=True)
    for spec in args.boards:
        run = subprocess.run([sys.executable, __file__, "--one", spec, "--rounds", str(args.rounds)],
                             capture_output=True, text=True, check=True, cwd=ROOT)
        print(line(json.loads(run.stdout.strip().splitlines()[-1])), flush=True)


if __name__ == "__main__":
    main()
