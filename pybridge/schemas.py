"""The published JSON Schemas: situation files (input) and reports (output).
Both are generated from the typed models; the repository keeps a copy in
schema/ that a test compares with the models."""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

from pybridge.justify import REPORT_VERSION, Report
from pybridge.situation import SCHEMA_VERSION, json_schema


def report_schema() -> dict[str, Any]:
    schema = TypeAdapter(Report).json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://ccg-judge.invalid/schema/report-v{REPORT_VERSION}.json"
    schema["title"] = f"ccg-judge report (version {REPORT_VERSION})"
    return schema


def _dump(schema: dict[str, Any]) -> str:
    return json.dumps(schema, ensure_ascii=False, indent=2) + "\n"


def schema_files() -> dict[str, str]:
    return {
        f"situation-v{SCHEMA_VERSION}.json": _dump(json_schema()),
        f"report-v{REPORT_VERSION}.json": _dump(report_schema()),
    }
