"""The published JSON Schemas: situation files (input) and reports (output),
and the vocabulary reference pages. All are generated (from the typed models
and each game's vocabulary); the repository keeps copies in schema/ and docs/
that tests compare with what is generated."""

from __future__ import annotations

import json
from typing import Any

import msgspec.json

from pybridge.game.catalogue import load_game
from pybridge.game.encodings import known_games
from pybridge.game.vocabulary import reference_page
from pybridge.input.situation import SCHEMA_VERSION, json_schema
from pybridge.why.justify import REPORT_VERSION, Report


def report_schema() -> dict[str, Any]:
    definitions = msgspec.json.schema(Report)["$defs"]
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://ccg-judge.invalid/schema/report-v{REPORT_VERSION}.json",
            **definitions.pop("Report"), "title": f"ccg-judge report (version {REPORT_VERSION})",
            "$defs": definitions}


def whatif_schema() -> dict[str, Any]:
    from pybridge.report.whatif import WHATIF_VERSION, WhatIf

    definitions = msgspec.json.schema(WhatIf)["$defs"]
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://ccg-judge.invalid/schema/whatif-v{WHATIF_VERSION}.json",
            **definitions.pop("WhatIf"), "title": f"ccg-judge whatif answer (version {WHATIF_VERSION})",
            "$defs": definitions}


def _dump(schema: dict[str, Any]) -> str:
    return json.dumps(schema, ensure_ascii=False, indent=2) + "\n"


def schema_files() -> dict[str, str]:
    from pybridge.report.whatif import WHATIF_VERSION

    return {
        f"situation-v{SCHEMA_VERSION}.json": _dump(json_schema()),
        f"report-v{REPORT_VERSION}.json": _dump(report_schema()),
        f"whatif-v{WHATIF_VERSION}.json": _dump(whatif_schema()),
    }


def vocabulary_pages(games: list[str] | None = None) -> dict[str, str]:
    """File name -> the reference page of each game's vocabulary (docs/vocabulary-GAME.md)."""
    pages = {}
    for game in games or known_games():
        data = load_game(game)
        pages[f"vocabulary-{game}.md"] = reference_page(data.vocabulary, data.title)
    return pages
