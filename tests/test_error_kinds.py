"""An error keeps its kind when a caller says where it happened (issue 29): the API names the
situation's file on a solver's error, the command line names standard input, and the consistency
search sends its error from a child process — each must give back the same class with the same
attributes, so ``except AnswerCount`` still catches it and ``answers`` still says how many."""

from __future__ import annotations

import inspect
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from test_consistency import planted

from pybridge import api, errors
from pybridge.errors import AnswerCount, JudgeError, TimeLimitError
from pybridge.game.encodings import ROOT_VARIABLE, use_asp_root

ROOT = Path(__file__).resolve().parent.parent

# One of every kind, with a field and attributes of its own where the kind has them.
EVERY_KIND = [
    JudgeError("expected a whole number", field="cards[0].arrived"),
    TimeLimitError("the solver did not finish within the time limit"),
    AnswerCount("the rules have no answer for this situation (it contradicts them)", answers=0),
    AnswerCount("the rules give more than one answer for this situation", answers=2),
]

# Two allies side by side on a board where a planted constraint forbids exactly that: no answer.
ADJACENT = "adjacent(C1, C2) :- distance(C1, C2, 1).\n"
NO_ANSWER = ADJACENT + ":- adjacent(C1, C2), controller(C1, P), controller(C2, P).\n"
ALLIES_SIDE_BY_SIDE = """\
game: berserk
viewpoint: p1
players: [{id: p1, first: true}, {id: p2}]
turn: {number: 3, active: p1, stage: main, phase: choice}
cards:
  - {id: vail, card: Вайл, controller: p1, cell: {column: 2, row: 1}, arrived: 1}
  - {id: other, card: Вайл, controller: p1, cell: {column: 3, row: 1}, arrived: 1}
"""
NO_ANSWER_MESSAGE = "the rules have no answer for this situation (it contradicts them)"


def test_every_kind_of_error_is_covered_here():
    kinds = {kind for _, kind in inspect.getmembers(errors, inspect.isclass) if issubclass(kind, JudgeError)}
    assert kinds == {type(e) for e in EVERY_KIND}, "a new kind of error: add one to EVERY_KIND"


@pytest.mark.parametrize("error", EVERY_KIND, ids=lambda e: f"{type(e).__name__}-{e.message[:12]}")
def test_a_located_error_is_the_same_kind_with_the_same_attributes(error):
    located = error.located(source="board.yaml", line=4, column=7)
    assert type(located) is type(error)
    assert located.message == error.message and located.field == error.field
    assert getattr(located, "answers", None) == getattr(error, "answers", None)
    assert (located.source, located.line, located.column) == ("board.yaml", 4, 7)
    assert str(located) == located.render() and str(located).startswith("board.yaml:4:7: ")
    assert error.source is None, "the original is left as it was"


@pytest.mark.parametrize("error", EVERY_KIND, ids=lambda e: f"{type(e).__name__}-{e.message[:12]}")
def test_an_error_crosses_a_process_boundary_as_itself(error):
    again = pickle.loads(pickle.dumps(error.located(source="board.yaml")))
    assert type(again) is type(error) and again.__dict__ == error.located(source="board.yaml").__dict__
    assert str(again) == "board.yaml: " + (f"field {error.field}: " if error.field else "") + error.message


@pytest.fixture(scope="module")
def no_answer_rules(tmp_path_factory) -> Path:
    return planted(tmp_path_factory.mktemp("rules"), "berserk/board.lp", ADJACENT, NO_ANSWER)


def test_the_api_names_the_file_and_keeps_the_count_of_answers(no_answer_rules, tmp_path):
    path = tmp_path / "allies.yaml"
    path.write_text(ALLIES_SIDE_BY_SIDE, encoding="utf-8")
    with use_asp_root(no_answer_rules):
        with pytest.raises(AnswerCount) as caught:
            api.check(path)
        with pytest.raises(AnswerCount) as explained:
            api.explain(path, "strike_attack(vail, other)")
    for error in (caught.value, explained.value):
        assert error.answers == 0 and error.source == str(path)
        assert str(error) == f"{path}: {NO_ANSWER_MESSAGE}"


@pytest.mark.parametrize("from_stdin", [False, True], ids=["file", "stdin"])
def test_the_command_line_says_it_in_one_line_with_exit_status_2(no_answer_rules, tmp_path, from_stdin):
    path = tmp_path / "allies.yaml"
    path.write_text(ALLIES_SIDE_BY_SIDE, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pybridge", "check", "-" if from_stdin else str(path)],
                         input=ALLIES_SIDE_BY_SIDE if from_stdin else None, capture_output=True, text=True,
                         cwd=ROOT, timeout=300, env={**os.environ, ROOT_VARIABLE: str(no_answer_rules)})
    where = "<stdin>" if from_stdin else str(path)
    assert run.returncode == 2 and run.stderr == f"error: {where}: {NO_ANSWER_MESSAGE}\n", run.stderr
