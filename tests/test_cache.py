"""The cache folder keeps what is made from the rules base by the content it was made from: a
changed file is parsed again, never read stale, and data JSON would alter is not kept."""

from __future__ import annotations

from pybridge import cache


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
