"""Render results as text or JSON. No logic: wording only."""

from __future__ import annotations

import json

from pybridge.justify import ClauseRef, Node, Report, Resolution, Verdict


def to_json(model) -> str:
    return json.dumps(model.model_dump(mode="json", by_alias=True), ensure_ascii=False, indent=2, sort_keys=False)


def _clause(ref: ClauseRef) -> str:
    return f"{ref.id} ({ref.heading})" if ref.heading else ref.id


def phrase(node: Node, phrases: dict[str, str]) -> str:
    """An atom in words, where the game gives a phrase for its predicate (phrases.yaml)."""
    template = phrases.get(node.predicate)
    if template is None:
        return node.atom
    try:
        return template.format(*node.arguments)
    except (IndexError, KeyError, ValueError):
        return node.atom


def _grounds(node: Node, phrases: dict[str, str]) -> str:
    """The premises that made a rule fire, without the candidate it was about. A premise
    derived under the same clause (a condition of it) is opened up to its own premises."""

    def premises(n: Node) -> list[str]:
        parts: list[str] = []
        for p in n.premises:
            if p.predicate == "candidate/3":
                continue
            if p.kind == "derived" and p.clause and n.clause and p.clause.id == n.clause.id:
                parts += premises(p)
            else:
                parts.append(phrase(p, phrases))
        return parts + [f"no {a}" for a in n.absent]

    return "; ".join(dict.fromkeys(premises(node)))


def verdict_text(v: Verdict, phrases: dict[str, str] | None = None) -> list[str]:
    phrases = phrases or {}
    lines = [f"{v.player}: {v.action} — {v.verdict.upper()}"]
    if v.certainty == "some":
        lines[0] += " (under some admissible treatment of hidden cards, not every)"
    body = [f"    treating {t.card} as {'having' if t.value == 'has' else 'lacking'} "
            f"{t.property} — {_clause(t.clause)}" for t in v.treatment]
    body += [f"    possible under {_clause(reason.clause)}" for reason in v.granted_by]
    for reason in v.blocked_by:
        for ground in reason.grounds:
            why = _grounds(ground, phrases)
            body.append(f"    forbidden by {_clause(reason.clause)}" + (f", because {why}" if why else ""))
    # A clause lifted condition by condition is told by its waived conditions alone.
    told = {(w.clause.id, w.by.id) for w in v.waived}
    for lifted in v.lifted:
        if (lifted.clause.id, lifted.by.id) not in told:
            body.append(f"    {_clause(lifted.clause)} would forbid it, but {_clause(lifted.by)} "
                        f"overrides it ({lifted.principle})")
    for waived in v.waived:
        body.append(f"    {_clause(waived.clause)} would forbid it ({waived.condition}), but "
                    f"{_clause(waived.by)} overrides that condition ({waived.principle})")
    body += [f"    obliged by {_clause(duty.clause)}" for duty in v.obliged_by]
    if v.consequences:
        body.append(f"    then: {', '.join(v.consequences)}")
    return lines + list(dict.fromkeys(body))  # one line per distinct reason


def report_text(report: Report, *, title: str = "", phrases: dict[str, str] | None = None) -> str:
    options = ", ".join(f"{k}={v}" for k, v in report.options.items())
    lines = [f"{title or report.game}: edition {report.edition}; options: {options or 'none'}",
             f"Asked by: {report.viewpoint}", ""]
    for v in report.verdicts:
        lines.extend(verdict_text(v, phrases))
    if not report.verdicts:
        lines.append("No action is possible in this situation.")
    for o in report.overridden_effects:
        rule = f" ({_clause(o.clause)})" if o.clause else ""
        lines.append(f"Effect {o.effect} is set aside under {o.principle.replace('_', '-')}, "
                     f"because of {o.by}{rule}.")
    for a, b in report.unresolved:
        lines.append(f"Unresolved: effects {a} and {b} contradict and no principle decides between them.")
    for c in report.clamped:
        which = f" (value no. {c.index})" if c.index else ""
        lines.append(f"{c.card}'s {c.value}{which} comes to {c.computed} after modifiers and counts as 0 "
                     f"— {_clause(c.clause)}.")
    legal = sum(v.verdict == "legal" for v in report.verdicts)
    lines += ["", f"{legal} legal, {len(report.verdicts) - legal} illegal."]
    return "\n".join(lines) + "\n"


def tree_text(node: Node, indent: int = 0, seen: set[str] | None = None,
              phrases: dict[str, str] | None = None) -> list[str]:
    """An indented tree; a derived atom already shown is not expanded again."""
    seen = set() if seen is None else seen
    phrases = phrases or {}
    pad = "  " * indent
    said = phrase(node, phrases)
    if node.kind == "derived" and node.atom in seen:
        return [f"{pad}{said}   (shown above)"]
    seen.add(node.atom)
    if node.kind == "fact":
        return [f"{pad}{said}   [situation]"]
    if node.kind == "unexplained":
        return [f"{pad}{said}   [no recorded derivation]"]
    head = f"{pad}{said}"
    if node.clause:
        head += f"   [{_clause(node.clause)}]"
    lines = [head]
    for premise in node.premises:
        lines.extend(tree_text(premise, indent + 1, seen, phrases))
    for atom in node.absent:
        lines.append(f"{pad}  absent: {atom}   [required not to hold]")
    return lines


def explain_text(v: Verdict, phrases: dict[str, str] | None = None) -> str:
    lines = verdict_text(v, phrases) + [""]
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
                lines.extend(tree_text(node, 1, seen, phrases))
            lines.append("")
    return "\n".join(lines)


def resolution_text(r: Resolution, phrases: dict[str, str] | None = None) -> str:
    lines = [f"{r.player}: {r.declared} — {r.outcome.upper()}"]
    if r.revealed:
        lines.append(f"    revealed: {', '.join(r.revealed)}; the action is {r.action}")
    if r.rule is not None:
        lines.append(f"    {_clause(r.rule)}: an action that proves illegal on reveal is not carried out, "
                     "but its cost is paid")
    if r.truth is not None:
        lines.extend("  " + line for line in verdict_text(r.truth, phrases))
    lines.append(f"    cites: {', '.join(r.cites)}")
    return "\n".join(lines) + "\n"
