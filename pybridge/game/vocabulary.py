"""A game's vocabulary: every word a situation may use, declared once.

``asp/<game>/vocabulary.yaml`` declares the game's features (with their typed
parameters), properties, effect kinds and the forms each takes, actions and
action kinds and classes, named conditions, history events, protections,
markers and chip kinds. Situation validation, the situation JSON Schema and
the reference page (``docs/vocabulary-<game>.md``) are all read off this one
declaration, so a word the rules do not know is refused with the nearest
known one, never silently judged as nothing.

The file is trusted game data (like ``game.yaml``): it is loaded once per game
and checked for its own consistency when loaded.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, cached_property
from typing import Any, Callable, Iterable, Mapping, NoReturn

from msgspec import Struct, field
from msgspec.structs import replace

from pybridge.errors import JudgeError, close_matches
from pybridge.game.cache import read_game_yaml
from pybridge.game.encodings import game_dir

FILE_NAME = "vocabulary.yaml"
# A word of the game becomes a clingo constant: a plain identifier, never the keyword `not`.
WORD = re.compile(r"[a-z][a-z0-9_]*")
CLINGO_KEYWORDS = frozenset({"not"})
# The entry of a section that admits any plain word (the rules treat every kind alike).
ANY_WORD = "*"
# Character classes refused in texts the report prints: controls (line breaks, escape codes),
# format characters (bidirectional overrides, zero-width marks) and line/paragraph separators.
UNPRINTABLE = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})

# selector: a mapping of the game's selector conditions (vocabulary `selectors:`), as an effect's
# target is written; as a feature's parameter it names the cards the feature acts on.
# steps: the ordered list of effect primitives a composed ability carries out (vocabulary
# `primitives:`), each a one-key mapping {primitive: its parameters, or its main parameter's value}.
BUILTIN_TYPES = ("int", "bool", "text", "word", "card", "player", "selector", "steps")
# Sections and derived sets of words that a value type may name.
SECTION_TYPES = ("feature", "marker", "chip", "protection", "condition", "action_kind", "action_class",
                 "property", "settable_property", "modifiable", "property_value", "history_event")


def is_word(value: Any) -> bool:
    return isinstance(value, str) and WORD.fullmatch(value) is not None and value not in CLINGO_KEYWORDS


def unprintable(text: str) -> str | None:
    """The first character a report must not print raw, named, or None."""
    for char in text:
        if unicodedata.category(char) in UNPRINTABLE:
            name = unicodedata.name(char, "")
            return f"U+{ord(char):04X}" + (f" {name}" if name else "")
    return None


def nearest(name: str, known: Iterable[str]) -> str | None:
    close = close_matches(name, sorted(known), n=1, cutoff=0.6)
    return close[0] if close else None


# --------------------------------------------------------------------------
# Declarations


class ValueType(Struct, frozen=True, dict=True):
    """A parameter's or property's type. ``kind`` is a builtin (int, bool, text, word, card,
    player), one_of, list, any, or section (a vocabulary section such as feature)."""

    kind: str
    values: tuple[Any, ...] = ()
    item: ValueType | None = None
    options: tuple[ValueType, ...] = ()
    length: int | None = None
    minimum: int | None = None
    maximum: int | None = None
    pattern: str | None = None
    # A text made of symbols (a mana cost's {2}{U}): each match of this pattern's first group is
    # one symbol, and the rules get them as facts (pybridge.facts: text_symbol, text_number).
    symbols: str | None = None
    section: str | None = None
    name: str | None = None  # the named type (types: section) it was declared as

    @cached_property
    def compiled(self) -> re.Pattern | None:
        return re.compile(self.pattern) if self.pattern else None


class Parameter(Struct, frozen=True):
    name: str
    type: ValueType
    clauses: tuple[str, ...] = ()
    summary: str = ""
    required: bool = False
    modelled: bool = True


class Feature(Struct, frozen=True):
    name: str
    clauses: tuple[str, ...]
    summary: str
    modelled: bool
    params: Mapping[str, Parameter]
    # Declared with the declare action; effects name it like an action kind (512).
    declarable: bool = False
    # Written as a composition (vocabulary `composition:`): how it is used, what it aims at, what
    # it does; it takes the composition's parameters besides its own.
    composed: bool = False
    # A keyword's composition, written once in the vocabulary: "$name" stands for the card's
    # parameter of that name (an entry whose parameter the card does not give is left out).
    template: Mapping[str, Any] | None = None

    def composition(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """The composition a card's use of this feature stands for: the template with the card's
        parameters put in, then the card's own composition parameters (a trigger the card gives
        makes a constant keyword triggered: "when it moves: attack experience 1")."""
        if not self.composed:
            return None
        result = dict(_filled(self.template or {}, params))
        own = {k: v for k, v in params.items() if k in COMPOSITION_KEYS}
        if "trigger" in own and "use" not in own and result.get("use") == "constant":
            result["use"] = "triggered"
        result.update(own)
        return result


# The parameters of a composition (vocabulary `composition:`), as a card may give them directly.
COMPOSITION_KEYS = frozenset({"use", "cost", "chips", "lives", "fast", "limit", "trigger", "may", "while",
                              "duration", "aim", "targets", "kind", "do"})
MISSING = object()  # "$name" of a parameter the card does not give: its entry is left out
DROPPED = object()  # "$name?" of such a parameter: the whole step holding it is left out


def _filled(value: Any, params: Mapping[str, Any]) -> Any:
    """``value`` with each "$name" replaced by the card's parameter. Without the parameter, the
    entry of "$name" is left out, and a step holding "$name?" is left out altogether."""
    if isinstance(value, str) and value.startswith("$"):
        name = value[1:].rstrip("?")
        return params.get(name, DROPPED if value.endswith("?") else MISSING)
    if isinstance(value, Mapping):
        out = {k: _filled(v, params) for k, v in value.items()}
        if any(v is DROPPED for v in out.values()):
            return DROPPED
        return {k: v for k, v in out.items() if v is not MISSING}
    if isinstance(value, list):
        return [v for v in (_filled(item, params) for item in value) if v is not MISSING and v is not DROPPED]
    return value


class Primitive(Struct, frozen=True):
    """An effect primitive a composed ability's steps name (vocabulary `primitives:`): one general
    family of rules citing its clause. ``main`` is the parameter a bare value stands for
    (``{wound: 2}`` is ``{wound: {amount: 2}}``)."""

    name: str
    clauses: tuple[str, ...]
    summary: str
    params: Mapping[str, Parameter]
    main: str | None = None
    # (parameter, the parameter whose word decides, the words it is taken with; None, (): it is not
    # taken at all): a step parameter the rules read on some primitives or words only (vocabulary
    # `step_params: only_with`).
    bound: tuple[tuple[str, str | None, tuple[str, ...]], ...] = ()


class Property(Struct, frozen=True):
    name: str
    type: ValueType
    clauses: tuple[str, ...]
    summary: str
    modelled: bool = True
    settable: bool = False
    modifiable: bool = False


class EffectForm(Struct, frozen=True):
    what: ValueType
    value: ValueType | None
    clauses: tuple[str, ...]
    summary: str = ""


class EffectKind(Struct, frozen=True):
    name: str
    summary: str
    forms: tuple[EffectForm, ...]


class Action(Struct, frozen=True):
    name: str
    args: tuple[tuple[str, ValueType], ...]
    kinds: tuple[str, ...]      # the kinds an action of this term may have
    kind_from: str | None        # the argument whose feature is the kind (declare)
    clauses: tuple[str, ...]
    summary: str


class ActionKind(Struct, frozen=True):
    name: str
    classes: tuple[str, ...]
    clauses: tuple[str, ...]
    summary: str


class Condition(Struct, frozen=True):
    name: str
    of: tuple[str, ...]
    clauses: tuple[str, ...]
    summary: str


class HistoryEvent(Struct, frozen=True):
    name: str
    target: str  # required | optional | none
    clauses: tuple[str, ...]
    summary: str
    modelled: bool = True
    rolls: bool = False  # the event may state the dice of the attack (model:fight-rolls)


class SelectorCondition(Struct, frozen=True):
    """A condition an effect's selector may put on the cards it reaches. ``relative``: it is
    judged against the effect's source (its side, its cell), which the effect must then name;
    ``reads_feature``: its value is a feature the cards must have."""

    name: str
    type: ValueType
    clauses: tuple[str, ...]
    summary: str
    relative: bool = False
    reads_feature: bool = False


class Word(Struct, frozen=True):
    """An entry of a plain list of kinds: action classes, protections, markers, chips."""

    name: str
    clauses: tuple[str, ...]
    summary: str
    modelled: bool = True
    covers: tuple[str, ...] = ()  # a complex protection's components (531.2)


class Vocabulary(Struct, frozen=True, dict=True):
    game: str
    types: Mapping[str, ValueType]
    type_summaries: Mapping[str, str]
    parameters: Mapping[str, Parameter]
    features: Mapping[str, Feature]
    properties: Mapping[str, Property]
    effects: Mapping[str, EffectKind]
    actions: Mapping[str, Action]
    action_kinds: Mapping[str, ActionKind]
    action_classes: Mapping[str, Word]
    conditions: Mapping[str, Condition]
    history: Mapping[str, HistoryEvent]
    protections: Mapping[str, Word]
    markers: Mapping[str, Word]
    chips: Mapping[str, Word]
    # Kinds of a player's pool (Magic: the types of mana in a mana pool): players[].pool.
    pools: Mapping[str, Word] = field(default_factory=dict)
    selectors: Mapping[str, SelectorCondition] = field(default_factory=dict)
    composition: Mapping[str, Parameter] = field(default_factory=dict)
    primitives: Mapping[str, Primitive] = field(default_factory=dict)

    # ---- derived sets of words ----------------------------------------------

    @cached_property
    def selector_features(self) -> frozenset[str]:
        """Selector conditions whose value is a feature the cards must have."""
        return frozenset(n for n, c in self.selectors.items() if c.reads_feature)

    @cached_property
    def composed_features(self) -> tuple[str, ...]:
        """Composed features: each is the kind of its uses (use(card, feature, target)) and a history
        event (a use of it by its card, maybe at a target)."""
        return tuple(sorted(n for n, f in self.features.items() if f.composed))

    @cached_property
    def declarable_features(self) -> tuple[str, ...]:
        return tuple(sorted(n for n, f in self.features.items() if f.declarable))

    @cached_property
    def numeric_features(self) -> tuple[str, ...]:
        """Declarable features with a whole-number value: what a modify effect may change."""
        return tuple(n for n in self.declarable_features
                     if "value" in self.features[n].params
                     and self.features[n].params["value"].type.kind == "int")

    def words(self, section: str) -> tuple[str, ...]:
        """The words a section type admits (``*`` for an open section)."""
        return self._words[section][0]

    def admits(self, section: str, word: Any) -> bool:
        known = self._words[section][1]
        return word in known or (ANY_WORD in known and is_word(word))

    @cached_property
    def _words(self) -> dict[str, tuple[tuple[str, ...], frozenset[str]]]:
        """Every section type's words, computed once (validation runs on every check)."""
        found = {
            "feature": tuple(self.features), "marker": tuple(self.markers), "chip": tuple(self.chips),
            "pool": tuple(self.pools),
            "protection": tuple(self.protections), "action_class": tuple(self.action_classes),
            "condition": tuple(self.conditions), "property": tuple(self.properties),
            "history_event": tuple(self.history),
            "action_kind": tuple(self.action_kinds) + self.declarable_features + self.composed_features,
            "settable_property": tuple(n for n, p in self.properties.items() if p.settable),
            "modifiable": tuple(n for n, p in self.properties.items() if p.modifiable) + self.numeric_features,
        }
        return {section: (words, frozenset(words)) for section, words in found.items()}

    def noun(self, section: str) -> str:
        return {"action_kind": "action kind", "action_class": "action class", "chip": "chip kind",
                "marker": "marker kind", "pool": "pool kind", "settable_property": "property an effect may set",
                "modifiable": "numeric value", "history_event": "history event"}.get(section, section)

    # ---- messages ------------------------------------------------------------

    def unknown(self, noun: str, name: Any, known: Iterable[str]) -> str:
        """``unknown feature 'rsh'; did you mean 'rush'?``"""
        known = sorted(k for k in known if k != ANY_WORD)
        head = f"unknown {noun} {name!r}"
        close = nearest(name, known) if isinstance(name, str) else None
        if close:
            return f"{head}; did you mean {close!r}?"
        if not known:
            return f"{head}; {self.game} declares none"
        if len(known) <= 12:
            return f"{head}; expected one of {', '.join(repr(k) for k in known)}"
        return f"{head}; the {self.game} vocabulary lists them (docs/vocabulary-{self.game}.md)"

    def describe(self, t: ValueType) -> str:
        """A type in words: ``a whole number from 1 to 3``, ``one of 'tap'``."""
        if t.name:
            return f"{t.name} ({self._describe(t)})" if t.kind in ("one_of",) else self._describe(t)
        return self._describe(t)

    def _describe(self, t: ValueType) -> str:
        bounds = ""
        if t.minimum is not None and t.maximum is not None:
            bounds = f" from {t.minimum} to {t.maximum}"
        elif t.minimum is not None:
            bounds = f" of at least {t.minimum}"
        elif t.maximum is not None:
            bounds = f" of at most {t.maximum}"
        if t.kind == "int":
            return "a whole number" + bounds
        if t.kind == "bool":
            return "true or false"
        if t.kind == "text":
            return "a text" + (f" matching {t.pattern}" if t.pattern else "")
        if t.kind == "word":
            return "a plain lowercase word"
        if t.kind == "card":
            return "the id of a card of the situation"
        if t.kind == "player":
            return "the id of a player"
        if t.kind == "selector":
            return "a selector (a mapping of conditions: " + ", ".join(self.selectors) + ")"
        if t.kind == "steps":
            return "a list of steps (each one primitive: " + ", ".join(self.primitives) + ")"
        if t.kind == "one_of":
            return "one of " + ", ".join(repr(v) for v in t.values)
        if t.kind == "list":
            size = f"{t.length} " if t.length else ""
            return f"a list of {size}{self._plural(t.item)}"
        if t.kind == "any":
            return " or ".join(self.describe(o) for o in t.options)
        if t.kind == "section":
            return {"property_value": "the value type of the property it names"}.get(
                t.section, f"a {self.noun(t.section)}")
        raise ValueError(t.kind)

    def _plural(self, t: ValueType) -> str:
        text = self.describe(t)
        for one, many in (("a whole number", "whole numbers"), ("a text", "texts"),
                          ("a plain lowercase word", "plain lowercase words")):
            if text.startswith(one):
                return many + text[len(one):]
        if text.startswith("a "):
            return text[2:] + "s"
        return text

    # ---- checking values -----------------------------------------------------

    def value_problem(self, t: ValueType, value: Any, context: Context) -> tuple[tuple, str] | None:
        """Why ``value`` is not of type ``t``: (path inside the value, message), or None."""
        kind = t.kind
        if kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                return (), f"expected {self.describe(t)}, got {shown_value(value)}"
            if (t.minimum is not None and value < t.minimum) or (t.maximum is not None and value > t.maximum):
                return (), f"expected {self.describe(t)}, got {value}"
            return None
        if kind == "bool":
            return None if isinstance(value, bool) else ((), f"expected true or false, got {shown_value(value)}")
        if kind == "text":
            if not isinstance(value, str):
                return (), f"expected a text, got {shown_value(value)}"
            bad = unprintable(value)
            if bad:
                return (), f"the text contains a control or format character ({bad}), which a report cannot print"
            if t.compiled is not None and not t.compiled.fullmatch(value):
                return (), f"expected {self.describe(t)}, got {value!r}"
            return None
        if kind == "word":
            return None if is_word(value) else ((), f"expected {self.describe(t)}, got {shown_value(value)}")
        if kind in ("card", "player"):
            if not isinstance(value, str):
                return (), f"expected {self.describe(t)}, got {shown_value(value)}"
            ids = context.cards if kind == "card" else context.players
            if ids is not None and value not in ids:
                return (), f"no {kind} with id {value!r}"
            return None
        if kind == "selector":
            return self.selector_problem(value, context)
        if kind == "steps":
            return self.steps_problem(value, context)
        if kind == "one_of":
            if isinstance(value, (str, int)) and not isinstance(value, bool) and value in t.values:
                return None
            if isinstance(value, str):
                return (), self.unknown("value", value, [str(v) for v in t.values])
            return (), f"expected {self.describe(t)}, got {shown_value(value)}"
        if kind == "list":
            if not isinstance(value, list):
                return (), f"expected {self.describe(t)}, got {shown_value(value)}"
            if t.length is not None and len(value) != t.length:
                return (), f"expected {self.describe(t)}, got {len(value)} value{'s' if len(value) != 1 else ''}"
            for i, item in enumerate(value):
                problem = self.value_problem(t.item, item, context)
                if problem:
                    return (i, *problem[0]), problem[1]
            return None
        if kind == "any":
            problems = [self.value_problem(o, value, context) for o in t.options]
            if any(p is None for p in problems):
                return None
            # One alternative of the same shape explains best (a misspelt word, a list too short).
            for option, problem in zip(t.options, problems):
                if _same_shape(option, value):
                    return problem
            return (), f"expected {self.describe(t)}, got {shown_value(value)}"
        if kind == "section":
            if t.section == "property_value":
                prop = self.properties.get(context.property or "")
                return self.value_problem(prop.type, value, context) if prop else None
            if isinstance(value, str) and self.admits(t.section, value):
                return None
            known = self.words(t.section)
            if ANY_WORD in known:
                return (), f"expected a plain lowercase word, got {shown_value(value)}"
            if isinstance(value, str):
                return (), self.unknown(self.noun(t.section), value, known)
            return (), f"expected {self.describe(t)}, got {shown_value(value)}"
        raise ValueError(kind)

    def selector_problem(self, value: Any, context: Context) -> tuple[tuple, str] | None:
        """Why ``value`` is no selector: a non-empty mapping of known conditions with values of
        their types. (A condition judged against a source is judged against the card whose
        feature it is, so it needs nothing more.)"""
        if not self.selectors:
            return (), f"{self.game} declares no selector conditions"
        if not isinstance(value, Mapping) or not value:
            return (), f"expected {self.describe(ValueType('selector'))}, got {shown_value(value)}"
        for key, item in value.items():
            condition = self.selectors.get(key)
            if condition is None:
                return (key,), self.unknown("selector condition", key, self.selectors)
            problem = self.value_problem(condition.type, item, context)
            if problem:
                return (key, *problem[0]), problem[1]
        return None

    def steps_problem(self, value: Any, context: Context) -> tuple[tuple, str] | None:
        """Why ``value`` is no list of steps: each a one-key mapping naming a known primitive, with
        known parameters of their types (or a bare value of its main parameter), the required given."""
        if not isinstance(value, list) or not value:
            return (), f"expected {self.describe(ValueType('steps'))}, got {shown_value(value)}"
        for i, step in enumerate(value):
            if isinstance(step, str):
                step = {step: None}
            if not isinstance(step, Mapping) or len(step) != 1:
                return (i,), f"a step is one primitive, as {{wound: 2}} or {{close: {{}}}}, got {shown_value(step)}"
            (name, params), = step.items()
            primitive = self.primitives.get(name)
            if primitive is None:
                return (i,), self.unknown("effect primitive", name, self.primitives)
            problem = self._primitive_problem(primitive, params, context)
            if problem:
                return (i, name, *problem[0]), problem[1]
        return None

    def _primitive_problem(self, primitive: Primitive, params: Any, context: Context) -> tuple[tuple, str] | None:
        if params is None:
            params = {}
        elif not isinstance(params, Mapping):
            if primitive.main is None:
                return (), f"the primitive {primitive.name!r} takes a mapping of parameters, got {shown_value(params)}"
            params = {primitive.main: params}
        for key, item in params.items():
            parameter = primitive.params.get(key)
            if parameter is None:
                return (key,), self.unknown(f"parameter of the primitive {primitive.name}", key, primitive.params)
            problem = self.value_problem(parameter.type, item, context)
            if problem:
                return (key, *problem[0]), problem[1]
        missing = [p.name for p in primitive.params.values() if p.required and p.name not in params]
        if missing:
            return (), f"the primitive {primitive.name!r} needs {', '.join(repr(m) for m in missing)}"
        for param, deciding, words in primitive.bound:
            if param not in params:
                continue
            if deciding is None:
                return (param,), (f"the rules do not read {param!r} on a {primitive.name} step: "
                                  f"no {primitive.name} step takes it")
            word = params.get(deciding)
            if word not in words:
                return (param,), (f"the rules do not read {param!r} on a {primitive.name} step with {deciding} "
                                  f"{word!r}: it takes it only with {', '.join(repr(w) for w in words)}")
        return None

    def accepts(self, t: ValueType, value: Any) -> bool:
        """Is ``value`` of type ``t``? (Cheap: no message is worded; card ids are not checked.)"""
        kind = t.kind
        if kind == "one_of":
            return isinstance(value, (str, int)) and not isinstance(value, bool) and value in t.values
        if kind == "section" and t.section != "property_value":
            return isinstance(value, str) and self.admits(t.section, value)
        if kind == "any":
            return any(self.accepts(o, value) for o in t.options)
        return self.value_problem(t, value, Context()) is None

    # ---- checking a card's words ---------------------------------------------

    def check_features(self, features: Any, path: tuple, fail: Fail, context: Context) -> None:
        """A card's features: each a known feature, its parameters known, typed, the
        required ones given. ``features`` is the list as written."""
        for i, entry in enumerate(features or []):
            where = (*path, i)
            if isinstance(entry, str):
                self._check_feature(entry, {}, where, where, fail, context)
            elif isinstance(entry, Mapping):
                for name, params in entry.items():
                    self._check_feature(name, params or {}, where, (*where, name), fail, context)

    def _check_feature(self, name: Any, params: Mapping[str, Any], where: tuple, inside: tuple,
                       fail: Fail, context: Context) -> None:
        feature = self.features.get(name)
        if feature is None:
            fail(self.unknown("feature", name, self.features), where)
        for key, value in params.items():
            parameter = feature.params.get(key)
            if parameter is None:
                known = list(feature.params)
                message = (self.unknown(f"parameter of {name}", key, known) if known
                           else f"feature {name!r} takes no parameters, got {key!r}")
                fail(message, (*inside, key))
            problem = self.value_problem(parameter.type, value, context)
            if problem:
                fail(problem[1], (*inside, key, *problem[0]))
        if feature.composed:
            self._check_composition(feature, params, inside, fail, context)
            return
        missing = [p.name for p in feature.params.values() if p.required and p.name not in params]
        if missing:
            fail(f"feature {name!r} needs its parameter{'s' if len(missing) > 1 else ''} "
                 + ", ".join(repr(m) for m in missing) + f" ({feature.params[missing[0]].summary.rstrip('.')})",
                 where)

    def _check_composition(self, feature: Feature, params: Mapping[str, Any], inside: tuple, fail: Fail,
                           context: Context) -> None:
        """A composed feature as the card gives it, its keyword's template filled in: each
        composition parameter of its type, use and do given."""
        composition = feature.composition(params)
        self._check_declared("composition parameter", self.composition, composition, inside, fail, context)
        missing = [p.name for p in self.composition.values() if p.required and p.name not in composition]
        if missing:
            fail(f"the composed feature {feature.name!r} needs {', '.join(repr(m) for m in missing)}"
                 f" ({self.composition[missing[0]].summary.rstrip('.')})", inside)

    def check_properties(self, properties: Mapping[str, Any], path: tuple, fail: Fail, context: Context) -> None:
        self._check_declared("property", self.properties, properties, path, fail, context)

    def _check_declared(self, what: str, declared: Mapping[str, Any], given: Mapping[str, Any], path: tuple,
                        fail: Fail, context: Context) -> None:
        """Each key of ``given`` is one ``declared`` names (``what``, for the message), its value of the
        declared type. ``fail`` raises, so an unknown key goes no further."""
        for key, value in given.items():
            entry = declared.get(key)
            if entry is None:
                fail(self.unknown(what, key, declared), (*path, key))
            problem = self.value_problem(entry.type, value, context)
            if problem:
                fail(problem[1], (*path, key, *problem[0]))

    def check_words(self, section: str, names: Iterable[Any], path: tuple, fail: Fail,
                    keyed: bool = False) -> None:
        """Protections (a list), markers or chips (mappings: ``keyed``) are known kinds."""
        for i, name in enumerate(names):
            if not self.admits(section, name):
                fail(self.unknown(self.noun(section), name, self.words(section)), (*path, name if keyed else i))

    def check_effect(self, kind: str, what: str, value: Any, path: tuple, fail: Fail, context: Context) -> None:
        """An effect's what and value fit one of the forms its kind takes in this game."""
        effect = self.effects.get(kind)
        if effect is None:
            fail(self.unknown("effect kind", kind, self.effects), (*path, "kind"))
        matching = [f for f in effect.forms if self.accepts(f.what, what)]
        if not matching:
            fail(self._unknown_what(kind, what, effect.forms), (*path, "what"))
        with_value = [f for f in matching if f.value is not None]
        if value is None:
            if not any(f.value is None for f in matching):
                fail(f"{_article(kind)} {kind} effect on {what!r} needs a value: "
                     f"{self.describe(with_value[0].value)}", path)
            return
        if not with_value:
            fail(f"{_article(kind)} {kind} effect on {what!r} takes no value, got {shown_value(value)}", (*path, "value"))
        problems = []
        for form in with_value:
            problem = self.value_problem(form.value, value, context.about(what))
            if problem is None and form.value.kind == "section" and form.value.section == "condition":
                problem = self._condition_problem(what, value)
            if problem is None:
                return
            problems.append(problem)
        fail(problems[0][1], (*path, "value", *problems[0][0]))

    def _unknown_what(self, kind: str, what: str, forms: Iterable[EffectForm]) -> str:
        known: list[str] = []
        nouns: list[str] = []
        for form in forms:
            t = form.what
            if t.kind == "one_of":
                known.extend(str(v) for v in t.values)
            elif t.kind == "section":
                known.extend(self.words(t.section))
                noun = self.noun(t.section)
                if noun not in nouns:
                    nouns.append(noun)
        known = sorted(set(known))
        role = self.known_as(what)
        if role:  # a word of the game, only not one this kind of effect takes
            listed = (", ".join(repr(k) for k in known) if len(known) <= 12
                      else " or ".join(f"{_article(n)} {n}" for n in nouns))
            return f"{what!r} is {role}, but {_article(kind)} {kind} effect takes {listed}"
        noun = " or ".join(nouns) if nouns else "word"
        return self.unknown(noun, what, known) + f" (for {_article(kind)} {kind} effect)"

    def known_as(self, word: str) -> str | None:
        """What a word of this game is, in words (``a property``), or None."""
        for section, noun in (("features", "a feature"), ("properties", "a property"),
                              ("action_kinds", "an action kind"), ("action_classes", "an action class"),
                              ("conditions", "a condition"), ("protections", "a protection"),
                              ("markers", "a marker kind")):
            if word in getattr(self, section):
                return noun
        return None

    def condition_of(self, condition: str, what: str) -> bool:
        """Is the named condition one of the action kind ``what`` (or of a kind of the class ``what``)?"""
        of = self.conditions[condition].of
        kinds = [what] + [k for k, d in self.action_kinds.items() if what in d.classes]
        return any(k in of or ("declare" in of and k in self.declarable_features) for k in kinds)

    def _condition_problem(self, what: str, condition: str) -> tuple[tuple, str] | None:
        if self.condition_of(condition, what):
            return None
        belongs = [c for c in self.conditions if self.condition_of(c, what)]
        hint = (f"; the conditions of {what!r}: {', '.join(repr(c) for c in belongs)}" if belongs
                else f"; no named condition belongs to {what!r}")
        return (), f"condition {condition!r} is not a condition of {what!r}{hint}"

    def check_selector(self, selector: Mapping[str, Any], has_source: bool, path: tuple, fail: Fail,
                       context: Context) -> None:
        """An effect's selector: known conditions with values of their types; one judged against
        the effect's source needs the effect to name its source."""
        known = self.selectors
        if not known:
            fail(f"{self.game} effects name their card by id; this game declares no selectors", path)
        for key, value in selector.items():
            condition = known.get(key)
            if condition is None:
                fail(self.unknown("selector condition", key, known), (*path, key))
            problem = self.value_problem(condition.type, value, context)
            if problem:
                fail(problem[1], (*path, key, *problem[0]))
            if condition.relative and not has_source:
                fail(f"the selector condition {key!r} is judged against the effect's source "
                     f"({condition.summary.rstrip('.')}); give the effect its source", (*path, key))

    def history_event(self, action: str) -> HistoryEvent | None:
        """The declared event, or for a declarable feature (its declaration) an event of its kind."""
        event = self.history.get(action)
        if event is None and action in self.declarable_features:
            feature = self.features[action]
            return HistoryEvent(action, "none", feature.clauses, f"Its card declared {action} (a declarable feature).")
        if event is None and action in self.composed_features:
            feature = self.features[action]
            return HistoryEvent(action, "optional", feature.clauses, f"Its card used {action} (a composed ability).")
        return event

    def check_event(self, action: str, has_target: bool, path: tuple, fail: Fail, *, has_rolls: bool = False) -> None:
        event = self.history_event(action)
        if event is None:
            fail(self.unknown("history event", action, [*self.history, *self.declarable_features, *self.composed_features]),
                 (*path, "action"))
        if has_rolls and event.rolls and not has_target:
            fail(f"the rolls of {_article(action)} {action} event belong to its target: give the target", path)
        if has_rolls and not event.rolls:
            rolling = sorted(n for n, e in self.history.items() if e.rolls)
            fail(f"{_article(action)} {action} event states no die rolls; only "
                 f"{', '.join(rolling) or 'no event'} may", (*path, "rolls"))
        if event.target == "required" and not has_target:
            fail(f"{_article(action)} {action} event needs its target ({event.summary.rstrip('.')})", path)
        if event.target == "none" and has_target:
            fail(f"{_article(action)} {action} event has no target", (*path, "target"))


Fail = Callable[[str, tuple], NoReturn]  # raises the caller's JudgeError, naming the field


class Context(Struct, frozen=True):
    """What a value may refer to: the situation's card and player ids (None: unchecked,
    e.g. in the catalogue), and for a set effect the property it sets."""

    cards: frozenset[str] | None = None
    players: frozenset[str] | None = None
    property: str | None = None

    def about(self, property_name: str) -> Context:
        return Context(self.cards, self.players, property_name)


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def shown_value(value: Any) -> str:
    """A value as an error message shows it (what it got)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing (null)"
    if isinstance(value, dict):  # never repr: nested data may be deep
        return f"a mapping of {len(value)} entr{'ies' if len(value) != 1 else 'y'}"
    if isinstance(value, list):
        return f"a list of {len(value)} value{'s' if len(value) != 1 else ''}"
    if isinstance(value, float):
        return f"the decimal number {value!r}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _same_shape(t: ValueType, value: Any) -> bool:
    if t.kind == "list":
        return isinstance(value, list)
    if t.kind == "selector":
        return isinstance(value, Mapping)
    if t.kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if t.kind in ("one_of", "word", "text", "section", "card", "player"):
        return isinstance(value, str)
    return False


# --------------------------------------------------------------------------
# Loading


class _Reader:
    """Reads vocabulary.yaml, naming the entry of any mistake in it."""

    def __init__(self, game: str, data: Mapping[str, Any]) -> None:
        self.game = game
        self.data = data
        self.type_specs: Mapping[str, Any] = data.get("types") or {}
        self.types: dict[str, ValueType] = {}

    def fail(self, message: str, where: str) -> None:
        raise JudgeError(message, source=f"asp/{self.game}/{FILE_NAME}", field=where)

    def clauses(self, spec: Mapping[str, Any]) -> tuple[str, ...]:
        value = spec.get("clause")
        if value is None:
            return ()
        return (str(value),) if isinstance(value, str) else tuple(str(v) for v in value)

    def named(self, name: str, where: str, seen: tuple[str, ...] = ()) -> ValueType:
        if name in self.types:
            return self.types[name]
        if name in seen:
            self.fail(f"type {name!r} refers to itself", where)
        spec = self.type_specs[name]
        t = self.value_type(spec, f"types.{name}", (*seen, name))
        t = replace(t, name=name)
        self.types[name] = t
        return t

    def type_summary(self, name: str, spec: Mapping[str, Any]) -> str:
        """A named type's summary, naming its words the rules report but do not act on yet (`reported_only`)."""
        summary = str(spec.get("summary", ""))
        reported = tuple(spec.get("reported_only") or ())
        if not reported:
            return summary
        unknown = [w for w in reported if w not in tuple(spec.get("one_of") or ())]
        if unknown:
            self.fail(f"reported_only names {unknown[0]!r}, which is not one of its words", f"types.{name}")
        return (summary + " Not yet acted on by the rules (a use reports them, no verdict rests on them): "
                + ", ".join(f"`{w}`" for w in reported) + ".")

    def value_type(self, spec: Any, where: str, seen: tuple[str, ...] = ()) -> ValueType:
        if isinstance(spec, str):
            if spec in BUILTIN_TYPES:
                return ValueType(spec)
            if spec in SECTION_TYPES:
                return ValueType("section", section=spec)
            if spec in self.type_specs:
                return self.named(spec, where, seen)
            self.fail(f"unknown type {spec!r}", where)
        if not isinstance(spec, Mapping):
            self.fail(f"a type is a name or a mapping, got {spec!r}", where)
        bounds = {"minimum": spec.get("min"), "maximum": spec.get("max")}
        if "one_of" in spec:
            values = tuple(spec["one_of"])
            for v in values:
                if not isinstance(v, (str, int)) or isinstance(v, bool):
                    self.fail(f"one_of takes words, texts or numbers, got {v!r}", where)
                if isinstance(v, str) and v in CLINGO_KEYWORDS:
                    self.fail(f"{v!r} is a clingo keyword and cannot be a word of the game", where)
            return ValueType("one_of", values=values)
        if "list_of" in spec:
            item = self.value_type(spec["list_of"], where, seen)
            if bounds["minimum"] is not None or bounds["maximum"] is not None:
                item = replace(item, **{k: v for k, v in bounds.items() if v is not None})
            return ValueType("list", item=item, length=spec.get("length"))
        if "any_of" in spec:
            options = []
            for o in spec["any_of"]:
                option = self.value_type(o, where, seen)
                if option.kind == "int" and (bounds["minimum"] is not None or bounds["maximum"] is not None):
                    option = replace(option, **bounds)
                options.append(option)
            return ValueType("any", options=tuple(options))
        if "text" in spec:
            pattern = (spec.get("text") or {}).get("pattern")
            symbols = (spec.get("text") or {}).get("symbols")
            for regex in (pattern, symbols):
                if regex:
                    try:
                        re.compile(regex)
                    except re.error as exc:
                        self.fail(f"bad pattern: {exc}", where)
            if symbols and re.compile(symbols).groups != 1:
                self.fail("a symbols pattern has exactly one group: the symbol", where)
            return ValueType("text", pattern=pattern, symbols=symbols)
        if "type" in spec:
            return self.value_type(spec["type"], where, seen)
        self.fail(f"a type mapping needs one_of, list_of, any_of or text, got {sorted(spec)}", where)
        raise AssertionError  # unreachable

    def bounded(self, t: ValueType, spec: Mapping[str, Any]) -> ValueType:
        """``min``/``max`` beside a parameter's type bound its whole numbers."""
        if spec.get("min") is None and spec.get("max") is None:
            return t
        bounds = {"minimum": spec.get("min"), "maximum": spec.get("max")}
        if t.kind == "int":
            return replace(t, **bounds, name=None)
        if t.kind == "list" and t.item and t.item.kind == "int":
            return replace(t, item=replace(t.item, **bounds), name=None)
        return t

    def parameter(self, name: str, spec: Mapping[str, Any], where: str, shared: Parameter | None) -> Parameter:
        """A feature's parameter; without a type of its own it is the shared one of that name
        (its type, clause, summary and modelled flag), possibly more tightly bounded."""
        spec = spec or {}
        inherited = shared if "type" not in spec else None
        if "type" not in spec and inherited is None:
            self.fail(f"parameter {name!r} has no type and no shared declaration under parameters:", where)
        t = inherited.type if inherited else self.value_type(spec["type"], where)
        return Parameter(
            name=name, type=self.bounded(t, spec),
            clauses=self.clauses(spec) or (inherited.clauses if inherited else ()),
            summary=str(spec.get("summary") or (inherited.summary if inherited else "")),
            required=bool(spec.get("required", False)),
            modelled=bool(spec.get("modelled", inherited.modelled if inherited else True)),
        )

    def step_params(self, specs: Mapping[str, Any]) -> tuple[dict[str, Parameter], dict[str, Mapping[str, Any]]]:
        """The parameters every step takes, and, per parameter the rules read on some primitives only,
        those primitives (`only_with`: primitive -> `all`, or {its parameter: the words it is read
        with}; a primitive not named does not take it). Its summary says so, as the vocabulary
        reference shows it."""
        params, only_with = {}, {}
        for p, ps in specs.items():
            parameter = self.parameter(str(p), ps, f"step_params.{p}", None)
            bound = (ps or {}).get("only_with") or {}
            if not isinstance(bound, Mapping) or not all(
                    w == "all" or (isinstance(w, Mapping) and len(w) == 1 and isinstance(next(iter(w.values())), list))
                    for w in bound.values()):
                self.fail("only_with maps a primitive to `all` or to {one of its parameters: the words it is read "
                          "with}", f"step_params.{p}.only_with")
            if bound:
                only_with[str(p)] = bound
                every = [n for n, words in bound.items() if words == "all"]
                parts = [f"on {', '.join(every)} steps"] if every else []
                parts += [f"on {n} steps only with {k} {', '.join(f'`{w}`' for w in ws)}"
                          for n, words in bound.items() if words != "all" for k, ws in words.items()]
                said = "; ".join(parts)
                parameter = replace(parameter, summary=f"{parameter.summary} The rules read it {said}; "
                                                       "no other step takes it.")
            params[str(p)] = parameter
        return params, only_with

    def bound_by(self, param: str, words: Mapping[str, list] | None, primitive: str,
                 params: Mapping[str, Parameter]) -> tuple[str, str | None, tuple[str, ...]]:
        """How a primitive takes a step parameter `only_with` names: (the parameter, the primitive's
        parameter whose word decides, those words); (param, None, ()) where it does not take it."""
        if words is None:
            return param, None, ()
        (deciding, taken), = words.items()
        if deciding not in params:
            self.fail(f"only_with names {deciding!r}, no parameter of the primitive {primitive!r}",
                      f"step_params.{param}.only_with.{primitive}")
        return param, str(deciding), tuple(map(str, taken))

    def word_section(self, key: str) -> dict[str, Word]:
        return {str(name): Word(str(name), self.clauses(spec or {}), str((spec or {}).get("summary", "")),
                                bool((spec or {}).get("modelled", True)), tuple((spec or {}).get("covers", ())))
                for name, spec in (self.data.get(key) or {}).items()}

    def read(self) -> Vocabulary:
        d = self.data
        if d.get("game") != self.game:
            self.fail(f"declares game {d.get('game')!r}, expected {self.game!r}", "game")
        for name in self.type_specs:
            self.named(name, f"types.{name}")
        parameters = {
            str(n): self.parameter(str(n), s, f"parameters.{n}", None) for n, s in (d.get("parameters") or {}).items()
        }
        composition = {str(p): self.parameter(str(p), ps, f"composition.{p}", parameters.get(str(p)))
                       for p, ps in (d.get("composition") or {}).items()}
        features = {}
        for name, spec in (d.get("features") or {}).items():
            spec = spec or {}
            composed = bool(spec.get("composed", False))
            if composed and not composition:
                self.fail("a composed feature needs the composition: section", f"features.{name}.composed")
            params = {str(p): self.parameter(str(p), ps, f"features.{name}.params.{p}", parameters.get(str(p)))
                      for p, ps in (spec.get("params") or {}).items()}
            if composed:
                params = {**composition, **params}
            template = spec.get("template")
            if template is not None and (not composed or not isinstance(template, Mapping)):
                self.fail("a template is a mapping, on a composed feature", f"features.{name}.template")
            features[str(name)] = Feature(str(name), self.clauses(spec), str(spec.get("summary", "")),
                                          bool(spec.get("modelled", True)), params, bool(spec.get("declarable", False)),
                                          composed, template)
        step_params, only_with = self.step_params(d.get("step_params") or {})
        primitives = {}
        for name, spec in (d.get("primitives") or {}).items():
            params = {str(p): self.parameter(str(p), ps, f"primitives.{name}.params.{p}", None)
                      for p, ps in ((spec or {}).get("params") or {}).items()}
            params = {**params, **{k: v for k, v in step_params.items() if k not in params}}
            main = spec.get("main")
            if main is not None and main not in params:
                self.fail(f"main names no parameter of the primitive: {main!r}", f"primitives.{name}.main")
            bound = tuple(self.bound_by(param, by_primitive.get(name), str(name), params)
                          for param, by_primitive in only_with.items() if by_primitive.get(name) != "all")
            primitives[str(name)] = Primitive(str(name), self.clauses(spec), str(spec.get("summary", "")), params,
                                              main, bound)
        unknown = sorted({n for by_primitive in only_with.values() for n in by_primitive} - set(primitives))
        if unknown:
            self.fail(f"only_with names no primitive: {unknown[0]!r}", "step_params")
        properties = {
            str(n): Property(str(n), self.bounded(self.value_type(s["type"], f"properties.{n}"), s), self.clauses(s),
                             str(s.get("summary", "")), bool(s.get("modelled", True)), bool(s.get("settable", False)),
                             bool(s.get("modifiable", False)))
            for n, s in (d.get("properties") or {}).items()
        }
        effects = {}
        for name, spec in (d.get("effects") or {}).items():
            forms = tuple(
                EffectForm(self.value_type(f["what"], f"effects.{name}.forms[{i}].what"),
                           self.value_type(f["value"], f"effects.{name}.forms[{i}].value") if "value" in f else None,
                           self.clauses(f), str(f.get("summary", "")))
                for i, f in enumerate(spec.get("forms") or []))
            effects[str(name)] = EffectKind(str(name), str(spec.get("summary", "")), forms)
        actions = {}
        for name, spec in (d.get("actions") or {}).items():
            args = tuple((str(role), self.value_type(t, f"actions.{name}.args.{role}"))
                         for role, t in (spec.get("args") or {}).items())
            kinds = tuple(spec.get("kinds") or ([spec["kind"]] if "kind" in spec else
                                                 [] if "kind_from" in spec else [name]))
            actions[str(name)] = Action(str(name), args, kinds, spec.get("kind_from"), self.clauses(spec),
                                        str(spec.get("summary", "")))
        action_kinds = {str(n): ActionKind(str(n), tuple(s.get("classes") or ()), self.clauses(s),
                                           str(s.get("summary", "")))
                        for n, s in (d.get("action_kinds") or {}).items()}
        conditions = {str(n): Condition(str(n), tuple(s.get("of") or ()), self.clauses(s), str(s.get("summary", "")))
                      for n, s in (d.get("conditions") or {}).items()}
        history = {}
        for n, s in (d.get("history") or {}).items():
            if s.get("target") not in ("required", "optional", "none"):
                self.fail("target must be required, optional or none", f"history.{n}.target")
            history[str(n)] = HistoryEvent(str(n), s["target"], self.clauses(s), str(s.get("summary", "")),
                                           bool(s.get("modelled", True)), bool(s.get("rolls", False)))
        selectors = {
            str(n): SelectorCondition(str(n), self.bounded(self.value_type(sp["type"], f"selectors.{n}"), sp),
                                      self.clauses(sp), str(sp.get("summary", "")), bool(sp.get("relative", False)),
                                      bool(sp.get("reads_feature", False)))
            for n, sp in (d.get("selectors") or {}).items()
        }
        vocabulary = Vocabulary(
            game=self.game, types=dict(self.types), selectors=selectors,
            type_summaries={str(n): self.type_summary(str(n), s or {}) for n, s in self.type_specs.items()},
            parameters=parameters, features=features, properties=properties, effects=effects, actions=actions,
            action_kinds=action_kinds, action_classes=self.word_section("action_classes"),
            conditions=conditions, history=history, protections=self.word_section("protections"),
            markers=self.word_section("markers"), chips=self.word_section("chips"),
            pools=self.word_section("pools"),
            composition=composition, primitives=primitives,
        )
        self.consistent(vocabulary)
        return vocabulary

    def consistent(self, v: Vocabulary) -> None:
        """Cross-references inside the file resolve, and every word can be a clingo constant."""
        names: list[tuple[str, str]] = []
        for section in ("features", "properties", "effects", "actions", "action_kinds", "conditions", "history",
                        "selectors"):
            names += [(n, f"{section}.{n}") for n in getattr(v, section)]
        for section in ("action_classes", "protections", "markers", "chips", "pools"):
            names += [(n, f"{section}.{n}") for n in getattr(v, section) if n != ANY_WORD]
        for feature in v.features.values():
            names += [(p, f"features.{feature.name}.params.{p}") for p in feature.params]
        for name, where in names:
            if not is_word(name):
                self.fail(f"{name!r} is not a plain lowercase word (or is a clingo keyword)", where)
        for kind in v.action_kinds.values():
            for c in kind.classes:
                if c not in v.action_classes:
                    self.fail(f"unknown action class {c!r}", f"action_kinds.{kind.name}.classes")
        for action in v.actions.values():
            for k in action.kinds:
                if k not in v.action_kinds:
                    self.fail(f"unknown action kind {k!r}", f"actions.{action.name}")
            if action.kind_from and action.kind_from not in dict(action.args):
                self.fail(f"kind_from names no argument: {action.kind_from!r}", f"actions.{action.name}")
        for condition in v.conditions.values():
            for k in condition.of:
                if k not in v.action_kinds and k != "declare":
                    self.fail(f"unknown action kind {k!r}", f"conditions.{condition.name}.of")
        for protection in v.protections.values():
            for k in protection.covers:
                if k not in v.protections:
                    self.fail(f"unknown protection {k!r}", f"protections.{protection.name}.covers")


@cache
def load_vocabulary(game: str) -> Vocabulary:
    """The game's vocabulary, read once per process."""
    path = game_dir(game) / FILE_NAME
    if not path.is_file():
        raise JudgeError(f"the game {game!r} has no {FILE_NAME}", source=f"asp/{game}")
    data = read_game_yaml(path, source=f"asp/{game}/{FILE_NAME}") or {}
    return _Reader(game, data).read()


# --------------------------------------------------------------------------
# JSON Schema: the words of one game, for the situation schema (pybridge/input/situation.py)


def situation_schema(v: Vocabulary) -> dict[str, Any]:
    """Constraints a situation of this game meets on top of the game-independent schema."""
    features = sorted(v.features)
    bare = [n for n in features if not any(p.required for p in v.features[n].params.values())]

    def params_schema(feature: Feature) -> dict[str, Any]:
        schema: dict[str, Any] = {
            "type": "object", "additionalProperties": False,
            "properties": {p.name: type_schema(v, p.type) for p in feature.params.values()},
        }
        required = sorted(p.name for p in feature.params.values() if p.required)
        if required:
            return {**schema, "required": required}
        return {"anyOf": [{"type": "null"}, schema]}

    feature_entry = {"anyOf": [
        {"enum": bare},
        {"type": "object", "propertyNames": {"enum": features},
         "properties": {n: params_schema(v.features[n]) for n in features}},
    ]}
    card = {
        "properties": {
            "features": {"items": feature_entry},
            "remove_features": {"items": {"enum": features}},
            "properties": {"propertyNames": {"enum": sorted(v.properties)},
                           "properties": {n: type_schema(v, p.type) for n, p in sorted(v.properties.items())}},
            "protections": {"items": words_schema(v, "protection")},
            "markers": {"propertyNames": words_schema(v, "marker")},
            "chips": {"propertyNames": words_schema(v, "chip")},
        },
    }
    forms: list[dict[str, Any]] = []
    for kind in sorted(v.effects):
        for form in v.effects[kind].forms:
            forms.extend(_form_schemas(v, kind, form))
    history = []
    events = {**{n: v.history_event(n) for n in (*v.declarable_features, *v.composed_features)}, **v.history}
    for name, event in sorted(events.items()):
        entry: dict[str, Any] = {"properties": {"action": {"const": name}}}
        if event.target == "required":
            entry["required"] = ["target"]
        elif event.target == "none":
            entry["properties"]["target"] = {"type": "null"}
        if not event.rolls:
            entry["properties"]["rolls"] = {"type": "null"}
        history.append(entry)
    effect_items: dict[str, Any] = {"anyOf": forms} if forms else False  # type: ignore[assignment]
    if forms:
        selector = {"$ref": f"#/$defs/{shared_name(v, 'selector')}"} if v.selectors else None
        target = {"anyOf": [{"type": "string"}, selector]} if selector else {"type": "string"}
        effect_items = {"allOf": [{"anyOf": forms}, {"properties": {"target": target}}]}
    return {
        "properties": {
            "players": {"items": {"properties": {"pool": {"propertyNames": words_schema(v, "pool")}}}},
            "cards": {"items": card},
            "effects": {"items": effect_items},
            "history": {"items": {"anyOf": history} if history else False},
        },
    }


def _form_schemas(v: Vocabulary, kind: str, form: EffectForm) -> list[dict[str, Any]]:
    def one(what: dict[str, Any], value: dict[str, Any]) -> dict[str, Any]:
        return {"properties": {"kind": {"const": kind}, "what": what, "value": value},
                **({"required": ["value"]} if value != {"type": "null"} else {})}

    whats = list(form.what.values) if form.what.kind == "one_of" else list(v.words(form.what.section))
    if form.value is None:
        return [one({"enum": whats}, {"type": "null"})]
    if form.value.kind == "section" and form.value.section == "property_value":
        return [one({"const": w}, type_schema(v, v.properties[w].type)) for w in whats]
    if form.value.kind == "section" and form.value.section == "condition":
        schemas = []
        for w in whats:
            fitting = sorted(n for n in v.conditions if v.condition_of(n, w))
            if fitting:
                schemas.append(one({"const": w}, {"enum": fitting}))
        return schemas
    return [one({"enum": whats}, type_schema(v, form.value))]


def words_schema(v: Vocabulary, section: str) -> dict[str, Any]:
    words = v.words(section)
    if ANY_WORD in words:
        return {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}
    return {"enum": sorted(words)}


def shared_name(v: Vocabulary, kind: str) -> str:
    """The name under the schema's $defs of a game's selector or steps schema: written once and
    referred to, since steps hold selectors and steps (inlined, set 1's compositions made the
    schema hundreds of megabytes)."""
    return f"vocabulary-{v.game}-{kind}"


def shared_schemas(v: Vocabulary) -> dict[str, Any]:
    """The schemas other parts refer to by :func:`shared_name`."""
    shared = {}
    if v.selectors:
        shared[shared_name(v, "selector")] = selector_schema(v)
    if v.primitives:
        shared[shared_name(v, "steps")] = steps_schema(v)
    return shared


def selector_schema(v: Vocabulary) -> dict[str, Any]:
    return {"type": "object", "minProperties": 1, "additionalProperties": False,
            "properties": {n: type_schema(v, c.type) for n, c in sorted(v.selectors.items())}}


def steps_schema(v: Vocabulary) -> dict[str, Any]:
    def one(primitive: Primitive) -> dict[str, Any]:
        mapping = {"type": "object", "additionalProperties": False,
                   "properties": {p.name: type_schema(v, p.type) for p in primitive.params.values()}}
        shapes = [mapping, {"type": "null"}]
        if primitive.main:
            shapes.append(type_schema(v, primitive.params[primitive.main].type))
        return {"type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": False,
                "properties": {primitive.name: {"anyOf": shapes}}}

    return {"type": "array", "minItems": 1, "items": {"anyOf": [one(p) for p in v.primitives.values()]}}


def type_schema(v: Vocabulary, t: ValueType) -> dict[str, Any]:
    kind = t.kind
    if kind == "int":
        schema: dict[str, Any] = {"type": "integer"}
        if t.minimum is not None:
            schema["minimum"] = t.minimum
        if t.maximum is not None:
            schema["maximum"] = t.maximum
        return schema
    if kind == "bool":
        return {"type": "boolean"}
    if kind == "text":
        return {"type": "string", **({"pattern": t.pattern} if t.pattern else {})}
    if kind == "word":
        return {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}
    if kind in ("card", "player"):
        return {"type": "string", "minLength": 1}
    if kind == "one_of":
        return {"enum": list(t.values)}
    if kind == "list":
        schema = {"type": "array", "items": type_schema(v, t.item)}
        if t.length is not None:
            schema.update(minItems=t.length, maxItems=t.length)
        return schema
    if kind == "any":
        return {"anyOf": [type_schema(v, o) for o in t.options]}
    if kind == "selector":
        return {"$ref": f"#/$defs/{shared_name(v, 'selector')}"}
    if kind == "steps":
        return {"$ref": f"#/$defs/{shared_name(v, 'steps')}"}
    if t.section == "property_value":
        return {}
    return words_schema(v, t.section)


# --------------------------------------------------------------------------
# The reference page (docs/vocabulary-<game>.md)


def _template_text(template: Mapping[str, Any]) -> str:
    """A template as one line of flow YAML."""
    def text(value: Any) -> str:
        if isinstance(value, Mapping):
            return "{" + ", ".join(f"{k}: {text(v)}" for k, v in value.items()) + "}"
        if isinstance(value, list):
            return "[" + ", ".join(text(v) for v in value) + "]"
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)
    return text(template)


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _clauses(clauses: Iterable[str]) -> str:
    return ", ".join(f"`{c}`" for c in clauses) or "—"


def _modelled(flag: bool) -> str:
    return "yes" if flag else "**not yet**"


class _Page:
    """A Markdown page being written: lines, and tables of cells."""

    def __init__(self, v: Vocabulary) -> None:
        self.v = v
        self.out: list[str] = []

    def add(self, line: str = "") -> None:
        self.out.append(line)

    def heading(self, text: str) -> None:
        self.add(f"## {text}")
        self.add()

    def table(self, header: list[str], rows: list[list[Any]]) -> None:
        self.add("| " + " | ".join(header) + " |")
        self.add("|" + "---|" * len(header))
        for row in rows:
            self.add("| " + " | ".join(_cell(c) for c in row) + " |")
        self.add()

    def kind_of(self, t: ValueType) -> str:
        return f"`{t.name}`" if t.name else self.v.describe(t)


def reference_page(v: Vocabulary, title: str) -> str:
    """The reference page of a game's vocabulary, in Markdown (generated, never edited)."""
    page = _Page(v)
    page.add(f"# {title}: vocabulary")
    page.add()
    page.add(f"Every word a situation of `{v.game}` may use, with its type, the clause it comes from and one "
             f"sentence. Generated from `asp/{v.game}/{FILE_NAME}` by `ccg-judge vocabulary -o docs`; "
             "do not edit by hand (a test compares this page with the data).")
    page.add()
    page.add("A word marked **not yet** is accepted, so that card facts can be written down, but the rules base "
             "does not act on it yet. Any other word is refused with the nearest known one.")
    page.add()
    for section in (_features_section, _composition_section, _properties_section, _effects_section,
                    _selectors_section, _actions_section, _conditions_section, _words_sections, _types_section):
        section(page)
    return "\n".join(page.out).rstrip("\n") + "\n"


def _composition_section(page: _Page) -> None:
    """The composition's parameters, the keywords' templates and every effect primitive."""
    v = page.v
    if not v.composition:
        return
    page.heading("Composed abilities")
    page.add("A feature marked *composed* is written as a composition: how it is used, what it may aim at and "
             "what it does, each word one family of rules with its clause (`asp/" + v.game + "/abilities.lp`, "
             "`ability_conditions.lp`, `ability_steps.lp`, `selectors.lp`). A keyword's composition is written "
             "once as its `template` (\"$name\" stands for the card's parameter); a card's own text gives the "
             "parameters below directly.")
    page.add()
    page.table(["parameter", "type", "clause", "meaning"],
               [[f"`{p.name}`{' (required)' if p.required else ''}", page.kind_of(p.type), _clauses(p.clauses),
                 p.summary] for p in v.composition.values()])
    templates = [(n, f) for n, f in sorted(v.features.items()) if f.template is not None]
    if templates:
        page.add("Keywords written once as templates:")
        page.add()
        page.table(["feature", "template"], [[f"`{n}`", f"`{_template_text(f.template)}`"] for n, f in templates])
    shared = [p for p in next(iter(v.primitives.values())).params.values()
              if all(p.name in q.params for q in v.primitives.values())]
    page.add("### Effect primitives")
    page.add()
    page.add("A step is one primitive: `{wound: 2}` (its main parameter) or `{wound: {amount: 2, as: shot}}`. "
             "Every step also takes: " + "; ".join(
                 f"`{p.name}` ({page.kind_of(p.type)}, {_clauses(p.clauses)}): {p.summary}" for p in shared) + ".")
    page.add()
    rows = []
    for name, prim in v.primitives.items():
        params = "; ".join(f"`{p.name}`{' (main)' if p.name == prim.main else ''}"
                           f"{' (required)' if p.required else ''}: {page.kind_of(p.type)}"
                           for p in prim.params.values() if p not in shared) or "—"
        rows.append([f"`{name}`", params, _clauses(prim.clauses), prim.summary])
    page.table(["primitive", "parameters", "clause", "meaning"], rows)


def _features_section(page: _Page) -> None:
    v = page.v
    page.heading("Features")
    rows = []
    for name, f in sorted(v.features.items()):
        params = "; ".join(
            f"`{p.name}`{' (required)' if p.required else ''}: {page.kind_of(p.type)}"
            + ("" if p.modelled else " — not yet")
            for p in f.params.values()) or "—"
        summary = f.summary + (" Declared with `declare`; effects name it as an action kind." if f.declarable else "")
        if f.composed:
            summary += " Composed (see Composed abilities)."
            params = "; ".join(f"`{p.name}`: {page.kind_of(p.type)}" for p in f.params.values()
                               if p.name not in v.composition) or "the composition's"
        rows.append([f"`{name}`", params, _clauses(f.clauses), _modelled(f.modelled), summary])
    page.table(["feature", "parameters", "clause", "modelled", "meaning"], rows)
    if v.parameters:
        page.add("### Parameters the rules read on any feature")
        page.add()
        page.table(["parameter", "type", "clause", "meaning"],
                   [[f"`{p.name}`", page.kind_of(p.type), _clauses(p.clauses),
                     p.summary + ("" if p.modelled else " (not yet)")] for p in v.parameters.values()])


def _properties_section(page: _Page) -> None:
    page.heading("Properties")
    rows = []
    for name, p in sorted(page.v.properties.items()):
        effects = ", ".join(e for e, flag in (("set", p.settable), ("modify", p.modifiable)) if flag) or "—"
        rows.append([f"`{name}`", page.kind_of(p.type), effects, _clauses(p.clauses), _modelled(p.modelled), p.summary])
    page.table(["property", "value", "effects", "clause", "modelled", "meaning"], rows)


def _effects_section(page: _Page) -> None:
    page.heading("Effects")
    page.add("An effect names a `kind`, `what` it is about and, for some forms, a `value`.")
    page.add()
    rows = []
    for name, e in page.v.effects.items():
        for form in e.forms:
            value = "—" if form.value is None else page.kind_of(form.value)
            rows.append([f"`{name}`", page.kind_of(form.what), value, _clauses(form.clauses), form.summary or e.summary])
    page.table(["kind", "what", "value", "clause", "meaning"], rows)


def _selectors_section(page: _Page) -> None:
    v = page.v
    page.heading("Selectors")
    if not v.selectors:
        page.add("None: an effect names its card by id.")
        page.add()
        return
    page.add("An effect's `target` is a card id, or a selector: a mapping of these conditions. The effect "
             "reaches every card in play that meets all of them, as the card is now (after replacement, "
             "108.1); a condition marked *source* is judged against the effect's `source`, which the effect "
             "must then give. A selector effect may not change what a selector of the situation reads.")
    page.add()
    page.table(["condition", "value", "source", "clause", "meaning"],
               [[f"`{n}`", page.kind_of(c.type), "yes" if c.relative else "—", _clauses(c.clauses), c.summary]
                for n, c in v.selectors.items()])


def _actions_section(page: _Page) -> None:
    v = page.v
    page.heading("Actions")
    rows = []
    for name, a in sorted(v.actions.items()):
        args = ", ".join(f"{role}: {page.kind_of(t)}" for role, t in a.args)
        kind = f"the `{a.kind_from}` argument" if a.kind_from else ", ".join(f"`{k}`" for k in a.kinds)
        rows.append([f"`{name}({', '.join(role for role, _ in a.args)})`", args, kind, _clauses(a.clauses), a.summary])
    page.table(["action", "arguments", "kind", "clause", "meaning"], rows)
    page.heading("Action kinds")
    page.table(["kind", "classes", "clause", "meaning"],
               [[f"`{n}`", ", ".join(f"`{c}`" for c in k.classes) or "—", _clauses(k.clauses), k.summary]
                for n, k in sorted(v.action_kinds.items())])
    if v.declarable_features:
        page.add("Declarable features are action kinds too: " + ", ".join(f"`{f}`" for f in v.declarable_features) + ".")
        page.add()


def _conditions_section(page: _Page) -> None:
    v = page.v
    page.heading("Named conditions")
    if v.conditions:
        page.add("A `permit` effect may name one of these to lift only that condition of a clause (the axe rule).")
        page.add()
        page.table(["condition", "of", "clause", "meaning"],
                   [[f"`{n}`", ", ".join(f"`{k}`" for k in c.of), _clauses(c.clauses), c.summary]
                    for n, c in v.conditions.items()])
    else:
        page.add("None.")
        page.add()
    page.heading("History events")
    page.table(["event", "target", "rolls", "clause", "modelled", "meaning"],
               [[f"`{n}`", e.target, "may state" if e.rolls else "—", _clauses(e.clauses), _modelled(e.modelled),
                 e.summary] for n, e in v.history.items()])
    if v.declarable_features:
        page.add("A declarable feature is an event too (its declaration, no target): "
                 + ", ".join(f"`{f}`" for f in v.declarable_features) + ".")
        page.add()


def _words_sections(page: _Page) -> None:
    v = page.v
    sections = [("Action classes", "class", v.action_classes), ("Protections", "protection", v.protections),
                ("Markers", "marker", v.markers), ("Chips", "chip", v.chips),
                ("Pools", "pool kind", v.pools)]
    for heading, noun, entries in sections:
        page.heading(heading)
        if not entries:
            page.add("None.")
            page.add()
            continue
        rows = []
        for n, w in entries.items():
            name = "any plain word" if n == ANY_WORD else f"`{n}`"
            covers = ", ".join(f"`{c}`" for c in w.covers)
            rows.append([name, _clauses(w.clauses), w.summary + (f" Covers {covers}." if covers else "")])
        page.table([noun, "clause", "meaning"], rows)


def _types_section(page: _Page) -> None:
    v = page.v
    page.heading("Value types")
    page.add("Besides whole numbers, true/false, texts (without control characters), plain lowercase words "
             "and card ids, the vocabulary names these types:")
    page.add()
    page.table(["type", "values", "meaning"],
               [[f"`{n}`", v.describe(replace(t, name=None)), v.type_summaries.get(n, "")]
                for n, t in v.types.items()])
