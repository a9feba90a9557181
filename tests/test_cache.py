"""The cache folder keeps what is made from the rules base by the content it was made from: a
changed file is parsed again, never read stale, and data JSON would alter is not kept."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pybridge import api
from pybridge.errors import JudgeError
from pybridge.game import cache
from pybridge.ground import solve, specialise
from pybridge.input.situation import situation_from_data
from pybridge.report.render import to_json


def test_a_data_file_is_parsed_once_per_content(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    source = tmp_path / "game.yaml"
    parsed = []

    def parse(raw: bytes):
        parsed.append(raw)
        return {"title": raw.decode().strip()}

    source.write_text("first\n", encoding="utf-8")
    assert cache.data_file(source, parse) == {"title": "first"}
    assert cache.data_file(source, parse) == {"title": "first"}
    assert len(parsed) == 1  # the second read came from the cache folder
    source.write_text("second\n", encoding="utf-8")
    assert cache.data_file(source, parse) == {"title": "second"}
    assert len(parsed) == 2


def test_data_json_would_change_is_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    source = tmp_path / "editions.yaml"
    source.write_text("515: older\n", encoding="utf-8")
    calls = []

    def parse(raw: bytes):
        calls.append(raw)
        return {515: "older"}  # an integer key: JSON would give back "515"

    assert cache.data_file(source, parse) == {515: "older"}
    assert cache.data_file(source, parse) == {515: "older"}
    assert len(calls) == 2


def test_a_broken_entry_is_made_again(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    source = tmp_path / "clauses.yaml"
    source.write_text("x\n", encoding="utf-8")
    assert cache.data_file(source, lambda raw: ["x"]) == ["x"]
    for entry in (tmp_path / "cache").iterdir():
        entry.write_text("{not json", encoding="utf-8")
    assert cache.data_file(source, lambda raw: ["x again"]) == ["x again"]


def test_no_cache_folder_when_the_variable_is_empty(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_VARIABLE, "")
    source = tmp_path / "game.yaml"
    source.write_text("x\n", encoding="utf-8")
    assert cache.cache_dir() is None
    assert cache.data_file(source, lambda raw: {"a": 1}) == {"a": 1}


# --------------------------------------------------------------------------
# Compiled programs: the program, then its parts (near misses, rules) when first asked for

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from boards import board  # noqa: E402

ORDINARY = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"  # no defeater can hold
DEFEATED = ROOT / "tests" / "rulings" / "berserk" / "513" / "conservativeness-later-ban-wins.yaml"


def _new_process_state() -> None:
    """What a new process starts without: compiled programs and what is made from them."""
    solve.program.cache_clear()
    solve._parsed.cache_clear()
    solve._indexed.clear()
    solve._ran.clear()
    solve._laters.clear()
    specialise.forget()


PART_NAMES = ("near", "near_text", "near_shapes", "rules", "shapes")


def _parts(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.endswith(tuple(f".{part}.json" for part in PART_NAMES)))


@pytest.fixture
def cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    _new_process_state()
    yield tmp_path / "cache"
    _new_process_state()


def test_an_ordinary_check_reads_no_part_of_the_program(cache_folder):
    """A check without because-lines (batch's) is judged by the program alone, where its first run had
    the near misses; with them it reads the parts again and answers the same."""
    board_ = situation_from_data(board(30, 0))
    first = [to_json(api.check(ORDINARY)), to_json(api.check(board_))]
    assert _parts(cache_folder)  # written beside the program
    for part in _parts(cache_folder):
        part.unlink()
    _new_process_state()
    assert [to_json(api.check(ORDINARY, reasons=False)), to_json(api.check(board_, reasons=False))] == [
        to_json(api.check(ORDINARY, reasons=False)), to_json(api.check(board_, reasons=False))]
    assert _parts(cache_folder) == []  # not asked for, so not made again
    # the because-lines of illegal verdicts read the graph, and so the parts: made again, the same answer
    assert [to_json(api.check(ORDINARY)), to_json(api.check(board_))] == first


def test_the_because_lines_read_the_near_records_without_the_near_misses_program(cache_folder, monkeypatch):
    """The graph reads the near misses' records (kilobytes); their program (megabytes) is read only by
    a run that grounds them, which a situation where no defeater can hold never is."""
    api.check(ORDINARY)
    _new_process_state()
    read: dict[str, set[str]] = {}
    real = cache.read_json

    def reading(name: str):
        data = real(name)
        read[name] = set(data) if isinstance(data, dict) else set()
        return data

    monkeypatch.setattr(cache, "read_json", reading)
    report = api.check(ORDINARY)
    assert any(v.verdict == "illegal" and v.because for v in report.verdicts)  # the graph was read
    parts = {part for name in read for part in PART_NAMES if name.endswith(f".{part}.json")}
    assert parts == {"near", "rules"}, read
    assert not any("near_text" in fields for fields in read.values()), read


# A sound cache entry (its digest holds) of the wrong shape for every part: each part's reader refuses it.
WRONG_SHAPE = {"rules": [{"index": "not a rule"}], "near": 1, "near_text": 5, "near_shapes": 1, "near_ranks": 2,
               "shapes": 3}


@pytest.mark.parametrize("kind", PART_NAMES)
def test_a_missing_or_broken_part_is_made_again(cache_folder, kind):
    """Each kind of part, missing in one program and of the wrong shape in another, is made again
    (the specialiser's indexes are removed too, so that the shapes they are made from are read)."""
    first = [to_json(api.check(DEFEATED)), to_json(api.check(DEFEATED, trees=True))]
    parts = _parts(cache_folder)
    assert {p.name.rsplit(".", 2)[1] for p in parts} == set(PART_NAMES)
    for n, part in enumerate(p for p in parts if p.name.endswith(f".{kind}.json")):
        if n % 2:
            part.unlink()
        else:
            cache.write_json(part.name, WRONG_SHAPE)
    for index in cache_folder.glob("*.marshal"):
        index.unlink()
    _new_process_state()
    assert [to_json(api.check(DEFEATED)), to_json(api.check(DEFEATED, trees=True))] == first


def _indexes(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.shapes-*.marshal"))


def test_a_new_process_reads_the_index_of_a_program_and_makes_a_broken_one_again(cache_folder, monkeypatch):
    import marshal

    first = to_json(api.check(ORDINARY))
    [index] = _indexes(cache_folder)  # the program the example runs: its own statements' index
    kept = index.read_bytes()
    _new_process_state()
    built = specialise.Program.__init__

    def refuse(*args, **kwargs):
        raise AssertionError("indexed again")

    monkeypatch.setattr(specialise.Program, "__init__", refuse)
    assert to_json(api.check(ORDINARY)) == first  # read, not built
    monkeypatch.setattr(specialise.Program, "__init__", built)
    for broken in (b"not marshal data", kept[: len(kept) // 2], b"\xe9\x03\x00\x00\x00"):
        index.write_bytes(broken)
        _new_process_state()
        assert to_json(api.check(ORDINARY)) == first
        assert marshal.loads(cache.entry_content(index.read_bytes())) == marshal.loads(cache.entry_content(kept))


def test_the_near_misses_index_and_the_later_parts_are_read_too_and_made_again_when_broken(cache_folder,
                                                                                        monkeypatch):
    """A situation where a defeater holds grounds the near misses: their index (the program's own,
    extended) and the why layer's index are kept beside the program, read by a new process, and
    made again when broken."""
    import marshal

    first = to_json(api.check(DEFEATED))
    kept = {p: p.read_bytes() for p in cache_folder.glob("*.marshal")
            if p.name.split(".")[-2].split("-")[0] in ("near_shapes", "later_near")}
    assert sorted(p.name.split(".")[-2].split("-")[0] for p in kept) == ["later_near", "near_shapes"]
    _new_process_state()
    built = specialise.Program.__init__, specialise.LaterPart.__init__

    def refuse(*args, **kwargs):
        raise AssertionError("indexed again")

    monkeypatch.setattr(specialise.Program, "__init__", refuse)
    monkeypatch.setattr(specialise.LaterPart, "__init__", refuse)
    assert to_json(api.check(DEFEATED)) == first  # read, not built
    monkeypatch.setattr(specialise.Program, "__init__", built[0])
    monkeypatch.setattr(specialise.LaterPart, "__init__", built[1])
    for path, content in kept.items():
        for broken in (b"not marshal data", content[: len(content) // 2], None):
            if broken is None:  # a sound entry of another shape: marshal reads it, the index refuses it
                cache.write_bytes(path.name, marshal.dumps((1, 2)))
            else:
                path.write_bytes(broken)
            _new_process_state()
            assert to_json(api.check(DEFEATED)) == first
            assert marshal.loads(cache.entry_content(path.read_bytes())) == marshal.loads(cache.entry_content(content))


def test_a_content_key_follows_the_file_and_is_not_fooled_by_its_times(tmp_path, monkeypatch):
    import hashlib
    import os
    import time

    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_fingerprints", None)
    hashed = []
    real = cache._sha256
    monkeypatch.setattr(cache, "_sha256", lambda data: hashed.append(data) or real(data))
    path = tmp_path / "rules.lp"
    path.write_bytes(b"a.\n")
    # fresh: hashed again on every ask, since a second change may not move its times yet
    assert cache.content_key(path) == cache.content_key(path) == hashlib.sha256(b"a.\n").hexdigest()
    assert len(hashed) == 2
    monkeypatch.setattr(cache, "_SETTLED_NS", 0)  # as if it were older
    cache.content_key(path)
    assert cache.content_key(path) == hashlib.sha256(b"a.\n").hexdigest() and len(hashed) == 3  # remembered
    cache.save_fingerprints()
    stat = path.stat()
    time.sleep(0.05)  # past a tick of the file system's clock, so that the change time can move
    path.write_bytes(b"b.\n")  # the same size, its modification time put back as it was
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    monkeypatch.setattr(cache, "_fingerprints", None)  # as a new process, from the cache folder
    assert cache.content_key(path) == hashlib.sha256(b"b.\n").hexdigest()  # its change time moved
    assert len(hashed) == 4


def test_a_broken_fingerprint_file_is_ignored(tmp_path, monkeypatch):
    import hashlib

    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / "fingerprints.json").write_text('{"files": [1, 2]}', encoding="utf-8")
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(folder))
    monkeypatch.setattr(cache, "_fingerprints", None)
    path = tmp_path / "x.yaml"
    path.write_bytes(b"x: 1\n")
    assert cache.content_key(path) == hashlib.sha256(b"x: 1\n").hexdigest()
    assert cache.combined_key(["a", "b"]) == hashlib.sha256(b"a\nb").hexdigest()


def test_data_saved_again_while_it_is_read_is_kept_under_its_own_key(tmp_path, monkeypatch):
    """Found in review: a file saved between taking its key and reading it must not have its new data
    filed under the old content's key (an undo would then read the new data)."""
    import hashlib

    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_fingerprints", None)
    source = tmp_path / "data.yaml"
    source.write_text("v: 1\n", encoding="utf-8")
    real = cache.read_json

    def saved_meanwhile(name):
        found = real(name)
        if name.startswith("data-"):
            source.write_text("v: 2\n", encoding="utf-8")  # an editor saves just now
        return found

    monkeypatch.setattr(cache, "read_json", saved_meanwhile)
    assert cache.data_file(source, lambda raw: {"raw": raw.decode()}) == {"raw": "v: 2\n"}
    monkeypatch.setattr(cache, "read_json", real)
    kept = {p.name for p in (tmp_path / "cache").glob("data-*.json")}
    new_key = hashlib.sha256("v: 2\n".encode()).hexdigest()[:24]
    assert kept == {f"data-{new_key}.json"}
    source.write_text("v: 1\n", encoding="utf-8")  # undone: its own data, not the other's
    assert cache.data_file(source, lambda raw: {"raw": raw.decode()}) == {"raw": "v: 1\n"}


# --------------------------------------------------------------------------
# The folder's size: every edit of asp/ makes programs of its own


KEY = "0123456789abcdef01234567"


def _entry(folder: Path, name: str, kilobytes: int, hours_ago: float) -> Path:
    import os
    import time

    path = folder / name
    path.write_bytes(cache._sealed(("[" + " " * (kilobytes * 1000 - 2) + "]").encode("utf-8")))
    when = time.time() - hours_ago * 3600
    os.utime(path, (when, when))
    return path


def test_the_folder_is_kept_within_its_size_oldest_use_first(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(folder))
    monkeypatch.setenv(cache.SIZE_VARIABLE, "1")  # 1 MB
    old = KEY.replace("0", "a")
    older = [_entry(folder, f"berserk-check-{old}.json", 300, 50),
             _entry(folder, f"berserk-check-{old}.near.json", 200, 10),  # read lately: its program goes with it
             _entry(folder, f"berserk-check-{old}.rules.json", 100, 50),
             _entry(folder, f"berserk-check-{old}.shapes-cpython-311.marshal", 1, 50)]
    newer = [_entry(folder, f"mtg-check-{KEY}-set_aside.1.json", 300, 5),
             _entry(folder, f"data-{KEY}.json", 100, 1)]
    foreign = [_entry(folder, "notes.json", 500, 100), _entry(folder, "berserk-check-mine.json", 500, 100),
               _entry(folder, f"backup-notes-{KEY}.json", 500, 100), _entry(folder, "tmpq1w2e3r4.tmp", 1, 2)]
    cache.write_json(f"berserk-trees-{KEY}.json", {"x": "y" * 250_000})
    left = {p.name for p in folder.iterdir()}
    assert not any(p.name in left for p in older)  # used 10 hours ago at the latest, with its parts
    assert {p.name for p in newer + foreign} <= left  # newer ones fit; other files are never removed


def test_the_entry_just_written_stays_whatever_its_time(tmp_path):
    """A file system whose clock is behind (a network mount) may date the entry just written first."""
    kept = _entry(tmp_path, f"data-{KEY}.json", 600, 30)
    other = _entry(tmp_path, f"data-{KEY.replace('0', 'c')}.json", 600, 1)
    cache.prune(tmp_path, 1_000_000, keep=kept.name)
    assert kept.exists() and not other.exists()


def test_an_entry_another_process_pruned_counts_as_gone(tmp_path, monkeypatch):
    import os

    first = _entry(tmp_path, f"data-{KEY}.json", 400, 3)
    second = _entry(tmp_path, f"data-{KEY.replace('0', 'd')}.json", 400, 2)
    third = _entry(tmp_path, f"data-{KEY.replace('0', 'e')}.json", 400, 1)
    unlink = os.unlink

    def raced(path, *args, **kwargs):
        if str(path) == str(first):  # removed by another pruner between this one's scan and its turn
            unlink(path)
            raise FileNotFoundError(path)
        return unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", raced)
    cache.prune(tmp_path, 1_000_000)
    assert not first.exists() and second.exists() and third.exists()


def test_the_program_modes_are_the_compilers():
    from pybridge.ground.compiler import GRAPH_MODES

    assert set(cache.PROGRAM_MODES) == GRAPH_MODES | {"check"}
    for mode in cache.PROGRAM_MODES:
        assert cache._ENTRY.fullmatch(f"berserk-{mode}-{KEY}-set_aside.1.near.json")


def test_a_read_marks_an_entry_used(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(folder))
    read = _entry(folder, f"data-{KEY}.json", 600, 48)
    unread = _entry(folder, f"data-{KEY.replace('0', 'b')}.json", 600, 24)
    assert cache.read_json(read.name) == []
    cache.prune(folder, 1_000_000)
    assert read.exists() and not unread.exists()


def test_a_temporary_file_left_behind_goes_and_a_fresh_one_stays(tmp_path):
    left = _entry(tmp_path, "ccg-judge-ab12cd_3.tmp", 1, 2)
    writing = _entry(tmp_path, "ccg-judge-zz99yy_0.tmp", 1, 0)
    anothers = _entry(tmp_path, "tmpab12cd_3.tmp", 1, 2)  # another program's
    cache.prune(tmp_path, 10_000_000)
    assert not left.exists() and writing.exists() and anothers.exists()


@pytest.mark.parametrize("value", ["abc", "0", "-5", "1.5"])
def test_a_bad_size_limit_is_a_clear_error(tmp_path, monkeypatch, value):
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setenv(cache.SIZE_VARIABLE, value)
    for use in (lambda: cache.read_json(f"data-{KEY}.json"), lambda: cache.write_json(f"data-{KEY}.json", {})):
        with pytest.raises(JudgeError) as caught:  # refused before the folder is used at all
            use()
        assert caught.value.message == ("environment variable CCG_JUDGE_CACHE_MB must be a positive whole number "
                                        f"of megabytes, got {value!r}")
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("command", [["check", str(ORDINARY)], ["batch", str(ORDINARY)]])
def test_a_bad_size_limit_stops_a_command_before_it_starts(tmp_path, command):
    import os
    import subprocess

    env = {**os.environ, cache.CACHE_VARIABLE: str(tmp_path / "cache"), cache.SIZE_VARIABLE: "lots"}
    done = subprocess.run([sys.executable, "-m", "pybridge", *command], capture_output=True, text=True, env=env,
                          timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "error: environment variable CCG_JUDGE_CACHE_MB must be a positive whole number of megabytes, "
               "got 'lots'\n")


def _a_new_process(monkeypatch):
    """What a new process starts with: no compiled program in memory, no statement shape known."""
    monkeypatch.setattr(specialise, "_by_line", {})
    monkeypatch.setattr(solve, "_shape_lines_read", [])
    solve.program.cache_clear()


def test_a_compile_reads_the_shapes_of_lines_met_before_from_the_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path))
    _a_new_process(monkeypatch)
    fresh = solve.program("mtg", "check")
    (entry,) = tmp_path.glob("data-*-shape-lines-*.marshal")
    for compiled in tmp_path.glob("mtg-check-*"):  # the program itself is made again ...
        compiled.unlink()
    parsed: list[str] = []
    parse = specialise.parse_program
    monkeypatch.setattr(specialise, "parse_program", lambda text: parsed.append(text) or parse(text))
    _a_new_process(monkeypatch)
    again = solve.program("mtg", "check")
    assert (again.shapes, again.near_shapes) == (fresh.shapes, fresh.near_shapes)
    assert parsed == []  # ... with every statement's shape from the entry
    for compiled in tmp_path.glob("mtg-check-*"):
        compiled.unlink()
    entry.write_bytes(entry.read_bytes() + b"\x00")  # no longer what its digest says: ignored
    _a_new_process(monkeypatch)
    assert solve.program("mtg", "check").shapes == fresh.shapes and parsed
    solve.program.cache_clear()  # the tests after this one compile in the cache folder they use
