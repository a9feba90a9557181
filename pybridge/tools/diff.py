"""``ccg-judge diff``: what changes for the same situations between two settings (two editions or
options, or two rules bases): each verdict, its cites, its obligations, its certainty and its
consequences, both sides given."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from pybridge import api
from pybridge.game.encodings import use_asp_root
from pybridge.errors import JudgeError
from pybridge.why.justify import Report, Verdict
from pybridge.report.render import to_data
from pybridge.why.wording import _safe

# What of a verdict is compared, in the order a change lists them.
COMPARED = ("verdict", "cites", "obligations", "certainty", "consequences")


@dataclass
class Side:
    label: str  # how the change names it: "edition=515", "rules before/asp"
    edition: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    rules: Path | None = None  # a rules base other than the installed one


def _facets(v: Verdict | None) -> dict:
    """What a verdict says, for comparing: an action with no verdict is not possible there."""
    if v is None:
        return {"verdict": "not possible", "cites": [], "obligations": [], "certainty": "every", "consequences": []}
    return {"verdict": "obliged" if v.obligations and v.verdict == "legal" else v.verdict, "cites": list(v.cites),
            "obligations": sorted(o.clause for o in v.obligations), "certainty": v.certainty,
            "consequences": sorted(c.effect for c in v.consequences)}


def _applies(path: Path, side: Side) -> bool:
    """Whether the situation's game has the side's edition and options (a folder may mix games)."""
    game = api.game_of(path)
    return ((side.edition is None or side.edition in game.editions)
            and all(name in game.options and value in game.options[name].values
                    for name, value in side.options.items()))


def _reports(paths: list[Path], side: Side, time_limit: float | None) -> dict[Path, Report | str | None]:
    """Each situation judged under the side's setting: its report, an error's text, or None (skipped)."""
    found: dict[Path, Report | str | None] = {}
    with (use_asp_root(side.rules) if side.rules is not None else contextlib.nullcontext()):
        for path in paths:
            try:
                if not _applies(path, side):
                    found[path] = None
                    continue
                found[path] = api.check(path, edition=side.edition, options=side.options or None,
                                        time_limit=time_limit)
            except JudgeError as exc:
                found[path] = exc.render() if exc.source else f"{path}: {exc.render()}"
    return found


def compare(situations, sides: list[Side], *, time_limit: float | None = None) -> dict:
    """The changes between two sides over the situations (files or folders), as JSON data."""
    from pybridge.tools.rulings import ruling_files

    a, b = sides
    paths = ruling_files(situations)
    judged_a, judged_b = _reports(paths, a, time_limit), _reports(paths, b, time_limit)
    changes, errors, skipped = [], [], []
    judged = compared = 0
    kinds: dict[str, int] = {k: 0 for k in COMPARED}
    for path in paths:
        ra, rb = judged_a[path], judged_b[path]
        if isinstance(ra, str) or isinstance(rb, str):
            errors.extend(dict.fromkeys(r for r in (ra, rb) if isinstance(r, str)))
            continue
        if ra is None or rb is None:
            skipped.append(str(path))
            continue
        judged += 1
        keys = sorted({(v.player, v.action) for v in ra.verdicts + rb.verdicts})
        compared += len(keys)
        for player, action in keys:
            va, vb = ra.verdict(player, action), rb.verdict(player, action)
            fa, fb = _facets(va), _facets(vb)
            differ = [k for k in COMPARED if fa[k] != fb[k]]
            if not differ:
                continue
            for k in differ:
                kinds[k] += 1
            changes.append({"situation": str(path), "player": player, "action": action, "differ": differ,
                            a.label: to_data(va) if va else None, b.label: to_data(vb) if vb else None,
                            "sides": {a.label: {k: fa[k] for k in differ}, b.label: {k: fb[k] for k in differ}},
                            "summary": [_said(fa), _said(fb)]})
    return {"settings": [a.label, b.label], "situations": judged, "verdicts": compared, "changed": len(changes),
            "situations_changed": len({c["situation"] for c in changes}), "by_kind": kinds,
            "skipped": skipped, "errors": errors, "changes": changes}


def _said(f: dict) -> str:
    return f"{f['verdict']} ({', '.join(f['cites']) or 'no clause'})"


def summary_text(result: dict) -> str:
    """The changes as text: per situation a row per changed action (its verdict and cites on each side),
    and under it each other thing that changed, side by side."""
    a, b = result["settings"]
    rows = [(f"{c['player']}: {c['action']}", *c["summary"]) for c in result["changes"]]
    widths = [max([len(r[i]) for r in rows] + [len(h)]) for i, h in enumerate(("action", a, b))]
    lines, situation = [], None
    for change, row in zip(result["changes"], rows):
        if change["situation"] != situation:
            situation = change["situation"]
            lines.append(_safe(situation))
            lines.append("    " + "  |  ".join(h.ljust(w) for h, w in zip(("action", a, b), widths)).rstrip())
        lines.append("    " + "  |  ".join(_safe(cell).ljust(w) for cell, w in zip(row, widths)).rstrip())
        for kind in change["differ"]:
            if kind in ("verdict", "cites"):
                continue
            va, vb = change["sides"][a][kind], change["sides"][b][kind]
            if isinstance(va, list):  # a list: what only one side has
                for label, mine, other in ((a, va, vb), (b, vb, va)):
                    only = [x for x in mine if x not in other]
                    if only:
                        lines.append(f"        {kind} only under {label}: {_safe(', '.join(only))}")
            else:
                lines.append(f"        {kind}: {_safe(va)} under {a}, {_safe(vb)} under {b}")
    lines += [f"error: {e}" for e in result["errors"]]
    kinds = ", ".join(f"{k} {n}" for k, n in result["by_kind"].items() if n)
    skipped = (f"; {len(result['skipped'])} skipped (their game has no such setting)" if result["skipped"] else "")
    lines.append(f"{result['changed']} of {result['verdicts']} verdict(s) change{f' ({kinds})' if kinds else ''}, "
                 f"in {result['situations_changed']} of {result['situations']} situation(s){skipped}.")
    return "\n".join(lines) + "\n"
