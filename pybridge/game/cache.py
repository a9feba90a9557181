"""The cache folder: what the bridge derives from the rules base once and reuses across processes
(compiled programs, the game's data files as JSON). Every entry is keyed by the content it was made
from, so a changed file is never read stale; a broken entry is made again. ``CCG_JUDGE_CACHE``
names the folder (empty: no cache folder, everything is made in memory).

A file's content key is remembered by its size, device, inode and modification and change times
(as git's index does): a file none of these changed since is not read and hashed again. The change time is the
kernel's own, set on every write and every metadata change, so a copy that keeps a modification time
(cp -p, tar) still counts as changed; a file changed in the last two seconds is always read, since
its times may not have moved yet for a second change. (Where a file system's change time only mirrors
the modification time, some network mounts and Windows, an empty CCG_JUDGE_CACHE is the safe choice.)

Every entry starts with a line that holds a digest (BLAKE2b) of the rest: an entry whose content no
longer matches it (a flipped byte, a cut-off write, a file of another shape put in its place) is
read as missing and made again, never used. A write that fails (a full disk) leaves no file behind.

The folder is kept within a size (``CCG_JUDGE_CACHE_MB``, default 256 MB): every edit of ``asp/``
makes programs of its own, and a rules author makes hundreds. After each write the entries used
longest ago go first, a program with its parts (``X.json`` with ``X.near.json``, ...) as one; an
entry read is marked used by its modification time, at most once an hour. Only files named as this
module names them are ever removed, whatever folder ``CCG_JUDGE_CACHE`` names."""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from pathlib import Path
from typing import Any, Callable


from pybridge.errors import JudgeError

log = logging.getLogger(__name__)

CACHE_VARIABLE = "CCG_JUDGE_CACHE"
SIZE_VARIABLE = "CCG_JUDGE_CACHE_MB"
DEFAULT_SIZE_MB = 256
_MARK_USED_AFTER_S = 3600
_TEMPORARY_LEFT_AFTER_S = 3600  # a temporary file this old was left by a writer that died
# The modes solve compiles programs for (tests/test_cache.py holds it to the compiler's).
PROGRAM_MODES = ("check", "trees", "explain")
# What this module writes: data-<key>.json, <game>-<mode>-<key>[-...][.part].json or .marshal, and
# its own temporary files; nothing else in the folder is ever removed.
_SUFFIXES = (".json", ".marshal")
_ENTRY = re.compile(r"(?:data|[a-z0-9_]+-(?:%s))-[0-9a-f]{24}[-.a-z0-9_]*\.(?:json|marshal)" % "|".join(PROGRAM_MODES))
_TEMPORARY_PREFIX = "ccg-judge-"
_TEMPORARY = re.compile(re.escape(_TEMPORARY_PREFIX) + r"[a-z0-9_]{8}\.tmp")


def cache_dir() -> Path | None:
    """The cache folder (None: keep none); a bad size limit is refused here, before any use."""
    size_limit()
    configured = os.environ.get(CACHE_VARIABLE)
    if configured is not None:
        return Path(configured) if configured.strip() else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ccg-judge"


def read_json(name: str) -> Any | None:
    """A cached JSON entry, or None when it is missing or broken."""
    raw = read_bytes(name)
    if raw is None:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError as exc:
        log.info("ignoring cache file %s: %s", name, exc)
        return None


# The first line of every entry: this tag, the digest of the rest of the file, a line break.
_HEADER = b"ccg-judge-cache-1 "
_DIGEST_BYTES = 16


def _blake2b():
    try:
        from _blake2 import blake2b  # hashlib's own, without hashlib's import of OpenSSL (3 ms of a start)
    except ImportError:
        from hashlib import blake2b
    return blake2b


def _digest_of(data: bytes) -> bytes:
    return _blake2b()(data, digest_size=_DIGEST_BYTES).hexdigest().encode("ascii")


def _sealed(data: bytes) -> bytes:
    """An entry as written: the header line with the digest of ``data``, then ``data``."""
    return _HEADER + _digest_of(data) + b"\n" + data


def entry_content(raw: bytes) -> bytes | None:
    """The content of an entry whose digest matches it, or None."""
    start = len(_HEADER) + 2 * _DIGEST_BYTES + 1
    if not raw.startswith(_HEADER) or raw[start - 1:start] != b"\n":
        return None
    data = raw[start:]
    return data if raw[len(_HEADER):start - 1] == _digest_of(data) else None


def read_bytes(name: str) -> bytes | None:
    """A cached entry's content, or None when it is missing, unreadable or does not match its digest
    (then it is made again by the caller, and written over)."""
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / name
    try:
        modified = path.stat().st_mtime
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.info("ignoring cache file %s: %s", path.name, exc)
        return None
    data = entry_content(raw)
    if data is None:
        log.info("ignoring cache file %s: its content does not match its digest", path.name)
        return None
    if time.time() - modified > _MARK_USED_AFTER_S:  # used now: the last to go when the folder is pruned
        try:
            os.utime(path)
        except OSError:
            pass
    return data


def write_json(name: str, data: Any) -> None:
    write_bytes(name, json.dumps(data, ensure_ascii=False).encode("utf-8"))


def write_bytes(name: str, data: bytes) -> None:
    folder = cache_dir()
    if folder is None:
        return
    temporary = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        import tempfile  # only a run that writes the cache needs it

        handle, temporary = tempfile.mkstemp(dir=folder, prefix=_TEMPORARY_PREFIX, suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(_sealed(data))
        os.replace(temporary, folder / name)  # atomic: concurrent processes never read half a file
    except OSError as exc:
        log.info("cannot write to the cache folder: %s", exc)
        if temporary is not None:  # a full disk: the half-written file goes, not left for an hour
            try:
                os.unlink(temporary)
            except OSError:
                pass
        return
    if name != _FINGERPRINTS:
        prune(folder, size_limit(), keep=name)


def positive_megabytes(variable: str, default: int) -> int:
    """A size in megabytes from an environment variable: ``default`` when unset or blank, else a
    positive whole number (anything else is refused, naming the variable)."""
    raw = os.environ.get(variable)
    if raw is None or raw.strip() == "":
        return default
    try:
        megabytes = int(raw)
    except ValueError:
        megabytes = 0
    if megabytes <= 0:
        raise JudgeError(f"environment variable {variable} must be a positive whole number of megabytes, "
                         f"got {raw!r}")
    return megabytes


def size_limit() -> int:
    """The cache folder's size limit in bytes (``CCG_JUDGE_CACHE_MB``)."""
    return positive_megabytes(SIZE_VARIABLE, DEFAULT_SIZE_MB) * 1_000_000


def prune(folder: Path, limit: int, keep: str = "") -> None:
    """Remove the entries used longest ago until the folder's entries fit in ``limit`` bytes; an entry
    ``X.part.json`` (or ``.marshal``) goes with ``X.json`` (a program and its parts), and ``keep``
    (just written) and its group stay. A temporary file a writer left an hour ago goes too."""
    entries: dict[str, tuple[float, int, str]] = {}  # stem -> (used, size, name)
    now = time.time()
    try:
        with os.scandir(folder) as found:
            for item in found:
                try:
                    if _ENTRY.fullmatch(item.name) and item.is_file(follow_symlinks=False):
                        stat = item.stat(follow_symlinks=False)
                        entries[_stem(item.name)] = (stat.st_mtime, stat.st_size, item.name)
                    elif _TEMPORARY.fullmatch(item.name) and now - item.stat().st_mtime > _TEMPORARY_LEFT_AFTER_S:
                        os.unlink(item.path)
                except OSError:
                    continue
    except OSError as exc:
        log.info("cannot read the cache folder: %s", exc)
        return
    total = sum(size for _, size, _ in entries.values())
    if total <= limit:
        return
    groups: dict[str, list[str]] = {}
    for stem in entries:
        owner = stem.rsplit(".", 1)[0]
        groups.setdefault(owner if owner in entries else stem, []).append(stem)
    kept = _stem(keep)
    kept_group = next((g for g, stems in groups.items() if kept in stems), None)
    for group in sorted(groups, key=lambda g: max(entries[s][0] for s in groups[g])):
        if total <= limit:
            break
        if group == kept_group:
            continue
        for stem in groups[group]:
            try:
                os.unlink(folder / entries[stem][2])
            except FileNotFoundError:
                pass  # another process pruned it: gone all the same
            except OSError:
                continue
            total -= entries[stem][1]
        log.info("cache folder over %d MB: removed %s", limit // 1_000_000, group)


def _stem(name: str) -> str:
    return next((name[:-len(suffix)] for suffix in _SUFFIXES if name.endswith(suffix)), name)


_FINGERPRINTS = "fingerprints.json"
_SETTLED_NS = 2_000_000_000
# per process, then kept in the cache folder: "files": path -> [size, device, inode, mtime, ctime,
# digest];
# "combined": a joined list of keys -> its digest (the rules base's key, see combined_key)
_fingerprints: dict[str, dict] | None = None
_changed = False
_lock = threading.Lock()


def _known() -> dict[str, dict]:
    global _fingerprints
    if _fingerprints is None:
        found = read_json(_FINGERPRINTS)
        ok = isinstance(found, dict) and all(isinstance(found.get(k), dict) for k in ("files", "combined"))
        _fingerprints = found if ok else {"files": {}, "combined": {}}
    return _fingerprints


def _sha256(data: bytes) -> str:
    import hashlib  # only for what was not seen before (hashlib's import is a few ms of a start)

    return hashlib.sha256(data).hexdigest()


def content_key(path: Path) -> str:
    """The SHA-256 of a file's bytes (hex), read and hashed only when the file changed since."""
    global _changed
    stat = path.stat()
    seen = [stat.st_size, stat.st_dev, stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns]
    with _lock:  # the playground judges in several threads
        known = _known()["files"].get(str(path))
    if isinstance(known, list) and known[:5] == seen and isinstance(known[-1], str):
        return known[-1]
    digest = _sha256(path.read_bytes())
    # A file changed in the last moments may change again within the same tick of the file system's
    # clock (a coarse one), its times unchanged: such a file is hashed again until it is older.
    if time.time_ns() - max(stat.st_mtime_ns, stat.st_ctime_ns) > _SETTLED_NS:
        with _lock:
            files = _known()["files"]
            if len(files) >= 4096:  # files of rules bases long gone (mutants', tests'): start afresh
                files.clear()
            files[str(path)] = [*seen, digest]
            _changed = True
    return digest


def combined_key(parts: list[str]) -> str:
    """The SHA-256 of some keys and names together (hex), remembered for the same list."""
    global _changed
    joined = "\n".join(parts)
    with _lock:
        found = _known()["combined"].get(joined)
    if not isinstance(found, str):
        found = _sha256(joined.encode("utf-8"))
        with _lock:
            combined = _known()["combined"]
            if len(combined) >= 16:  # a few versions of the rules base, not all of them
                combined.pop(next(iter(combined)))
            combined[joined] = found
            _changed = True
    return found


def save_fingerprints() -> None:
    """Keep what :func:`content_key` and :func:`combined_key` learnt, for the next process."""
    global _changed
    with _lock:
        if not _changed or _fingerprints is None:
            return
        copy = {"files": dict(_fingerprints["files"]), "combined": dict(_fingerprints["combined"])}
        _changed = False
    write_json(_FINGERPRINTS, copy)


def data_file(path: Path, parse: Callable[[bytes], Any]) -> Any:
    """A data file of the rules base, parsed once and kept as JSON keyed by its content: JSON reads
    many times faster than YAML. Data that JSON would not give back exactly (keys that are not
    strings, say) is not cached."""
    cached = read_json(f"data-{content_key(path)[:24]}.json")
    save_fingerprints()
    if isinstance(cached, dict) and "data" in cached:
        return cached["data"]
    # Kept under the key of the bytes parsed, read once here: the file may have been saved again
    # since its key was taken, and data must never be filed under another content's key.
    raw = path.read_bytes()
    name = f"data-{_sha256(raw)[:24]}.json"
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
