"""A page per command of `ccg-judge`: its `--help`, and what real runs of it print.

The commands are read off `ccg-judge --help`, so a command added to the program gets a page (with
its help) on the next generation; the runs shown are listed in RUNS below, and a test requires one
for every command that runs to an end.
"""

from __future__ import annotations

import re
import shlex
import tempfile

from .common import note, run_product

# The runs each page shows, as the user types them. "{out}" is a fresh folder for files a command
# writes; the page shows it as the folder name alone.
RUNS: dict[str, list[list[str]]] = {
    "check": [["check", "examples/berserk/first-turn-rush.yaml"],
              ["check", "tests/rulings/berserk/532/532.7-not-executed-but-paid.yaml"]],
    "explain": [["explain", "examples/berserk/first-turn-rush.yaml", "strike_attack(elf, foe)"]],
    "facts": [["facts", "examples/berserk/first-turn-rush.yaml"]],
    "resolve": [["resolve", "tests/rulings/berserk/532/532.7-not-executed-but-paid.yaml",
                 "finishing_blow(assassin, hidden@p2:3.1)"]],
    "test": [["test", "tests/rulings/berserk/107"]],
    "lint": [["lint"]],
    "diff": [["diff", "tests/rulings/berserk/531/531.1-2-target-protected.yaml",
              "--option", "edition=515", "--option", "edition=531"],
             ["diff", "tests/rulings/berserk/514", "--option", "edition=515", "--option", "edition=531"]],
    # Bounds below the defaults (one card, five boards drawn a size): today they find what the default
    # bounds find (the seeds' known gap, every other invariant held) in a tenth of the time, and the
    # suite makes this page again on every run (two cards took 40 s of it). A time limit well past the
    # default 120 s, so a busy machine still finishes the whole search.
    "consistency": [["consistency", "--game", "berserk", "--cards", "1", "--boards", "5", "--time-limit", "1200",
                     "-o", "{out}/consistency-berserk"]],
    "coverage": [["coverage", "tests/rulings"]],
    # Two sections' rulings (those of the files the seed-1 draw fell in when chosen): tracing every
    # ruling, as the coverage page's run does, took four fifths of this run before any mutant ran. The
    # page shows the command at work; the suite's score is bench/mutants.py's. One job: with two, the
    # progress lines come in whichever order the mutants finish, and the page would differ run to run.
    # Dropped rules only: every one grounds, so the draw shows a verdict whatever rules change moves it
    # (other kinds drew two stillborn mutants and a page that judged nothing). Without the consistency
    # search, which took 45 of the run's 60 s: the help says what it adds, and tests/test_mutants.py
    # runs it.
    "mutants": [["mutants", "--sample", "2", "--jobs", "1", "--operator", "drop-rule", "--no-consistency",
                 "--rulings", "tests/rulings/berserk/532", "--rulings", "tests/rulings/mtg/mana"]],
    "schema": [["schema"]],
    "vocabulary": [["vocabulary", "--game", "mtg"]],
    "batch": [["batch", "tests/rulings/berserk/107"]],
    "cards": [["cards", "--game", "berserk", "Кшар"], ["cards", "--game", "mtg", "coat"]],
    "interactions": [["interactions", "--cards", "name=Кочевник,Кшар", "--template",
                      "examples/berserk/matrix-face-to-face.yaml"]],
    "whatif": [["whatif", "examples/berserk/first-situation.yaml", "strike_attack(kshar, foe)"]],
    "matrix": [["matrix", "--cards", "name=Кочевник,Кшар,Вайл", "--template", "examples/berserk/matrix-face-to-face.yaml"]],
}
# Commands that do not run to an end by themselves: their page shows the help and says where to read more.
NOT_RUN = {"serve": "It starts a web server and runs until stopped; the [playground page](../page-and-playground.md) "
                    "shows it and its answer times."}
LONGEST_OUTPUT = 60  # lines of a run shown; the rest is counted
GETTING_STARTED = "examples/berserk/first-situation.yaml"


# What may differ between two runs of the same code: durations and rates, the allocator the machine
# has, and which of several smallest counterexamples the consistency search meets first. A page is out
# of date only when it differs in anything else.
DURATION = re.compile(r"\b\d+(?:\.\d+)?(?: ?(?:s|ms)\b| \w+/s\b)")
COUNTEREXAMPLE_PLACE = re.compile(r"^(\s+where: |# Where: ).*$", re.MULTILINE)
# interactions reuses what an earlier run judged (its cache folder): how many it judged anew varies.
JUDGED_NOW = re.compile(r"\b\d+ judged now\b")
# batch and matrix name the allocator their workers run on: whichever the machine has installed.
ALLOCATOR = re.compile(r"\bworkers on \w+(?: \([^)\n]*\))?")


def comparable(page: str) -> str:
    """A command page with what legitimately varies between runs masked."""
    masked = JUDGED_NOW.sub("<n> judged now", COUNTEREXAMPLE_PLACE.sub(r"\1…", DURATION.sub("<duration>", page)))
    return ALLOCATOR.sub("workers on <allocator>", masked)


def command_names() -> list[str]:
    """The commands `ccg-judge --help` lists."""
    text = run_product(["--help"]).stdout
    listing = text.split("Commands:", 1)[1]
    return sorted(line.split()[0] for line in listing.splitlines() if line.startswith("  ") and line.split())


def help_text(args: list[str]) -> str:
    text = run_product([*args, "--help"]).stdout
    return text.replace("python -m pybridge", "ccg-judge").rstrip() + "\n"


def shown_run(args: list[str], longest: int = LONGEST_OUTPUT) -> str:
    """The command line and what it printed (standard output and error as a terminal shows them),
    as a fenced block, then the exit status when it is not 0."""
    with tempfile.TemporaryDirectory() as out:
        real = [arg.replace("{out}", out) for arg in args]
        run = run_product(real)
        printed = run.stdout.replace(out + "/", "")
    lines = printed.rstrip("\n").splitlines()
    if len(lines) > longest:
        lines = lines[:longest] + [f"… ({len(lines) - longest} more lines)"]
    typed = "ccg-judge " + shlex.join(arg.replace("{out}/", "") for arg in args)
    status = [f"(exit status {run.returncode})"] if run.returncode else []
    return "\n".join(["```console", f"$ {typed}", *lines, *status, "```", ""])


def first_help_line(help_page: str) -> str:
    """The command's one-line summary: the first paragraph of its help after the usage line."""
    paragraphs = [p for p in re.split(r"\n\s*\n", help_page) if p.strip()]
    return " ".join(paragraphs[1].split()) if len(paragraphs) > 1 else ""


def command_page(name: str, help_page: str) -> str:
    parts = [f"# ccg-judge {name}\n", note("`ccg-judge " + name + " --help` and real runs of it"), "",
             first_help_line(help_page), "", "## Help", "", "```text", help_page.rstrip(), "```", ""]
    if name in NOT_RUN:
        parts += ["## Runs", "", NOT_RUN[name], ""]
    elif name in RUNS:
        parts += ["## Runs", "", "Each block is a real run from the repository's root, as generated; a long output "
                  f"is cut after {LONGEST_OUTPUT} lines.", ""]
        parts += [shown_run(args) for args in RUNS[name]]
    return "\n".join(parts)


def index_page(names: list[str], summaries: dict[str, str]) -> str:
    rows = [f"| [`{name}`]({name}.md) | {summaries[name]} |" for name in names]
    return "\n".join(["# Commands\n", note("`ccg-judge --help`"), "",
                      "Every command of `ccg-judge`, with its help and real runs. Top-level options:", "",
                      "```text", help_text([]).rstrip(), "```", "",
                      "| command | what it does |", "|---|---|", *rows, ""])


def pages(only: str = "") -> dict[str, str]:
    """Every command's page and the index (or only the pages whose path starts with `only`)."""
    names = command_names()
    helps = {name: help_text([name]) for name in names}
    out = {f"commands/{name}.md": command_page(name, helps[name]) for name in names
           if f"commands/{name}.md".startswith(only)}
    if "commands/index.md".startswith(only):
        out["commands/index.md"] = index_page(names, {name: first_help_line(helps[name]) for name in names})
    return out


def getting_started_outputs() -> dict[str, str]:
    """The runs the getting-started page includes, on its shipped example."""
    return {
        "snippets/first-situation-check.md": shown_run(["check", GETTING_STARTED]),
        "snippets/first-situation-explain.md": shown_run(["explain", GETTING_STARTED, "strike_attack(kshar, foe)"],
                                                         longest=12),
        "snippets/first-situation-test.md": shown_run(["test", GETTING_STARTED]),
    }
