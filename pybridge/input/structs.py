"""Typed input models on msgspec, and its validation errors in the product's words.

msgspec builds and checks Structs in C: importing it and defining the models costs a few
milliseconds, where pydantic's import and model build took as long as clingo's whole run
(a cold ``ccg-judge check`` is mostly start-up). A Struct's constructor does not validate;
input goes through :func:`convert`.

msgspec stops at the first problem and names a mapping's value as ``[...]``; :func:`convert`
finds which key it was, so an error names the field as the user wrote it.
"""

from __future__ import annotations

import functools
import re
import sys
import types
import typing
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

import msgspec

from pybridge.errors import JudgeError
from pybridge.game.vocabulary import nearest, shown_value, unprintable
from pybridge.input.limits import field_path

# Marks a text a report may print: checked for control and format characters after the
# structure (msgspec has no per-field validators; Model.__post_init__ runs this one).
PRINTABLE = "printable"


class Model(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of the input models: immutable, and a field the model does not know is an error."""

    def __post_init__(self) -> None:
        for name in _printable_fields(type(self)):
            value = getattr(self, name)
            bad = unprintable(value) if isinstance(value, str) else None
            if bad:
                # msgspec turns a ValueError here into a ValidationError at this object's path.
                raise ValueError(f"{_FIELD_MARK}{name}{_FIELD_MARK}contains a control or format character "
                                 f"({bad}), which a report cannot print")


_FIELD_MARK = "\x00"  # brackets the field name in a __post_init__ error, for _problem to take apart


@functools.cache
def _printable_fields(cls: type) -> tuple[str, ...]:
    hints = _field_hints(cls)
    return tuple(name for name in cls.__struct_fields__ if _marked(hints[name]))


def _marked(hint: Any) -> bool:
    if get_origin(hint) is Annotated:
        return PRINTABLE in hint.__metadata__ or _marked(get_args(hint)[0])
    return _is_union(hint) and any(_marked(arg) for arg in get_args(hint))


def replace(model: Any, **changes: Any) -> Any:
    """A copy with some fields changed. The types of the new values are the caller's to get right;
    a text a report could not print is refused, as in a file (msgspec's replace runs the model's
    checks too), with a JudgeError naming the field."""
    try:
        return msgspec.structs.replace(model, **changes)
    except ValueError as exc:
        marked = _marked_reason(str(exc))
        if marked is None:
            raise
        raise JudgeError(marked[1], field=marked[0]) from None


def _marked_reason(text: str) -> tuple[str, str] | None:
    """(field, reason) of a message __post_init__ made, or None."""
    if not text.startswith(_FIELD_MARK):
        return None
    _, name, reason = text.split(_FIELD_MARK, 2)
    return name, reason


def convert(data: Any, model: type, *, source: str) -> Any:
    """``data`` (from YAML or JSON) as ``model``, or a JudgeError naming the field."""
    try:
        return msgspec.convert(data, model, strict=True)
    except msgspec.ValidationError as exc:
        message, path = _problem(str(exc), data, model)
        raise JudgeError(message, source=source, field=field_path(path)) from None


# --------------------------------------------------------------------------
# msgspec's messages, in the product's words

# "<message>", "<message> - at `$.a[0]`", or for a mapping's key "<message> - at `key` in `$.a`"
# (Patterns are compiled on first use, by re's own cache: only a file with an error needs them.)
_AT = r"(?s)^(?P<message>.*?)(?: - at (?:`key` in `(?P<keys>[^`]*)`|`(?P<path>[^`]*)`))?$"
_STEP = r"\.([^.\[]+)|\[(\d+|\.\.\.)\]"

_WORDS = {"int": "a whole number", "str": "a text", "bool": "true or false", "object": "a mapping",
          "array": "a list", "null": "nothing", "float": "a decimal number", "bytes": "bytes"}


def _words(types: str) -> str:
    """```int | str``` -> ``a whole number or a text``; a null an optional field takes goes unsaid
    (a field is left out rather than set to null)."""
    named = [t.strip() for t in types.split("|") if t.strip() != "null"] or ["null"]
    names = [_WORDS.get(t, t) for t in named]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


_CONSTRAINTS = [
    (r"^Expected `(?P<t>[^`]*)` >= (?P<n>-?\d+)$", "expected {t} of at least {n}"),
    (r"^Expected `(?P<t>[^`]*)` <= (?P<n>-?\d+)$", "expected {t} of at most {n}"),
    (r"^Expected `str` of length >= (?P<n>\d+)$", "expected a text of at least {n} characters"),
    (r"^Expected `str` of length <= (?P<n>\d+)$", "expected a text of at most {n} characters"),
    (r"^Expected `object` of length >= (?P<n>\d+)$", "expected a mapping of at least {n} entries"),
    (r"^Expected `object` of length <= (?P<n>\d+)$", "expected a mapping of at most {n} entries"),
    (r"^Expected `array` of length >= (?P<n>\d+)$", "expected a list of at least {n} values"),
    (r"^Expected `array` of length <= (?P<n>\d+)$", "expected a list of at most {n} values"),
    (r"^Expected `str` matching regex '\^\[a-z\]\[a-z0-9_\]\*.*'$",  # situation.Name
     "expected a name: lowercase letters, digits and _, starting with a letter"),
    (r"^Expected `(?P<t>[^`]*)`, got `[^`]*`$", "expected {t}"),
]


_MISSING = "Object missing required field `"
_UNKNOWN = "Object contains unknown field `"
_SINGULAR = {"characters": "character", "entries": "entry", "values": "value"}
_ONE = r"\b1 (characters|entries|values)\b"


def _problem(text: str, data: Any, model: type) -> tuple[str, list[Any]]:
    """msgspec's message -> (what is wrong, the field path into ``data``)."""
    found = re.match(_AT, text)
    message = found["message"]
    path, node, hint = _follow(found["keys"] or found["path"] or "$", data, model)
    here = _alternative(hint, node)
    if found["keys"]:
        if isinstance(here, type) and issubclass(here, msgspec.Struct):  # a model's field names are texts
            key = next((k for k in node if not isinstance(k, str)), next(iter(node)))
            return f"a field name is a text, got {_key_text(key)}", [*path, _key_text(key)]
        key = _first_bad(list(node), get_args(here)[0])
        shown = repr(key) if isinstance(key, str) else _key_text(key)
        return f"the key {shown} is not valid: {_rephrase(message)}", [*path, _key_text(key)]
    missing, unknown = _field_named(message, _MISSING), _field_named(message, _UNKNOWN)
    if missing is not None:
        return "is required but missing", [*path, missing]
    if unknown is not None:
        known = here.__struct_fields__
        close = nearest(unknown, known)
        hint_text = f"did you mean {close!r}" if close else f"known here: {', '.join(sorted(known))}"
        return f"is not a known field here; {hint_text}", [*path, unknown]
    marked = _marked_reason(message)
    if marked is not None:
        return marked[1], [*path, marked[0]]
    if message.startswith("Invalid enum value "):
        return f"expected one of {_literal_values(hint)}, got {shown_value(node)}", path
    return f"{_rephrase(message)}, got {shown_value(node)}", path


def _field_named(message: str, lead: str) -> str | None:
    """The field a message that opens with ``lead`` names, as written (backticks and all)."""
    return message[len(lead):-1] if message.startswith(lead) and message.endswith("`") else None


def _key_text(key: Any) -> str:
    """A mapping's key in a field path, spelt as YAML and JSON spell it."""
    if isinstance(key, bool) or key is None:
        return {True: "true", False: "false", None: "null"}[key]
    return str(key)


def _rephrase(message: str) -> str:
    for pattern, words in _CONSTRAINTS:
        matched = re.match(pattern, message)
        if matched:
            groups = matched.groupdict()
            if "t" in groups:
                groups["t"] = _words(groups["t"])
            return re.sub(_ONE, lambda m: f"1 {_SINGULAR[m[1]]}", words.format(**groups))
    return message[:1].lower() + message[1:]


def _follow(where: str, data: Any, model: type) -> tuple[list[Any], Any, Any]:
    """The path msgspec names (``$.cards[0].properties[...]``) into ``data``, with the value
    and the type hint found there. A ``[...]`` becomes the real key: the first entry whose
    value fails the mapping's value type (msgspec checks entries in order and stops there)."""
    path: list[Any] = []
    node, hint = data, model
    for name, index in re.findall(_STEP, where[1:]):
        here = _alternative(hint, node)
        if name:
            key, hint = name, _field_hints(here)[name]
        elif index == "...":
            hint = get_args(here)[1]
            key = _first_bad(list(node), hint, values=list(node.values()))
        else:
            key, hint = int(index), get_args(here)[0]
        path.append(key)
        node = node[key]
    return path, node, hint


def _first_bad(keys: list[Any], hint: Any, values: list[Any] | None = None) -> Any:
    """The first key whose value (or, without values, which itself) is not a ``hint``."""
    for key, value in zip(keys, keys if values is None else values):
        try:
            msgspec.convert(value, hint, strict=True)
        except msgspec.ValidationError:
            return key
    return keys[0]


def _bare(hint: Any) -> Any:
    while get_origin(hint) is Annotated:
        hint = get_args(hint)[0]
    return hint


def _is_union(hint: Any) -> bool:
    return get_origin(hint) in (Union, types.UnionType)


def _alternative(hint: Any, node: Any) -> Any:
    """The type under Annotated, or the member of a union that takes the shape of ``node``
    (a mapping: a Struct or a dict; a list)."""
    hint = _bare(hint)
    if not _is_union(hint):
        return hint
    for arg in map(_bare, get_args(hint)):
        origin = get_origin(arg) or arg
        if isinstance(node, dict) and (origin is dict or isinstance(arg, type) and issubclass(arg, msgspec.Struct)):
            return arg
        if isinstance(node, list) and origin is list:
            return arg
    return hint


def _field_hints(model: Any) -> dict[str, Any]:
    return get_type_hints(model, include_extras=True, globalns=vars(sys.modules[model.__module__]))


def _literal_values(hint: Any) -> str:
    hint = _bare(hint)
    members = get_args(hint) if _is_union(hint) else (hint,)
    return ", ".join(repr(v) for arg in map(_bare, members) if get_origin(arg) is typing.Literal
                     for v in get_args(arg))
