"""The rules base's pages: one per `.lp` file (mkdoclingo renders its comments, `%*!` docstrings and
rules when the site is built; docs/hooks.py turns each clause banner into a heading a link can reach)
and an index of every clause id to the page and heading of its rules."""

from __future__ import annotations

import re
from pathlib import Path

from .common import GAMES_ROOT, ROOT, cell, note, read_yaml

BANNER = re.compile(r"^% --- (\S+) -+\s*$")
INCLUDE = re.compile(r'^#include\s+"([^"]+)"\s*\.')
FOLDERS = {"core": "Core principles (every game)", "berserk": "Berserk", "mtg": "Magic: The Gathering"}


def clause_anchor(clause_id: str) -> str:
    """The id of a clause's heading on its file's page (docs/hooks.py gives the banner this id)."""
    return "clause-" + re.sub(r"[^a-z0-9.-]+", "-", clause_id.lower()).strip("-")


def banners(path: Path) -> list[tuple[int, str]]:
    """(line number, clause id) of every clause banner of an .lp file, in order."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = BANNER.match(line)
        if match:
            found.append((number, match.group(1)))
    return found


def clause_at(path: Path, line_number: int) -> str | None:
    """The clause whose banner a line of an .lp file sits under, if any."""
    current = None
    for number, clause_id in banners(path):
        if number > line_number:
            break
        current = clause_id
    return current


def game_files(game: str) -> list[Path]:
    """The .lp files a game's entry file includes, in its order (core's files among them)."""
    entry = GAMES_ROOT / game / read_yaml(GAMES_ROOT / game / "game.yaml")["entry"]
    ordered: list[Path] = []
    pending = [entry]
    while pending:
        path = pending.pop(0).resolve()
        if path in ordered:
            continue
        ordered.append(path)
        for line in path.read_text(encoding="utf-8").splitlines():
            match = INCLUDE.match(line.strip())
            if match:
                pending.append(path.parent / match.group(1))
    return ordered


def headings() -> dict[str, str]:
    """Clause id -> its heading, from every catalogue (core's and each game's)."""
    found = {}
    for catalogue in sorted(GAMES_ROOT.glob("*/clauses.yaml")):
        for clause in read_yaml(catalogue).get("clauses", []):
            found[str(clause["id"])] = clause.get("heading", "")
    return found


def page_path(lp: Path) -> str:
    relative = lp.relative_to(GAMES_ROOT)
    return f"rules/{relative.parent.as_posix()}/{relative.stem}.md"


def opening_comment(lp: Path) -> str:
    """The file's first comment paragraph, which says what the file is about."""
    lines = []
    for line in lp.read_text(encoding="utf-8").splitlines():
        if not line.startswith("%") or BANNER.match(line):
            break
        lines.append(line.lstrip("%*! ").strip().strip("="))  # "% ====" rulers frame some openings
    return " ".join(" ".join(lines).split())


def file_page(lp: Path) -> str:
    relative = lp.relative_to(ROOT).as_posix()
    listed = [f"[{clause_id}](#{clause_anchor(clause_id)})" for _, clause_id in banners(lp)]
    unique = list(dict.fromkeys(listed))
    parts = [f"# {lp.name}", "", note(f"`{relative}`, rendered by mkdoclingo"), ""]
    if unique:
        parts += ["Clauses in this file: " + ", ".join(unique) + ".", ""]
    included = [match.group(1) for line in lp.read_text(encoding="utf-8").splitlines()
                if (match := INCLUDE.match(line.strip()))]
    if not included:
        return "\n".join(parts + [f"::: {relative}", "    handler: asp", ""])
    # An entry file: its includes, each linked to its page, and the glossary of every documented
    # predicate they hold (mkdoclingo follows the includes).
    parts += [f"The entry file of the game: plain clingo loads it (`python -m clingo {relative} facts.lp`). "
              "It includes, in this order:", ""]
    for name in included:
        target = (lp.parent / name).resolve()
        parts.append(f"1. [`{name}`](../{page_path(target).removeprefix('rules/')})")
    parts += ["", f"::: {relative}", "    handler: asp", "    options:", "      encodings: false", ""]
    return "\n".join(parts)


def index_page(files: list[Path], clause_headings: dict[str, str]) -> str:
    parts = ["# The rules base", "", note("the banners and opening comments of every `.lp` file under `asp/`"), "",
             "The rules are Answer Set Programs under `asp/`: `core/` holds the principles every game shares, "
             "and each game has a folder with one file per chapter of its rulebook, named by its numbers. "
             "A clause is a banner (`% --- 532.6 ---`) and the rules under it; each file's page shows its "
             "comments, its documented predicates (`%*!` blocks) and its rules, with every clause as a "
             "heading. The clause ids are explained in [clause ids](../clause-ids.md).", ""]
    for folder, title in FOLDERS.items():
        in_folder = [lp for lp in files if lp.parent.name == folder]
        if not in_folder:
            continue
        parts += [f"## {title}", "", "| file | about |", "|---|---|"]
        parts += [f"| [`{lp.name}`]({page_path(lp).removeprefix('rules/')}) | {cell(opening_comment(lp))} |"
                  for lp in in_folder]
        parts.append("")
    parts += ["## Every clause", "", "| clause | heading | where its rules are |", "|---|---|---|"]
    places: dict[str, list[str]] = {}
    for lp in files:
        for _, clause_id in banners(lp):
            link = f"[`{lp.parent.name}/{lp.name}`]({page_path(lp).removeprefix('rules/')}#{clause_anchor(clause_id)})"
            places.setdefault(clause_id, [])
            if link not in places[clause_id]:
                places[clause_id].append(link)
    for clause_id in sorted(places, key=clause_sort_key):
        parts.append(f"| `{clause_id}` | {cell(clause_headings.get(clause_id, ''))} | {', '.join(places[clause_id])} |")
    return "\n".join(parts) + "\n"


def clause_sort_key(clause_id: str) -> tuple:
    """Numbered clauses first, by their numeric parts ("532.10" after "532.6"), then named ids."""
    numbers = re.match(r"^(\d+(?:\.\d+)*)", clause_id)
    if numbers:
        return (0, tuple(int(part) for part in numbers.group(1).split(".")), clause_id)
    return (1, (), clause_id)


def all_files() -> list[Path]:
    """Every .lp file under asp/, core's first, then each game's in its entry file's order."""
    files: list[Path] = []
    for game in sorted(p.parent.name for p in GAMES_ROOT.glob("*/game.yaml")):
        for lp in game_files(game):
            if lp not in files:
                files.append(lp)
    # Files no entry includes (the consistency search's generator and invariants) have pages too.
    for lp in sorted(GAMES_ROOT.rglob("*.lp")):
        if lp.resolve() not in files:
            files.append(lp.resolve())
    order = list(FOLDERS)
    return sorted(files, key=lambda lp: order.index(lp.parent.name) if lp.parent.name in order else len(order))


def pages() -> dict[str, str]:
    clause_headings = headings()
    files = all_files()
    out = {page_path(lp): file_page(lp) for lp in files}
    out["rules/index.md"] = index_page(files, clause_headings)
    return out
