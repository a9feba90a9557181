"""The fight, movement and death rules must not make every board pay: the specialiser leaves their
statements out of a board that cannot use them, and keeps them for one that can. Counted in
statements handed to clingo, not timed."""

from pybridge.api import project
from pybridge.game.catalogue import load_game
from pybridge.ground import solve
from pybridge.ground.facts import situation_facts
from pybridge.input.situation import situation_from_data

PREDICATES = ("fight_outcome", "fight_result", "key_die", "step_target", "dead", "armour_left")


def board(phase: str, stage: str = "main", *, open_target: bool = True, wounds: int = 0) -> dict:
    return {
        "game": "berserk", "viewpoint": "p1", "players": [{"id": "p1", "first": True}, {"id": "p2"}],
        "turn": {"number": 3, "active": "p1", "stage": stage, "phase": phase},
        "cards": [
            {"id": "wolf", "name": "Волк", "controller": "p1", "cell": {"column": 3, "row": 1}, "arrived": 1,
             "markers": {"wound": wounds} if wounds else {},
             "properties": {"type": "creature", "element": "forest", "strike": [1, 2, 3], "health": 5,
                            "movement": 2}},
            {"id": "foe", "name": "Страж", "controller": "p2", "cell": {"column": 3, "row": 1}, "arrived": 2,
             "open": open_target,
             "properties": {"type": "creature", "element": "mountains", "strike": [1, 1, 1], "health": 5}},
        ],
    }


def kept_heads(data: dict) -> set[str]:
    situation = situation_from_data(data)
    facts = solve.Facts(situation_facts(project(situation), load_game("berserk")))
    compiled = solve.program("berserk", "check")
    texts = [str(s) for s in solve._statements(compiled, facts, near=False)]
    return {p for p in PREDICATES if any(t.startswith(p + "(") for t in texts)}


def test_a_board_in_the_start_stage_grounds_no_fight_and_no_movement():
    # Only the death rule stays: a creature whose lives are 0 is dead, which no shape of the facts
    # rules out (one atom per creature at most).
    assert kept_heads(board(None, stage="start")) == {"dead"}


def test_a_board_with_a_strike_attack_to_declare_keeps_the_fight_and_the_steps():
    kept = kept_heads(board("choice"))
    assert {"fight_outcome", "fight_result", "key_die", "step_target"} <= kept
    assert "armour_left" not in kept


def test_armour_is_kept_only_for_an_armoured_card():
    data = board("choice")
    data["cards"][1]["features"] = [{"armour": {"amount": 1}}]
    assert "armour_left" in kept_heads(data)
