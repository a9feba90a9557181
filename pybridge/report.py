"""Render results as text or JSON. No logic: wording only."""

from __future__ import annotations

import json

from pybridge.justify import ClauseRef, Node, Report, Resolution, Verdict


def to_json(model) -> str:
    return json.dumps(model.model_dump(mode="json", by_alias=True), ensure_ascii=False, indent=2, sort_keys=False)


def _clause(ref: ClauseRef) -> str:
    return f"{ref.id} ({ref.heading})" if ref.heading else ref.id


def _grounds(node: Node) -> str:
    """The premises that made a rule fire, without the candidate it was about."""
    parts = [p.atom for p in node.premises if not p.atom.startswith("candidate(")]
    parts += [f"not {a}" for a in node.absent]
    return ", ".join(parts)


def verdict_text(v: Verdict) -> list[str]:
    lines = [f"{v.player}: {v.action} — {v.verdict.upper()}"]
    if v.certainty == "some":
        lines[0] += " (under some admissible treatment of hidden cards, not every)"
    for t in v.treatment:
        lines.append(f"    treating {t.card} as {'having' if t.value == 'has' else 'lacking'} "
                     f"{t.property} — {_clause(t.clause)}")
    for reason in v.granted_by:
        lines.append(f"    possible under {_clause(reason.clause)}")
    for reason in v.blocked_by:
        for ground in reason.grounds:
            why = _grounds(ground)
            lines.append(f"    forbidden by {_clause(reason.clause)}" + (f": {why}" if why else ""))
    for lifted in v.lifted:
        lines.append(f"    {_clause(lifted.clause)} would forbid it, but {_clause(lifted.by)} "
                     f"overrides it ({lifted.principle})")
    for duty in v.obliged_by:
        lines.append(f"    obliged by {_clause(duty.clause)}")
    if v.consequences:
        lines.append(f"    then: {', '.join(v.consequences)}")
    return lines


def report_text(report: Report, *, title: str = "") -> str:
    options = ", ".join(f"{k}={v}" for k, v in report.options.items())
    lines = [f"{title or report.game}: edition {report.edition}; options: {options or 'none'}",
             f"Asked by: {report.viewpoint}", ""]
    for v in report.verdicts:
        lines.extend(verdict_text(v))
    if not report.verdicts:
        lines.append("No action is possible in this situation.")
    for o in report.overridden_effects:
        by = f" — {_clause(o.clause)}" if o.clause else ""
        lines.append(f"Effect {o.effect} is ignored: {o.by} prevails ({o.principle}{by}).")
    for a, b in report.unresolved:
        lines.append(f"Unresolved: effects {a} and {b} contradict and no principle decides between them.")
    for c in report.clamped:
        part = f" (value {c.index})" if c.index else ""
        lines.append(f"{c.card}: {c.value}{part} comes to {c.computed} after modifiers and counts as 0 "
                     f"— {_clause(c.clause)}.")
    legal = sum(v.verdict == "legal" for v in report.verdicts)
    lines += ["", f"{legal} legal, {len(report.verdicts) - legal} illegal."]
    return "\n".join(lines) + "\n"


def tree_text(node: Node, indent: int = 0, seen: set[str] | None = None) -> list[str]:
    """An indented tree; a derived atom already shown is not expanded again."""
    seen = set() if seen is None else seen
    pad = "  " * indent
    if node.kind == "derived" and node.atom in seen:
        return [f"{pad}{node.atom}   (shown above)"]
    seen.add(node.atom)
    if node.kind == "fact":
        return [f"{pad}{node.atom}   [situation fact]"]
    if node.kind == "unexplained":
        return [f"{pad}{node.atom}   [no recorded derivation]"]
    head = f"{pad}{node.atom}"
    if node.clause:
        head += f"   [{_clause(node.clause)}]"
    lines = [head]
    for premise in node.premises:
        lines.extend(tree_text(premise, indent + 1, seen))
    for atom in node.absent:
        lines.append(f"{pad}  not {atom}   [does not hold]")
    return lines


def explain_text(v: Verdict) -> str:
    lines = verdict_text(v) + [""]
    sections = [("Why it is possible", [g for r in v.granted_by for g in r.grounds]),
                ("Why it is forbidden", [g for r in v.blocked_by for g in r.grounds]),
                ("Prohibitions overridden", [g for l in v.lifted for g in l.grounds]),
                ("Obligations", [g for r in v.obliged_by for g in r.grounds]),
                ("Treatment of hidden cards", [g for t in v.treatment for g in t.grounds]),
                ("Consequences", v.consequence_grounds)]
    for title, nodes in sections:
        if nodes:
            lines.append(f"{title}:")
            seen: set[str] = set()
            for node in nodes:
                lines.extend(tree_text(node, 1, seen))
            lines.append("")
    return "\n".join(lines)


def resolution_text(r: Resolution) -> str:
    lines = [f"{r.player}: {r.declared} — {r.outcome.upper()}"]
    if r.revealed:
        lines.append(f"    revealed: {', '.join(r.revealed)}; the action is {r.action}")
    if r.rule is not None:
        lines.append(f"    {_clause(r.rule)}: an action that proves illegal on reveal is not carried out, "
                     "but its cost is paid")
    if r.truth is not None:
        lines.extend("  " + line for line in verdict_text(r.truth))
    lines.append(f"    cites: {', '.join(r.cites)}")
    return "\n".join(lines) + "\n"
