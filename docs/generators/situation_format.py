"""The situation format page, read off the published JSON Schema (schema/situation-v1.json): one
table per object of the schema, each field with its type, default and description."""

from __future__ import annotations

import json

from .common import ROOT, cell, note

SCHEMA = ROOT / "schema" / "situation-v1.json"
LONGEST_ENUM = 8  # a list of allowed words longer than this is counted, not spelt out


def anchor(name: str) -> str:
    return name.lower()


def type_of(spec: dict) -> str:
    """A field's type in words, with links to the objects it refers to."""
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{anchor(name)})"
    if "enum" in spec:
        words = spec["enum"]
        if len(words) > LONGEST_ENUM:
            return f"one of {len(words)} words"
        return "one of " + ", ".join(f"`{json.dumps(word, ensure_ascii=False)}`" for word in words)
    if "const" in spec:
        return f"`{json.dumps(spec['const'], ensure_ascii=False)}`"
    for key in ("anyOf", "oneOf"):
        if key in spec:
            kinds = [type_of(choice) for choice in spec[key] if choice.get("type") != "null"]
            return " or ".join(dict.fromkeys(kinds)) or "null"
    kind = spec.get("type")
    if kind == "array":
        return f"list of {type_of(spec.get('items', {}))}"
    if kind == "object":
        values = spec.get("additionalProperties")
        if isinstance(values, dict):
            return f"mapping to {type_of(values)}"
        return "object"
    if kind == "integer":
        low, high = spec.get("minimum"), spec.get("maximum")
        return "integer" + (f" {low}–{high}" if low is not None and high is not None else "")
    if isinstance(kind, list):
        return " or ".join(kind)
    return kind or "any value"


def object_table(name: str, spec: dict) -> list[str]:
    lines = [f"## {name}", ""]
    if spec.get("description"):
        lines += [" ".join(spec["description"].split()), ""]
    properties = spec.get("properties", {})
    if not properties:
        return lines + [f"Type: {type_of(spec)}.", ""]
    required = set(spec.get("required", []))
    lines += ["| field | type | required | default | meaning |", "|---|---|---|---|---|"]
    for field, field_spec in properties.items():
        default = field_spec.get("default")
        shown_default = "" if default is None else f"`{json.dumps(default, ensure_ascii=False)}`"
        lines.append(f"| `{field}` | {cell(type_of(field_spec))} | {'yes' if field in required else ''} | "
                     f"{cell(shown_default)} | {cell(field_spec.get('description', ''))} |")
    return lines + [""]


def pages() -> dict[str, str]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    definitions = schema.get("$defs", {})
    root_name = "Situation"
    lines = ["# The situation format", "", note("`schema/situation-v1.json` (`ccg-judge schema`)"), "",
             "A situation is a YAML or JSON file. Its fields are below, starting with the top level; a word "
             "a field takes from a game's vocabulary (a feature, an effect kind, a condition) is listed on "
             "that game's vocabulary page ([Berserk](vocabulary-berserk.md), [Magic](vocabulary-mtg.md)). "
             "A ruling file is a situation with a `ruling:` block ([ruling files](rulings.md)). "
             "On a Berserk board, `column` counts from the controller's left and `row` from the centre "
             "line: row 1 is the front row ([getting started](getting-started.md) has a picture).", ""]
    lines += object_table(root_name, schema)
    for name in definitions:  # in the schema's own order: the situation, then its parts
        # The per-game definitions repeat each vocabulary, which its own page lists.
        if not name.startswith("vocabulary-"):
            lines += object_table(name, definitions[name])
    return {"situation-format.md": "\n".join(lines).rstrip() + "\n"}
