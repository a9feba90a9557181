"""The published schemas match the models, and real output conforms to them."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from pybridge.report.schemas import schema_files, vocabulary_pages
from pybridge.tools.rulings import ruling_files

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", sorted(schema_files()))
def test_committed_schema_matches_the_models(name):
    committed = (ROOT / "schema" / name).read_text(encoding="utf-8")
    assert committed == schema_files()[name], "regenerate with: ccg-judge schema -o schema"


@pytest.fixture(scope="module")
def situation_validator():
    schema = json.loads(schema_files()["situation-v1.json"])
    jsonschema.Draft202012Validator.check_schema(schema)  # a valid draft 2020-12 schema
    return jsonschema.Draft202012Validator(schema)


def test_every_ruling_file_conforms_to_the_situation_schema(situation_validator):
    import yaml

    for path in ruling_files([ROOT / "tests" / "rulings"]) + sorted(ROOT.glob("examples/**/*.yaml")):
        situation_validator.validate(yaml.safe_load(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("change, where", [
    ({"features": ["rsh"]}, "features"),
    ({"features": [{"shot": {"range": "far"}}]}, "range"),
    ({"features": [{"finishing_blow": {"value": "four"}}]}, "value"),
    ({"markers": {"wund": 1}}, "markers"),
    ({"properties": {"element": "forrest"}}, "element"),
])
def test_the_schema_enumerates_the_game_words(situation_validator, change, where):
    """A misspelt word or a wrongly typed parameter fails the schema too, not only validation."""
    import yaml

    data = yaml.safe_load((ROOT / "examples" / "berserk" / "first-turn-rush.yaml").read_text(encoding="utf-8"))
    situation_validator.validate(data)
    data["cards"][0].update(change)
    errors = list(situation_validator.iter_errors(data))
    assert errors, f"{change} passed the schema"


def test_check_json_conforms_to_the_report_schema():
    example = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"
    run = subprocess.run([sys.executable, "-m", "pybridge", "check", str(example), "--format", "json"],
                         capture_output=True, text=True, check=True)
    report = json.loads(run.stdout)
    jsonschema.validate(report, json.loads(schema_files()["report-v3.json"]))
    assert report["schema"] == "ccg-judge/report" and report["version"] == 3
    assert all(v["cites"] for v in report["verdicts"])


def test_schema_command_prints_the_situation_schema():
    run = subprocess.run([sys.executable, "-m", "pybridge", "schema"], capture_output=True, text=True, check=True)
    assert json.loads(run.stdout)["title"] == "ccg-judge situation (version 1)"


@pytest.mark.parametrize("name", sorted(vocabulary_pages()))
def test_committed_vocabulary_page_matches_the_vocabulary(name):
    committed = (ROOT / "docs" / name).read_text(encoding="utf-8")
    assert committed == vocabulary_pages()[name], "regenerate with: ccg-judge vocabulary -o docs"


def test_vocabulary_command_prints_one_game():
    run = subprocess.run([sys.executable, "-m", "pybridge", "vocabulary", "--game", "berserk"],
                         capture_output=True, text=True, check=True)
    assert run.stdout.startswith("# Berserk (classic): vocabulary") and "`rush`" in run.stdout
    assert "# Magic" not in run.stdout


def test_schema_write_creates_a_missing_folder_and_names_an_unwritable_one(tmp_path):
    """Issue 10: `schema -o` to a missing folder was an internal error."""
    target = tmp_path / "new" / "folder"
    run = subprocess.run([sys.executable, "-m", "pybridge", "schema", "-o", str(target)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (target / "situation-v1.json").read_text(encoding="utf-8") == schema_files()["situation-v1.json"]
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pybridge", "schema", "-o", str(blocker / "sub")],
                         capture_output=True, text=True)
    assert run.returncode == 2 and run.stderr.startswith("error: ") and "Traceback" not in run.stderr
    assert "cannot write situation-v1.json there" in run.stderr
