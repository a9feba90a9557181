"""708.5 for resolution: resolving a declaration in Magic reveals nothing.
The Bolt of p2 at p1's face-down creature resolves against the face-down
2/2; whichever card the creature really is, p2 is told the very same thing.

The bridge's resolve reads the game's resolution declaration (game.yaml:
resolution); before it did, this swap test failed (the target was revealed as
Berserk's 532.3 reveals it)."""


from pybridge.api import resolve
from pybridge.game.catalogue import load_game
from pybridge.input.situation import situation_from_data
from pybridge.report.render import to_json

from tests.test_mtg_viewpoint import SAMPLE, _swapped

BOLT_AT_FACE_DOWN = {
    "game": "mtg",
    "viewpoint": "p2",
    "players": [{"id": "p1", "first": True}, {"id": "p2", "pool": {"red": 1}}],  # p2 has the {R} that Lightning Bolt costs (601.2h)
    "turn": {"number": 4, "active": "p2", "stage": "precombat_main"},
    "cards": [
        {"id": "secret", "card": "Grizzly Bears", "controller": "p1", "hidden": True, "arrived": 2,
         "properties": {"face_down_by": "cloak"}},
        {"id": "bolt", "card": "Lightning Bolt", "controller": "p2", "zone": "hand"},
    ],
}
ACTION = "cast(bolt, hidden@p1:battlefield#1)"


def _resolved(data: dict) -> str:
    resolution, report = resolve(situation_from_data(data), ACTION)
    return to_json(resolution, indent=None) + to_json(report, indent=None)


def test_the_declaration_is_well_formed():
    declared = load_game("mtg").resolution
    # Magic: nothing is revealed, and the face-down values are what a resolution sees.
    assert (declared.reveal, declared.judged_on) == ("none", "declarer_view")
    assert declared.clauses == ("608.2b", "708.2")


def test_resolution_ignores_identity_of_the_face_down_target():
    reference = _resolved(BOLT_AT_FACE_DOWN)
    assert '"revealed":[]' in reference and '"outcome":"executed"' in reference
    visible = {c["card"] for c in BOLT_AT_FACE_DOWN["cards"] if not c.get("hidden")}
    for name in SAMPLE:
        output = _resolved(_swapped(BOLT_AT_FACE_DOWN, "secret", name))
        assert output == reference, name
        assert name in visible or name not in output, name
