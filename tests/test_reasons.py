"""The one line a player reads: every illegal verdict of every ruling file says its deciding condition
on a line of its own in plain ``check``, naming conditions of its own justification graph; a verdict
resting on an assumption about a hidden card says which; no output counts treatments by number; and
none of it tells the asking player what an opponent's hidden card is."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from pybridge.api import _expected, _headings, check
from pybridge.ground.facts import situation_facts
from pybridge.ground.solve import solve
from pybridge.ground.terms import text as term_text
from pybridge.input.viewpoint import project
from pybridge.why.graph import Graph
from pybridge.why.justify import Cites, group
from pybridge.game.catalogue import load_game
from pybridge.why.reasons import because, because_nodes, card_words
from pybridge.report.render import phrase, report_text, to_json
from pybridge.tools.rulings import ruling_files
from pybridge.input.situation import load_situation, situation_from_data
from judged import judged

ROOT = Path(__file__).resolve().parent.parent
# Templates (matrix-*.yaml, the interactions/ folder) hold {A}/{B} placeholders: not situations.
FILES = [p for p in ruling_files([ROOT / "tests" / "rulings", ROOT / "examples"])
         if not p.name.startswith("matrix-") and p.parent.name != "interactions"]


def _verdict_lines(text: str, player: str, action: str) -> list[str]:
    """The lines of one verdict in a check's text: its head and its indented body."""
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith(f"{player}: {action} — "))
    body = []
    for line in lines[head + 1:]:
        if not line.startswith("    "):
            break
        body.append(line)
    return [lines[head]] + body


def _reachable(report, start: list[str]) -> set[str]:
    seen, stack = set(), list(start)
    while stack:
        node_id = stack.pop()
        if node_id in seen or node_id not in report.nodes:
            continue
        seen.add(node_id)
        for d in report.nodes[node_id].derivations:
            stack.extend(d.premises + d.absent)
    return seen


def _because_from_the_explain_program(situation, report, game) -> dict[tuple[str, str], str | None]:
    """Each illegal verdict's because-line as a second solve of the situation by the explain program
    words it (how plain check worded it before it read its own answer): the check program's records
    must give the graph the same first derivations."""
    verdicts = [copy.deepcopy(v) for v in report.verdicts if v.verdict == "illegal"]
    if not verdicts:
        return {}  # nothing to word: no second solve
    viewed = project(situation)
    answer = solve(situation.game, situation_facts(viewed, game), mode="explain", expected=_expected(viewed, game))
    try:
        grouped = group(answer)
        keys = {(term_text(p), term_text(a)): k for k, (p, a) in grouped.pairs.items()}
        graph = Graph(answer, game, Cites(game, answer.compiled.principles))
        for v in verdicts:
            graph.expand_blocked(v, keys[(v.player, v.action)], grouped)
        nodes = graph.nodes.nodes
    finally:
        answer.close()
    headings = _headings(game, verdicts)
    return {(v.player, v.action): because(nodes, v, game.phrases, headings) for v in verdicts}


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_illegal_verdict_says_why_naming_conditions_of_its_graph(path):
    situation = load_situation(path)
    game = load_game(situation.game)
    plain = judged(path)
    text = report_text(plain, title=game.title, phrases=game.phrases)
    trees = judged(path, trees=True)
    from_explain = _because_from_the_explain_program(situation, plain, game)
    assert "treatment no." not in text
    assert "treatment no." not in report_text(trees, title=game.title, phrases=game.phrases)
    for verdict in plain.verdicts:
        if verdict.verdict != "illegal":
            assert verdict.because is None
            continue
        lines = _verdict_lines(text, verdict.player, verdict.action)
        assert verdict.because, f"{verdict.player}: {verdict.action} has no deciding condition"
        assert f"    because {verdict.because}" in lines, lines
        deep = trees.verdict(verdict.player, verdict.action)
        assert deep.because == verdict.because  # the same sentence, with or without --trees
        assert from_explain[(verdict.player, verdict.action)] == verdict.because  # and as a second solve says it
        named = because_nodes(trees.nodes, deep, game.phrases)
        graph = _reachable(trees, [r.node for r in deep.reasons_of("blocked")])
        assert named and set(named) <= graph
        for node_id in named:  # each condition it names is worded in the line (or its clause heads it)
            words = phrase(trees.nodes[node_id], game.phrases, card=lambda a: card_words(a, game.phrases))
            node = trees.nodes[node_id]
            assert words in verdict.because or (node.predicate == "forbidden/3" and node.arguments[2] in
                                                verdict.because), (words, verdict.because)


def _example(name: str) -> dict:
    return yaml.safe_load((ROOT / "tests" / "rulings" / "berserk" / "532" / name).read_text(encoding="utf-8"))


def test_a_verdict_on_a_treatment_says_which_assumption():
    report = check(situation_from_data(_example("532.6-example-1.yaml")))
    verdict = report.verdict("p1", "finishing_blow(assassin, hidden@p2:3.1)")
    assert verdict.certainty == "some"
    assert verdict.assuming == "if p2's hidden card at 3.1 has health of at most 4 (532.6-2)"
    every = report.verdict("p1", "strike_attack(assassin, hidden@p2:3.1)")
    assert every.assuming == "whatever p2's hidden card at 3.1 is"


@pytest.mark.parametrize("holder", ["Вайл", "player two", "p2:x(1)"])
def test_a_hidden_card_is_worded_whatever_its_holder_is_called(holder):
    """The because-line says an unknown card as its holder's hidden card for any player id a
    situation may give (a Cyrillic one, spaces, a colon or brackets): renaming the holder renames
    the line and nothing else. (A pattern that took only ASCII holders left the neutral id raw.)"""
    base = check(situation_from_data(_example("532.6-example-2.yaml"))).verdict(
        "p1", "discharge(dzara, hidden@p2:1.2)")
    def renamed(value):
        if isinstance(value, dict):
            return {k: renamed(v) for k, v in value.items()}
        if isinstance(value, list):
            return [renamed(v) for v in value]
        return holder if value == "p2" else value

    data = _example("532.6-example-2.yaml")
    data.pop("ruling")
    verdict = check(situation_from_data(renamed(data))).verdict("p1", f"discharge(dzara, hidden@{holder}:1.2)")
    assert "p2's hidden card at 1.2" in base.because
    assert verdict.because == base.because.replace("hidden@p2:", f"hidden@{holder}:").replace("p2's", f"{holder}'s")
    assert verdict.assuming == f"whatever {holder}'s hidden card at 1.2 is"


def test_an_illegal_verdict_on_a_hidden_card_holds_whatever_it_is_and_says_the_range():
    verdict = check(situation_from_data(_example("532.6-example-2.yaml"))).verdict(
        "p1", "discharge(dzara, hidden@p2:1.2)")
    assert verdict.assuming == "whatever p2's hidden card at 1.2 is"
    assert "p2's hidden card at 1.2 is at range 2" in verdict.because
    assert "reaches range 1" in verdict.because
    assert "taken as it is seen" in verdict.because  # 532.6-3: it may not be assumed a flyer


@pytest.mark.parametrize("name, action", [
    ("532.6-example-2.yaml", "discharge(dzara, hidden@p2:1.2)"),
    ("532.6-example-1.yaml", "finishing_blow(assassin, hidden@p2:3.1)"),
    ("532.6-example-4.yaml", "shot(archer, hidden@p2:2.1)"),
])
def test_the_sentences_do_not_depend_on_what_the_hidden_card_is(name, action):
    """The hidden card swapped for others (a flyer, a weak card, one of another element): the asking
    player reads the same because- and assumption lines, with no name or id of the hidden card."""
    data = _example(name)
    hidden = [c for c in data["cards"] if c.get("hidden") and c["controller"] == "p2"]
    outputs = []
    for card in ("Ледяной змей", "Вайл", "Резчик идолов"):
        changed = copy.deepcopy(data)
        for c in changed["cards"]:
            if c.get("hidden") and c["controller"] == "p2":
                c.update(card=card, id=f"secret-{c['id']}")
        report = check(situation_from_data(changed))
        verdict = report.verdict("p1", action)
        outputs.append((verdict.because, verdict.assuming, to_json(report)))
        for c in hidden:
            assert f"secret-{c['id']}" not in to_json(report)
            assert card not in (verdict.because or "") + (verdict.assuming or "")
    assert len({o[:2] for o in outputs}) == 1
    assert len({o[2] for o in outputs}) == 1


HIDDEN = sorted((ROOT / "tests" / "rulings" / "berserk" / "532").glob("*.yaml"))


@pytest.mark.parametrize("path", HIDDEN, ids=lambda p: p.name)
def test_no_treatment_is_counted_by_number_in_explain_or_on_the_page(path):
    """The rules number treatments (worlds); what a player reads names what is assumed instead."""
    from pybridge.api import explain
    from pybridge.web.ruling_page import ruling_page
    from pybridge.report.render import explain_text

    situation = load_situation(path)
    phrases = load_game(situation.game).phrases
    assert "treatment no." not in ruling_page(situation)
    for verdict in judged(path).verdicts:
        if verdict.player != situation.viewpoint:  # another player's action names the asker's view of ids
            continue
        report = explain(situation, verdict.action)
        text = explain_text(report, report.verdicts[0], phrases)
        assert "treatment no." not in text and "assumption no." not in text


def _bench_boards():
    """bench/boards.py under a name of its own (tests/ has a boards module too)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_boards", ROOT / "bench" / "boards.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("cards, hidden, mix", [(10, 0, "plain"), (30, 3, "plain"), (30, 3, "air")])
def test_records_read_in_bulk_or_narrowed_word_the_same(cards, hidden, mix, monkeypatch):
    """A plain check with many illegal verdicts reads its graph's records in bulk, one with few
    narrows each verdict's instances down first (pybridge.api._MANY_ILLEGAL): two ways to the same
    derivations, so the same because-lines, in the same order."""
    import pybridge.api as api_module

    situation = situation_from_data(_bench_boards().board(cards, hidden, mix=mix))
    worded = {}
    for bulk in (True, False):
        monkeypatch.setattr(api_module, "_MANY_ILLEGAL", -1 if bulk else 10 ** 9)
        worded[bulk] = [(v.action, v.verdict, v.because, v.assuming) for v in check(situation).verdicts]
    assert sum(1 for _, verdict, said, _ in worded[True] if verdict == "illegal" and said) >= 5
    assert worded[True] == worded[False]


def test_a_plain_check_opens_only_the_premises_that_may_be_of_its_clause(monkeypatch):
    """Not a timing: a because-line opens a premise only where a rule of its predicate may be of the
    same clause (OpenedOnRead.may_be_of); opening every premise to look words the same lines, with
    more of the graph expanded."""
    from pybridge.why.graph import OpenedOnRead

    situation = situation_from_data(_bench_boards().board(30, 3))
    expanded = []
    real = Graph.expand
    monkeypatch.setattr(Graph, "expand", lambda self, atom, **kw: expanded.append(atom) or real(self, atom, **kw))
    lean = [(v.action, v.because) for v in check(situation).verdicts]
    lean_count = len(expanded)
    expanded.clear()
    monkeypatch.setattr(OpenedOnRead, "may_be_of", lambda self, node_id, clause: True)
    assert [(v.action, v.because) for v in check(situation).verdicts] == lean
    assert sum(1 for _, said in lean if said) >= 5 and 0 < lean_count < len(expanded)


@pytest.mark.parametrize("mix", ["plain", "air"])
def test_a_plain_check_matches_only_the_rules_its_lines_read(mix, monkeypatch):
    """Not a timing: a because-line reads a node's first derivation, so a plain check matches a node's
    rules only up to the first that has an instance, and never looks for a derivation of an atom
    required not to hold; every derivation of every node opened, as before, words the same lines
    with more rules matched."""
    from pybridge.why.graph import OpenedOnRead

    situation = situation_from_data(_bench_boards().board(30, 3, mix=mix))
    matched = []
    for name in ("instances", "_recorded"):
        real = getattr(Graph, name)
        monkeypatch.setattr(Graph, name, lambda self, rule, *a, _real=real: matched.append(rule) or _real(self, rule, *a))
    lean = [(v.action, v.because) for v in check(situation).verdicts]
    lean_count = len(matched)
    matched.clear()
    every_rule = Graph.supports
    monkeypatch.setattr(Graph, "supports", lambda self, atom, first_rule=False: every_rule(self, atom))

    def opened_in_full(self, node_id):
        node = self.graph.nodes.nodes[node_id]
        if not node.expanded:
            self.graph.expand(self.graph.nodes.atoms[node_id], one_level=True)
        return node

    monkeypatch.setattr(OpenedOnRead, "__getitem__", opened_in_full)
    assert [(v.action, v.because) for v in check(situation).verdicts] == lean
    assert sum(1 for _, said in lean if said) >= 5 and 0 < lean_count < len(matched)


def test_a_plain_check_words_each_atom_once(monkeypatch):
    """Not a timing: the verdicts of one check share premises, and each atom is worded once for all
    the because-lines that name it."""
    import pybridge.why.reasons as reasons_module

    situation = situation_from_data(_bench_boards().board(30, 3))
    worded = []
    real = reasons_module._said
    monkeypatch.setattr(reasons_module, "_said", lambda node, phrases: worded.append(node.atom) or real(node, phrases))
    lines = [v.because for v in check(situation).verdicts if v.because]
    assert len(lines) >= 5 and len(worded) == len(set(worded))
    assert sum(line.count(",") + line.count(" and ") + 1 for line in lines) > len(worded)  # atoms were shared
