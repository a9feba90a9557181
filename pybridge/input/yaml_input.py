"""A situation's YAML, read within the limits (:mod:`pybridge.input.limits`): PyYAML's safe loader with
bounded nesting, no duplicate keys, and only the tags JSON has a value for.

Where PyYAML has libyaml, libyaml scans and parses (six times faster on a board) and PyYAML's own
composer and constructor build the data, so that nesting stays bounded (libyaml's composer is
recursive in C, with no bound) and the checks below apply alike. The two scanners differ on a few
characters: libyaml takes a tab inside a plain text, ``|#``, some ``?`` and a ``#`` right after a
``%YAML`` directive's version, which the pure-Python one refuses, and reads a lone ``!`` tag and a
byte-order mark inside the text otherwise. A text
with any of those characters, with a character the pure-Python reader refuses, or that libyaml
finds invalid is read by the pure-Python loader. So what is accepted, the data and every error
message stay as that loader has them (tests/test_yaml_input.py compares both on every shipped
situation and on random texts); where that loader fails outright (on an escape past Unicode,
``"\\U00110000"``), libyaml's message is given."""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.reader import Reader
from yaml.resolver import Resolver

from pybridge.errors import JudgeError
from pybridge.input.limits import DEFAULTS, current, over

try:
    from yaml._yaml import CParser
except ImportError:  # PyYAML built without libyaml: the pure-Python loader does it all
    CParser = None

# Where libyaml and PyYAML's pure-Python scanner may read a text differently (see above).
_SCANNERS_DIFFER = re.compile("[\t!?|>%\ufeff]")


class _DepthExceeded(Exception):
    def __init__(self, line: int) -> None:
        self.line = line


class _Refused(Exception):
    """A YAML construct the situation schema has no place for (a tag, a duplicate key)."""

    def __init__(self, message: str, node: yaml.Node) -> None:
        super().__init__(message)
        self.message = message
        self.line = node.start_mark.line + 1


_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"
# Tags a situation may use: what JSON has (mappings, lists, texts, numbers, booleans, null).
_REFUSED_TAGS = {"set": "a set", "omap": "an ordered mapping", "pairs": "a list of pairs",
                 "binary": "binary data", "timestamp": "a date or time"}


class _Strict:
    """What makes PyYAML's safe loader stricter, for either parser: bounded nesting, no duplicate
    keys, and only the tags JSON has a value for. A !!set, !!omap, !!pairs, !!binary or !!timestamp
    tag is refused (a Python set would reach the solver in hash order); an unquoted date stays a
    text, as in JSON."""

    max_depth = DEFAULTS.depth
    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > self.max_depth + 1:
                raise _DepthExceeded(self.peek_event().start_mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == _MERGE or not isinstance(key_node, yaml.ScalarNode):
                continue
            key = self.construct_object(key_node)
            if key in seen:
                raise _Refused(f"the key {key!r} appears twice in one mapping; each key may appear once", key_node)
            seen.add(key)
        return super().construct_mapping(node, deep)


def _refuse_tag(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    name = node.tag.rsplit(":", 1)[-1]
    raise _Refused(f"the tag !!{name} ({_REFUSED_TAGS[name]}) is not allowed: a situation holds only mappings, "
                   "lists, texts, numbers, true/false and null", node)


class _BoundedLoader(_Strict, yaml.SafeLoader):
    """The pure-Python loader, made strict."""


class _LibyamlLoader(_Strict, Composer, *((CParser,) if CParser else ()), SafeConstructor, Resolver):
    """libyaml's parser under PyYAML's composer (first in the order, so its bounded
    ``compose_node`` is the one used) and constructor, made strict."""

    def __init__(self, text: str) -> None:
        CParser.__init__(self, text)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)


for _loader in (_BoundedLoader, _LibyamlLoader):
    for _name in _REFUSED_TAGS:
        _loader.add_constructor(f"tag:yaml.org,2002:{_name}", _refuse_tag)
    _loader.yaml_implicit_resolvers = {
        first: [(tag, pattern) for tag, pattern in resolvers if tag != _TIMESTAMP]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }


def _load(text: str, depth: int) -> Any:
    if CParser is None or Reader.NON_PRINTABLE.search(text) or _SCANNERS_DIFFER.search(text):
        return _read(_BoundedLoader, text, depth)
    try:
        return _read(_LibyamlLoader, text, depth)
    except yaml.YAMLError as found:
        try:
            return _read(_BoundedLoader, text, depth)  # it says what is wrong, as it always has
        except ValueError as crash:
            if _raised_in(crash, "yaml.scanner"):  # it fails outright where libyaml names the fault
                raise found from None
            raise  # a number of thousands of digits, say: as before


def _raised_in(exc: BaseException, module: str) -> bool:
    """Whether the innermost frame of ``exc``'s traceback is in ``module``."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_globals.get("__name__") == module


def _read(loader_class: type, text: str, depth: int) -> Any:
    loader = loader_class(text)  # the pure-Python reader checks the characters here
    loader.max_depth = depth
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def load_yaml(text: str, *, source: str) -> Any:
    """``yaml.safe_load`` that refuses nesting deeper than the depth limit, duplicate
    keys and tags JSON has no value for.

    Aliases are resolved to shared objects (no copies), so a
    "billion laughs" file stays small here; :func:`check_data` then counts
    the values with the aliases expanded and stops at the values limit."""
    limits = current()
    try:
        return _load(text, limits.depth)
    except _DepthExceeded as exc:
        raise JudgeError(over(f"nested more than {limits.depth} levels deep (line {exc.line})",
                              limits.depth, "depth"), source=source) from None
    except _Refused as exc:
        raise JudgeError(f"{exc.message} (line {exc.line})", source=source) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or "syntax error"
        raise JudgeError(f"not valid YAML: {problem}{where}", source=source) from None


_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def position(text: str, field: str) -> tuple[int, int] | None:
    """(line, column), from 1, of the value at ``field`` (``cards[2].cell.row``) in a YAML or JSON text
    that has been read once already; None for a field the file lacks. Read again only when an error
    needs it."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    for key, index in _STEP.findall(field):
        if isinstance(node, yaml.MappingNode) and key:
            found = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)
        elif isinstance(node, yaml.SequenceNode) and index:
            found = node.value[int(index)] if int(index) < len(node.value) else None
        else:
            found = None
        if found is None:
            return None  # a missing key has no place in the file: the field path says which
        node = found
    return (node.start_mark.line + 1, node.start_mark.column + 1) if node is not None else None
