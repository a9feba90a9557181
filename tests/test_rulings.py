"""The generic ruling runner: every file under tests/rulings is one test."""

from pathlib import Path

import pytest

from pybridge.api import check
from pybridge.input.situation import load_situation
from pybridge.input.structs import replace
from pybridge.tools.rulings import judge_ruling, ruling_files
from judged import judged

RULINGS = Path(__file__).parent / "rulings"
FILES = ruling_files([RULINGS])


def test_there_are_rulings_for_every_game_with_rules():
    games = {p.relative_to(RULINGS).parts[0] for p in FILES}
    assert "berserk" in games


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(RULINGS)) for p in FILES])
def test_ruling(path):
    situation = load_situation(path)
    assert situation.ruling is not None, "no 'ruling' section: not a ruling file"
    assert judge_ruling(situation, judged(path)) == []


def test_runner_reports_a_wrong_expectation():
    """The runner must be able to fail: flip one expected verdict and one citation."""
    situation = load_situation(RULINGS / "berserk" / "107" / "107.5-example-1.yaml")
    report = check(situation)
    expect = situation.ruling.expect
    flipped = replace(expect, legal=expect.illegal, illegal={})
    wrong = replace(situation, ruling=replace(situation.ruling, expect=flipped))
    problems = judge_ruling(wrong, report)
    assert "strike_attack(elf, foe): expected legal, got illegal" in problems
    assert "shot(elf, foe): illegal, but the ruling does not list it" in problems

    miscited = replace(expect, illegal={**expect.illegal, "shot(elf, foe)": ["107.2"]})
    wrong = replace(situation, ruling=replace(situation.ruling, expect=miscited))
    assert judge_ruling(wrong, report) == [
        "shot(elf, foe): expected citations ['107.2'], got ['107.5-1', 'feature:shot', 'model:activated-timing', "
        "'model:creature-acts', 'model:shot-at-neighbour']"
    ]


def test_runner_checks_what_is_not_possible():
    """An action expected not possible must be one check does not list, explained as not possible with
    exactly the expected definitions."""
    situation = load_situation(RULINGS / "berserk" / "107" / "107.2-own-target.yaml")
    report = check(situation)
    expect = situation.ruling.expect
    assert judge_ruling(situation, report) == []
    wrong = replace(expect, impossible={"strike_attack(vail, friend)": ["107.3"]})
    bad = replace(situation, ruling=replace(situation.ruling, expect=wrong))
    assert judge_ruling(bad, report) == [
        "strike_attack(vail, friend): expected not possible citing ['107.3'], got impossible citing ['107.2']"]
    listed = replace(expect, impossible={"strike_attack(vail, hero)": ["107.2"]})
    bad = replace(situation, ruling=replace(situation.ruling, expect=listed))
    assert judge_ruling(bad, report) == [
        "strike_attack(vail, hero): expected not possible, but check lists it (legal)"]


def test_an_invariance_needs_something_to_drop():
    """A ruling cannot claim 109 with a situation that has no non-game elements."""
    situation = load_situation(RULINGS / "berserk" / "109" / "non-game-elements.yaml")
    bare = replace(situation, cards=[replace(c, non_game={}) for c in situation.cards])
    problems = judge_ruling(bare, check(bare))
    assert problems == ["invariant non_game: the situation has no non-game elements to drop"]


def test_runner_checks_a_because_line():
    """A ruling may pin words of a verdict's because-line: other words, or a verdict with no such line
    (a legal one), fail it."""
    situation = load_situation(RULINGS / "berserk" / "cards" / "lekken-closed-may-not-defend-again.yaml")
    report = check(situation)
    expect = situation.ruling.expect
    assert judge_ruling(situation, report) == []
    wrong = replace(expect, because={"defend(lekken, raider)": "defend by lekken"})
    bad = replace(situation, ruling=replace(situation.ruling, expect=wrong))
    assert judge_ruling(bad, report) == [
        "defend(lekken, raider): expected a because-line saying 'defend by lekken', got 'lekken is closed'"]
    legal = replace(expect, because={"reflect(ally, raider)": "closed"})
    bad = replace(situation, ruling=replace(situation.ruling, expect=legal))
    assert judge_ruling(bad, report) == ["reflect(ally, raider): expected a because-line saying 'closed', got None"]
