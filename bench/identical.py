"""Byte-identical outputs before and after a change that should not change any (a move, a refactor).

Run from the repository root:

    python bench/identical.py capture OUT        # write every output to the folder OUT
    python bench/identical.py compare OLD NEW    # report every output that differs; exit 1 if any

`capture` runs the command line (in this process, as `ccg-judge` would print it, exit code and
standard error included) on:
  - every ruling file under tests/rulings: `check --json`, `check --trees` (text), and `explain`
    (text and --json) of each action its `expect` block names, as the ruling's player;
  - the generated Berserk boards of bench/boards.py (the sizes bench/speed.py measures): `check --json`,
    `check --trees`, and `explain` of the first two legal and the first two illegal actions.
Each output is one file in OUT, named after the situation and the command. Capture the baseline from
the old code first, keep it outside the repository, then capture the new code and compare.

The harness imports only `pybridge.cli` (its `main`) so that it runs unchanged on either layout.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import re
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from boards import board  # noqa: E402

BOARD_SIZES = [(10, 0), (10, 3), (30, 0), (30, 3), (30, 8), (60, 0), (60, 3), (60, 8), (120, 0), (120, 3),
               (120, 8)]
EXPECT_ACTIONS = ("legal", "illegal", "impossible", "obliged", "certainty", "consequences",
                  "consequence_cites", "resolved")


def run_cli(args: list[str]) -> str:
    """What `ccg-judge ARGS` prints: standard output, standard error and the exit code."""
    from pybridge import cli
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv
    sys.argv = ["ccg-judge", *args]
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.main(process={})
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    finally:
        sys.argv = saved
    return f"{out.getvalue()}\n--- stderr ---\n{err.getvalue()}\n--- exit {code} ---\n"


def file_name(situation: str, what: str) -> str:
    """A file name for one output; an action's text is shortened to a readable part and a hash."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", situation.removeprefix("tests/rulings/"))
    tail = re.sub(r"[^A-Za-z0-9._-]+", "_", what)[:60]
    digest = hashlib.sha1(what.encode()).hexdigest()[:8]
    return f"{stem}__{tail}__{digest}.txt"


def ruling_actions(path: Path) -> tuple[str | None, list[str]]:
    """The ruling's player and the actions its `expect` block names (in the file's order)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.suffix != ".json" else json.loads(
        path.read_text(encoding="utf-8"))
    expect = ((data or {}).get("ruling") or {}).get("expect") or {}
    actions: list[str] = []
    for key in EXPECT_ACTIONS:
        for action in expect.get(key) or {}:
            if action not in actions:
                actions.append(action)
    return expect.get("player"), actions


def outputs_of(situation: str, player: str | None, actions: list[str]):
    as_player = ["--player", player] if player else []
    yield "check --json", ["check", situation, "--json", *as_player]
    yield "check --trees", ["check", situation, "--trees", *as_player]
    for action in actions:
        yield f"explain {action}", ["explain", situation, action, *as_player]
        yield f"explain --json {action}", ["explain", situation, action, "--json", *as_player]


def board_actions(check_json: str, count: int = 2) -> list[str]:
    """The first `count` legal and `count` illegal actions of a board's `check --json` output."""
    report = json.loads(check_json.split("\n--- stderr ---\n", 1)[0])
    chosen: list[str] = []
    for kind in ("legal", "illegal"):
        chosen += [v["action"] for v in report["verdicts"] if v["verdict"] == kind][:count]
    return chosen


def capture(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    # One folder for the boards whatever OUT is, so that a path an output names is the same in both.
    boards_dir = Path(tempfile.gettempdir()) / "ccg-judge-identical-boards"
    boards_dir.mkdir(exist_ok=True)
    written = 0
    rulings = sorted(p for p in (ROOT / "tests" / "rulings").rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    for path in rulings:
        situation = str(path.relative_to(ROOT))
        player, actions = ruling_actions(path)
        for what, args in outputs_of(situation, player, actions):
            (out / file_name(situation, what)).write_text(run_cli(args), encoding="utf-8")
            written += 1
    for cards, hidden in BOARD_SIZES:
        path = boards_dir / f"board-{cards}-{hidden}.json"
        path.write_text(json.dumps(board(cards, hidden), ensure_ascii=False), encoding="utf-8")
        situation = f"board-{cards}-{hidden}"
        checked = run_cli(["check", str(path), "--json"])
        (out / file_name(situation, "check --json")).write_text(checked, encoding="utf-8")
        (out / file_name(situation, "check --trees")).write_text(run_cli(["check", str(path), "--trees"]),
                                                                  encoding="utf-8")
        written += 2
        for action in board_actions(checked):
            for what, args in ((f"explain {action}", ["explain", str(path), action]),
                               (f"explain --json {action}", ["explain", str(path), action, "--json"])):
                (out / file_name(situation, what)).write_text(run_cli(args), encoding="utf-8")
                written += 1
    print(f"{written} outputs from {len(rulings)} ruling files and {len(BOARD_SIZES)} boards in {out}")
    return 0


def compare(old: Path, new: Path) -> int:
    names_old = {p.name for p in old.glob("*.txt")}
    names_new = {p.name for p in new.glob("*.txt")}
    problems = [f"only in {old}: {n}" for n in sorted(names_old - names_new)]
    problems += [f"only in {new}: {n}" for n in sorted(names_new - names_old)]
    same = sorted(names_old & names_new)
    problems += [f"differs: {n}" for n in same if (old / n).read_bytes() != (new / n).read_bytes()]
    for line in problems:
        print(line)
    print(f"{len(same)} outputs compared, {len(problems)} differences")
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("capture").add_argument("out", type=Path)
    pair = commands.add_parser("compare")
    pair.add_argument("old", type=Path)
    pair.add_argument("new", type=Path)
    args = parser.parse_args()
    os.chdir(ROOT)  # ruling files are named relative to the root, as in the outputs
    return capture(args.out) if args.command == "capture" else compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
