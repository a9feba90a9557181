"""The mutation score of the rules base, measured the way the README states it.

    python bench/mutants.py                 # the README's draw: 60 mutants, seed 1, 2 workers
    python bench/mutants.py --sample 200    # a larger draw (any option of `ccg-judge mutants`)

A thin wrapper over `ccg-judge mutants` with the README's settings as defaults, so the figure there
can be rerun as it was measured. Mutants marked equivalent after inspection are listed, with the
reason, in bench/equivalent-mutants.yaml.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULTS = {"--sample": "60", "--seed": "1", "--jobs": "2",
            "--equivalent": str(HERE / "equivalent-mutants.yaml"),
            "--rulings": str(HERE.parent / "tests" / "rulings")}


def main(arguments: list[str]) -> None:
    from pybridge.cli import main as cli_main

    given = {a.split("=", 1)[0] for a in arguments if a.startswith("--")}
    extra = [part for key, value in DEFAULTS.items() if key not in given for part in (key, value)]
    sys.argv = ["ccg-judge", "mutants", *extra, *arguments]
    cli_main()


if __name__ == "__main__":
    main(sys.argv[1:])
