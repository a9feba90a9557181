"""Edits of a situation's YAML text that keep the author's layout and comments.

The playground changes a situation in place (a card dragged to a cell; the viewpoint,
edition and options in force written into a download; a ``ruling:`` block made from the
verdicts). Re-dumping the data would lose the comments and the order a person chose, so
these functions find the value in the text by the positions the YAML composer records and
splice in the new value. The text is composed, never constructed: nothing in it runs.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from pybridge.errors import JudgeError
from pybridge.input import limits, yaml_input

Path = tuple[str | int, ...]
_FIELD_PART = re.compile(r"\[(\d+)\]|\.?'((?:[^'\\]|\\.)*)'|\.?\"((?:[^\"\\]|\\.)*)\"|\.?([^.\[\]'\"]+)")


def compose(text: str, *, source: str = "editor") -> yaml.Node | None:
    """The node tree of ``text``. It is read once as data first, through the depth-bounded
    safe loader every situation goes through (yaml_input.py), so composing cannot recurse deeply."""
    try:
        yaml_input.load_yaml(text, source=source)
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise JudgeError(f"not valid YAML: {getattr(exc, 'problem', None) or 'syntax error'}", source=source) from None


def parse_field_path(field: str) -> Path:
    """``cards[2].cell.row`` -> ``("cards", 2, "cell", "row")`` (the form of JudgeError.field)."""
    parts: list[str | int] = []
    for match in _FIELD_PART.finditer(field):
        index, single, double, plain = match.groups()
        if index is not None:
            parts.append(int(index))
        else:
            parts.append(single if single is not None else double if double is not None else plain)
    return tuple(parts)


def _child(node: yaml.Node, part: str | int) -> tuple[yaml.Node | None, yaml.Node | None]:
    """(key node, value node) of ``part`` in ``node``, or (None, None)."""
    if isinstance(node, yaml.MappingNode) and isinstance(part, str):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == part:
                return key, value
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        return None, node.value[part]
    return None, None


def line_of(text: str, field: str | None) -> int | None:
    """The line (from 1) a field path points at, or the deepest part of it the text has;
    for text that is not YAML, the line of the syntax error."""
    try:
        node = compose(text)
    except JudgeError:
        try:
            yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            return mark.line + 1 if mark else None
        except RecursionError:
            return None
        return None
    if node is None or not field:
        return None
    line = node.start_mark.line
    for part in parse_field_path(field):
        key, value = _child(node, part)
        if value is None:
            break
        line = (key or value).start_mark.line
        node = value
    return line + 1


def _content_end(node: yaml.Node) -> int:
    """Where a node's own text ends. A block collection's end mark lies past the blank
    lines and comments after it; its last entry's does not."""
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        return _content_end(node.value[-1][1])
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return _content_end(node.value[-1])
    return node.end_mark.index


def _json_style(node: yaml.MappingNode) -> bool:
    return any(isinstance(k, yaml.ScalarNode) and k.style == '"' for k, _ in node.value)


def _flow(value: Any, json_style: bool) -> str:
    if json_style:
        return json.dumps(value, ensure_ascii=False)
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, sort_keys=False, width=1 << 20)
    return text.removesuffix("\n...\n").strip()


def _nested(path: Path, value: Any) -> Any:
    for part in reversed(path):
        value = {part: value}
    return value


def set_field(text: str, path: Path, value: Any) -> str:
    """``text`` with the value at ``path`` (mapping keys and list indexes) replaced by
    ``value``, or added where the path ends in a missing key. Other lines are untouched."""
    node = compose(text)
    if not isinstance(node, yaml.MappingNode):
        raise JudgeError("expected a mapping at the top level", source="editor")
    for depth, part in enumerate(path):
        key, child = _child(node, part)
        last = depth == len(path) - 1
        if child is None:
            if not isinstance(node, yaml.MappingNode) or not isinstance(part, str):
                raise JudgeError(f"no entry {part!r} here", source="editor", field=limits.field_path(path[:depth + 1]))
            return _insert(text, node, part, _nested(path[depth + 1:], value))
        if last:
            start = key.end_mark.index if key is not None else child.start_mark.index
            lead = ": " if key is not None else ""
            json_style = isinstance(node, yaml.MappingNode) and _json_style(node)
            return text[:start] + lead + _flow(value, json_style) + text[_content_end(child):]
        node = child
    raise JudgeError("an empty field path", source="editor")


def _insert(text: str, mapping: yaml.MappingNode, key: str, value: Any) -> str:
    json_style = _json_style(mapping)
    entry = f"{_flow(key, json_style)}: {_flow(value, json_style)}"
    if mapping.flow_style:
        close = mapping.end_mark.index - 1
        return text[:close].rstrip() + (", " if mapping.value else "") + entry + text[close:]
    indent = mapping.value[0][0].start_mark.column if mapping.value else 0
    line_end = text.find("\n", _content_end(mapping))
    if line_end < 0:
        return text + "\n" + " " * indent + entry + "\n"
    return text[:line_end + 1] + " " * indent + entry + "\n" + text[line_end + 1:]


def drop_top_level(text: str, key: str) -> str:
    """``text`` without the top-level entry ``key`` (its key, value and the lines they fill)."""
    node = compose(text)
    if not isinstance(node, yaml.MappingNode):
        return text
    for i, (k, v) in enumerate(node.value):
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            if node.flow_style:
                start = _content_end(node.value[i - 1][1]) if i else k.start_mark.index
                end = node.value[i + 1][0].start_mark.index if i == 0 and len(node.value) > 1 else _content_end(v)
                return text[:start] + text[end:]
            start = text.rfind("\n", 0, k.start_mark.index) + 1
            end = text.find("\n", _content_end(v))
            return text[:start] + (text[end + 1:] if end >= 0 else "")
    return text


def append_top_level(text: str, key: str, value: Any) -> str:
    """``text`` with a top-level ``key`` holding ``value``, written in block style at the end
    (in flow style inside a flow or JSON document)."""
    node = compose(text)
    if isinstance(node, yaml.MappingNode) and node.flow_style:
        return _insert(text, node, key, value)
    block = yaml.safe_dump({key: value}, default_flow_style=False, allow_unicode=True, sort_keys=False, width=100)
    return text.rstrip("\n") + "\n" + block
