"""Reports say it in words. Phrase files word predicates and terms the rules really have, over
arguments they really take; every predicate of a game's rules, and every consequence its rules
derive, has a phrase; every atom a report shows for a ruling file or example is worded, and its text
(check, the justification trees, explain of an action that is not possible) shows no raw solver
term; a verdict resting on a principle says on its own lines what that principle decided."""

import re
from functools import cache
from pathlib import Path

import pytest
import yaml
from clingo import ast

from pybridge.api import check, explain, normalise_action
from pybridge.game.catalogue import Phrases, load_game
from pybridge.game.encodings import asp_root, entry_file, known_games
from pybridge.ground.compiler import parse_rules
from pybridge.input.situation import load_situation
from pybridge.report.render import explain_text, report_text, say_term, verdict_text
from pybridge.tools.rulings import ruling_files
from pybridge.why.justify import Node
from pybridge.why.wording import fill, phrase
from judged import judged

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "tests" / "rulings"


# every ruling file and example situation (a matrix template is filled in by `ccg-judge matrix`).
# Templates (matrix-*.yaml, the interactions/ folder) hold {A}/{B} placeholders: not situations.
FILES = [p for p in ruling_files([RULINGS, ROOT / "examples"])
         if not p.name.startswith("matrix-") and p.parent.name != "interactions"]


def sections_in(path: Path) -> dict[str, dict[str, str]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {name: data.get(name) or {} for name in ("phrases", "terms", "principles")}


def _walk(node, visit) -> None:
    visit(node)
    for key in node.child_keys:
        child = getattr(node, key)
        items = child if isinstance(child, (list, tuple)) or hasattr(child, "__len__") and not \
            isinstance(child, ast.AST) else [child]
        for item in items:
            if isinstance(item, ast.AST):
                _walk(item, visit)


@cache
def statements(*files: Path) -> tuple:
    return tuple(s for f in files for s, _, _ in parse_rules(f))


def predicates(files: tuple[Path, ...]) -> set[str]:
    """Every predicate a rule of these files derives or reads (facts included), and every input they
    declare (#defined)."""
    found = set()

    def visit(node):
        if node.ast_type == ast.ASTType.SymbolicAtom and node.symbol.ast_type == ast.ASTType.Function:
            found.add(f"{node.symbol.name}/{len(node.symbol.arguments)}")
        elif node.ast_type == ast.ASTType.Defined:
            found.add(f"{node.name}/{node.arity}")

    for statement in statements(*files):
        _walk(statement, visit)
    return found


def game_files(game: str) -> tuple[Path, ...]:
    return (entry_file(game, load_game(game).entry),)


def core_files() -> tuple[Path, ...]:
    return tuple(sorted((asp_root() / "core").glob("*.lp")))


def consequence_terms(game: str) -> set[str]:
    """name/arity of every consequence term a rule of the game derives, the terms nested in it too."""
    found = set()

    def term(t, nested):
        if t.ast_type == ast.ASTType.Function and t.name:
            found.add(f"{t.name}/{len(t.arguments)}")
            for a in t.arguments:
                term(a, True)
        elif t.ast_type == ast.ASTType.SymbolicTerm and t.symbol.type.name == "Function" and not nested:
            found.add(f"{t.symbol.name}/0")

    for statement in statements(*game_files(game)):
        if statement.ast_type != ast.ASTType.Rule or statement.head.ast_type != ast.ASTType.Literal:
            continue
        symbol = statement.head.atom.symbol if statement.head.atom.ast_type == ast.ASTType.SymbolicAtom else None
        if symbol is not None and symbol.ast_type == ast.ASTType.Function and symbol.name == "consequence" \
                and len(symbol.arguments) == 3:
            term(symbol.arguments[2], False)
    return found


def assert_well_formed(templates: dict[str, str], known: set[str] | None, phrases: Phrases | None = None) -> None:
    if known is not None:  # a sentence for one argument's word ("done_target/4[1=defend]") is its atom's
        assert sorted({key.split("[")[0] for key in templates} - known) == []
    for key, template in templates.items():
        arity = int(key.split("[")[0].rsplit("/", 1)[1])
        if "[" in key:
            assert int(key.split("[")[1].split("=")[0]) < arity, f"{key}: no such argument"
        # no placeholder beyond the arity, and no values table ({1:strike}) the game lacks
        fill(template, [f"a{i}" for i in range(arity)], phrases or Phrases())


def test_core_phrases_word_core_predicates():
    sections = sections_in(asp_root() / "core" / "phrases.yaml")
    assert_well_formed(sections["phrases"], predicates(core_files()))
    assert_well_formed(sections["terms"], None)


@pytest.mark.parametrize("game", known_games())
def test_game_phrases_word_the_games_predicates(game):
    sections = sections_in(asp_root() / game / "phrases.yaml")
    assert_well_formed(sections["phrases"], predicates(game_files(game)), load_game(game).phrases)
    assert_well_formed(sections["terms"], None, load_game(game).phrases)


@pytest.mark.parametrize("game", known_games())
def test_every_predicate_of_the_rules_has_a_phrase(game):
    assert sorted(predicates(game_files(game)) - set(load_game(game).phrases)) == []


@pytest.mark.parametrize("game", known_games())
def test_every_consequence_the_rules_derive_has_a_phrase(game):
    assert sorted(consequence_terms(game) - set(load_game(game).phrases.terms)) == []


@pytest.mark.parametrize("game", known_games())
def test_term_phrases_leave_actions_as_they_are_asked(game):
    """An action is shown by the name it is asked by (explain takes it): no term phrase rewords one."""
    loaded = load_game(game)
    actions = {f"{name}/{len(roles)}" for name, roles in loaded.actions.items()}
    assert sorted(actions & set(loaded.phrases.terms)) == []


@pytest.mark.parametrize("game", known_games())
def test_every_principle_is_said_in_words(game):
    loaded = load_game(game)
    named = set()
    for statement in statements(*game_files(game)):
        def visit(node):
            if node.ast_type == ast.ASTType.SymbolicAtom and node.symbol.ast_type == ast.ASTType.Function \
                    and node.symbol.name in ("ignored", "principle_clause"):
                position = 2 if node.symbol.name == "ignored" else 0
                arg = node.symbol.arguments[position]
                if arg.ast_type == ast.ASTType.SymbolicTerm:
                    named.add(arg.symbol.name)
        _walk(statement, visit)
    assert named and sorted(named - set(loaded.phrases.principles)) == []


def test_terms_are_worded_inside_out_and_anything_else_as_written():
    phrases = Phrases({}, terms={"then/1": "then {0}", "open/1": "{0} opens", "magic_ability/0": "a magic ability",
                                 "gets/2": "{0} gets {1}"})
    assert say_term("then(open(archer))", phrases) == "then archer opens"
    assert say_term("gets(dzara, magic_ability)", phrases) == "dzara gets a magic ability"
    assert say_term("magic_ability", phrases) == "a magic ability"
    for as_written in ("strike_attack(vail, foe)", "open(a, b)", "open(archer", "open(a))(", "hidden@p2:3.1", "-2",
                       "feature:shot", "(a, b)", "Grizzly Bears"):
        assert say_term(as_written, phrases) == as_written
    assert say_term("then(open(archer))", {}) == "then(open(archer))"


def test_tuples_and_counts_are_worded_by_the_phrases():
    phrases = Phrases({}, terms={"()/3": "{0}-{1}-{2}", "()/1": "{0}", "wound/1": "takes {0:#wound}",
                                 "on_roll/1": "the die comes up {0}"})
    assert say_term("wound((1, 2, 3))", phrases) == "takes 1-2-3 wounds"
    assert say_term("wound(1)", phrases) == "takes 1 wound"
    assert say_term("wound(X)", phrases) == "takes X wounds"
    assert say_term("on_roll((1,))", phrases) == "the die comes up 1"
    # a tuple the phrases do not word, as written
    assert say_term("(a, b)", phrases) == "(a, b)"
    assert say_term("on_roll((5, 6))", phrases) == "the die comes up (5, 6)"


def test_vocabulary_words_are_worded_and_action_names_kept():
    """A word of a composed ability (a step's receiver, what a ban bars) reads as its words; the
    names a reader asks by (actions, their kinds, the conditions of clauses) stay as written."""
    terms = load_game("berserk").phrases.terms
    assert terms["be_lowered/0"] == "be lowered"
    assert terms["each_adjacent_enemy/0"] == "each adjacent enemy"
    assert "strike_attack/0" not in terms and "once_per_turn/0" not in terms


def fact_words(game: str, predicate: str) -> set[str]:
    """The constants the rules' facts of a one-argument predicate name (a pooled fact, each)."""
    found = set()
    for statement in statements(*game_files(game)):
        if statement.ast_type != ast.ASTType.Rule or statement.body or statement.head.ast_type != ast.ASTType.Literal:
            continue
        symbol = statement.head.atom.symbol
        for fact in symbol.arguments if symbol.ast_type == ast.ASTType.Pool else [symbol]:
            if fact.ast_type == ast.ASTType.Function and fact.name == predicate and len(fact.arguments) == 1:
                found.add(str(fact.arguments[0]))
    return found


def test_every_receiver_said_in_a_cards_place_has_a_phrase_of_its_own():
    """A step whose receiver is picked when it happens names the receiver by its vocabulary word where
    a card goes ("incarnated gets 1 to its movement"). The reports check above misses a bare word: it
    looks for raw terms with arguments and for atoms without, never a constant inside a term; and a
    vocabulary word without an underscore gets no phrase of its words. So each such word needs a
    phrase of its own, not the word nor its words."""
    terms = load_game("berserk").phrases.terms
    words = fact_words("berserk", "chosen_receiver")
    assert "incarnated" in words and "cell" in words
    unworded = sorted(w for w in words if terms.get(f"{w}/0", w.replace("_", " ")) in (w, w.replace("_", " ")))
    assert unworded == []


# --------------------------------------------------------------------------
# What reports show, for every ruling file and example


TERM_START = re.compile(r"(?<![\w@:.#'-])[a-z_][A-Za-z0-9_']*\(")


def raw_terms(text: str, actions: dict[str, int]) -> list[str]:
    """Solver terms written as such in the text: name(...) that is not an action of the game (an
    action keeps the name it is asked by)."""
    found = []
    for match in TERM_START.finditer(text):
        opening = match.end() - 1
        depth, arity, end = 0, 1, len(text)
        for at in range(opening, len(text)):
            if text[at] == "(":
                depth += 1
            elif text[at] == ")":
                depth -= 1
                if depth == 0:
                    end = at + 1
                    break
            elif text[at] == "," and depth == 1:
                arity += 1
        if actions.get(text[match.start():opening]) != arity:
            found.append(text[match.start():end])
    return found


def test_the_raw_term_check_tells_a_term_from_an_action():
    text = "forbidden, because hero(lord); pending_attack(a2, x); p1 may do shot(elf, foe), close(elf)"
    assert raw_terms(text, {"shot": 2, "close": 2}) == ["hero(lord)", "pending_attack(a2, x)", "close(elf)"]


def reports(path: Path):
    """The reports a reader may see for this file: check with every tree, and explain of each
    action the ruling expects not to be possible (check does not list it)."""
    situation = load_situation(path)
    full = judged(path, trees=True)
    found = [full]
    listed = {normalise_action(v.action) for v in full.verdicts}
    if situation.ruling is not None:
        found += [explain(situation, a) for a in situation.ruling.expect.impossible
                  if normalise_action(a) not in listed]
    return found


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(ROOT).as_posix() for p in FILES])
def test_reports_are_worded_in_full(path):
    unphrased, raw = set(), set()
    for report in reports(path):
        game = load_game(report.game)
        phrases = game.phrases
        actions = {name: len(roles) for name, roles in game.actions.items()}
        unphrased |= {n.predicate for n in report.nodes.values() if n.predicate not in phrases}
        text = report_text(report, phrases=phrases)
        text += "".join(explain_text(report, v, phrases) for v in report.verdicts)
        raw |= set(raw_terms(text, actions))
        raw |= {n.atom for n in report.nodes.values() if not n.arguments and n.atom in text.split()}
    assert sorted(unphrased) == []
    assert sorted(raw) == []


# --------------------------------------------------------------------------
# A verdict's own lines say what decided it


def verdict_lines(path: str, action: str, **kwargs) -> list[str]:
    report = check(RULINGS / path, **kwargs)
    verdict = next(v for v in report.verdicts if v.action == action)
    return verdict_text(verdict, report, load_game(report.game).phrases)


@pytest.mark.parametrize("path, action, line", [
    ("berserk/513/conservativeness-later-ban-wins.yaml", "strike_attack(vail, foe)",
     "    effect leave is set aside because of ban: the later effect wins"
     " — conservativeness (Conservativeness: latest effect wins)"),
    ("berserk/513/forbid-wins-same-time.yaml", "strike_attack(vail, foe)",
     "    effect leave is set aside because of ban: a prohibition beats a permission or an obligation"
     " — forbid-wins (Prohibition beats permission or obligation)"),
    ("berserk/532/532.4-stealth-works-while-hidden.yaml", "strike_attack(brute, guard)",
     "    effect dread is set aside because of shade: a hidden card's constant features create no effects,"
     " stealth excepted — 532.4 (Constant features of hidden cards)"),
    ("berserk/512/zero-parameter.yaml", "declare(viper, poisoning, 0)",
     "    viper's poisoning comes to -2 and counts as 0 — zero-rule (Zero rule)"),
    ("berserk/513/axe-rule-card-permits-second-attack.yaml", "strike_attack(vail, foe)",
     "    107.2 (Strike attack) would forbid it (once_per_turn), but axe-rule (Axe rule: card text beats the"
     " rules) overrides that condition: card text that says it overrides a rule wins over it"),
    # a clause stating two principles (Magic's card text) lifts a prohibition as an exception
    ("mtg/xmage/facedown/testBaneAlleyBroker-owner.yaml", "look_at(exiled)",
     "    406.3 (Cards exiled face down) would forbid it, but model:card-text (Card text binds) overrides it:"
     " the clause makes an exception to the prohibition"),
])
@pytest.mark.parametrize("trees", [False, True], ids=["check", "trees"])
def test_a_verdict_says_the_principle_that_decided_it(path, action, line, trees):
    lines = verdict_lines(path, action, trees=trees)
    assert line in lines
    clause = line.rsplit(" — ", 1)[-1].split(" (", 1)[0] if " — " in line else None
    assert not any(clause and l.startswith("    resting also on") and clause in l for l in lines)


def test_a_verdict_not_resting_on_a_principle_does_not_say_it():
    """The clamped value of another card's ability is the report's, not this verdict's."""
    lines = verdict_lines("berserk/512/zero-parameter.yaml", "declare(adder, poisoning, 0)")
    assert not any("counts as 0" in line for line in lines)


def test_an_argument_s_word_may_have_a_sentence_of_its_own():
    phrases = load_game("berserk").phrases
    history = [Node("done_target(3, redirect, near, volot)", "done_target/4", ["3", "redirect", "near", "volot"],
                    "fact"),
               Node("done_target(3, strike_attack, redirect, foe)", "done_target/4",
                    ["3", "strike_attack", "redirect", "foe"], "fact")]
    # the kind's own sentence where argument 1 is the word, not where another argument is
    assert [phrase(n, phrases) for n in history] == ["earlier on turn 3: volot's strike was turned onto near",
                                                     "earlier on turn 3: redirect made a strike attack at foe"]
    redirected = RULINGS / "berserk" / "cards" / "volot-redirected-strike-new-target-strikes-back.yaml"
    report = report_text(check(redirected))
    assert "redirect by" not in report and "strike_attack by" not in report and "was turned onto near" in report
