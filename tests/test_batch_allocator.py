"""The batch workers' allocator (CCG_JUDGE_ALLOCATOR): a faster one preloaded where installed,
glibc's when asked or when none is, a bad name refused in one line. Real worker processes: what
is held is what the worker's own memory map shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pybridge.tools import batch

ROOT = Path(__file__).resolve().parent.parent


def _mapped_libraries() -> str:
    with open("/proc/self/maps") as handle:
        return handle.read()


def _worker_maps(monkeypatch, wanted: str | None) -> tuple[batch.Allocator, str]:
    if wanted is None:
        monkeypatch.delenv(batch.ALLOCATOR_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(batch.ALLOCATOR_VARIABLE, wanted)
    batch.worker_allocator.cache_clear()
    try:
        with batch.LocalPool(1, recycle=10) as pool:
            return pool.allocator, pool.submit(_mapped_libraries).result()
    finally:
        batch.worker_allocator.cache_clear()


@pytest.mark.skipif(not batch._installed("jemalloc"), reason="jemalloc is not installed here")
def test_a_worker_runs_on_jemalloc_when_it_is_installed_and_this_process_does_not(monkeypatch):
    allocator, maps = _worker_maps(monkeypatch, None)
    assert allocator.name == "jemalloc"
    assert "libjemalloc" in maps
    assert "libjemalloc" not in _mapped_libraries()  # preloaded only while a worker starts
    assert "LD_PRELOAD" not in os.environ or "jemalloc" not in os.environ["LD_PRELOAD"]


def test_glibc_when_asked(monkeypatch):
    allocator, maps = _worker_maps(monkeypatch, "glibc")
    assert allocator == batch.Allocator("glibc")
    assert "jemalloc" not in maps and "mimalloc" not in maps


def test_a_bad_allocator_name_is_one_line_naming_the_nearest(tmp_path):
    situation = ROOT / "examples" / "berserk"
    env = dict(os.environ, **{batch.ALLOCATOR_VARIABLE: "jemaloc"})
    done = subprocess.run([sys.executable, "-m", "pybridge", "batch", str(situation), "--jobs", "1"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0
    error = done.stderr.strip()
    assert len(error.splitlines()) == 1, error
    assert "CCG_JUDGE_ALLOCATOR" in error and "nearest: jemalloc" in error, error
    assert "Traceback" not in error


def test_the_summary_says_which_allocator_once():
    summary = batch.Summary(situations=3, seconds=1.0,
                            allocator=batch.Allocator("glibc", note="no jemalloc or mimalloc installed"))
    assert summary.text().count("glibc") == 1
    assert summary.text().endswith("workers on glibc (no jemalloc or mimalloc installed)")


def test_with_none_installed_auto_falls_back_to_glibc_and_says_why(monkeypatch):
    monkeypatch.delenv(batch.ALLOCATOR_VARIABLE, raising=False)
    monkeypatch.setattr(batch, "_installed", lambda name: None)
    batch.worker_allocator.cache_clear()
    try:
        allocator = batch.worker_allocator()
    finally:
        batch.worker_allocator.cache_clear()
    assert allocator.name == "glibc" and allocator.library is None
    assert "no jemalloc or mimalloc installed" in allocator.note


def test_asking_for_one_that_is_not_installed_is_refused(monkeypatch):
    monkeypatch.setenv(batch.ALLOCATOR_VARIABLE, "mimalloc")
    monkeypatch.setattr(batch, "_installed", lambda name: None)
    batch.worker_allocator.cache_clear()
    try:
        with pytest.raises(batch.JudgeError, match="no mimalloc library is installed"):
            batch.worker_allocator()
    finally:
        batch.worker_allocator.cache_clear()
