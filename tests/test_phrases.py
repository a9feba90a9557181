"""Phrase files word predicates the rules really have, over arguments they really take."""

import re
from pathlib import Path

import pytest
import yaml
from clingo import ast

from pybridge.catalogue import load_game
from pybridge.compiler import parse_rules
from pybridge.encodings import asp_root, entry_file, known_games


def phrases_in(path: Path) -> dict[str, str]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["phrases"]


def game_predicates(game: str) -> set[str]:
    """Every predicate a rule of the game derives or reads."""
    found = set()

    def visit(node):
        if node.ast_type == ast.ASTType.SymbolicAtom and node.symbol.ast_type == ast.ASTType.Function:
            found.add(f"{node.symbol.name}/{len(node.symbol.arguments)}")
        for key in node.child_keys:
            child = getattr(node, key)
            for item in (child if isinstance(child, (list, tuple)) or hasattr(child, "__len__") and not
                         isinstance(child, ast.AST) else [child]):
                if isinstance(item, ast.AST):
                    visit(item)

    for statement, _, _ in parse_rules(entry_file(game, load_game(game).entry)):
        visit(statement)
    return found


def core_predicates() -> set[str]:
    found = set()
    for path in (asp_root() / "core").glob("*.lp"):
        found.update(re.findall(r"#defined\s+(\w+/\d+)\.", path.read_text(encoding="utf-8")))
        found.update(f"{name}/{args.count(',') + 1}" for name, args in
                     re.findall(r"^(\w+)\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*:-", path.read_text(encoding="utf-8"), re.M))
    return found


def assert_well_formed(phrases: dict[str, str], known: set[str]) -> None:
    assert sorted(set(phrases) - known) == []
    for key, template in phrases.items():
        arity = int(key.rsplit("/", 1)[1])
        template.format(*[f"a{i}" for i in range(arity)])  # no placeholder beyond the arity


def test_core_phrases_word_core_predicates():
    assert_well_formed(phrases_in(asp_root() / "core" / "phrases.yaml"), core_predicates())


@pytest.mark.parametrize("game", known_games())
def test_game_phrases_word_the_games_predicates(game):
    path = asp_root() / game / "phrases.yaml"
    assert_well_formed(phrases_in(path), game_predicates(game))
