"""A situation's YAML is scanned by libyaml where PyYAML has it, and read exactly as the pure-Python
loader reads it: the same data, the same refusals on the same lines, the same error messages."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pybridge.errors import JudgeError
from pybridge.input import yaml_input
from pybridge.input.limits import DEFAULTS

ROOT = Path(__file__).resolve().parent.parent
SITUATIONS = sorted([*ROOT.glob("tests/rulings/**/*.yaml"), *ROOT.glob("examples/**/*.yaml")])

pytestmark = pytest.mark.skipif(yaml_input.CParser is None, reason="PyYAML here has no libyaml")


@contextmanager
def pure_python():
    """The loader as it is where PyYAML has no libyaml."""
    kept = yaml_input.CParser
    yaml_input.CParser = None
    try:
        yield
    finally:
        yaml_input.CParser = kept


def outcome(text: str) -> tuple[str, str]:
    """What load_yaml makes of a text: its data, typed (repr tells 1 from 1.0 and "1"), or its error."""
    try:
        return "data", repr(yaml_input.load_yaml(text, source="s.yaml"))
    except JudgeError as exc:
        return "error", exc.message


def both(text: str) -> tuple[tuple[str, str], tuple[str, str]]:
    fast = outcome(text)
    with pure_python():
        slow = outcome(text)
    return fast, slow


def test_libyaml_reads_the_shipped_situations_as_the_pure_python_loader_does(monkeypatch):
    used = []
    read = yaml_input._read
    monkeypatch.setattr(yaml_input, "_read", lambda cls, text, depth: used.append(cls) or read(cls, text, depth))
    screened = 0
    for path in SITUATIONS:
        text = path.read_text(encoding="utf-8")
        fast, slow = both(text)
        assert fast == slow and fast[0] == "data", path
        screened += bool(yaml_input._SCANNERS_DIFFER.search(text))
    # a few write ">" or "?" in a text (a folded note, most of them) and take the pure-Python loader:
    # fewer than one in fifteen
    assert len(SITUATIONS) > 250 and screened < len(SITUATIONS) / 15
    # libyaml read every one it was given (none fell back); the pure-Python loader, the screened
    # ones and each again for `both`
    assert used.count(yaml_input._LibyamlLoader) == len(SITUATIONS) - screened
    assert used.count(yaml_input._BoundedLoader) == len(SITUATIONS) + screened


@pytest.mark.parametrize("text, message", [
    ("game: berserk\nturn: 1\ngame: mtg\n", "the key 'game' appears twice in one mapping; each key may appear once (line 3)"),
    ("a:\n  b: !!set {x}\n", "the tag !!set (a set) is not allowed"),
    ("when: 2026-12-05\n", None),  # a date stays a text
    ("a: [1, 2\n", "not valid YAML: "),
    ("a: b: c\n", "not valid YAML: mapping values are not allowed here (line 1, column 5)"),
    ("game: ber\x1fserk\n", "not valid YAML: special characters are not allowed"),
    ("a: \ud800\n", "not valid YAML: special characters are not allowed"),
    ("\t- a\n", "not valid YAML: "),
    # libyaml would take these (a tab in a plain text, "|#", a flow "?"): the screen sends them on
    (".\t", "not valid YAML: found character '\\t' that cannot start any token (line 1, column 2)"),
    ("|#", "not valid YAML: expected chomping or indentation indicators, but found '#' (line 1, column 2)"),
    ("[<<?),b\n]", "not valid YAML: "),
    ("%YAML 1.1#\n---\ngame: berserk\n", "not valid YAML: expected a digit or ' ', but found '#' (line 1, column 10)"),
])
def test_refusals_and_errors_read_as_the_pure_python_loader_has_them(text, message):
    fast, slow = both(text)
    assert fast == slow
    if message is None:
        assert fast == ("data", repr({"when": "2026-12-05"}))
    else:
        assert fast[0] == "error" and message in fast[1]


def test_an_escape_past_unicode_is_named_where_the_pure_python_scanner_fails_outright():
    fast = outcome('notes: "\\U00110000"\n')
    assert fast == ("error", "not valid YAML: found invalid Unicode character escape code (line 1, column 11)")


@pytest.mark.parametrize("text", ["%FOO\n---\na: ", 'a: "\\ud800"\nb: ', "a: "])
def test_a_number_too_long_to_read_is_named_as_before(text):
    """Where libyaml refuses a text the pure-Python loader reads (an unknown directive, an escaped
    surrogate), that loader's own failure on a number of thousands of digits stands."""
    from pybridge.input.situation import parse_text

    with pytest.raises(JudgeError) as caught:
        parse_text(text + "1" * 5000 + "\n", source="s.yaml")
    assert caught.value.message == "a number has too many digits to read"


def test_a_lone_tag_reads_as_the_pure_python_loader_reads_it():
    assert both("!") == (("data", "None"), ("data", "None"))  # libyaml alone would read ''


def test_nesting_is_bounded_on_the_same_line():
    deep = "a:\n" + "".join(" " * (2 * i) + "- \n" for i in range(1, DEFAULTS.depth + 3))
    fast, slow = both(deep)
    assert fast == slow and fast[0] == "error"
    assert f"nested more than {DEFAULTS.depth} levels deep (line " in fast[1]


def test_aliases_share_one_object_in_either_loader():
    text = "a: &x [1, 2]\nb: *x\n"
    for loader in (yaml_input._LibyamlLoader, yaml_input._BoundedLoader):
        data = yaml_input._read(loader, text, DEFAULTS.depth)
        assert data == {"a": [1, 2], "b": [1, 2]} and data["a"] is data["b"]


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                    st.text(max_size=12), st.sampled_from(["yes", "No", "~", "0x1F", "1e3", "0o17", "2026-12-05",
                                                           "12:30", ".inf", "- a", "a: b", "#c", "'q'", "&a", "!t"]))
data = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(data, st.sampled_from([None, True, False]), st.booleans(), st.integers(min_value=20, max_value=80))
def test_dumped_data_reads_alike(value, flow, unicode, width):
    text = yaml.safe_dump(value, default_flow_style=flow, allow_unicode=unicode, width=width)
    fast, slow = both(text)
    assert fast == slow


yamlish = st.text(alphabet=st.sampled_from(list("ab1 :-[]{},#&*!|>'\"\n\t?%@`\\.") + ["\x85", "é", "\ufeff"]),
                  max_size=40)


@settings(max_examples=500, deadline=None)
@given(yamlish)
def test_any_text_reads_or_fails_alike(text):
    fast, slow = both(text)
    assert fast == slow


SHIPPED = [path.read_text(encoding="utf-8") for path in SITUATIONS[::7]]
wide = st.sampled_from(list("abcdefghijklmnopqrstuvwxyzYAML0123456789 :-[]{},#'\".%&*!|>?@`\\~\n\t\r")
                       + ["\x85", "\u2028", "é", "ж", "\ufeff", "\U0001F600"])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SHIPPED), st.lists(st.tuples(st.floats(0, 1), st.integers(0, 2), wide), min_size=1, max_size=4))
def test_edited_situations_read_or_fail_alike(text, edits):
    """A shipped situation with a few characters inserted, deleted or replaced: most still reach libyaml."""
    for where, how, char in edits:
        at = int(where * len(text))
        text = text[:at] + char + text[at:] if how == 0 else text[:at] + text[at + 1:] if how == 1 else \
            text[:at] + char + text[at + 1:]
    fast, slow = both(text)
    assert fast == slow
