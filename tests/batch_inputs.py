"""Inputs shared by the batch tests: a few small, fast situations in every input form, some broken."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from pybridge import api
from pybridge.input.situation import situation_from_data
from pybridge.report.render import verdict_graph

ROOT = Path(__file__).resolve().parent.parent
RUSH = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"


def variants() -> list[dict]:
    """The 107.5 example under other arrival turns, with and without the rush effect, from both sides."""
    base = yaml.safe_load(RUSH.read_text(encoding="utf-8"))
    made = []
    for arrived in (3, 2):
        for with_rush in (True, False):
            for viewpoint in ("p1", "p2"):
                data = json.loads(json.dumps(base))
                data["cards"][0]["arrived"] = arrived
                data["viewpoint"] = viewpoint
                if not with_rush:
                    data["effects"] = []
                made.append(data)
    return made


def write_inputs(folder: Path) -> tuple[list[str], list[tuple[str, dict | None]]]:
    """Paths to give the batch, and what it must answer for each situation, in order:
    (situation id, data) for a good one, (situation id, None) for one that must be an error."""
    good = variants()
    files = folder / "files"
    files.mkdir()
    (files / "a.yaml").write_text(yaml.safe_dump(good[0], allow_unicode=True), encoding="utf-8")
    (files / "b.json").write_text(json.dumps(good[1], ensure_ascii=False), encoding="utf-8")
    (files / "notes.txt").write_text("not a situation: a folder's other files are not read", encoding="utf-8")
    unknown_card = json.loads(json.dumps(good[2]))
    unknown_card["cards"][0]["card"] = "Эльф-всадниц"
    lines = [
        json.dumps(good[2], ensure_ascii=False),
        "",
        json.dumps({"id": "named one", **good[3]}, ensure_ascii=False),
        "{not json",
        json.dumps(unknown_card, ensure_ascii=False),
        *(json.dumps(g, ensure_ascii=False) for g in good[4:]),
    ]
    jsonl = folder / "more.jsonl"
    jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    missing = folder / "missing.yaml"
    expected = [(str(files / "a.yaml"), good[0]), (str(files / "b.json"), good[1]),
                (f"{jsonl}:1", good[2]), ("named one", good[3]), (f"{jsonl}:4", None), (f"{jsonl}:5", None)]
    expected += [(f"{jsonl}:{6 + i}", g) for i, g in enumerate(good[4:])]
    expected.append((str(missing), None))
    return [str(files), str(jsonl), str(missing)], expected


def expected_rows(expected: list[tuple[str, dict | None]], *, trees: bool = False) -> list[dict]:
    """The rows of the good situations, each checked on its own in this process."""
    rows = []
    for name, data in expected:
        if data is None:
            continue
        report = api.check(situation_from_data(data), trees=trees)
        for v in report.verdicts:
            row = {"situation": name, "player": v.player, "action": v.action, "verdict": v.verdict,
                   "obliged": bool(v.obligations), "obliged_by": sorted({o.clause for o in v.obligations}),
                   "cites": list(v.cites), "certainty": v.certainty,
                   "consequences": [c.effect for c in v.consequences], "edition": report.edition,
                   "options": dict(sorted(report.options.items()))}
            if trees:
                row["justification"] = verdict_graph(report, v)
            rows.append(row)
    return rows
