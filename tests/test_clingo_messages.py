"""Grounding the rules on any shipped ruling's situation makes clingo say nothing: no "info" and no
"warning" (issue 33). Such a line means the rules handed the grounder something they did not mean —
an aggregate given a weight that is no number ("tuple ignored: per(1,chip)" on Камнедрев's board:
an amount named per chip reached the sum of the modifiers), an operation on a non-number — and it
reaches whoever reruns a situation with plain clingo (``ccg-judge facts``). The whole program of
each game is grounded, as plain clingo grounds it, with clingo's own logger capturing every message.

The whole program is parsed once per game and process (what clingo says while parsing is checked
once, by its own test), and each situation's Control is handed the parsed statements, as the
product does on its later runs: parsing was a third of each ruling's cost. The rulings are judged
in chunks, so that the test runner spreads them over its workers."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import clingo
import pytest
from clingo import ast
from test_consistency import planted

from pybridge import api
from pybridge.game.catalogue import load_game
from pybridge.game.encodings import entry_file, use_asp_root
from pybridge.input.situation import load_situation
from pybridge.tools.rulings import ruling_files

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "tests" / "rulings"
KAMNEDREV = RULINGS / "berserk" / "cards" / "kamnedrev-strike-per-chip.yaml"
GAMES = sorted({p.relative_to(RULINGS).parts[0] for p in ruling_files([RULINGS])})
CHUNK = 40  # rulings a test grounds: about 40 s of a loaded machine


class Heard(list):
    """clingo's messages, a line each, as its logger hands them."""

    def __call__(self, code: clingo.MessageCode, message: str) -> None:
        self.append(f"{code.name}: {message.strip()}")


@lru_cache(maxsize=None)
def whole_program(entry: Path) -> tuple[tuple[ast.AST, ...], tuple[str, ...]]:
    """The statements of the program at ``entry`` (its includes resolved, as clingo's load resolves
    them) and what clingo said while parsing them. Keyed by the entry's path: a planted copy of the
    rules base lives at a path of its own."""
    statements: list[ast.AST] = []
    said = Heard()
    ast.parse_files([str(entry)], statements.append, logger=said)
    return tuple(statements), tuple(said)


def grounding_messages(path: Path) -> list[str]:
    """What clingo says while grounding the whole program of the situation's game on its facts."""
    situation = load_situation(path)
    statements, _ = whole_program(entry_file(situation.game, load_game(situation.game).entry))
    said = Heard()
    control = clingo.Control(logger=said)
    with ast.ProgramBuilder(control) as builder:
        for statement in statements:
            builder.add(statement)
    control.add("base", [], "".join(f"{fact}.\n" for fact in api.facts_for(situation)))
    control.ground([("base", [])])
    return said


def chunks() -> list[tuple[str, list[Path]]]:
    found = []
    for game in GAMES:
        files = ruling_files([RULINGS / game])
        found += [(f"{game}-{start // CHUNK + 1}", files[start:start + CHUNK]) for start in range(0, len(files), CHUNK)]
    return found


def test_every_game_has_rulings_to_ground():
    assert GAMES and all(ruling_files([RULINGS / game]) for game in GAMES)
    assert sum(len(files) for _, files in chunks()) == len(ruling_files([RULINGS]))


@pytest.mark.parametrize("game", GAMES)
def test_parsing_the_whole_program_says_nothing(game):
    _, said = whole_program(entry_file(game, load_game(game).entry))
    assert said == ()


@pytest.mark.parametrize("files", [files for _, files in chunks()], ids=[name for name, _ in chunks()])
def test_grounding_every_shipped_ruling_says_nothing(files):
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
