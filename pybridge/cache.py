"""The cache folder: what the bridge derives from the rules base once and reuses across processes
(compiled programs, the game's data files as JSON). Every entry is keyed by the content it was made
from, so a changed file is never read stale; a broken entry is made again. ``CCG_JUDGE_CACHE``
names the folder (empty: no cache folder, everything is made in memory)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any, Callable


from pybridge.errors import JudgeError

log = logging.getLogger(__name__)

CACHE_VARIABLE = "CCG_JUDGE_CACHE"


def cache_dir() -> Path | None:
    configured = os.environ.get(CACHE_VARIABLE)
    if configured is not None:
        return Path(configured) if configured.strip() else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ccg-judge"


def read_json(name: str) -> Any | None:
    """A cached JSON entry, or None when it is missing or broken."""
    folder = cache_dir()
    path = folder / name if folder is not None else None
    if path is None or not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.info("ignoring cache file %s: %s", path.name, exc)
        return None


def write_json(name: str, data: Any) -> None:
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        import tempfile  # only a run that writes the cache needs it

        handle, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, ensure_ascii=False)
        os.replace(temporary, folder / name)  # atomic: concurrent processes never read half a file
    except OSError as exc:
        log.info("cannot write to the cache folder: %s", exc)


def data_file(path: Path, parse: Callable[[bytes], Any]) -> Any:
    """A data file of the rules base, parsed once and kept as JSON keyed by its content: JSON reads
    many times faster than YAML. Data that JSON would not give back exactly (keys that are not
    strings, say) is not cached."""
    raw = path.read_bytes()
    name = f"data-{hashlib.sha256(raw).hexdigest()[:24]}.json"
    cached = read_json(name)
    if cached is not None:
        return cached["data"]
    data = parse(raw)
    if json.loads(json.dumps(data)) == data:
        write_json(name, {"data": data})
    return data


class _NotYaml(Exception):
    pass


def _trusted_yaml(raw: bytes) -> Any:
    """The game's own files are trusted: libyaml's loader where present. PyYAML is imported here,
    only when the JSON kept of a file is missing."""
    import yaml

    try:
        return yaml.load(raw, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise _NotYaml(f"not valid YAML: {exc}") from None


def read_game_yaml(path: Path, source: str | None = None) -> Any:
    """A data file of the rules base (game.yaml, clauses, cards, vocabulary, phrases)."""
    try:
        return data_file(path, _trusted_yaml)
    except FileNotFoundError:
        raise JudgeError("file not found", source=source or path.name) from None
    except _NotYaml as exc:
        raise JudgeError(str(exc), source=source or path.name) from None
