"""docs/xmage-face-down.md accounts for every XMage face-down scenario: each
is a ruling file naming its source test by path and method, or is listed
with the reason it is not encoded (issue 12, "Done when")."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "xmage-face-down.md"
RULINGS = ROOT / "tests" / "rulings" / "mtg"
SOURCE = re.compile(r"XMage scenario (\w+)\.(\w+) \((Mage\.Tests/src/test/java/[\w/]+/(\w+)\.java)\)")


def _section(title: str) -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    body = text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in body.splitlines() if line.startswith("| ") and not line.startswith("| test ")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows if not set(row) <= set("|- ")]


def _sources() -> dict[tuple[str, str], set[str]]:
    found: dict[tuple[str, str], set[str]] = {}
    for path in sorted((RULINGS / "xmage").rglob("*.yaml")):
        note = yaml.safe_load(path.read_text(encoding="utf-8"))["ruling"].get("note") or ""
        match = SOURCE.search(note)
        assert match, f"{path.name}: the note must name its XMage test by path and method"
        test, method, _, file_class = match.groups()
        assert test == file_class, f"{path.name}: {test} is not the class of {match.group(3)}"
        assert path.stem.split("-")[0] == method, f"{path.name}: a ruling file is named after its method"
        found.setdefault((test, method), set()).add(str(path.relative_to(RULINGS)))
    return found


def test_every_ruling_file_is_in_the_table_under_its_method():
    table = {(test, method): {f.strip("` ") for f in files.split(",")} for test, method, files in _section("Every scenario")}
    for key, files in _sources().items():
        assert key in table, key
        assert files == table[key], key


def test_every_scenario_is_encoded_or_has_a_reason():
    reasons = {(test, method): reason for test, method, reason in _section("Scenarios not encoded, and why")}
    for test, method, files in _section("Every scenario"):
        if files == "not encoded (below)":
            assert len(reasons.get((test, method), "")) > 40, (test, method)
        else:
            for name in files.split(","):
                assert (RULINGS / name.strip("` ")).is_file(), name
    assert set(reasons) <= {(t, m) for t, m, _ in _section("Every scenario")}
