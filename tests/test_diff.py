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
    run = diff(str(tmp_path), *EDITIONS, "--format", "json")
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


WOUNDS_ONLY = RULINGS / "berserk" / "514" / "515.1-1-wounds-only.yaml"


def test_a_changed_consequence_is_reported_though_the_verdict_stays():
    """Editions 515 and 531 agree that the shot is legal; what protection does to it differs
    (515.1-1: no wounds, the accompanying marker stays; 531.1-1: no effects at all)."""
    run = diff(str(WOUNDS_ONLY), *EDITIONS, "--format", "json")
    assert run.returncode == 1, run.stderr
    data = json.loads(run.stdout)
    (change,) = data["changes"]
    assert change["action"] == "shot(elf, foe)" and change["differ"] == ["consequences"]
    assert "no_wounds(foe)" in change["sides"]["edition=515"]["consequences"]
    assert "no_effect(foe, shot)" in change["sides"]["edition=531"]["consequences"]
    assert "no_wounds(foe)" not in change["sides"]["edition=531"]["consequences"]
    text = diff(str(WOUNDS_ONLY), *EDITIONS).stdout
    assert "consequences only under edition=515: gets_marker(foe, poison), no_wounds(foe)" in text
    assert "no_effect(foe, shot)" in text and "(consequences 1)" in text


def test_two_rules_bases_are_compared(tmp_path):
    """A rules author's edit (the Rush exception dropped from a copy of asp/) against the rules."""
    edited = tmp_path / "asp"
    shutil.copytree(ROOT / "asp", edited)
    chapter = edited / "berserk" / "107_strike_and_first_turn.lp"
    text = chapter.read_text(encoding="utf-8")
    rush = 'exempt(P, A, "107.5-1", "107.5-2") :-\n'
    assert rush in text
    chapter.write_text(text.replace(rush, 'exempt(P, A, "107.5-1", "107.5-2") :- #false,\n'), encoding="utf-8")
    example = RULINGS / "berserk" / "107" / "107.5-example-2.yaml"
    run = diff(str(example), "--rules", str(ROOT / "asp"), "--rules", str(edited), "--format", "json")
    assert run.returncode == 1, run.stdout + run.stderr
    data = json.loads(run.stdout)
    before, after = data["settings"]
    changed = {c["action"]: c for c in data["changes"]}
    assert changed["strike_attack(elf, foe)"][before]["verdict"] == "legal"
    assert changed["strike_attack(elf, foe)"][after]["verdict"] == "illegal"
    same = diff(str(example), "--rules", str(ROOT / "asp"), "--rules", str(ROOT / "asp"))
    assert same.returncode == 0 and same.stdout.startswith("0 of ")


def test_a_fixed_option_holds_on_both_sides():
    """--fix sets an option on both sides: comparing the precedence readings under edition 515 held
    fixed flips the verdict; a fixed value the game lacks skips the situation."""
    ruling = RULINGS / "berserk" / "513" / "forbid-wins-option.yaml"
    readings = ["--option", "effect_precedence=conservativeness", "--option", "effect_precedence=forbid_wins"]
    data = json.loads(diff(str(ruling), *readings, "--fix", "edition=515", "--format", "json").stdout)
    (change,) = data["changes"]
    assert change["effect_precedence=forbid_wins"]["verdict"] == "illegal"
    assert change["effect_precedence=conservativeness"]["verdict"] == "legal"
    skipped = json.loads(diff(str(ruling), *EDITIONS, "--fix", "effect_precedence=nonsense", "--format", "json").stdout)
    assert skipped["situations"] == 0 and skipped["skipped"] == [str(ruling)]


def test_diff_needs_two_settings_of_one_kind():
    run = diff(str(UNCHANGED), "--option", "edition=515", "--rules", "asp")
    assert run.returncode == 2 and "give --option twice, or --rules twice" in run.stderr
