"""Resource limits for untrusted input, in one place.

Situation files come from anyone; the rules base and the game catalogues
are trusted. Every limit below has a documented default (see SECURITY.md)
and can be raised with an environment variable; the solver's time limit
also with ``--time-limit``. A situation over a limit gets a JudgeError that
names the field, the limit and how to raise it, before any expensive work.

The checks here see only plain data (dicts, lists, scalars), so they run
before the situation models and the solver, and work the same for YAML,
JSON and data handed to the Python API.
"""

from __future__ import annotations

import math
import os
import re
import stat
import sys
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from pybridge.errors import JudgeError

# clingo's numbers are 32-bit; the rules add and compare values, so game data
# stays far from the edge. A correctness bound, not a resource one: fixed.
MAX_ABS_INT = 1_000_000
# ... and clingo wraps around silently past 2 147 483 647, so what the rules add up is
# bounded too: the absolute values in one total (a card's value of a key with every
# modifier of that key on it; one parameter of one feature over all cards) stay within
# this, and any sum or difference of up to four such totals is still exact. Fixed too.
MAX_ABS_SUM = 500_000_000
# Parts of a situation that never reach the solver (109: non-game elements).
UNUSED_KEYS = frozenset({"non_game"})


@dataclass(frozen=True)
class Limits:
    file_bytes: int = 1_000_000
    depth: int = 32
    values: int = 100_000
    string_chars: int = 2_000
    cards: int = 150
    effects: int = 500
    history: int = 1_000
    judgements: int = 6_000
    time_limit: float = 20.0


ENVIRONMENT = {
    "file_bytes": "CCG_JUDGE_MAX_FILE_BYTES",
    "depth": "CCG_JUDGE_MAX_DEPTH",
    "values": "CCG_JUDGE_MAX_VALUES",
    "string_chars": "CCG_JUDGE_MAX_STRING",
    "cards": "CCG_JUDGE_MAX_CARDS",
    "effects": "CCG_JUDGE_MAX_EFFECTS",
    "history": "CCG_JUDGE_MAX_HISTORY",
    "judgements": "CCG_JUDGE_MAX_JUDGEMENTS",
    "time_limit": "CCG_JUDGE_TIME_LIMIT",
}

DEFAULTS = Limits()
# The longest time limit a run may set (about 11.5 days). Past it a timer's wait overflows, and
# a limit of infinity or NaN means no limit at all, which is not one of the choices.
MAX_SECONDS = 1_000_000.0


def seconds(value: float, *, name: str = "time_limit", minimum: float | None = None) -> float:
    """A time limit as given (a flag, a variable, the API): a finite number of seconds above 0 (or
    at least ``minimum``) and at most MAX_SECONDS; NaN, infinity and overflowing numbers (1e309)
    are refused."""
    where = {"time_limit": "the time limit (--time-limit or " + ENVIRONMENT["time_limit"] + ")"}.get(name, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise JudgeError(f"{where} must be a finite number of seconds, got {value!r}")
    low_enough = value >= minimum if minimum is not None else value > 0
    if not low_enough or value > MAX_SECONDS:
        top = f"{MAX_SECONDS:,.0f}".replace(",", " ")
        bottom = f"at least {minimum:g}" if minimum is not None else "above 0"
        raise JudgeError(f"{where} must be {bottom} and at most {top} seconds, got {value:g}")
    return float(value)


def current() -> Limits:
    """The limits in force: the defaults, raised or lowered by the environment."""
    values: dict[str, Any] = {}
    for f in fields(Limits):
        variable = ENVIRONMENT[f.name]
        raw = os.environ.get(variable)
        if raw is None or raw.strip() == "":
            continue
        kind = float if f.name == "time_limit" else int
        try:
            value = kind(raw)
        except ValueError:
            value = 0
        if not value > 0 or (kind is float and not math.isfinite(value)) or (kind is float and value > MAX_SECONDS):
            raise JudgeError(f"environment variable {variable} must be a positive number"
                             + (f" of seconds up to {MAX_SECONDS:,.0f}".replace(",", " ") if kind is float else "")
                             + f", got {raw!r}")
        values[f.name] = value
    return Limits(**values) if values else DEFAULTS


def over(what: str, limit: float, name: str, unit: str = "") -> str:
    """A limit message: what is too big, the limit and how to raise it."""
    raise_with = f"--time-limit or {ENVIRONMENT[name]}" if name == "time_limit" else ENVIRONMENT[name]
    shown = f"{limit:g} s" if name == "time_limit" else f"{limit:,}".replace(",", " ") + unit
    return f"{what}; the limit is {shown} (raise it with {raise_with})"


# --------------------------------------------------------------------------
# Files: only regular files are read, and only up to the size limit


def open_regular(path: str | os.PathLike, *, source: str | None = None):
    """A binary reader of ``path``, which must be a regular file (a symbolic link to one is
    followed). A FIFO, a device or a socket is refused rather than read: a FIFO with no writer
    would block the reader for ever. The file is opened without blocking and checked on its
    descriptor, so nothing can swap it between the check and the read."""
    source = source if source is not None else os.fspath(path)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise JudgeError("file not found", source=source) from None
    except IsADirectoryError:
        raise JudgeError("is a folder, not a file", source=source) from None
    except OSError as exc:
        raise JudgeError(f"cannot read the file: {exc.strerror}", source=source) from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device or socket"
        raise JudgeError(f"is {kind}, not a regular file; only regular files are read", source=source)
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


def read_input_file(path: str | os.PathLike, *, source: str | None = None) -> bytes:
    """The bytes of an input file (a situation, a template), held to the file size limit."""
    source = source if source is not None else os.fspath(path)
    limit = current().file_bytes
    with open_regular(path, source=source) as handle:
        try:
            raw = handle.read(limit + 1)
        except OSError as exc:
            raise JudgeError(f"cannot read the file: {exc.strerror}", source=source) from None
    if len(raw) > limit:
        raise JudgeError(over("the file is too large", limit, "file_bytes", " bytes"), source=source)
    return raw


def check_writable(path: str | os.PathLike, *, what: str = "the output") -> None:
    """Refuse, before any work, an output that cannot be written: its folder missing, the path a
    folder, no permission, a read-only disk. Probed by opening it to append (a file this
    creates is removed again), so nothing it holds is lost if the run stops early."""
    source = os.fspath(path)
    existed = os.path.lexists(source)
    if os.path.isdir(source):
        raise JudgeError(f"{what} is a folder; give a file name", source=source)
    try:
        descriptor = os.open(source, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o666)
    except OSError as exc:
        reason = "its folder does not exist" if isinstance(exc, FileNotFoundError) else exc.strerror
        raise JudgeError(f"cannot write {what}: {reason}", source=source) from None
    os.close(descriptor)
    if not existed:
        os.unlink(source)


def check_writable_folder(path: str | os.PathLike, *, what: str = "the output folder") -> None:
    """Refuse, before any work, a folder that cannot be made or written: probed with a temporary
    file in it, or in the nearest folder above it that exists (nothing is left behind)."""
    import tempfile

    source = os.fspath(path)
    probe = os.path.abspath(source)
    while not os.path.lexists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe):
        raise JudgeError(f"cannot make {what}: {probe!r} is a file, not a folder", source=source)
    try:
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as exc:
        raise JudgeError(f"cannot write {what}: {exc.strerror}", source=source) from None


def refuse_output_among_inputs(output: str | os.PathLike, inputs: Iterable[str | os.PathLike]) -> None:
    """Refuse an output that is one of the inputs, or lies inside an input folder: writing it
    would empty the input before it is read, or feed the run its own rows for ever."""
    target = os.path.realpath(output)
    for given in inputs:
        if os.fspath(given) == "-":
            continue
        source = os.path.realpath(given)
        if os.path.isdir(source):
            if os.path.commonpath([source, target]) == source:
                raise JudgeError(f"the output lies inside the input folder {os.fspath(given)!r}, so the run "
                                 "would read its own rows; write it elsewhere", source=os.fspath(output))
        elif target == source or (os.path.exists(target) and os.path.exists(source)
                                  and os.path.samefile(target, source)):
            raise JudgeError("the output is also an input and would be emptied before it is read; "
                             "write it elsewhere", source=os.fspath(output))


# --------------------------------------------------------------------------
# YAML: bounded nesting while composing (PyYAML's composer is recursive). The reader is
# pybridge.input.yaml_input, which uses these limits; it imports PyYAML, which a JSON situation does
# not need, so a caller imports it only for YAML text.


class DuplicateKeys(dict):
    """A JSON object that repeated a key (json.loads keeps the last silently): kept to be
    found and named by :func:`check_data`."""

    def __init__(self, pairs: list[tuple[str, Any]], key: str) -> None:
        super().__init__(pairs)
        self.duplicate = key


def json_object(pairs: list[tuple[str, Any]]) -> dict:
    """``object_pairs_hook`` for json.loads: a dict, or a DuplicateKeys naming the repeat."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return DuplicateKeys(pairs, key)
        seen.add(key)
    return dict(pairs)


def too_deep_to_read(source: str) -> JudgeError:
    """Python's own recursion stops a reader before a raised depth limit does."""
    limits = current()
    reach = sys.getrecursionlimit()
    if limits.depth < reach // 2:
        return JudgeError(over("nested too deeply to read", limits.depth, "depth"), source=source)
    return JudgeError(f"nested too deeply to read: the readers stop near {reach // 2} levels, below the depth "
                      f"limit of {limits.depth} set with {ENVIRONMENT['depth']}", source=source)


# --------------------------------------------------------------------------
# Plain data: size, depth, strings, integers


_PLAIN_KEY = re.compile(r"[^\s.\[\]'\"]+")


def field_path(parts: Sequence[Any]) -> str:
    """``("cards", 2, "cell")`` -> ``cards[2].cell``; odd keys are quoted: ``properties.'a b'``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            key = str(part)
            text += ("." if text else "") + (key if _PLAIN_KEY.fullmatch(key) else repr(key))
    return text or "(top level)"


def check_sums(numbers: Iterable[tuple[Hashable, int, Sequence[Any]]], words: Callable[[Hashable], str], *,
               source: str) -> None:
    """Refuse a situation in which numbers the rules add up could overflow clingo's
    integers. ``numbers``: (the total it goes into, the number, the field it comes from);
    ``words(total)`` names a total in a message. The field of the number that crosses the
    bound is named."""
    totals: dict[Hashable, int] = {}
    for group, number, parts in numbers:
        total = totals.get(group, 0) + abs(number)
        totals[group] = total
        if total > MAX_ABS_SUM:
            bound = f"{MAX_ABS_SUM:,}".replace(",", " ")
            raise JudgeError(f"{words(group)} add up to more than {bound} in absolute value; the limit is {bound} "
                             "(fixed: clingo's integers are 32-bit and would wrap around)",
                             source=source, field=field_path(parts))


def _string_problem(value: str) -> str | None:
    if "\x00" in value:
        return "contains a NUL character, which the solver cannot keep"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode text (a lone surrogate)"
    return None


def check_data(data: Any, *, source: str) -> None:
    """Refuse data that is too big, too deep or not representable, naming the field.

    Walks iteratively, counting every value as often as it is reached (so
    shared YAML aliases count once per use), and stops at the first problem:
    cyclic or exponentially aliased data ends at the depth or values limit."""
    limits = current()

    def fail(message: str, parts: list[Any]) -> None:
        raise JudgeError(message, source=source, field=field_path(parts))

    def check_text(text: str, noun: str, parts: list[Any]) -> None:
        """A text or a key: not too long, and representable in clingo."""
        if len(text) > limits.string_chars:
            fail(over(f"a {noun} of {len(text)} characters", limits.string_chars, "string_chars"), parts)
        problem = _string_problem(text)
        if problem:
            fail(f"the {noun} {problem}", parts)

    if isinstance(data, dict):
        for key, name in (("cards", "cards"), ("effects", "effects"), ("history", "history")):
            items = data.get(key)
            limit = getattr(limits, name)
            if isinstance(items, list) and len(items) > limit:
                fail(over(f"{len(items)} entries", limit, name), [key])

    count = 0
    stack: list[tuple[Any, list[Any], bool]] = [(data, [], False)]
    while stack:
        value, parts, unused = stack.pop()
        count += 1
        if count > limits.values:
            fail(over(f"the situation has more than {limits.values:,} values (aliases expanded)".replace(",", " "),
                      limits.values, "values"), parts)
        if len(parts) > limits.depth:
            fail(over(f"nested more than {limits.depth} levels deep", limits.depth, "depth"), parts)
        if isinstance(value, str):
            check_text(value, "text", parts)
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int):
            if not unused and abs(value) > MAX_ABS_INT:
                fail(f"the number {value} is out of range; numbers must lie between "
                     f"-{MAX_ABS_INT} and {MAX_ABS_INT}", parts)
        elif isinstance(value, DuplicateKeys):
            fail(f"the key {value.duplicate!r} appears twice in one mapping; each key may appear once", parts)
        elif isinstance(value, dict):
            children = []
            for key, item in value.items():
                if isinstance(key, str):
                    check_text(key, "key", parts)
                children.append((item, parts + [key], unused or key in UNUSED_KEYS))
            stack.extend(reversed(children))  # first field first
        elif isinstance(value, (list, tuple)):
            stack.extend(reversed([(item, parts + [i], unused) for i, item in enumerate(value)]))
        elif value is not None and not isinstance(value, float):
            # Data handed to the API may hold anything; a set would reach the solver in hash order.
            fail(f"a value of type {type(value).__name__} is not allowed: a situation holds only mappings, "
                 "lists, texts, numbers, true/false and null", parts)
