"""Edits of a situation's text by the playground keep everything else as the author wrote it:
the data changes exactly where asked, comments and other lines stay."""

from __future__ import annotations

import json

import pytest
import yaml

from pybridge.errors import JudgeError
from pybridge.web.edit import append_top_level, drop_top_level, line_of, parse_field_path, set_field

BLOCK = """\
# a comment at the top
game: berserk   # the game
cards:
  - id: a
    cell:
      column: 3
      row: 1   # front row

    open: true
  - {id: b, cell: {column: 2, row: 1}}
  - id: c
    zone: hand
options:
  range_metric: chebyshev
# a comment at the end of options
ruling:
  title: old
  expect: {}
"""
JSON = '{"game": "berserk", "cards": [{"id": "a", "cell": {"column": 1, "row": 1}}]}'


def _changed(before: str, after: str, path, value):
    """The data of ``after`` is that of ``before`` with ``value`` at ``path``."""
    expected = yaml.safe_load(before)
    node = expected
    for part in path[:-1]:
        node = node.setdefault(part, {}) if isinstance(part, str) else node[part]
    node[path[-1]] = value
    assert yaml.safe_load(after) == expected


@pytest.mark.parametrize("path, value", [
    (("cards", 0, "cell"), {"column": 1, "row": 2}),        # a block mapping replaced
    (("cards", 1, "cell"), {"column": 5, "row": 3}),        # a flow mapping replaced
    (("cards", 2, "cell"), {"side": "p2", "column": 5, "row": 3}),  # a key added to a block mapping
    (("cards", 1, "open"), False),                          # a key added to a flow mapping
    (("viewpoint",), "p2"),                                 # a top-level key added
    (("options", "range_metric"), "manhattan"),             # a scalar replaced
    (("options", "effect_precedence"), "forbid_wins"),      # a key added among others
    (("edition",), "515"),
])
def test_set_field_changes_only_that_value(path, value):
    after = set_field(BLOCK, path, value)
    _changed(BLOCK, after, path, value)
    for comment in ("# a comment at the top", "# the game", "# a comment at the end of options"):
        assert comment in after


def test_set_field_creates_missing_mappings_and_keeps_json_json():
    after = set_field(JSON, ("options", "range_metric"), "manhattan")
    assert json.loads(after)["options"] == {"range_metric": "manhattan"}
    after = set_field(JSON, ("cards", 0, "cell"), {"column": 2, "row": 1})
    assert json.loads(after)["cards"][0]["cell"] == {"column": 2, "row": 1}


def test_set_field_refuses_a_missing_list_entry():
    with pytest.raises(JudgeError) as error:
        set_field(BLOCK, ("cards", 9, "cell"), {})
    assert error.value.field == "cards[9]"


def test_a_ruling_block_is_replaced_whole():
    dropped = drop_top_level(BLOCK, "ruling")
    assert "ruling" not in yaml.safe_load(dropped) and "# a comment at the end of options" in dropped
    block = {"title": "new", "clauses": ["107.2"], "expect": {"legal": {"strike_attack(a, b)": ["107.2"]}}}
    after = append_top_level(dropped, "ruling", block)
    assert yaml.safe_load(after) == {**yaml.safe_load(dropped), "ruling": block}
    after = append_top_level(drop_top_level(JSON, "game"), "ruling", block)
    assert json.loads(after) == {"cards": json.loads(JSON)["cards"], "ruling": block}


def test_line_of_a_field_path():
    assert line_of(BLOCK, "cards[0].cell.row") == 7
    assert line_of(BLOCK, "cards[1].cell.row") == 10
    assert line_of(BLOCK, "options.nonesuch") == 13   # the deepest part the text has: options
    assert line_of("game: berserk\ncards: [\n", None) == 3  # a syntax error: where it was found
    assert parse_field_path("cards[2].properties.'a b'.x") == ("cards", 2, "properties", "a b", "x")
