"""The consistency search, on the shipped rules and on copies with a planted
contradiction: it must find the plant, write a counterexample that `check`
reruns, and name the clauses that clash."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pybridge import api
from pybridge.errors import JudgeError
from pybridge.game.encodings import ROOT_VARIABLE, asp_root, use_asp_root
from pybridge.input.situation import load_situation
from pybridge.input.structs import replace
from pybridge.tools.consistency import Bounds, search

ROOT = Path(__file__).resolve().parent.parent
# Two cards, two effects, one hidden card, one history event: every planted contradiction below has a
# counterexample of one card and at most two effects, so these bounds hold it with room to spare (a second
# card, a hidden one, an event are there to be left out), and the search proves it the smallest. The
# generator's own bounds (three cards, three columns, two events) find the same counterexamples, in
# several times the grounding and solving.
SMALL = Bounds(cards=2, effects=2, hidden=1, events=1)
# What the planted contradictions break; on the shipped rules these hold.
PLANTED = ["core:clash-silent", "core:value-below-zero", "core:value-defined"]


def planted(tmp_path: Path, file: str, old: str, new: str = "") -> Path:
    """A copy of the rules base with one passage of one file replaced."""
    root = tmp_path / "asp"
    shutil.copytree(asp_root(), root)
    return planted_again(root, file, old, new)


def planted_again(root: Path, file: str, old: str, new: str = "") -> Path:
    """One more passage replaced in a planted copy."""
    path = root / file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"the passage to plant over is not in {file} exactly once"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return root


FORBID_WINS_AT_EQUAL_TIMESTAMPS = """ignored(Ep, Ef, forbid_wins) :-
    deontic_clash(Ep, Ef), option(effect_precedence, conservativeness),
    effect(Ep, _, _, T), effect(Ef, _, _, T).
"""
ZERO_CLAMP = "value(C, K, I, 0) :- below_zero(C, K, I, _).\n"
CLAMPED_VALUE = "value(C, K, I, B + S) :- base_value(C, K, I, B), modifier_total(C, K, I, S), B + S >= 0.\n"


def test_the_shipped_rules_keep_what_the_plants_break(tmp_path):
    result = search("berserk", SMALL, only=PLANTED, out_dir=tmp_path)
    assert [(f.invariant.id, f.status) for f in result.findings] == [(i, "held") for i in PLANTED]
    assert result.complete and not list(tmp_path.iterdir())


def test_forbid_wins_removed_gives_a_counterexample_and_the_clause(tmp_path):
    root = planted(tmp_path, "core/effects.lp", FORBID_WINS_AT_EQUAL_TIMESTAMPS)
    with use_asp_root(root):
        result = search("berserk", SMALL, only=["core:clash-silent"], out_dir=tmp_path / "out",
                        time_limit=600)
        (finding,) = result.violated
        assert (finding.cards, finding.effects, finding.minimal) == (1, 2, True)
        assert "core:in-force" in finding.clauses
        situation = load_situation(finding.counterexample)  # a valid situation file
        kinds = sorted(e.kind for e in situation.effects)
        assert kinds[0] == "forbid" and kinds[1] in ("oblige", "permit")
        assert len({e.timestamp for e in situation.effects}) == 1
        assert len({e.target for e in situation.effects}) == 1
        planted_report = api.check(situation)
    # The shipped rules decide the same situation: the prohibition wins (forbid-wins).
    shipped = api.check(load_situation(finding.counterexample))
    assert planted_report.overridden_effects == []
    assert [o.principle for o in shipped.overridden_effects] == ["forbid_wins"]


def test_zero_clamp_removed_leaves_a_value_undefined(tmp_path):
    root = planted(tmp_path, "core/effects.lp", ZERO_CLAMP)
    with use_asp_root(root):
        result = search("berserk", SMALL, only=["core:value-defined"], out_dir=tmp_path / "out", time_limit=600)
        (finding,) = result.violated
        assert (finding.cards, finding.effects) == (1, 1)
        situation = load_situation(finding.counterexample)
        assert [e.kind for e in situation.effects] == ["modify"]
        assert finding.witness.endswith(", 0)")  # no value at all: the count of values is 0
        assert finding.clauses == ["core:in-force"]


def test_an_unclamped_value_goes_below_zero(tmp_path):
    unclamped = "value(C, K, I, B + S) :- base_value(C, K, I, B), modifier_total(C, K, I, S).\n"
    root = planted(tmp_path, "core/effects.lp", CLAMPED_VALUE, unclamped)
    root = planted_again(root, "core/effects.lp", ZERO_CLAMP)
    with use_asp_root(root):
        result = search("berserk", SMALL, only=["core:value-below-zero"], out_dir=tmp_path / "out",
                        time_limit=600)
    (finding,) = result.violated
    assert set(finding.clauses) == {"core:in-force", "core:values"}  # the planted rule sits under core:values
    assert finding.situation["effects"][0]["value"] < 0


def test_the_known_gap_of_the_seeds_is_found(tmp_path):
    """Conservativeness decides only between effects applied one after the other: two
    contradicting constant effects applied at once are left undecided, and the rules say so."""
    result = search("berserk", SMALL, only=["core:clash-unresolved"], out_dir=tmp_path)
    (finding,) = result.violated
    assert finding.clauses == ["core:conservativeness", "core:effect-clash"]
    report = api.check(load_situation(finding.counterexample))
    assert len(report.unresolved) == 1


def test_a_leaking_projection_is_caught(tmp_path, monkeypatch):
    """The hidden-card pair check can fail: a projection that keeps a hidden card's real id."""
    from pybridge.input import viewpoint

    def leaky(situation, player=None):
        projected = viewpoint.project(situation, player)
        real = {neutral: card for card, neutral in
                viewpoint.unknown_card_ids(situation, player or situation.viewpoint).items()}
        cards = [replace(c, id=real.get(c.id, c.id)) for c in projected.cards]
        effects = [replace(e, target=real.get(e.target, e.target)) for e in projected.effects]
        return replace(projected, cards=cards, effects=effects)

    monkeypatch.setattr(api, "project", leaky)
    # Grounding the generator with the composed cards takes ~40 s of a loaded machine: the limit is
    # generous so that a slow run is not read as "nothing found".
    result = search("berserk", SMALL, only=["core:hidden-card-dependence"], out_dir=tmp_path, samples=3,
                    time_limit=600)
    (finding,) = result.violated
    assert finding.counterexample.is_file() and finding.counterexample.with_suffix(".original.yaml").is_file()
    assert any("names" in line for line in finding.detail)


def test_the_command_writes_json_and_exits_1_on_a_violation(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "pybridge", "consistency", "--game", "berserk", "--cards", "1",
         "--invariant", "core:clash-unresolved", "--invariant", "core:value-below-zero",
         "-o", str(tmp_path), "--format", "json"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, env=_env())
    assert run.returncode == 1, run.stderr
    data = json.loads(run.stdout)
    assert [(i["id"], i["status"]) for i in data["invariants"]] == [
        ("core:clash-unresolved", "violated"), ("core:value-below-zero", "held")]
    assert "[1/2] core:clash-unresolved" in run.stderr  # the progress lines
    rerun = subprocess.run([sys.executable, "-m", "pybridge", "check", data["invariants"][0]["counterexample"]],
                           capture_output=True, text=True, cwd=ROOT, timeout=120, env=_env())
    assert rerun.returncode == 0 and "Unresolved" in rerun.stdout


def test_the_time_limit_ends_the_search_with_what_it_has(tmp_path):
    result = search("berserk", SMALL, time_limit=0.001, out_dir=tmp_path)
    assert not result.complete
    assert {f.status for f in result.findings} == {"unknown"}


def test_an_unknown_invariant_or_a_game_without_a_generator_is_a_clear_error(tmp_path):
    with pytest.raises(JudgeError, match="did you mean 'core:value-defined'"):
        search("berserk", SMALL, only=["core:value-define"])
    root = tmp_path / "asp"
    shutil.copytree(asp_root(), root)
    (root / "mtg" / "generator.lp").unlink()
    with use_asp_root(root), pytest.raises(JudgeError, match="mtg has no generator.lp"):
        search("mtg", SMALL)


def test_magic_has_its_search_too(tmp_path):
    result = search("mtg", SMALL, only=["core:clash-silent", "core:hidden-card-dependence"], out_dir=tmp_path,
                    samples=2)
    assert [f.status for f in result.findings] == ["held", "held"]
    assert "variants of 2 situations compared" in result.findings[1].detail[0]


def _env() -> dict[str, str]:
    import os
    return {k: v for k, v in os.environ.items() if k != ROOT_VARIABLE}


def test_what_the_asker_cannot_know_is_an_allowed_assumption(tmp_path):
    """Issue 29: the shipped rules judge the actor's own hidden card, unknown to the asker, either way
    (model:unknown-to-viewer); the invariant allows that, and still catches an assumption about a
    card the asker knows."""
    only = ["berserk:assumption-allowed"]
    assert [f.status for f in search("berserk", SMALL, only=only, out_dir=tmp_path).findings] == ["held"]
    known_too = planted(tmp_path, "berserk/532_assumptions.lp",
                        "assumable(P, A, T, X) :- restriction(P, A, T, X), unknown_card(T), controller(T, P).",
                        "assumable(P, A, T, X) :- restriction(P, A, T, X), hidden(T), controller(T, P).")
    with use_asp_root(known_too):
        (finding,) = search("berserk", SMALL, only=only, out_dir=tmp_path / "found").violated
    assert "model:unknown-to-viewer" in finding.clauses
