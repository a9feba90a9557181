"""The documentation site's generated pages (docs/generate.py) match what the code and data say today,
and the getting-started page's situation is a shipped example that judges as the page says.

A page out of date fails here with the command that regenerates it, as the vocabulary pages' test
does. Command pages are compared with their durations masked (a run's seconds vary; its verdicts,
counts and words do not). The site itself is built strictly and opened in Chromium by
tests/browser/test_docs_browser.py.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS))

from generators import board_picture, cards, commands, options, rules, situation_format  # noqa: E402

import generate  # noqa: E402

REGENERATE = "regenerate with: python docs/generate.py"
GETTING_STARTED = ROOT / commands.GETTING_STARTED


def committed(path: str) -> str:
    file = DOCS / path
    assert file.exists(), f"docs/{path} is missing; {REGENERATE}"
    return file.read_text(encoding="utf-8")


@pytest.mark.parametrize("maker", [situation_format.pages, cards.pages, options.pages, rules.pages,
                                   board_picture.pages], ids=lambda maker: maker.__module__.rsplit(".", 1)[-1])
def test_data_pages_are_up_to_date(maker):
    for path, text in maker().items():
        assert committed(path) == text, f"docs/{path} is out of date; {REGENERATE}"


def test_no_stale_generated_page():
    """A page of a card set, command or rules file that no longer exists is removed."""
    written = {path for maker in (cards.pages, rules.pages) for path in maker()}
    written |= {f"commands/{name}.md" for name in commands.command_names()} | {"commands/index.md"}
    assert generate.stale_files(dict.fromkeys(written, "")) == [], REGENERATE


def test_every_command_has_a_run_or_a_reason():
    """A new command gets its page from --help; its page must also show a real run of it."""
    missing = set(commands.command_names()) - set(commands.RUNS) - set(commands.NOT_RUN)
    assert not missing, f"add a run of {sorted(missing)} to RUNS in docs/generators/commands.py"


@pytest.mark.parametrize("name", commands.command_names())
def test_command_page_is_up_to_date(name):
    page = commands.command_page(name, commands.help_text([name]))
    assert commands.comparable(committed(f"commands/{name}.md")) == commands.comparable(page), \
        f"docs/commands/{name}.md is out of date; {REGENERATE}"


def test_commands_index_is_up_to_date():
    names = commands.command_names()
    summaries = {name: commands.first_help_line(commands.help_text([name])) for name in names}
    assert committed("commands/index.md") == commands.index_page(names, summaries), REGENERATE


def test_getting_started_outputs_are_up_to_date():
    for path, text in commands.getting_started_outputs().items():
        assert committed(path) == text, f"docs/{path} is out of date; {REGENERATE}"


# Figures written into hand-written pages, and the generated command page whose real run must print them.
CLAIMS = [("README.md", r"\d+ violated, \d+ held", "commands/consistency.md"),
          ("docs/authoring.md", r"berserk: \d+ of \d+ clauses fired across \d+ rulings", "commands/coverage.md"),
          ("docs/batch.md", r'\{"situation": "tests/rulings/berserk/107/107.2-closed.yaml".*\}', "commands/batch.md")]


@pytest.mark.parametrize("page, figure, source", CLAIMS)
def test_a_figure_in_a_hand_written_page_is_what_its_command_prints(page, figure, source):
    stated = re.search(figure, (ROOT / page).read_text(encoding="utf-8"))
    printed = re.search(figure, committed(source))
    assert stated and printed and stated.group(0) == printed.group(0), \
        f"{page} says {stated and stated.group(0)!r}; the run on docs/{source} prints {printed and printed.group(0)!r}"


def test_getting_started_shows_the_shipped_example_and_its_runs():
    page = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    assert f'--8<-- "{commands.GETTING_STARTED}"' in page
    for snippet in commands.getting_started_outputs():
        assert f'--8<-- "{Path(snippet).name}"' in page


def verdicts(path: Path) -> dict[str, tuple[str, list[str]]]:
    run = subprocess.run([sys.executable, "-m", "pybridge", "check", str(path), "--json"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return {v["action"]: (v["verdict"], v["cites"]) for v in json.loads(run.stdout)["verdicts"]}


def test_the_getting_started_situation_passes_its_ruling():
    run = subprocess.run([sys.executable, "-m", "pybridge", "test", str(GETTING_STARTED)], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 0 failed" in run.stdout


def variant(tmp_path: Path, change) -> Path:
    """The getting-started situation without its ruling, changed as step 6 of the page says."""
    data = yaml.safe_load(GETTING_STARTED.read_text(encoding="utf-8"))
    data.pop("ruling")
    change(data)
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_step_six_of_getting_started_holds(tmp_path):
    """'Set arrived: 2 on kshar ... both attacks are legal. Give it Рывок ... and 107.5-2 exempts it.'"""
    def arrived_earlier(data):
        next(card for card in data["cards"] if card["id"] == "kshar")["arrived"] = 2

    def given_rush(data):
        data["effects"] = [{"id": "rush", "target": "kshar", "kind": "grant", "what": "rush", "timestamp": 1}]

    earlier = verdicts(variant(tmp_path, arrived_earlier))
    assert {action: verdict for action, (verdict, _) in earlier.items() if action.startswith("strike_attack")} == {
        "strike_attack(kshar, foe)": "legal", "strike_attack(nomad, foe)": "legal"}
    verdict, cites = verdicts(variant(tmp_path, given_rush))["strike_attack(kshar, foe)"]
    assert verdict == "legal" and "107.5-2" in cites
