"""The vocabulary (asp/<game>/vocabulary.yaml) against everything that uses words:

- every word the rules base (asp/) uses where the input interface puts a word is declared,
  with the meaning the rules give it (action classes, complex protections, conditions);
- every word declared as modelled is one the rules read (else it says modelled: false);
- every clause a declaration cites is in the clause catalogue;
- the card catalogue validates against it (the examples and rulings do too: they load);
- a misspelt word in any field of a situation is refused, naming the field and the nearest
  known word, and a value of the wrong type is refused naming the field.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml
from clingo import SymbolType, ast

from pybridge.errors import JudgeError
from pybridge.game.catalogue import load_game
from pybridge.game.encodings import known_games
from pybridge.game.vocabulary import ANY_WORD, Context, load_vocabulary
from pybridge.input.situation import situation_from_data
from pybridge.tools.matrix import fill

ROOT = Path(__file__).resolve().parent.parent
GAMES = known_games()


# --------------------------------------------------------------------------
# What the rules base says, read with clingo's parser


@dataclass(frozen=True)
class Term:
    """A function term of the rules: its name and arguments (a constant's name as str, a
    number as int, a string as ("string", text), a variable as None, a pool as a list)."""

    name: str
    args: tuple[Any, ...]


def _argument(node: ast.AST) -> Any:
    if node.ast_type == ast.ASTType.SymbolicTerm:
        symbol = node.symbol
        if symbol.type == SymbolType.Number:
            return symbol.number
        if symbol.type == SymbolType.String:
            return ("string", symbol.string)
        return symbol.name if not symbol.arguments else Term(symbol.name, ())
    if node.ast_type == ast.ASTType.Function:
        return Term(node.name, tuple(_argument(a) for a in node.arguments)) if node.arguments else node.name
    if node.ast_type == ast.ASTType.Pool:
        return [_argument(a) for a in node.arguments]
    return None  # variables, arithmetic


def rule_terms(game: str) -> list[Term]:
    terms: list[Term] = []

    def walk(node: ast.AST) -> None:
        if node.ast_type == ast.ASTType.Function and node.arguments:
            terms.append(Term(node.name, tuple(_argument(a) for a in node.arguments)))
        for key in node.child_keys:
            child = getattr(node, key)
            if child is None:
                continue
            for item in ([child] if isinstance(child, ast.AST) else child):  # a node, or a sequence of them
                walk(item)

    ast.parse_files([str(ROOT / "asp" / game / load_game(game).entry)], walk)
    return terms


def constants(value: Any) -> list[Any]:
    """The constants an argument stands for (a pool stands for each of its elements)."""
    if isinstance(value, list):
        return [c for v in value for c in constants(v)]
    if isinstance(value, tuple) and value[:1] == ("string",):
        return [value[1]]
    if isinstance(value, (str, int)):
        return [value]
    return []


def at(terms: list[Term], name: str, arity: int, index: int) -> set[Any]:
    return {c for t in terms if t.name == name and len(t.args) == arity for c in constants(t.args[index])}


def every_word(terms: list[Term]) -> set[Any]:
    found: set[Any] = set()
    for t in terms:
        found.add(t.name)
        for arg in t.args:
            found.update(constants(arg))
    return found


# Where the input interface (and the core's derived twins of it) puts a word of each section.
FEATURE_POSITIONS = [("has_feature", 2, 1), ("printed_feature", 2, 1), ("feature_param", 4, 1),
                     ("removed_feature", 2, 1), ("effect_feature", 2, 1), ("constant_feature", 1, 0),
                     ("works_while_hidden", 1, 0), ("effective_constant", 2, 1), ("protection_feature", 2, 0),
                     ("ability", 2, 1), ("kept_ability", 2, 1), ("copiable_ability", 2, 1), ("granted", 3, 1),
                     ("would_lack", 2, 1), ("face_up_keyword", 2, 1), ("turn_up_keyword", 1, 0),
                     ("trigger_met", 2, 1), ("declare_trigger", 2, 1), ("condition_met", 2, 1)]
# Where the rules read a feature's parameter (card, feature, key, value in the first four
# arguments): the input itself, and Magic's twins of it for the abilities an object has now
# (ability_param) and for the filter of a trigger (watch_param).
PARAM_READERS = [("feature_param", 4), ("ability_param", 4), ("watch_param", 5), ("up_param", 4)]  # up_param: mtg 708.10
PROPERTY_POSITIONS = [("property", 3, 1), ("has_property", 3, 1), ("base_value", 4, 1), ("value", 4, 1)]
SECTION_POSITIONS = {
    "protections": [("protection", 2, 1), ("has_protection", 2, 1), ("complex_protection", 2, 0),
                    ("complex_protection", 2, 1), ("protection_feature", 2, 1)],
    "markers": [("marker", 3, 1), ("marker_present", 3, 1)],
    "chips": [("chip", 3, 1), ("chip_present", 3, 1)],
    "action_kinds": [("action_kind", 2, 1), ("action_class", 2, 0)],
    "action_classes": [("action_class", 2, 1)],
    "history": [("done", 3, 1), ("done_target", 4, 1)],
}


@pytest.fixture(scope="module", params=GAMES)
def game_rules(request):
    game = request.param
    return game, load_vocabulary(game), rule_terms(game)


def test_every_feature_the_rules_name_is_declared(game_rules):
    game, vocabulary, terms = game_rules
    used = set().union(*(at(terms, *p) for p in FEATURE_POSITIONS))
    used |= {w for t in terms if t.name == "effect" and len(t.args) == 4 and isinstance(t.args[2], Term)
             and t.args[2].name in ("grant", "remove") for w in constants(t.args[2].args[0])}
    undeclared = {str(u) for u in used} - set(vocabulary.features) - {"type", "all_abilities"}
    assert not undeclared, f"{game}: features the rules use but the vocabulary does not declare: {sorted(undeclared)}"


def param_reads(terms: list[Term]) -> list[Term]:
    return [t for t in terms if (t.name, len(t.args)) in PARAM_READERS]


def test_every_feature_parameter_the_rules_read_is_declared_with_its_type(game_rules):
    game, vocabulary, terms = game_rules
    for t in param_reads(terms):
        features = constants(t.args[1]) or list(vocabulary.features)  # a variable: any feature
        for key in constants(t.args[2]):
            having = [f for f in features if key in vocabulary.features[f].params]
            assert having, f"{game}: the rules read parameter {key!r} of {features}, which declare no such parameter"
            for value in constants(t.args[3]):
                if isinstance(value, str) and value == "true":
                    value = True  # a bool parameter reaches the rules as the constant true
                assert any(vocabulary.accepts(vocabulary.features[f].params[key].type, value) for f in having), \
                    f"{game}: the rules compare parameter {key!r} with {value!r}, which its type does not admit"


def test_every_property_the_rules_read_is_declared_and_its_values_typed(game_rules):
    game, vocabulary, terms = game_rules
    for name, arity, index in PROPERTY_POSITIONS:
        for key in at(terms, name, arity, index):
            assert key in vocabulary.properties, f"{game}: the rules read property {key!r}, not declared"
    for t in terms:
        if t.name in ("property", "has_property") and len(t.args) == 3:
            for key in constants(t.args[1]):
                for value in constants(t.args[2]):
                    assert vocabulary.accepts(vocabulary.properties[key].type, value), \
                        f"{game}: the rules compare {key!r} with {value!r}, which its type does not admit"


@pytest.mark.parametrize("section", sorted(SECTION_POSITIONS))
def test_every_word_the_rules_use_is_declared(game_rules, section):
    game, vocabulary, terms = game_rules
    declared = set(getattr(vocabulary, section))
    used = set().union(*(at(terms, *p) for p in SECTION_POSITIONS[section]))
    if section == "action_kinds":
        used -= set(vocabulary.declarable_features)
    if ANY_WORD in declared:
        return
    assert not used - declared, f"{game}: {section} the rules use but the vocabulary does not declare: " \
                                f"{sorted(used - declared)}"


def test_actions_are_the_rules_action_terms(game_rules):
    game, vocabulary, terms = game_rules
    judged = {(a.name, len(a.args)) for t in terms if t.name == "candidate" and len(t.args) == 3
              for a in [t.args[1]] if isinstance(a, Term)}
    declared = {(name, len(action.args)) for name, action in vocabulary.actions.items()}
    assert judged == declared, f"{game}: actions judged {sorted(judged - declared)}, declared {sorted(declared - judged)}"


def test_action_classes_mean_what_the_rules_say(game_rules):
    game, vocabulary, terms = game_rules
    in_rules = {(t.args[0], t.args[1]) for t in terms if t.name == "action_class" and len(t.args) == 2
                and isinstance(t.args[0], str) and isinstance(t.args[1], str)}
    declared = {(kind.name, c) for kind in vocabulary.action_kinds.values() for c in kind.classes}
    assert in_rules == declared


def test_complex_protections_are_the_rules_ones(game_rules):
    game, vocabulary, terms = game_rules
    in_rules = {(t.args[0], t.args[1]) for t in terms if t.name == "complex_protection" and len(t.args) == 2
                and isinstance(t.args[0], str) and isinstance(t.args[1], str)}
    declared = {(p.name, k) for p in vocabulary.protections.values() for k in p.covers}
    assert in_rules == declared


def test_conditions_are_the_named_conditions_of_the_rules(game_rules):
    game, vocabulary, terms = game_rules
    named = at(terms, "violation", 4, 3) | at(terms, "permit", 2, 1)
    assert named == set(vocabulary.conditions)
    # ... and each belongs to the kinds of the clause that names it
    for t in terms:
        if t.name == "violation" and len(t.args) == 4 and isinstance(t.args[1], Term):
            for condition in constants(t.args[3]):
                kind = t.args[1].name
                assert kind in vocabulary.conditions[condition].of, f"{condition} is a condition of {kind}"


def test_effect_words_of_the_rules_fit_a_declared_form(game_rules):
    game, vocabulary, terms = game_rules
    for t in terms:
        if t.name != "effect" or len(t.args) != 4 or not isinstance(t.args[2], Term):
            continue
        kind = t.args[2]
        assert kind.name in vocabulary.effects, f"{game}: the rules read effects of kind {kind.name!r}"
        forms = vocabulary.effects[kind.name].forms
        for what in constants(kind.args[0]):
            fitting = [f for f in forms if vocabulary.accepts(f.what, what)
                       and (f.value is None) == (len(kind.args) == 1)]
            assert fitting, f"{game}: the rules read {kind.name}({what}, ...), which no declared form takes"
        if len(kind.args) == 2:
            for value in constants(kind.args[1]):
                assert any(f.value is not None and vocabulary.accepts(f.value, value) for f in forms), \
                    f"{game}: the rules read {kind.name}(_, {value}), which no declared form takes"


def test_game_data_words_are_declared(game_rules):
    game, vocabulary, _ = game_rules
    data = load_game(game)
    assert set(data.active_while_hidden) <= set(vocabulary.features)
    assert set(data.public_when_hidden) <= set(vocabulary.properties)


def test_targeted_kinds_are_those_the_rules_give_a_target(game_rules):
    game, vocabulary, terms = game_rules
    targeted = vocabulary.types.get("targeted_action_kind")
    if targeted is None:
        pytest.skip(f"{game} declares no targeted_action_kind")
    aimed = {t.args[0].name for t in terms if t.name == "action_target" and len(t.args) == 2
             and isinstance(t.args[0], Term)}
    # A use of a composed ability has the ability as its kind (kind_from): a prohibition names that.
    by_ability = {name for name, action in vocabulary.actions.items() if action.kind_from}
    assert set(targeted.values) == aimed - by_ability


# --------------------------------------------------------------------------
# Modelled means read by the rules


def test_modelled_words_are_read_by_the_rules(game_rules):
    game, vocabulary, terms = game_rules
    words = every_word(terms)
    reads = param_reads(terms)
    generic = {key for t in reads if t.args[1] is None for key in constants(t.args[2])}
    read = {(f, key) for t in reads for f in constants(t.args[1]) for key in constants(t.args[2])}
    # A named feature's parameter read under a variable key (power or toughness: strength_key(K)).
    any_key = {f for t in reads if t.args[2] is None for f in constants(t.args[1])}

    # A composed feature's parameters are read through its composition: the composition's own
    # (use, aim, do, ...) by abilities.lp, and a template's "$name" where the template puts it.
    through_composition = {(f.name, p) for f in vocabulary.features.values() if f.composed
                           for p in f.params if p in vocabulary.composition or f"${p}" in str(f.template)}

    def is_read(feature: str, param: str) -> bool:
        return (param in generic or (feature, param) in read or feature in any_key
                or (feature, param) in through_composition)

    problems = []
    for feature in vocabulary.features.values():
        params_read = [p for p in feature.params.values() if p.modelled and is_read(feature.name, p.name)]
        if feature.modelled and feature.name not in words and not params_read:
            problems.append(f"feature {feature.name} (neither it nor a parameter of it is read)")
        for param in feature.params.values():
            if param.modelled and not is_read(feature.name, param.name):
                problems.append(f"parameter {param.name} of {feature.name}")
    sections = {"properties": vocabulary.properties, "history": vocabulary.history,
                "protections": vocabulary.protections, "markers": vocabulary.markers,
                "action_kinds": vocabulary.action_kinds, "action_classes": vocabulary.action_classes,
                "conditions": vocabulary.conditions}
    # The history events a composed ability's trigger names are read off the history by the word
    # the card data gives (event_happened/2 in abilities.lp), and so are the markers its steps lay.
    card_data_words = set(vocabulary.types["card_trigger"].values) if "card_trigger" in vocabulary.types else set()
    for section, entries in sections.items():
        for name, entry in entries.items():
            if section == "history" and name in card_data_words:
                continue
            if getattr(entry, "modelled", True) and name != ANY_WORD and name not in words:
                problems.append(f"{section}: {name}")
    assert not problems, f"{game}: declared as modelled but not read by the rules (mark them modelled: false): " \
                         + "; ".join(problems)


def test_every_cited_clause_is_in_the_catalogue(game_rules):
    game, vocabulary, _ = game_rules
    catalogue = load_game(game).clauses
    cited: list[tuple[str, str]] = []
    for feature in vocabulary.features.values():
        cited += [(c, f"features.{feature.name}") for c in feature.clauses]
        cited += [(c, f"features.{feature.name}.params.{p.name}") for p in feature.params.values() for c in p.clauses]
        if feature.modelled:
            assert feature.clauses, f"{game}: modelled feature {feature.name} names no clause"
    for section in ("parameters", "properties", "actions", "action_kinds", "action_classes", "conditions",
                    "history", "protections", "markers", "chips", "selectors"):
        for name, entry in getattr(vocabulary, section).items():
            cited += [(c, f"{section}.{name}") for c in entry.clauses]
    for effect in vocabulary.effects.values():
        cited += [(c, f"effects.{effect.name}") for form in effect.forms for c in form.clauses]
    unknown = [f"{where}: {clause}" for clause, where in cited if clause not in catalogue]
    assert not unknown, f"{game}: clauses not in the catalogue: {unknown}"


def test_effect_kinds_are_the_cores():
    from typing import get_args

    from pybridge.input.situation import EffectKind

    for game in GAMES:
        assert set(load_vocabulary(game).effects) <= set(get_args(EffectKind))


# --------------------------------------------------------------------------
# The catalogue, examples and rulings


@pytest.mark.parametrize("game", GAMES)
def test_catalogue_cards_validate_against_the_vocabulary(game):
    vocabulary = load_vocabulary(game)
    source = f"asp/{game}/cards.yaml"
    for i, entry in enumerate(load_game(game).cards.values()):
        def fail(message, parts, name=entry["name"]):
            raise AssertionError(f"{source}: cards[{i}] ({name}): {'.'.join(map(str, parts))}: {message}")

        vocabulary.check_properties(entry.get("properties") or {}, ("properties",), fail, Context())
        vocabulary.check_features(entry.get("features") or [], ("features",), fail, Context())


def test_the_catalogue_check_can_fail():
    vocabulary = load_vocabulary("berserk")
    with pytest.raises(JudgeError, match="did you mean 'discharge'"):
        def fail(message, parts):
            raise JudgeError(message, field=".".join(map(str, parts)))
        vocabulary.check_features([{"dischrge": {"range": 1}}], ("features",), fail, Context())


def data_files() -> Iterator[Path]:
    yield from sorted((ROOT / "tests" / "rulings").rglob("*.yaml"))
    yield from sorted((ROOT / "examples").rglob("*.yaml"))


@pytest.mark.parametrize("path", list(data_files()), ids=lambda p: str(p.relative_to(ROOT)))
def test_rulings_and_examples_use_declared_words(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if "{A}" in path.read_text(encoding="utf-8"):  # a matrix template: judged with two real cards in it
        data = fill(data, {"A": "Вайл", "B": "Ассасин"})
    situation_from_data(data, source=str(path))


# --------------------------------------------------------------------------
# A misspelt word in any field is refused, naming the field and the nearest word


BASE = {
    "game": "berserk", "viewpoint": "p1",
    "turn": {"number": 3, "active": "p1", "stage": "main", "phase": "choice"},
    "players": [{"id": "p1", "first": True}, {"id": "p2"}],
    "cards": [
        {"id": "elf", "card": "Эльф-всадник", "controller": "p1", "cell": {"column": 3, "row": 1}, "arrived": 3,
         "features": ["rush", {"shot": {"range": 2, "cost": "tap"}}], "markers": {"wound": 1},
         "protections": ["poison"], "properties": {"element": "forest"}},
        {"id": "foe", "card": "Вайл", "controller": "p2", "cell": {"column": 3, "row": 1}, "arrived": 2},
        {"id": "asn", "card": "Ассасин", "controller": "p1", "cell": {"column": 2, "row": 1}, "arrived": 1,
         "remove_features": ["jump"]},
    ],
    "effects": [{"id": "e1", "target": "elf", "kind": "grant", "what": "directed_strike", "timestamp": 1},
                {"id": "e2", "target": "foe", "kind": "permit", "what": "strike_attack", "value": "once_per_turn",
                 "timestamp": 2},
                {"id": "e3", "target": "foe", "kind": "modify", "what": "strike", "value": -1, "timestamp": 3,
                 "source": "elf", "feature": "stealth"}],
    "history": [{"turn": 3, "action": "strike_attack", "actor": "foe", "target": "elf"}],
}


def refusal(change) -> JudgeError:
    data = copy.deepcopy(BASE)
    situation_from_data(copy.deepcopy(data), source="s.yaml")  # the base is fine
    change(data)
    with pytest.raises(JudgeError) as caught:
        situation_from_data(data, source="s.yaml")
    return caught.value


def setter(*path, value):
    def change(data):
        node = data
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value
    return change


def rename_key(*path, old, new):
    def change(data):
        node = data
        for part in path:
            node = node[part]
        node[new] = node.pop(old)
    return change


MISSPELT = {
    "a bare feature": (setter("cards", 0, "features", 0, value="rsh"), "cards[0].features[0]",
                       "unknown feature 'rsh'; did you mean 'rush'?"),
    "a feature with parameters": (setter("cards", 0, "features", 1, value={"shoot": {"range": 2}}),
                                  "cards[0].features[1]", "unknown feature 'shoot'; did you mean 'shot'?"),
    "a parameter name": (rename_key("cards", 0, "features", 1, "shot", old="range", new="rnage"),
                         "cards[0].features[1].shot.rnage", "did you mean 'range'?"),
    "a parameter value": (setter("cards", 0, "features", 1, "shot", "cost", value="tapp"),
                          "cards[0].features[1].shot.cost", "unknown value 'tapp'; did you mean 'tap'?"),
    "a removed feature": (setter("cards", 2, "remove_features", 0, value="jmup"), "cards[2].remove_features[0]",
                          "did you mean 'jump'?"),
    "a protection": (setter("cards", 0, "protections", 0, value="posion"), "cards[0].protections[0]",
                     "unknown protection 'posion'; did you mean 'poison'?"),
    "a marker": (rename_key("cards", 0, "markers", old="wound", new="wund"), "cards[0].markers.wund",
                 "unknown marker kind 'wund'; did you mean 'wound'?"),
    "a property key": (rename_key("cards", 0, "properties", old="element", new="elemnt"),
                       "cards[0].properties.elemnt", "unknown property 'elemnt'; did you mean 'element'?"),
    "a property value": (setter("cards", 0, "properties", "element", value="forrest"),
                         "cards[0].properties.element", "did you mean 'forest'?"),
    "an effect's what": (setter("effects", 0, "what", value="directed_strke"), "effects[0].what",
                         "unknown feature 'directed_strke'; did you mean 'directed_strike'?"),
    "an effect's condition": (setter("effects", 1, "value", value="once_per_trun"), "effects[1].value",
                              "unknown condition 'once_per_trun'; did you mean 'once_per_turn'?"),
    "an effect's numeric what": (setter("effects", 2, "what", value="strik"), "effects[2].what",
                                 "did you mean 'strike'?"),
    "an effect's feature": (setter("effects", 2, "feature", value="stelth"), "effects[2].feature",
                            "unknown feature 'stelth'; did you mean 'stealth'?"),
    "a history action": (setter("history", 0, "action", value="strike_atack"), "history[0].action",
                         "unknown history event 'strike_atack'; did you mean 'strike_attack'?"),
    "a selector condition": (setter("effects", 0, "target", value={"elemnt": "steppe"}), "effects[0].target.elemnt",
                             "unknown selector condition 'elemnt'; did you mean 'element'?"),
    "a selector value": (setter("effects", 0, "target", value={"element": "stepe"}), "effects[0].target.element",
                         "did you mean 'steppe'?"),
    "a spell's selector condition": (
        setter("cards", 1, "features", value=[{"spell": {"effect": "wound", "applies_to": {"sid": "enemies"}}}]),
        "cards[1].features[0].spell.applies_to.sid", "unknown selector condition 'sid'; did you mean 'side'?"),
}


@pytest.mark.parametrize("case", sorted(MISSPELT))
def test_a_misspelt_word_is_refused_with_the_nearest_one(case):
    change, field, words = MISSPELT[case]
    error = refusal(change)
    assert error.field == field and words in error.message, error.render()
    assert error.source == "s.yaml"


WRONG_TYPES = {
    "a shot's range as a text": (setter("cards", 0, "features", 1, "shot", "range", value="far"),
                                 "cards[0].features[1].shot.range", "expected a whole number of at least 0, got 'far'"),
    "a finishing blow's value as a text": (
        setter("cards", 1, "features", value=[{"finishing_blow": {"value": "four", "cost": "tap"}}]),
        "cards[1].features[0].finishing_blow.value", "expected a whole number of at least 0, got 'four'"),
    "a finishing blow without its value": (setter("cards", 1, "features", value=["finishing_blow"]),
                                           "cards[1].features[0]", "needs its parameter 'value'"),
    "a strike list too short": (setter("cards", 0, "properties", "strike", value=[1, 2]),
                                "cards[0].properties.strike", "expected a list of 3 whole numbers"),
    "a modifier as a text": (setter("effects", 2, "value", value="1"), "effects[2].value",
                             "expected a whole number, got '1'"),
    "a modifier on a value the rules do not add to": (setter("effects", 2, "what", value="cost"), "effects[2].what",
                                                      "'cost' is a property, but a modify effect takes"),
    "a condition of another action": (setter("effects", 1, "value", value="unpaid"), "effects[1].value",
                                      "condition 'unpaid' is not a condition of 'strike_attack'"),
    "a value where the form takes none": (setter("effects", 0, "value", value=1), "effects[0].value",
                                          "a grant effect on 'directed_strike' takes no value"),
    "a defence without its attacker": (setter("history", 0, value={"turn": 3, "action": "defend", "actor": "elf"}),
                                       "history[0]", "a defend event needs its target"),
    "a feature the catalogue card lacks": (setter("cards", 2, "remove_features", 0, value="rush"),
                                           "cards[2].remove_features[0]", "gives this card no feature 'rush'"),
    "a selector judged against a source the effect lacks": (
        setter("effects", 0, "target", value={"side": "allies"}), "effects[0].target.side", "give the effect its source"),
    "a selector effect changing what it selects by": (
        setter("effects", 0, "target", value={"feature": "directed_strike"}), "effects[0].what",
        "cannot change 'directed_strike', which a selector reads"),
    "a spell's selector as a word": (
        setter("cards", 1, "features", value=[{"spell": {"effect": "wound", "applies_to": "enemies"}}]),
        "cards[1].features[0].spell.applies_to", "expected a selector (a mapping of conditions: type,"),
    "a move with a target": (setter("history", 0, value={"turn": 3, "action": "move", "actor": "elf", "target": "foe"}),
                             "history[0].target", "a move event has no target"),
}


@pytest.mark.parametrize("case", sorted(WRONG_TYPES))
def test_a_value_of_the_wrong_type_is_refused(case):
    change, field, words = WRONG_TYPES[case]
    error = refusal(change)
    assert error.field == field and words in error.message, error.render()


def test_a_finishing_blow_given_as_text_is_no_longer_legal_against_a_big_card():
    """Issue 10: value "four" compared above every number, so the blow was legal at a 14-health card."""
    data = copy.deepcopy(BASE)
    data["cards"][2]["features"] = [{"finishing_blow": {"value": "four", "cost": "tap"}}]
    with pytest.raises(JudgeError, match="finishing_blow.value: expected a whole number"):
        situation_from_data(data, source="s.yaml")


def test_every_action_the_product_judges_and_a_move_can_be_history():
    """Issue 11: discharges, finishing blows, magic strikes, declarations (a declarable feature's
    name) and a card's move this turn are words of the history."""
    data = copy.deepcopy(BASE)
    data["history"] += [{"turn": 3, "action": kind, "actor": "elf", "target": "foe"}
                        for kind in ("shot", "discharge", "magic_strike", "finishing_blow")]
    data["history"] += [{"turn": 3, "action": "declare_trigger", "actor": "elf"},
                        {"turn": 3, "action": "poisoning", "actor": "elf"},
                        {"turn": 3, "action": "move", "actor": "asn"}]
    situation_from_data(data, source="s.yaml")


def test_a_selector_target_reaches_the_solver_as_conditions_not_a_card():
    from pybridge.ground.facts import situation_facts

    data = copy.deepcopy(BASE)
    data["effects"][2]["target"] = {"element": "forest", "side": "enemies", "other": True}
    facts = {str(f) for f in situation_facts(situation_from_data(data, source="s.yaml"))}
    assert 'selector_effect("e3",modify(strike,-1),3)' in facts
    assert {'selector("e3",element,forest)', 'selector("e3",side,enemies)', 'selector("e3",other,true)'} <= facts
    assert not any(f.startswith('effect("e3"') for f in facts)


def test_a_spells_selector_reaches_the_solver_as_one_fact_per_condition():
    from pybridge.ground.facts import situation_facts

    data = copy.deepcopy(BASE)
    data["cards"][1]["features"] = [{"spell": {"effect": "wound", "amount": 1,
                                               "applies_to": {"element": "forest", "side": "enemies"}}}]
    card = data["cards"][1]["id"]
    facts = {str(f) for f in situation_facts(situation_from_data(data, source="s.yaml"))}
    assert {f'feature_param("{card}",spell,applies_to,(element,forest))',
            f'feature_param("{card}",spell,applies_to,(side,enemies))'} <= facts


def _rule_texts(game: str) -> list[str]:
    """Every statement of a game's rules base, as clingo prints it (comments gone)."""
    texts: list[str] = []
    files = [str(p) for p in sorted((ROOT / "asp" / game).glob("*.lp"))]
    ast.parse_files(files, lambda stmt: texts.append(str(stmt)))
    return texts


@pytest.mark.parametrize("type_name, step", [("forbid_word", "forbid"), ("permit_word", "permit")])
def test_every_forbid_and_permit_word_is_acted_on_by_a_rule_or_marked_reported_only(type_name, step):
    """A word a card may write in a forbid or permit step is never silently ignored: a rule acts on it
    (it appears as forbid(W) / permit(W), as a forbid class, or in the table of kinds a forbid word bars,
    in a statement of the rules base), or the
    vocabulary lists it as reported only, and then no rule acts on it (the mark is kept honest both ways)."""
    spec = yaml.safe_load((ROOT / "asp" / "berserk" / "vocabulary.yaml").read_text(encoding="utf-8"))["types"][type_name]
    statements = "\n".join(_rule_texts("berserk"))
    tables = (("forbid_class({w})", "forbid_bars({w},", "forbid_bars_target({w},", "forbid_bars_step({w},") if step == "forbid"
              else ("permit_waives({w},", "permit_reach({w},", "permit_read({w})", "permit_against_read({w})",
                    "permit_held_read({w})"))
    acted_on = {w for w in spec["one_of"]
                if f"{step}({w})" in statements or any(t.format(w=w) in statements for t in tables)}
    reported_only = set(spec.get("reported_only") or ())
    assert not acted_on & reported_only, f"acted on by a rule yet marked reported_only: {sorted(acted_on & reported_only)}"
    assert acted_on | reported_only == set(spec["one_of"]), \
        f"neither acted on nor marked reported_only: {sorted(set(spec['one_of']) - acted_on - reported_only)}"
    assert "close_on_attack" in acted_on or step == "permit"


def test_every_attack_source_word_is_named_by_a_rule():
    """A prevention, cap or modify step's `from` word is read by a rule that names it; a word no rule
    names would be loaded and then judged as nothing (strikes_back was, until a rule read it)."""
    import re

    spec = yaml.safe_load((ROOT / "asp" / "berserk" / "vocabulary.yaml").read_text(encoding="utf-8"))["types"]
    statements = "\n".join(_rule_texts("berserk"))
    unread = [w for w in spec["attack_source"]["one_of"] if not re.search(rf"\b{w}\b", statements)]
    assert unread == [], f"attack_source words no rule names: {unread}"


def test_the_reference_page_names_the_words_only_reported():
    summaries = load_vocabulary("berserk").type_summaries
    assert "Not yet acted on by the rules" in summaries["forbid_word"] and "`strike_back`" in summaries["forbid_word"]
