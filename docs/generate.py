"""Write the documentation site's generated pages from the code and data they describe.

Run from the repository root:  python docs/generate.py [--check] [--only PREFIX]

Every page written here is read off something a test or the product already trusts: the commands'
own `--help` and real runs of them, the JSON Schema of situations, each game's `game.yaml`,
`clauses.yaml` and card catalogue, and the rules base's `.lp` files (whose pages mkdoclingo renders
when the site is built). `tests/test_docs_site.py` regenerates them and fails when a committed page
differs, as the vocabulary pages' test does. `--check` does the same from the command line.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the generators package beside this file

from generators.common import DOCS, ROOT  # noqa: E402
from generators import board_picture, cards, commands, options, rules, situation_format  # noqa: E402

# The folders whose every file this script owns: a file in them that it no longer writes is stale.
OWNED_FOLDERS = ["commands", "cards", "rules"]


def pages(only: str = "") -> dict[str, str]:
    """Path under docs/ -> text, for every generated page (or those whose path starts with `only`)."""
    makers = {
        "commands/": commands.pages,
        "snippets/first-situation": commands.getting_started_outputs,
        "situation-format.md": situation_format.pages,
        "cards/": cards.pages,
        "options.md": options.pages,
        "rules/": rules.pages,
        "images/board-coordinates.svg": board_picture.pages,
    }
    out: dict[str, str] = {}
    for prefix, make in makers.items():
        if prefix.startswith(only) or only.startswith(prefix):
            made = make(only) if make is commands.pages else make()  # a command page costs real runs
            out.update({path: text for path, text in made.items() if path.startswith(only)})
    return out


def stale_files(written: dict[str, str]) -> list[str]:
    """Files in the owned folders that the generator no longer writes (a card set or a command removed)."""
    stale = []
    for folder in OWNED_FOLDERS:
        for path in sorted((DOCS / folder).rglob("*")):
            relative = path.relative_to(DOCS).as_posix()
            if path.is_file() and relative not in written:
                stale.append(relative)
    return stale


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page is out of date")
    parser.add_argument("--only", default="", help="only the pages whose path under docs/ starts with this")
    args = parser.parse_args()
    os.chdir(ROOT)
    written = pages(args.only)
    differing = [path for path, text in written.items()
                 if not (DOCS / path).exists() or (DOCS / path).read_text(encoding="utf-8") != text]
    stale = [] if args.only else stale_files(written)
    if args.check:
        for path in differing + stale:
            print(f"out of date: docs/{path}")
        return 1 if differing or stale else 0
    for path in differing:
        (DOCS / path).parent.mkdir(parents=True, exist_ok=True)
        (DOCS / path).write_text(written[path], encoding="utf-8")
        print(f"wrote docs/{path}")
    for path in stale:
        (DOCS / path).unlink()
        print(f"removed docs/{path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
