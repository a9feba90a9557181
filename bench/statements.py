"""What gringo is given before any board: a game's statements, counted, and grounded with no facts.

Plain clingo pays a fixed cost per statement whether or not it has an instance (docs/performance.md,
"What plain clingo's floor is made of"), so the count of rules with a body and of their body literals
tells how much of the floor a change of the rules base adds or takes away. Run from the repository
root:

    python bench/statements.py                      # counts of asp/berserk/main.lp, by file
    python bench/statements.py --against OTHER.lp   # and both grounded with no facts, in turns

With --against, the two programs are grounded alternately in this process (so the machine's load
falls on both alike) and the medians and their ratio are printed. The benchmarks use it only:
nothing in the product reads it."""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import clingo
from clingo import ast

ROOT = Path(__file__).resolve().parent.parent
AGGREGATES = ("#count", "#sum", "#min", "#max")


def counts(main_lp: Path) -> tuple[Counter, Counter, Counter]:
    """Per file: rules with a body, their body literals, and the rules with an aggregate."""
    statements: list[ast.AST] = []
    ast.parse_files([str(main_lp)], statements.append)
    rules, literals, aggregates = Counter(), Counter(), Counter()
    for statement in statements:
        if statement.ast_type != ast.ASTType.Rule or not statement.body:
            continue
        name = Path(statement.location.begin.filename).name
        rules[name] += 1
        literals[name] += len(statement.body)
        aggregates[name] += any(word in str(statement) for word in AGGREGATES)
    return rules, literals, aggregates


def ground_without_facts(main_lp: Path) -> float:
    """CPU milliseconds to load and ground the program with no facts (and solve its empty answer)."""
    start = time.process_time()
    control = clingo.Control(["--warn=none"])
    control.load(str(main_lp))
    control.ground([("base", [])])
    control.solve()
    return (time.process_time() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("main_lp", nargs="?", type=Path, default=ROOT / "asp" / "berserk" / "main.lp")
    parser.add_argument("--against", type=Path, help="another main.lp to ground in turns with this one")
    parser.add_argument("--rounds", type=int, default=11, help="groundings of each program (default 11)")
    args = parser.parse_args()
    rules, literals, aggregates = counts(args.main_lp)
    for name, n in rules.most_common():
        print(f"{name:<40} {n:>5} rules  {literals[name]:>5} literals  {aggregates[name]:>3} aggregates")
    print(f"{'total':<40} {sum(rules.values()):>5} rules  {sum(literals.values()):>5} literals  "
          f"{sum(aggregates.values()):>3} aggregates")
    if args.against:
        other_rules, other_literals, _ = counts(args.against)
        times: tuple[list[float], list[float]] = ([], [])
        programs = (args.main_lp, args.against)
        for round_ in range(args.rounds):
            # ABBA: which goes first alternates, as the first of a pair is measurably slower
            for i in ((0, 1) if round_ % 2 == 0 else (1, 0)):
                gc.collect()
                times[i].append(ground_without_facts(programs[i]))
        this, other = (statistics.median(t) for t in times)
        print(f"against {args.against}: {sum(other_rules.values())} rules, {sum(other_literals.values())} literals")
        print(f"grounded with no facts (median of {args.rounds}, in turns): this {this:.1f} ms, "
              f"the other {other:.1f} ms, ratio {this / other:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
