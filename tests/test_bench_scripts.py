"""The benchmark scripts run: each on a tiny input, in a real process, to its table.

No timing is asserted (the machine may be loaded); what is held is that the script ends well,
prints a row for every configuration it was asked for, and that every configuration judged
every situation. bench/batch.py once crashed unseen (its summary's subclass
broke when the batch summary became a msgspec Struct)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from clingo import ast

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str, timeout: int = 240) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_batch_bench_runs_every_configuration_on_a_tiny_input():
    out = _run("bench/batch.py", "--sizes", "4", "--repeat", "1", "--jobs", "2", "--cards", "10")
    rows = {line.split("|")[1].strip(): line for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| configuration")}
    names = set(rows)
    assert "ccg-judge batch --jobs 2, workers on glibc" in names, out
    assert {"naive loop of api.check (1 process)", "plain clingo on the dumped facts (1 process)",
            "plain clingo on the dumped facts (2 processes at once)"} <= names, out
    for name, row in rows.items():
        cells = [c.strip() for c in row.split("|")[1:-1]]
        assert cells[1] == "4", row  # every situation judged
        assert float(cells[2]) > 0, row
        assert re.fullmatch(r"\d+ ms", cells[3]), row
    assert "ccg-judge batch --jobs 2, workers on glibc: x" in out, out  # set against plain clingo


def _bench_module(name: str):
    import importlib
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "bench"))


def test_the_while_mix_hides_the_viewers_own_cards_with_a_while_feature():
    boards = _bench_module("boards")
    from pybridge.game.catalogue import load_game

    named = {card.get("name"): card for card in load_game("berserk").cards.values()}
    assert boards.while_cards(), "the benchmark's creatures include cards with a while feature"
    for name in boards.while_cards():
        assert any(isinstance(f, dict) and any("while" in (p or {}) for p in f.values() if isinstance(p, dict))
                   for f in named[name]["features"]), name
    for cards, hidden in ((30, 3), (60, 8)):
        data = boards.board(cards, hidden, mix="while")
        own_hidden = [c["card"] for c in data["cards"] if c.get("hidden") and c["controller"] == data["viewpoint"]]
        assert set(boards.while_cards()) & set(own_hidden), own_hidden
        assert sum(bool(c.get("hidden")) for c in data["cards"]) == hidden
        assert len(data["cards"]) == cards


def test_the_air_mix_puts_flyers_and_spells_in_hand_and_a_mix_is_checked():
    boards = _bench_module("boards")

    def count(data, zone, names):
        return sum(1 for c in data["cards"] if c.get("zone") == zone and c["card"] in names)

    plain, air = boards.board(60, 8), boards.board(60, 8, mix="air")
    assert count(air, "flying", boards.FLYERS) > count(plain, "flying", boards.FLYERS)
    assert count(air, "hand", boards.SPELLS) > count(plain, "hand", boards.SPELLS)
    with pytest.raises(ValueError, match="unknown board mix 'wet'"):
        boards.board(30, 3, mix="wet")


def test_the_oracle_trim_keeps_fewer_rules_and_answers_as_the_whole_program():
    oracle = _bench_module("oracle")
    boards = _bench_module("boards")
    from pybridge import api
    from pybridge.ground.facts import render_facts
    from pybridge.input.situation import situation_from_data

    main_lp = ROOT / "asp" / "berserk" / "main.lp"
    facts = render_facts(api.facts_for(situation_from_data(boards.board(10, 3, mix="while"))))
    text, fired, with_body = oracle.trimmed_text(main_lp, facts)
    assert 0 < fired < with_body
    whole = main_lp.read_text(encoding="utf-8").replace('#include "', f'#include "{main_lp.parent}/')
    answer = oracle.shown(whole, facts)
    assert answer and oracle.shown(text, facts) == answer


def test_the_oracle_trims_only_the_files_it_is_given():
    oracle = _bench_module("oracle")
    boards = _bench_module("boards")
    from pybridge import api
    from pybridge.ground.facts import render_facts
    from pybridge.input.situation import situation_from_data

    main_lp = ROOT / "asp" / "berserk" / "main.lp"
    facts = render_facts(api.facts_for(situation_from_data(boards.board(10, 3))))
    part = frozenset({"selectors.lp", "ability_steps.lp"})
    text, fired, with_body = oracle.trimmed_text(main_lp, facts, only=part)
    assert 0 < fired < with_body < 300  # the two files' rules only, some of them firing
    statements, firing = oracle.fired_rules(main_lp, facts)
    kept = set(text.splitlines())
    for i, statement in enumerate(statements):
        in_part = oracle.file_name(statement) in part and statement.ast_type == ast.ASTType.Rule and statement.body
        assert (str(statement) in kept) == (not in_part or i in firing), statement
    without = oracle.text_without(main_lp, part)
    assert not any(oracle.file_name(s) in part and str(s) in set(without.splitlines()) for s in statements
                   if s.ast_type == ast.ASTType.Rule and s.body)


def test_floor_parts_measures_the_three_programs_of_a_part():
    out = _run("bench/floor_parts.py", "--files", "ability_conditions.lp", "--boards", "10:0", "--rounds", "1",
               "--runs", "2")
    [row] = [line for line in out.splitlines() if line.startswith("board 10:0:")]
    assert re.search(r"whole [\d.]+ ms \(1\.00\)  firing [\d.]+ ms \([\d.]+\)  without [\d.]+ ms \([\d.]+\)  "
                     r"no facts [\d.]+ ms \([\d.]+\); the part's rules firing \d+ of 33$", row), out
    done = subprocess.run([sys.executable, "bench/floor_parts.py", "--files", "nope.lp"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "no such file under asp/berserk: nope.lp" in done.stderr


def test_check_limit_measures_each_board_and_gives_the_checks_own_report():
    out = _run("bench/check_limit.py", "--boards", "10:0", "30:3:while", "pair:Кочевник:Кшар", "--rounds", "1")
    rows = [line.split() for line in out.splitlines() if re.match(r"(10:0|30:3:while|pair:\S+) ", line)]
    assert [row[0] for row in rows] == ["10:0", "30:3:while", "pair:Кочевник:Кшар"], out
    for row in rows:
        assert int(row[1]) > 0 and row[3] == "1.00x", out
        milliseconds, ratios = row[2:-1:2], row[3:-1:2]
        assert len(milliseconds) == 6 and all(float(m) > 0 for m in milliseconds), out
        assert all(re.fullmatch(r"\d+\.\d\dx", r) for r in ratios), out
        assert row[-1] == "yes", out  # the perfect specialiser's report is the check's own


def test_the_perfect_specialiser_keeps_less_than_the_check():
    check_limit = _bench_module("check_limit")
    boards = _bench_module("boards")
    from pybridge import api
    from pybridge.ground.facts import render_facts
    from pybridge.input.situation import situation_from_data

    situation = situation_from_data(boards.board(30, 3))
    facts = render_facts(api.facts_for(situation))
    kept = check_limit.kept_by_check(situation)
    perfect, firing = check_limit.perfect_specialiser(situation, facts)
    given = {key: perfect(check_limit.solve._ran[key[0]], None, key[1], key[2]) for key in kept}
    assert firing > 0 and all(set(given[key]) <= set(kept[key]) for key in kept)
    assert sum(map(len, given.values())) < sum(map(len, kept.values()))
