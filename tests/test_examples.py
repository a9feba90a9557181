"""Every "ПРИМЕР" of the seeds (the catalogue's `examples:`) is reproduced by a
ruling file, and every ruling that names an example names a real one."""

from pathlib import Path

import pytest

from pybridge.game.catalogue import load_game
from pybridge.game.encodings import known_games
from pybridge.input.situation import load_situation
from pybridge.tools.rulings import ruling_files

RULINGS = Path(__file__).parent / "rulings"


@pytest.mark.parametrize("game", known_games())
def test_every_seed_example_has_a_ruling(game):
    catalogue = load_game(game)
    named = {}
    for path in ruling_files([RULINGS / game]):
        ruling = load_situation(path).ruling
        if ruling and ruling.example:
            named.setdefault(ruling.example, []).append(path.name)
    assert set(named) <= set(catalogue.examples), "a ruling names an example the catalogue lacks"
    assert sorted(set(catalogue.examples) - set(named)) == []


def test_the_berserk_seeds_have_fifteen_examples():
    assert len(load_game("berserk").examples) == 15
