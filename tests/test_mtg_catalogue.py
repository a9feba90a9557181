"""The Magic card catalogue speaks the rules' vocabulary: every target kind,
targeting feature and trigger filter a card names is one the rules read, so
no card is silently uncastable or its trigger silently deaf (a word the rules
do not know would otherwise just produce nothing)."""

import clingo
from clingo import ast

from pybridge.game.catalogue import load_game
from pybridge.game.encodings import entry_file
from pybridge.ground.compiler import parse_rules

GAME = load_game("mtg")


def _term(literal: ast.AST) -> ast.AST | None:
    """The atom's term of a positive literal (``p(X)`` of ``p(X)``), else None."""
    if (literal.ast_type == ast.ASTType.Literal and literal.sign == ast.Sign.NoSign
            and literal.atom.ast_type == ast.ASTType.SymbolicAtom):
        return literal.atom.symbol
    return None


# Each rule of the game as (head term or None, positive body atoms' terms).
RULES = [(_term(s.head), [t for t in map(_term, s.body) if t is not None])
         for s, _, _ in parse_rules(entry_file("mtg", GAME.entry)) if s.ast_type == ast.ASTType.Rule]
TRIGGERS = ("enters_trigger", "dies_trigger", "sacrifice_trigger", "turned_face_up_trigger")


def _constant(term: ast.AST) -> str | None:
    if term.ast_type == ast.ASTType.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
        return term.symbol.name
    return None


def _heads(name: str, position: int) -> set[str]:
    """Constants in argument `position` of the heads of rules for `name`."""
    found = set()
    for head, _ in RULES:
        if head is None:
            continue
        # a pooled fact, p(a; b), is one rule whose head is a pool of atoms
        heads = head.arguments if head.ast_type == ast.ASTType.Pool else [head]
        for head in heads:
            if head.ast_type == ast.ASTType.Function and head.name == name and len(head.arguments) > position:
                value = _constant(head.arguments[position])
                if value:
                    found.add(value)
    return found


def _read(name: str, position: int) -> set[str]:
    """Constants in argument `position` of positive body atoms `name`."""
    found = set()
    for _, positive in RULES:
        for atom in positive:
            if atom.ast_type == ast.ASTType.Function and atom.name == name and len(atom.arguments) > position:
                value = _constant(atom.arguments[position])
                if value:
                    found.add(value)
    return found


def _features():
    for card in GAME.cards.values():
        for feature in card.get("features") or []:
            if isinstance(feature, dict):
                for name, params in feature.items():
                    yield card["name"], name, params or {}
            else:
                yield card["name"], feature, {}


def test_target_kinds_are_known():
    kinds = _heads("fits_target_kind", 0)
    assert {"any_target", "creature", "spell", "player"} <= kinds
    wrong = [(card, name, params["target"]) for card, name, params in _features()
             if "target" in params and params["target"] not in kinds]
    assert wrong == []


def test_targeting_features_have_a_kind_and_a_rule():
    aimed = _read("may_target", 1)
    with_kind = {name for _, name, params in _features() if "target" in params}
    assert with_kind <= aimed, "a feature names a target kind but no rule casts it at anything"
    missing = [(card, name) for card, name, params in _features() if name in aimed and "target" not in params]
    assert missing == [], "a targeting feature without a target kind can't be cast"


def test_trigger_filters_use_words_the_rules_read():
    who = _heads("self_watched", 0) | _heads("others_watched", 0)
    kinds = _read("watch_param", 3) | {"permanent"}
    wrong = []
    for card, name, params in _features():
        if name not in TRIGGERS:
            continue
        if params.get("who", "self") not in who:
            wrong.append((card, name, "who", params.get("who")))
        if params.get("kind", "permanent") not in kinds:
            wrong.append((card, name, "kind", params.get("kind")))
        if params.get("controller", "you") != "you":
            wrong.append((card, name, "controller", params.get("controller")))
        if params.get("status", "face_down") not in _read("watch_param", 3):
            wrong.append((card, name, "status", params.get("status")))
    assert wrong == []
