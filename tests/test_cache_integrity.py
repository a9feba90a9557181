"""Issue 29's cache reproducers, in real processes on a real cache folder: an entry whose bytes were
changed is never used (its digest no longer matches) but made again; an entry of the wrong shape
is made again, never an internal error; a disk that refuses every write leaves no temporary file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from batch_inputs import ROOT
from pybridge.game import cache

SITUATION = ROOT / "tests" / "rulings" / "berserk" / "513" / "conservativeness-later-ban-wins.yaml"


def check(folder: Path, *extra: str, preexec=None) -> subprocess.CompletedProcess:
    env = {**os.environ, cache.CACHE_VARIABLE: str(folder)}
    return subprocess.run([sys.executable, "-m", "pybridge", "check", "--json", "--trees", str(SITUATION), *extra],
                          capture_output=True, text=True, timeout=300, cwd=ROOT, env=env, preexec_fn=preexec)


def entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix in (".json", ".marshal"))


@pytest.fixture(scope="session")
def warmed_once(tmp_path_factory):
    """A cache a first check filled, made once a worker (the scheduler interleaves modules, so a
    module-scoped fixture would be made again at nearly every test)."""
    folder = tmp_path_factory.mktemp("warmed") / "cache"
    first = check(folder)
    assert first.returncode == 0, first.stderr
    assert len(entries(folder)) >= 5
    return folder, first.stdout


@pytest.fixture
def warm(warmed_once, tmp_path):
    """A test's own copy of the filled cache, to break as it likes."""
    made, first = warmed_once
    folder = tmp_path / "cache"
    shutil.copytree(made, folder)
    return folder, first


def flip_one_byte(raw: bytes) -> bytes:
    """One byte of the content changed to another of its kind (a letter for a letter, a digit for a
    digit), so a JSON entry still reads as JSON: what a silent flip on disk could do."""
    for at in range(len(raw) // 2, len(raw)):
        byte = raw[at]
        if 0x61 <= byte <= 0x79 or 0x30 <= byte <= 0x38:
            return raw[:at] + bytes([byte + 1]) + raw[at + 1:]
    raise AssertionError("no letter or digit to flip")


def test_an_entry_with_a_flipped_byte_is_made_again_not_used(warm):
    folder, first = warm
    flipped = {}
    for entry in entries(folder):
        flipped[entry] = flip_one_byte(entry.read_bytes())
        entry.write_bytes(flipped[entry])
    again = check(folder)
    assert again.returncode == 0, again.stderr
    assert again.stdout == first
    for entry, bad in flipped.items():
        if entry.exists():  # an entry this run did not need is left for a run that does
            if entry.read_bytes() == bad:
                assert entry.name == cache._FINGERPRINTS or not entry.name.startswith(("berserk-check", "data-")), \
                    f"{entry.name}: the flipped entry was kept"
    used = [e for e in flipped if e.name.startswith("data-") or ("-check-" in e.name and e.name.count(".") == 1)]
    assert used and all(cache.entry_content(e.read_bytes()) is not None for e in used), "made again, sealed"


@pytest.mark.parametrize("sealed", [False, True], ids=["as-written-over", "under-a-matching-digest"])
@pytest.mark.parametrize("content", [b"[]", b"17"])
def test_an_entry_of_the_wrong_shape_is_made_again(warm, content, sealed):
    """Valid JSON of the wrong shape put in an entry's place, or even under a matching digest (a
    writer's bug, not a flip): read as missing and made again, never an internal error."""
    folder, first = warm
    for entry in entries(folder):
        entry.write_bytes(cache._sealed(content) if sealed else content)
    again = check(folder)
    assert again.returncode == 0, again.stderr
    assert again.stdout == first


def _disk_refusing_writes():
    """In the child: every file it writes may hold at most 100 bytes (EFBIG past that, like ENOSPC)."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE as Linux has it")
def test_a_full_disk_leaves_no_temporary_file(tmp_path, warm):
    _, first = warm
    folder = tmp_path / "full"
    result = check(folder, preexec=_disk_refusing_writes)
    assert result.returncode == 0, result.stderr
    assert result.stdout == first
    left = [p.name for p in folder.iterdir()] if folder.exists() else []
    assert not [name for name in left if name.startswith("ccg-judge-")], left
