"""One convention for output: --format says what, -o where. The older spellings (--json, --html FILE,
--write DIR, --out DIR) still work, each with one line on standard error saying what to use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pybridge", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


def test_format_json_and_old_json_give_the_same_report_the_old_one_with_a_notice():
    new, old = run("check", str(EXAMPLE), "--format", "json"), run("check", str(EXAMPLE), "--json")
    assert new.returncode == old.returncode == 0
    assert json.loads(new.stdout) == json.loads(old.stdout)
    assert new.stderr == ""
    assert old.stderr.strip().splitlines() == ["warning: --json is deprecated; use --format json"]


def test_output_file_and_old_html_write_the_same_page(tmp_path):
    new, old = tmp_path / "new.html", tmp_path / "old.html"
    assert run("check", str(EXAMPLE), "--format", "html", "-o", str(new)).returncode == 0
    done = run("check", str(EXAMPLE), "--html", str(old))
    assert done.returncode == 0 and "--html FILE is deprecated; use --format html -o FILE" in done.stderr
    assert new.read_text(encoding="utf-8") == old.read_text(encoding="utf-8")
    text = tmp_path / "check.txt"
    assert run("check", str(EXAMPLE), "-o", str(text)).returncode == 0
    assert text.read_text(encoding="utf-8") == run("check", str(EXAMPLE)).stdout


@pytest.mark.parametrize("command", [["schema"], ["vocabulary", "--game", "berserk"]])
def test_a_folder_by_o_or_by_the_old_write(tmp_path, command):
    new = run(*command, "-o", str(tmp_path / "new"))
    old = run(*command, "--write", str(tmp_path / "old"))
    assert new.returncode == old.returncode == 0 and new.stderr == ""
    assert "--write DIR is deprecated; use -o DIR" in old.stderr
    names = sorted(p.name for p in (tmp_path / "new").iterdir())
    assert names and names == sorted(p.name for p in (tmp_path / "old").iterdir())


@pytest.mark.parametrize("command", [["explain", str(EXAMPLE), "shot(elf, foe)"],
                                     ["resolve", str(EXAMPLE), "strike_attack(elf, foe)"],
                                     ["diff", str(EXAMPLE), "--option", "edition=515", "--option", "edition=531"],
                                     ["coverage", str(EXAMPLE)]])
def test_every_command_with_json_takes_format_json(command):
    done = run(*command, "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    assert isinstance(json.loads(done.stdout), dict) and done.stderr == ""
