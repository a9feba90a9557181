"""The trees program records a rule's instances unless its head pins the instance down (its body is
plain atoms over the head's variables); the graph reads such a body off the answer. The reports are
the same either way."""

from __future__ import annotations

from pathlib import Path

import pytest

from pybridge import api, solve, specialise
from pybridge.catalogue import load_game
from pybridge.compiler import compile_game
from pybridge.encodings import entry_file
from pybridge.report import to_json
from pybridge.rulings import ruling_files
from pybridge.situation import load_situation

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ruling_files([ROOT / "tests" / "rulings"])


def _compile(path: Path, **options):
    return compile_game("test", path, mode="trees", clause_kind=lambda clause: "rule",
                        principle_of_banner=lambda clause: None, **options)


def test_only_a_rule_its_head_pins_down_goes_unrecorded(tmp_path):
    rules = {
        "plain(X, Y) :- p(X), q(X, Y), not r(Y).": False,
        "constant(X) :- p(X), q(X, a), not r(\"s\").": False,
        "tuple(X) :- p(X), q(X, (X, 1)).": False,
        "open(X) :- p(X), q(X, Y).": True,  # Y is not the head's
        "anonymous(X) :- p(X), not q(X, _).": True,  # "for no value": not one atom
        "twice(X) :- p(X), not not r(X).": True,
        "compared(X) :- p(X), q(X, Y), X < 3.": True,
        "summed(X, S) :- p(X), S = #sum { Y : q(X, Y) }.": True,
        "arithmetic(X) :- p(X), q(X, X + 1).": True,
        "pooled(X) :- p(X), q(X, (1; 2)).": True,
        "interval(X) :- p(X), q(X, 1..2).": True,
        "top(X) :- p(X), q(X, #sup).": True,
        "external(X) :- p(X), q(X, @f(X)).": True,
        "classical(X) :- p(X), -r(X).": True,
        "conditional(X) :- p(X), q(X, Y) : r(Y).": True,
        "computed_head(X + 1) :- p(X).": True,
    }
    path = tmp_path / "rules.lp"
    path.write_text("\n".join(rules) + "\np(1). q(1, 2). r(3).\n", encoding="utf-8")
    compiled = _compile(path)
    recorded = {r.text.split("(")[0]: r.recorded for r in compiled.rules if ":-" in r.text}
    assert recorded == {text.split("(")[0]: expected for text, expected in rules.items()}
    assert all(r.recorded for r in _compile(path, record_every_rule=True).rules if ":-" in r.text)


@pytest.fixture(scope="module")
def every_rule_recorded():
    made = {}
    for game in ("berserk", "mtg"):
        g = load_game(game)
        made[game] = compile_game(game, entry_file(game, g.entry), mode="trees", clause_kind=g.clause_kind,
                                  principle_of_banner=g.principle_of, witnesses=solve.witnesses(g),
                                  defeaters=frozenset(g.defeaters), record_every_rule=True)
    return made


@pytest.mark.parametrize("game", ["berserk", "mtg"])
def test_the_rules_bases_have_rules_their_heads_pin_down(game, every_rule_recorded):
    """What the comparison below covers: a good share of each game's rules goes unrecorded."""
    landed = sum(r.recorded for r in solve.program(game, "trees").rules)
    assert sum(r.recorded for r in every_rule_recorded[game].rules) - landed > 40


@pytest.mark.parametrize("path", RULINGS[::3], ids=lambda p: str(p.relative_to(ROOT / "tests" / "rulings")))
def test_the_graph_reads_an_unrecorded_rule_as_its_record_would(path, every_rule_recorded, monkeypatch):
    situation = load_situation(path)

    def judge():
        specialise.forget()
        report = api.check(situation, trees=True)
        listed = report.verdicts[0].action if report.verdicts else None
        return to_json(report), to_json(api.explain(situation, listed)) if listed else None

    unrecorded = judge()
    landed = solve.program

    def program(game, mode, absent=frozenset()):
        return every_rule_recorded[game] if mode == "trees" else landed(game, mode, absent)

    monkeypatch.setattr(solve, "program", program)
    assert judge() == unrecorded
