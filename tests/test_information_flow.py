"""Information flow: what a player is told never depends on, nor names, the
opponent's hidden cards.

For generated Berserk situations with hidden cards of the opponent, the
hidden cards' identities are swapped (catalogue card, name, properties,
features, markers, chips, protections; ids kept or changed) and the
viewer's ``check --json`` output must stay byte-identical; and no id or
name of an opponent's hidden card may appear in it.
"""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pybridge.api import check
from pybridge.input.situation import situation_from_data
from pybridge.report.render import to_json

VIEWER, OPPONENT = "p1", "p2"
# Cards the viewer may see; hidden identities come from other names, so a
# name found in the output can only have leaked from a hidden card.
VISIBLE = ["Вайл", "Ассасин", "Посвященный Дзара", "Демон зависти"]
HIDDEN_CATALOGUE = ["Мерцающий змей", "Резчик идолов", "Бегущая по кронам", "Ледяной змей"]
CELLS = [(c, r) for c in range(1, 6) for r in range(1, 4)]
TURNS = [
    {"number": 3, "active": VIEWER, "stage": "main", "phase": "choice"},
    {"number": 4, "active": OPPONENT, "stage": "main", "phase": "choice"},
    {"number": 1, "active": VIEWER, "stage": "start", "phase": "reveal"},
    {"number": 2, "active": OPPONENT, "stage": "start"},
]

secret_ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=4, max_size=10).map(
    lambda s: f"secret-{s}")


@st.composite
def identities(draw) -> dict:
    """Everything about a hidden card that its opponent must not learn."""
    identity: dict = {"id": draw(secret_ids)}
    if draw(st.booleans()):
        identity["card"] = draw(st.sampled_from(HIDDEN_CATALOGUE))
    else:
        identity["name"] = draw(st.sampled_from(["Secret sentinel", "Secret seer", "Secret sniper"]))
        identity["properties"] = {"type": "creature",
                                  "element": draw(st.sampled_from(["dark", "forest", "swamp"])),
                                  "health": draw(st.integers(1, 12))}
    features = draw(st.lists(st.sampled_from([
        {"shot": {"damage": 1, "range": 2, "cost": "tap"}},
        {"discharge": {"damage": 2, "range": 1, "cost": "tap"}},
        {"forced_target_ranged": {"kinds": ["shot", "throw"]}},
        {"finishing_blow": {"value": 3, "cost": "tap"}},
        {"row_grant": {"trigger": "turn_start", "row": 3, "grants": "directed_strike"}},
        {"on_strike_grant": {"requires_any": ["discharge"], "amount": 1}},
    ]), max_size=2))
    if features:
        identity["features"] = features
    markers = draw(st.dictionaries(st.sampled_from(["poison", "wound"]), st.integers(1, 3), max_size=2))
    if markers:
        identity["markers"] = markers
    chips = draw(st.dictionaries(st.sampled_from(["gold"]), st.integers(1, 2), max_size=1))
    if chips:
        identity["chips"] = chips
    protections = draw(st.lists(st.sampled_from(["shot", "magic", "poison", "discharge"]), max_size=2, unique=True))
    if protections:
        identity["protections"] = protections
    return identity


@st.composite
def boards(draw) -> tuple[dict, list[dict], list[dict]]:
    """A situation without the hidden cards' identities, and two identity sets for them."""
    mine = draw(st.lists(st.sampled_from(CELLS), min_size=1, max_size=2, unique=True))
    theirs = draw(st.lists(st.sampled_from(CELLS), min_size=1, max_size=4, unique=True))
    hidden_count = draw(st.integers(1, len(theirs)))
    cards = []
    for i, (column, row) in enumerate(mine):
        card = {"id": f"mine{i}", "card": draw(st.sampled_from(VISIBLE)), "controller": VIEWER,
                "cell": {"column": column, "row": row}, "open": draw(st.booleans())}
        if draw(st.booleans()):
            card["features"] = [{"shot": {"damage": 1, "range": draw(st.integers(1, 5)), "cost": "tap"}},
                                {"range_bonus_against": {"ability": "shot", "amount": 3, "element": "dark"}}]
        cards.append(card)
    slots = []
    for i, (column, row) in enumerate(theirs):
        public = {"controller": OPPONENT, "cell": {"column": column, "row": row}, "open": draw(st.booleans())}
        if i < hidden_count:
            slots.append({**public, "hidden": True})
        else:
            cards.append({**public, "id": f"theirs{i}", "card": draw(st.sampled_from(VISIBLE))})
    situation = {
        "game": "berserk", "viewpoint": VIEWER, "edition": draw(st.sampled_from(["515", "531"])),
        "options": {"fast_actions_available": draw(st.sampled_from(["yes", "no"]))},
        "players": [{"id": VIEWER, "first": True}, {"id": OPPONENT}],
        "turn": draw(st.sampled_from(TURNS)), "cards": cards,
    }
    # Ids get the slot number, so two hidden cards never share one.
    first = [{**draw(identities()), "slot": i} for i in range(len(slots))]
    second = [{**draw(identities()), "slot": i} for i in range(len(slots))]
    for identity in first + second:
        identity["id"] = f"{identity['id']}-{identity.pop('slot')}"
    if draw(st.booleans()):  # ids kept, everything else changed
        second = [{**b, "id": a["id"]} for a, b in zip(first, second)]
    return situation, [{**s, **a} for s, a in zip(slots, first)], [{**s, **b} for s, b in zip(slots, second)]


def _with(situation: dict, hidden: list[dict]) -> dict:
    data = json.loads(json.dumps(situation))
    data["cards"] = data["cards"] + hidden
    # An effect created by a hidden card's own text is part of its identity too.
    data["effects"] = [{"id": f"aura-{h['id']}", "target": "mine0", "kind": "modify", "what": "health",
                        "value": -1, "timestamp": 1, "source": h["id"]} for h in hidden if "features" in h]
    return data


def _names(hidden: list[dict]) -> set[str]:
    return {h[k] for h in hidden for k in ("id", "card", "name") if k in h}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=boards())
def test_viewer_output_does_not_depend_on_hidden_identities(board, fuzz_cases):
    situation, first, second = board
    out_first = to_json(check(situation_from_data(_with(situation, first))))
    out_second = to_json(check(situation_from_data(_with(situation, second))))
    fuzz_cases["information_flow"] += 1
    assert out_first == out_second
    for secret in _names(first) | _names(second):
        assert secret not in out_first


def test_hidden_card_identity_matters_to_its_controller():
    """The property above is not vacuous: the controller's own report changes with the identity (in
    the controller's turn, when Дзара's discharge may be declared: model:activated-timing)."""
    base = {"game": "berserk", "viewpoint": OPPONENT, "players": [{"id": VIEWER, "first": True}, {"id": OPPONENT}],
            "turn": {"number": 4, "active": OPPONENT, "stage": "main", "phase": "choice"},
            "cards": [{"id": "mine0", "card": "Вайл", "controller": VIEWER, "cell": {"column": 3, "row": 1}}]}
    serpent = {"id": "secret-a", "card": "Ледяной змей", "controller": OPPONENT,
               "cell": {"column": 3, "row": 1}, "hidden": True}
    dzara = {**serpent, "card": "Посвященный Дзара"}
    own_first = to_json(check(situation_from_data(_with(base, [serpent]))))
    own_second = to_json(check(situation_from_data(_with(base, [dzara]))))
    assert own_first != own_second
    seen_by_viewer = [to_json(check(situation_from_data({**_with(base, [h]), "viewpoint": VIEWER})))
                      for h in (serpent, dzara)]
    assert seen_by_viewer[0] == seen_by_viewer[1]


def test_cli_check_json_is_byte_identical(tmp_path):
    """The same property through the command line, on one fixed pair."""
    base = {"game": "berserk", "viewpoint": VIEWER, "players": [{"id": VIEWER, "first": True}, {"id": OPPONENT}],
            "turn": {"number": 3, "active": VIEWER, "stage": "main", "phase": "choice"},
            "cards": [{"id": "mine0", "card": "Ассасин", "controller": VIEWER, "cell": {"column": 3, "row": 1}}]}
    outputs = []
    for identity in ({"id": "secret-x", "card": "Мерцающий змей", "markers": {"wound": 2}},
                     {"id": "secret-y", "name": "Secret seer", "properties": {"type": "creature", "health": 3},
                      "protections": ["magic"]}):
        hidden = {**identity, "controller": OPPONENT, "cell": {"column": 2, "row": 1}, "hidden": True}
        path = tmp_path / f"{identity['id']}.json"
        path.write_text(json.dumps(_with(base, [hidden]), ensure_ascii=False), encoding="utf-8")
        run = subprocess.run([sys.executable, "-m", "pybridge", "check", str(path), "--format", "json"],
                             capture_output=True, check=True)
        outputs.append(run.stdout)
        assert b"secret-" not in run.stdout
    assert outputs[0] == outputs[1]
