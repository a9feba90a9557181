"""`ccg-judge diff` over files and folders: the verdicts that change between two
settings, both citations, a summary, and the exit status."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "tests" / "rulings"
PROTECTED = RULINGS / "berserk" / "531" / "531.1-1-spell-protection.yaml"
UNCHANGED = RULINGS / "berserk" / "107" / "107.5-example-1.yaml"
EDITIONS = ["--option", "edition=515", "--option", "edition=531"]


def diff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pybridge", "diff", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_a_folder_lists_the_changed_verdicts_side_by_side(tmp_path):
    for path in (PROTECTED, UNCHANGED, RULINGS / "mtg" / "seed-003" / "cc-16-coat-gone.yaml"):
        shutil.copy(path, tmp_path / path.name)
    run = diff(str(tmp_path), *EDITIONS, "--json")
    assert run.returncode == 1, run.stderr
    data = json.loads(run.stdout)
    assert (data["situations"], data["situations_changed"], len(data["skipped"])) == (2, 1, 1)
    (change,) = [c for c in data["changes"] if c["action"] == "cast(bolt, foe)"]
    assert change["edition=515"]["verdict"] == "illegal" and "515.1-2" in change["edition=515"]["cites"]
    assert change["edition=531"]["verdict"] == "legal"
    assert data["changed"] == len(data["changes"])

    text = diff(str(tmp_path), *EDITIONS).stdout
    line = next(line for line in text.splitlines() if "cast(bolt, foe)" in line)
    assert "illegal (515.1-2" in line and "legal (model:cast-spell)" in line  # one row, both sides
    assert text.rstrip().endswith("in 1 of 2 situation(s); 1 skipped (their game has no such setting).")


def test_a_file_whose_verdicts_stay_exits_0():
    run = diff(str(UNCHANGED), *EDITIONS)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("0 of ")


def test_a_file_that_is_not_a_situation_is_reported_and_exits_2(tmp_path):
    shutil.copy(UNCHANGED, tmp_path / "good.yaml")
    (tmp_path / "bad.yaml").write_text("game: berserk\nviewpoint: p1\n", encoding="utf-8")
    run = diff(str(tmp_path), *EDITIONS)
    assert run.returncode == 2
    assert "error: " in run.stdout and "bad.yaml" in run.stdout and "turn" in run.stdout
