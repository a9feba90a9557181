"""The published schemas match the models, and real output conforms to them."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from pybridge.rulings import ruling_files
from pybridge.schemas import schema_files

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", sorted(schema_files()))
def test_committed_schema_matches_the_models(name):
    committed = (ROOT / "schema" / name).read_text(encoding="utf-8")
    assert committed == schema_files()[name], "regenerate with: ccg-judge schema --write schema"


def test_every_ruling_file_conforms_to_the_situation_schema():
    import yaml

    schema = json.loads(schema_files()["situation-v1.json"])
    for path in ruling_files([ROOT / "tests" / "rulings"]) + sorted(ROOT.glob("examples/**/*.yaml")):
        jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), schema)


def test_check_json_conforms_to_the_report_schema():
    example = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"
    run = subprocess.run([sys.executable, "-m", "pybridge", "check", str(example), "--json"],
                         capture_output=True, text=True, check=True)
    report = json.loads(run.stdout)
    jsonschema.validate(report, json.loads(schema_files()["report-v2.json"]))
    assert report["schema"] == "ccg-judge/report" and report["version"] == 2
    assert all(v["cites"] for v in report["verdicts"])


def test_schema_command_prints_the_situation_schema():
    run = subprocess.run([sys.executable, "-m", "pybridge", "schema"], capture_output=True, text=True, check=True)
    assert json.loads(run.stdout)["title"] == "ccg-judge situation (version 1)"
