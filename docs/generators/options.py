"""The interpretation options page: each game's editions and options from its game.yaml, every
choice with its reading, and the clauses whose rules read it (found under the banners of the rules
that test `option(NAME, ...)` or `edition(...)`)."""

from __future__ import annotations

import re
from pathlib import Path

from .common import GAMES_ROOT, cell, games, note, read_yaml
from .rules import clause_anchor, clause_at, game_files, headings, page_path

READS = re.compile(r'\b(option)\((\w+),\s*("?[\w.]+"?|[A-Z_]\w*)\)|\b(edition)\(("[^"]*"|[A-Z_]\w*)\)')


def readers(files: list[Path]) -> dict[tuple[str, str], set[tuple[Path, str]]]:
    """(option name or "edition", choice or "*" for any) -> the (file, clause) of every rule reading it."""
    found: dict[tuple[str, str], set[tuple[Path, str]]] = {}
    for lp in files:
        for number, line in enumerate(lp.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("%", 1)[0]
            for match in READS.finditer(code):
                if match.group(1):
                    name, value = match.group(2), match.group(3)
                else:
                    name, value = "edition", match.group(5)
                choice = "*" if value[0].isupper() or value[0] == "_" else value.strip('"')
                clause = clause_at(lp, number)
                if clause:
                    found.setdefault((name, choice), set()).add((lp, clause))
    return found


def clause_links(places: set[tuple[Path, str]], clause_headings: dict[str, str]) -> str:
    links = sorted({f"[`{clause}`](rules/{page_path(lp).removeprefix('rules/')}#{clause_anchor(clause)})"
                    + (f" {clause_headings[clause]}" if clause_headings.get(clause) else "")
                    for lp, clause in places})
    return "; ".join(links) if links else "—"


def setting_table(name: str, setting: dict, found: dict, clause_headings: dict[str, str]) -> list[str]:
    default = str(setting.get("default"))
    lines = ["| choice | reading | clauses that read it |", "|---|---|---|"]
    for choice, reading in setting.get("values", {}).items():
        choice = str(choice)
        places = found.get((name, choice), set()) | found.get((name, "*"), set())
        shown = f"`{choice}`" + (" (default)" if choice == default else "")
        lines.append(f"| {shown} | {cell(reading)} | {clause_links(places, clause_headings)} |")
    return lines + [""]


def game_section(game: str, clause_headings: dict[str, str]) -> list[str]:
    data = read_yaml(GAMES_ROOT / game / "game.yaml")
    found = readers([lp for lp in game_files(game) if lp.suffix == ".lp"])
    parts = [f"## {data.get('title', game)}", "", f"From `asp/{game}/game.yaml`.", "",
             "### Edition", "", "Set with `edition:` in a situation or `--option edition=VALUE`.", ""]
    parts += setting_table("edition", data.get("editions", {}), found, clause_headings)
    for name, setting in sorted(data.get("options", {}).items()):
        parts += [f"### `{name}`", "", f"Set with `options: {{{name}: VALUE}}` or `--option {name}=VALUE`.", ""]
        parts += setting_table(name, setting, found, clause_headings)
    return parts


def pages() -> dict[str, str]:
    clause_headings = headings()
    parts = ["# Interpretation options", "", note("each game's `game.yaml` and the rules that read its options"), "",
             "Where the rules are silent or can be read two ways, the reading is a named option rather than "
             "a silent guess. Each option has a documented default; a situation may choose another "
             "(`options:`), and every command takes `--option NAME=VALUE`. `ccg-judge diff` compares two "
             "settings over a folder of situations. The report's header lists the options in force, and a "
             "justification shows the option facts a verdict rested on. Options are facts that switch "
             "overlay rules, so the base is never edited and plain clingo reproduces every run.", ""]
    for game in games():
        parts += game_section(game, clause_headings)
    return {"options.md": "\n".join(parts).rstrip() + "\n"}
