"""What plain clingo grounds for a board stays proportional to what the board's cards use: a
selector pays for the conditions it names, and only the actions of cards a constant step acts on
are looked at for changes. Each test grounds main.lp with a situation's facts (plain clingo, as
bench/speed.py's floor does) and reads the ground atoms."""

from __future__ import annotations

import sys
from pathlib import Path

import clingo
import pytest

from pybridge import api
from pybridge.game.catalogue import load_game
from pybridge.game.encodings import entry_file
from pybridge.ground.facts import render_facts
from pybridge.input.situation import load_situation, situation_from_data

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from boards import board  # noqa: E402


# Крондак's discharge gets +1 against flyers: a constant step on one card, and actions of others.
UNDER_A_STEP = ROOT / "tests" / "rulings" / "berserk" / "cards" / "krondak-discharge-bonus-against-flyers.yaml"


def _ground_atoms(situation) -> dict[str, list[clingo.Symbol]]:
    facts = render_facts(api.facts_for(situation))
    control = clingo.Control(["--warn=none"])
    control.load(str(entry_file("berserk", load_game("berserk").entry)))
    control.add("base", [], facts)
    control.ground([("base", [])])
    atoms: dict[str, list[clingo.Symbol]] = {}
    for atom in control.symbolic_atoms:
        atoms.setdefault(atom.symbol.name, []).append(atom.symbol)
    return atoms


@pytest.fixture(scope="module", params=[(30, 3, "plain"), (30, 3, "air")], ids=lambda p: "-".join(map(str, p)))
def atoms(request):
    cards, hidden, mix = request.param
    return _ground_atoms(situation_from_data(board(cards, hidden, mix=mix)))


def test_a_selector_is_tested_only_on_the_conditions_it_names(atoms):
    named = {(str(e), str(k)) for e, k in (s.arguments for s in atoms.get("conditioned_on", []))}
    tested = atoms.get("meets", [])
    assert tested, "the board has no selector: the test would prove nothing"
    unnamed = [str(s) for s in tested if (str(s.arguments[0]), str(s.arguments[2])) not in named]
    assert unnamed == []
    # every pair a selection may reach still gets its verdict (picked or not) from the named tests
    assert len(atoms.get("meets_first", [])) >= len(atoms.get("may_reach", []))


def test_only_actions_under_a_constant_step_are_looked_at_for_changes():
    atoms = _ground_atoms(load_situation(UNDER_A_STEP))
    under = {str(s.arguments[0]) for s in atoms.get("aura_on", [])}
    looked_at = atoms.get("aimed_action", [])
    assert looked_at, "no action is under a constant step on this board: the test would prove nothing"
    assert all(str(s.arguments[2]) in under or str(s.arguments[3]) in under for s in looked_at)
    candidates = {str(s.arguments[1]) for s in atoms.get("candidate", [])}
    assert len({str(s.arguments[1]) for s in looked_at}) < len(candidates)
