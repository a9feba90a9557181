"""Where the rules base lives and which files make up a game's program.

The ``asp/`` tree sits at the top of the repository and is copied into the
wheel as ``pybridge/asp``; both layouts are looked up here and nowhere else.
Editions and interpretation options are not separate programs: every
overlay is included by the game's entry file and switched by the
``edition/1`` and ``option/2`` facts, so plain clingo reproduces any run.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pybridge.errors import JudgeError

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # pybridge/, beside which asp/ is installed
# Another rules base (a copy a rules author is editing, a mutant) in place of the installed one.
ROOT_VARIABLE = "CCG_JUDGE_ASP_ROOT"


def asp_root() -> Path:
    override = os.environ.get(ROOT_VARIABLE, "").strip()
    if override:
        root = Path(override).resolve()
        if not (root / "core").is_dir():
            raise JudgeError(f"{ROOT_VARIABLE} names {override!r}, which has no core/ folder of rules")
        return root
    return _installed_root()


@contextmanager
def use_asp_root(root: str | Path) -> Iterator[Path]:
    """Judge with the rules base at ``root`` for the duration; what was read from the previous
    one (parsed programs, catalogues: every cached function of pybridge) is forgotten both ways."""
    before = os.environ.get(ROOT_VARIABLE)
    os.environ[ROOT_VARIABLE] = str(root)
    _forget_rules()
    try:
        yield asp_root()
    finally:
        if before is None:
            os.environ.pop(ROOT_VARIABLE, None)
        else:
            os.environ[ROOT_VARIABLE] = before
        _forget_rules()


def _forget_rules() -> None:
    for name, module in list(sys.modules.items()):
        if name == "pybridge" or name.startswith("pybridge."):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", None) == name:
                    value.cache_clear()


@cache
def _installed_root() -> Path:
    for candidate in (_PACKAGE_DIR / "asp", _PACKAGE_DIR.parent / "asp"):
        if (candidate / "core").is_dir():
            return candidate
    raise JudgeError("the rules base (asp/) is missing from this installation")


def known_games() -> list[str]:
    return sorted(p.parent.name for p in asp_root().glob("*/game.yaml"))


def game_dir(game: str) -> Path:
    path = asp_root() / game
    if not (path / "game.yaml").is_file():
        raise JudgeError(f"unknown game {game!r}; known games: {', '.join(known_games())}", field="game")
    return path


def entry_file(game: str, entry: str = "main.lp") -> Path:
    return game_dir(game) / entry


_BANNER = re.compile(r"^%\s*---\s*(\S+)\s*-*\s*$")


def banner_id(comment: str) -> str | None:
    """The clause id of a ``% --- 107.2 ----`` banner comment, else None."""
    match = _BANNER.match(comment.strip())
    return match.group(1) if match else None


@dataclass(frozen=True)
class SourceRule:
    """One rule of the rules base, as the justifier and the linter see it."""

    clause: str | None
    text: str
    file: str


def relative_name(path: str) -> str:
    """A file of the rules base named relative to ``asp/`` (never a machine path)."""
    try:
        return Path(path).resolve().relative_to(asp_root()).as_posix()
    except ValueError:
        return Path(path).name
