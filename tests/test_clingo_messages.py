"""Grounding the rules on any shipped ruling's situation makes clingo say nothing: no "info" and no
"warning" (issue 33). Such a line means the rules handed the grounder something they did not mean —
an aggregate given a weight that is no number ("tuple ignored: per(1,chip)" on Камнедрев's board:
an amount named per chip reached the sum of the modifiers), an operation on a non-number — and it
reaches whoever reruns a situation with plain clingo (``ccg-judge facts``). The whole program of
each game is grounded, as plain clingo grounds it, with clingo's own logger capturing every message."""

from __future__ import annotations

from pathlib import Path

import clingo
import pytest
from test_consistency import planted

from pybridge import api
from pybridge.game.catalogue import load_game
from pybridge.game.encodings import entry_file, use_asp_root
from pybridge.input.situation import load_situation
from pybridge.tools.rulings import ruling_files

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "tests" / "rulings"
KAMNEDREV = RULINGS / "berserk" / "cards" / "kamnedrev-strike-per-chip.yaml"


def grounding_messages(path: Path) -> list[str]:
    """What clingo says while grounding the whole program of the situation's game on its facts."""
    situation = load_situation(path)
    said: list[str] = []
    control = clingo.Control(logger=lambda code, message: said.append(f"{code.name}: {message.strip()}"))
    control.load(str(entry_file(situation.game, load_game(situation.game).entry)))
    control.add("base", [], "".join(f"{fact}.\n" for fact in api.facts_for(situation)))
    control.ground([("base", [])])
    return said


@pytest.mark.parametrize("game", sorted({p.relative_to(RULINGS).parts[0] for p in ruling_files([RULINGS])}))
def test_grounding_every_shipped_ruling_says_nothing(game):
    files = ruling_files([RULINGS / game])
    assert files
    said = {str(p.relative_to(ROOT)): messages for p in files if (messages := grounding_messages(p))}
    assert said == {}


# The rule the sum of the modifiers was fed by before (a step's amount per chip, as the step term
# has it): it also took the named amount per(N, W), which the grounder cannot rule out.
COUNTED_PER_CHIP = ("card_count(W), step_term(C, F, I, modify(V, M)), M != 0,\n"
                    "    step_param(C, F, I, by, N), N >= -99, N <= 99, per_count(C, F, I, K), M = N * K,\n")
NAMED_TOO = "card_count(W), step_term(C, F, I, modify(V, M)), M != 0,\n"


def test_the_check_can_fail_an_amount_named_per_chip_in_the_sum_is_heard(tmp_path):
    root = planted(tmp_path, "berserk/ability_steps.lp", COUNTED_PER_CHIP, NAMED_TOO)
    with use_asp_root(root):
        said = grounding_messages(KAMNEDREV)
    assert any("tuple ignored" in line and "per(1,chip)" in line for line in said), said
