"""explain prints a graph, not a tree: each atom is opened once and numbered, a later mention refers
to its number; without --depth it fits a screen on the shipped examples; --depth cuts it; the JSON
is the whole graph whatever the depth."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pybridge.api import check, explain
from pybridge.game.catalogue import load_game
from pybridge.report.render import explain_text, phrase

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = [p for p in sorted((ROOT / "examples").glob("*/*.yaml")) if not p.name.startswith("matrix-")]
NUMBERED = re.compile(r"^\s*\[(\d+)\] ")
REFERENCE = re.compile(r"\(see \[(\d+)\] above\)")


def _cli(*args: str) -> str:
    run = subprocess.run([sys.executable, "-m", "pybridge", *args], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return run.stdout


def _actions(path: Path) -> list[str]:
    return [v.action for v in check(path).verdicts if v.player == check(path).viewpoint]


def _assert_a_graph(text: str) -> None:
    defined: list[int] = []
    for line in text.splitlines():
        for ref in REFERENCE.findall(line):
            assert int(ref) in defined, f"[{ref}] referred to before it is shown: {line}"
        match = NUMBERED.match(line)
        if match:
            assert int(match.group(1)) == len(defined) + 1, line  # numbered in order, each once
            defined.append(int(match.group(1)))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_explain_of_every_action_of_the_examples_fits_a_screen(path):
    for action in _actions(path):
        text = _cli("explain", str(path), action)
        assert len(text.splitlines()) <= 40, f"{action}: {len(text.splitlines())} lines"
        _assert_a_graph(text)


def test_a_shared_premise_is_opened_once_in_the_whole_graph():
    path = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"
    report = explain(path, "shot(elf, foe)")
    text = explain_text(report, report.verdicts[0], load_game("berserk").phrases)  # no depth: all of it
    _assert_a_graph(text)
    opened = [line.split("] ", 1)[1].split("   [")[0] for line in text.splitlines() if NUMBERED.match(line)]
    assert len(opened) == len(set(opened))  # no atom is opened twice
    assert REFERENCE.search(text)  # the candidate is shared by the prohibitions: referred to, not repeated
    # the deciding prohibition's premises are all shown
    blocked = report.nodes[report.verdicts[0].reasons_of("blocked")[0].node]
    for premise in blocked.derivations[0].premises:
        assert phrase(report.nodes[premise], load_game("berserk").phrases) in text


def test_depth_cuts_the_graph_and_says_so():
    path = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"
    whole = _cli("explain", str(path), "shot(elf, foe)", "--depth", "0")
    one = _cli("explain", str(path), "shot(elf, foe)", "--depth", "1")
    assert "cut 1 level deep" in one and "cut" not in whole.splitlines()[-1]
    assert len(one.splitlines()) < len(whole.splitlines())
    _assert_a_graph(one)


def test_the_json_is_the_whole_graph_whatever_the_depth():
    path = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"
    data = json.loads(_cli("explain", str(path), "shot(elf, foe)", "--format", "json", "--depth", "1"))
    assert data["trees"] and all(n["expanded"] or n["kind"] != "derived" for n in data["nodes"].values())
    assert data == json.loads(_cli("explain", str(path), "shot(elf, foe)", "--format", "json"))


def test_explain_help_is_not_cut_short():
    assert "such as 'strike_attack(elf, foe)'" in _cli("explain", "--help")
    summary = [line for line in _cli("--help").splitlines() if line.strip().startswith("explain")]
    assert summary and "e.g" not in summary[0]
