"""Interactions benchmark: a cold run, a warm rerun, and a rerun after editing one card, side by side.

    python bench/interactions.py                   # 12 cards of set 1 x 12, three templates, --jobs 2
    python bench/interactions.py --cards 20 --jobs 2

The cards are the first N of set 1 (war-of-elements) in catalogue order; the templates are
examples/berserk/interactions/{face-to-face,adjacent,range-2}.yaml. The three runs share one cache
file in a fresh temporary folder:

- cold: every situation judged (the pair and its stand-ins), on the local executor;
- rerun: the same run again, every situation from the cache;
- one card edited: the same run with one card's health changed in the catalogue the run reads (the
  edit is made in memory, never in the repository's files), so only that card's situations are
  judged again.

Printed: pairs, situations judged, seconds (wall clock, workers' start included), situations/s, and
each worker's resident memory at its first and last sample and its peak; then all of set 1 x set 1
under three templates is planned (not judged): its number of situations, and of those an edit of
one card touches, at the rate this run measured (the machine may be loaded by other work, so the
figures are estimates).

The floor, in the same run: a seeded sample of the full plan's situations, each judged in this one
process by `ccg-judge check`'s API and by plain clingo (a Control loading asp/berserk/main.lp and the
situation's facts, grounded and solved, as `python -m clingo main.lp facts.lp` would with no process
start), both in CPU seconds. At plain clingo's CPU per situation on `--jobs` cores, the full plan
cannot take less than the printed minutes: a target below that is below the solver's own cost.
No timing here is asserted anywhere.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pybridge import api  # noqa: E402
from pybridge.game.catalogue import load_game  # noqa: E402
from pybridge.input.situation import situation_from_data  # noqa: E402
from pybridge.tools import batch, interactions  # noqa: E402

TEMPLATES = [ROOT / "examples" / "berserk" / "interactions" / f"{name}.yaml"
             for name in ("face-to-face", "adjacent", "range-2")]
SET_1 = "war-of-elements"
MB = 1024 * 1024


def run(game, cards, cache: Path, jobs: int) -> tuple[interactions.Report, float, batch.Summary]:
    templates = interactions.load_templates(TEMPLATES)
    summary = batch.Summary()
    started = time.perf_counter()
    with batch.executor("local", jobs) as pool:
        work = interactions.plan(templates, cards, game, batch.Settings())
        store = interactions.JudgedStore(cache)
        judged = interactions.judge(work, store, pool, settings=batch.Settings(), chunk=batch.DEFAULT_CHUNK,
                                    summary=summary)
        differences = [d for pair in work.pairs for d in interactions.compare(pair, store, game)]
    seconds = time.perf_counter() - started
    report = interactions.Report("bench", len(cards), [t.name for t in TEMPLATES], differences, work.unplaced, [],
                                 len(work.pairs), work.plain_pairs, len(work.situations), judged)
    return report, seconds, summary


def memory(summary: batch.Summary) -> str:
    def mb(value):
        return f"{value / MB:.0f}" if value else "?"
    return "; ".join(f"pid {pid}: {mb(w.first_rss)}->{mb(w.last_rss)} MB, peak {mb(w.peak)} MB"
                     for pid, w in summary.workers.items()) or "(no worker sampled)"


def plain_clingo(facts: str) -> None:
    """What `python -m clingo asp/berserk/main.lp facts.lp` does, in this process."""
    import clingo
    ctl = clingo.Control(["--models=2"], logger=lambda code, message: None)
    ctl.load(str(ROOT / "asp" / "berserk" / "main.lp"))
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    ctl.solve()


def floor(tasks: list[batch.Task]) -> tuple[float, float]:
    """CPU seconds per situation of a check and of plain clingo, over the same situations, interleaved."""
    situations = [situation_from_data(task.data, source=task.source) for task in tasks]
    facts = [api.facts_text(s) for s in situations]
    api.check(situations[0])  # the compiled program read once, as a worker has it
    check = clingo = 0.0
    for situation, text in zip(situations, facts):
        started = time.process_time()
        api.check(situation)
        check += time.process_time() - started
        started = time.process_time()
        plain_clingo(text)
        clingo += time.process_time() - started
    return check / len(tasks), clingo / len(tasks)


def edited(game, name: str):
    cards = dict(game.cards)
    entry = cards[name]
    cards[name] = {**entry, "properties": {**entry["properties"], "health": entry["properties"]["health"] + 1}}
    return type(game)(**{f: getattr(game, f) for f in game.__struct_fields__ if f != "cards"}, cards=cards)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=12, help="how many cards of set 1 [12]")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes [2]")
    parser.add_argument("--sample", type=int, default=60, help="situations of the full plan timed against plain "
                        "clingo [60]")
    args = parser.parse_args()
    game = load_game("berserk")
    set_1 = [name for name, entry in game.cards.items() if entry.get("set") == SET_1]
    cards = set_1[:args.cards]
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "judged.jsonl"
        rows = []
        for label, board in (("cold", game), ("rerun", game), ("one card edited", edited(game, cards[-1]))):
            report, seconds, summary = run(board, cards, cache, args.jobs)
            rate = report.judged_now / seconds if seconds else 0.0
            rows.append((label, report, seconds, rate, summary))
    print(f"{len(cards)} cards of set 1 x {len(cards)}, {len(TEMPLATES)} templates, --jobs {args.jobs}")
    print(f"{'run':<16} {'pairs':>6} {'situations':>10} {'judged':>7} {'seconds':>8} {'judged/s':>9} differences")
    for label, report, seconds, rate, _ in rows:
        print(f"{label:<16} {report.pairs_judged:>6} {report.situations:>10} {report.judged_now:>7} {seconds:>8.1f} "
              f"{rate:>9.1f} {len(report.differences)}")
    for label, _, _, _, summary in rows:
        print(f"memory, {label}: {memory(summary)}")
    cold = rows[0]
    started = time.perf_counter()
    full = interactions.plan(interactions.load_templates(TEMPLATES), set_1, game, batch.Settings())
    planning = time.perf_counter() - started
    edited_card = sum(1 for task in full.situations.values() if cards[-1] in task.source)
    if cold[3]:
        total = len(full.situations)
        print(f"all of set 1 ({len(set_1)} cards) x set 1, {len(TEMPLATES)} templates: {total:,} situations "
              f"(planned in {planning:.0f} s); at this run's {cold[3]:.1f} judged/s, about "
              f"{total / cold[3] / 60:,.0f} minutes; editing one card ({cards[-1]}) judges {edited_card:,} of them "
              f"again, about {edited_card / cold[3] / 60:,.1f} minutes")
    sample = random.Random(1).sample(list(full.situations.values()), min(args.sample, len(full.situations)))
    check, clingo = floor(sample)
    total = len(full.situations)
    print(f"CPU per situation over {len(sample)} of them (seed 1), same process: check {check * 1000:.1f} ms, "
          f"plain clingo {clingo * 1000:.1f} ms ({check / clingo:.2f}x); on {args.jobs} cores the full plan "
          f"needs at least {total * clingo / args.jobs / 60:,.0f} minutes of plain clingo's own solving "
          f"({total * check / args.jobs / 60:,.0f} of check's)")


if __name__ == "__main__":
    main()
