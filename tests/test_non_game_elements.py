"""109: non-game elements (legend, idea author, illustration, set symbol,
collector number, illustrator, publisher, release year, rarity) never change
a ruling. Two situations that differ only in them must give the same facts
and the same report, to the byte."""

from pathlib import Path

import pytest
import yaml

from pybridge.api import check, facts_for
from pybridge.input.situation import situation_from_data
from pybridge.report.render import to_json

RULINGS = Path(__file__).parent / "rulings" / "berserk"

# Rulings whose verdicts depend on many card attributes: defence and fights,
# property replacement, declared values.
SITUATIONS = [
    RULINGS / "107" / "107.3-permits.yaml",
    RULINGS / "108" / "108.1-creature-becomes-equipment.yaml",
    RULINGS / "512" / "512.4.1-example-1.yaml",
]

NON_GAME = [
    {"legend": "Он пришёл из болот, и болота ушли вместе с ним.", "idea_author": "A. N. Other"},
    {"illustration": "swamp-at-dusk.png", "set_symbol": "Война стихий", "collector_number": 117},
    {"illustrator": "I. Painter", "publisher": "ООО «Мир Хобби»", "release_year": 2005},
    {"rarity": "ultra-rare", "rarity_background": "gold", "collector_number": "117/210"},
]


def _situation(data: dict, source: Path):
    return situation_from_data(data, source=str(source))


def _with_non_game(data: dict, variant: int) -> dict:
    changed = yaml.safe_load(yaml.safe_dump(data, allow_unicode=True))
    for i, card in enumerate(changed["cards"]):
        card["non_game"] = NON_GAME[(variant + i) % len(NON_GAME)]
    return changed


@pytest.mark.parametrize("path", SITUATIONS, ids=[p.stem for p in SITUATIONS])
@pytest.mark.parametrize("variant", range(len(NON_GAME)))
def test_non_game_elements_change_nothing(path, variant):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    plain = _situation(data, path)
    decorated = _situation(_with_non_game(data, variant), path)
    assert any(card.non_game for card in decorated.cards)

    assert [str(f) for f in facts_for(decorated)] == [str(f) for f in facts_for(plain)]
    assert to_json(check(decorated)) == to_json(check(plain))


def test_the_comparison_can_fail():
    """A game attribute changed the same way does change the report."""
    path = SITUATIONS[0]
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    changed = yaml.safe_load(yaml.safe_dump(data, allow_unicode=True))
    changed["cards"][2]["open"] = False
    assert to_json(check(_situation(changed, path))) != to_json(check(_situation(data, path)))
