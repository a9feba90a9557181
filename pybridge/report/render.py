"""Render results as text or JSON. No logic: wording only.

Text a situation supplies (ids, names) is printed escaped: a control
character never reaches the terminal raw, so a report line cannot be forged."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, Mapping

from pybridge.why.justify import Clamp, ClauseInfo, Node, OverriddenEffect, Report, Resolution, Verdict

_FIELDS: dict[type, tuple[str, ...]] = {}


def to_data(result: Any) -> Any:
    """A result (a dataclass, or an input model) as plain JSON data (dicts, lists, strings, numbers),
    fields in their declared order: what the schemas in schema/ describe (msgspec makes those from
    the same classes)."""
    kind = type(result)
    names = _FIELDS.get(kind)
    if names is None and dataclasses.is_dataclass(result):
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(result))
    elif names is None and hasattr(kind, "__struct_fields__"):
        names = _FIELDS[kind] = kind.__struct_fields__
    if names is not None:
        return {name: to_data(getattr(result, name)) for name in names}
    if kind is list or kind is tuple:
        return [to_data(item) for item in result]
    if kind is dict:
        return {key: to_data(value) for key, value in result.items()}
    return result


def to_json(result: Any, *, indent: int | None = None) -> str:
    """A result as JSON text: compact by default (json's C encoder), indented when asked."""
    if indent is None:
        return json.dumps(to_data(result), ensure_ascii=False, separators=(",", ":"))
    return json.dumps(to_data(result), ensure_ascii=False, indent=indent)


def verdict_graph(report: Report, verdict: Verdict) -> dict:
    """One verdict with the part of the report's graph it reaches (nodes and rules), as JSON data."""
    seen: set[str] = set()
    stack = [n for n in [verdict.node] + [r.node for r in verdict.reasons] + [r.by_node for r in verdict.reasons]
             + [t.node for t in verdict.treatment] + [c.node for c in verdict.consequences]
             + [o.node for o in verdict.obligations] if n]
    rules: set[int] = set()
    while stack:
        ident = stack.pop()
        if ident in seen or ident not in report.nodes:
            continue
        seen.add(ident)
        node = report.nodes[ident]
        for d in node.derivations + node.overridden_by:
            rules.add(d.rule)
            stack.extend(d.premises + d.absent)
    return {"verdict": to_data(verdict),
            "nodes": {i: to_data(report.nodes[i]) for i in sorted(seen, key=lambda x: int(x[1:]))},
            "rules": {str(r): to_data(report.rules[str(r)]) for r in sorted(rules) if str(r) in report.rules},
            "clauses": {c: to_data(report.clauses[c]) for c in verdict.cites if c in report.clauses}}


def _safe(value: str) -> str:
    """Control characters shown as escapes, never printed raw."""
    if value.isprintable():
        return value
    return "".join(ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")
                   for ch in value)


def _clause(clause_id: str, clauses: dict[str, ClauseInfo]) -> str:
    info = clauses.get(clause_id)
    return f"{clause_id} ({info.heading})" if info is not None and info.heading else clause_id


def phrase(node: Node, phrases: Mapping[str, str]) -> str:
    """An atom in words, where the game gives a phrase for its predicate (phrases.yaml); the terms
    among its arguments are worded too, where the phrases word them."""
    template = phrases.get(node.predicate)
    if template is None:
        return _safe(node.atom)
    try:
        return _safe(template.format(*[say_term(a, phrases) for a in node.arguments]))
    except (IndexError, KeyError, ValueError):
        return _safe(node.atom)


def say_term(text: str, phrases: Mapping[str, str]) -> str:
    """A term (as :func:`pybridge.ground.terms.text` writes it) in words, where the phrases' ``terms`` word
    its name and arity, its own argument terms likewise; any other term as written (an action keeps
    the name it is asked by). Not escaped: the caller escapes the sentence it goes into."""
    terms = getattr(phrases, "terms", None)
    if not terms:
        return text
    parts = _split_term(text)
    if parts is None:
        return text
    name, args = parts
    template = terms.get(f"{name}/{len(args)}")
    if template is None:
        return text
    try:
        return template.format(*[say_term(a, phrases) for a in args])
    except (IndexError, KeyError, ValueError):
        return text


_NAME = re.compile(r"[a-z_][A-Za-z0-9_']*")


def _split_term(text: str) -> tuple[str, list[str]] | None:
    """A constant or function term's name and argument texts, read back from its text (None for
    anything else). Strings are written unquoted there, so an id that itself looks like a term is
    read as one: only the wording can be off then, never what the report says holds."""
    match = _NAME.match(text)
    if match is None:
        return None
    name, rest = match.group(0), text[match.end():]
    if not rest:
        return name, []
    if rest[0] != "(" or rest[-1] != ")":
        return None
    inner, args, depth, start = rest[1:-1], [], 0, 0
    for at, ch in enumerate(inner):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "," and depth == 0:
            args.append(inner[start:at].strip())
            start = at + 1
    if depth:
        return None
    args.append(inner[start:].strip())
    return name, args


def _not(said: str) -> str:
    return f"it does not hold that {said}"


def _premises(report: Report, node_id: str, phrases: Mapping[str, str]) -> str:
    """What a reason's atom rests on, in words: the premises of its derivations; a premise derived
    under the same clause (a condition of it) is opened up to its own premises."""
    node = report.nodes.get(node_id)
    if node is None or not node.derivations:
        return ""
    parts: list[str] = []

    def walk(n: Node, depth: int) -> None:
        for d in n.derivations:
            for p in d.premises:
                premise = report.nodes[p]
                if premise.predicate == "candidate/3":
                    continue
                if depth < 3 and premise.derivations and premise.derivations[0].clause == d.clause:
                    walk(premise, depth + 1)
                else:
                    parts.append(phrase(premise, phrases))
            parts.extend(_not(phrase(report.nodes[a], phrases)) for a in d.absent)

    walk(node, 0)
    return "; ".join(dict.fromkeys(parts))


def _failed_condition(report: Report, node_id: str, phrases: Mapping[str, str]) -> str:
    """The condition of a definition an impossible action fails: the first premise that does not hold."""
    node = report.nodes.get(node_id)
    if node is None:
        return ""
    for d in node.overridden_by:
        if d.absent:
            return "; ".join(_not(phrase(report.nodes[a], phrases)) for a in d.absent)
        if d.premises:  # a condition that fails is a comparison, or a negation that holds
            return f"the condition after {phrase(report.nodes[d.premises[-1]], phrases)} does not hold"
    return ""


def verdict_text(v: Verdict, report: Report, phrases: Mapping[str, str] | None = None) -> list[str]:
    phrases = {} if phrases is None else phrases
    clauses = report.clauses
    head = f"{_safe(v.player)}: {_safe(v.action)} — {v.verdict.upper() if v.verdict != 'impossible' else 'NOT POSSIBLE'}"
    if v.certainty == "some":
        head += " (under some admissible treatment of hidden cards, not every)"
    body = [f"    with {_safe(t.card)} taken as {'having' if t.value == 'has' else 'lacking'} "
            f"{_safe(say_term(t.property, phrases))} — {_clause(t.clause, clauses)}" for t in v.treatment]
    told: set[str] = set()
    for r in v.reasons:
        told.add(r.clause)
        if r.role == "granted":
            body.append(f"    possible under {_clause(r.clause, clauses)}")
        elif r.role == "met":
            why = _premises(report, r.node, phrases) if r.node else ""
            body.append(f"    within what {_clause(r.clause, clauses)} allows" + (f": {why}" if why else ""))
        elif r.role == "blocked":
            why = _premises(report, r.node, phrases) if r.node else ""
            body.append(f"    forbidden by {_clause(r.clause, clauses)}" + (f", because {why}" if why else ""))
        elif r.role == "definition":
            why = _failed_condition(report, r.node, phrases) if r.node else ""
            body.append(f"    not an action {_clause(r.clause, clauses)} defines here" + (f": {why}" if why else ""))
        elif r.role == "lifted":
            told.add(r.by or "")
            body.append(f"    {_clause(r.clause, clauses)} would forbid it, but {_clause(r.by or '', clauses)} "
                        f"overrides it: {_principle(r.principle, phrases)}")
        elif r.role == "waived":
            told.add(r.by or "")
            body.append(f"    {_clause(r.clause, clauses)} would forbid it ({_safe(r.condition or '')}), but "
                        f"{_clause(r.by or '', clauses)} overrides that condition: {_principle(r.principle, phrases)}")
    explained = _explained(report, phrases)
    for clause_id in v.cites:  # what decided a cited principle: the effect it set aside, the value it clamped
        if clause_id in explained:
            told.add(clause_id)
            body += [f"    {line}" for line in explained[clause_id]]
    body += [f"    obliged by {_clause(o.clause, clauses)}" for o in v.obligations]
    rest = [c for c in v.cites if c not in told]
    if rest:
        body.append("    resting also on " + "; ".join(_clause(c, clauses) for c in rest))
    for c in v.consequences:
        because = f" — {', '.join(_clause(x, clauses) for x in c.cites)}" if c.cites else ""
        body.append(f"    then: {_safe(say_term(c.effect, phrases))}{because}")
    return [head] + list(dict.fromkeys(body))  # one line per distinct reason


def _words(name: str | None) -> str:
    return (name or "exception").replace("_", "-")


def _principle(name: str | None, phrases: Mapping[str, str]) -> str:
    """What a principle decides, in words (phrases.yaml ``principles``); else its name."""
    said = getattr(phrases, "principles", {}).get(name or "exception")
    return said if said else f"the {_words(name)} principle"


def set_aside_text(o: OverriddenEffect, report: Report, phrases: Mapping[str, str], *, start: str = "effect") -> str:
    """An effect a principle set aside, what set it aside, and what the principle decides."""
    rule = f" — {_clause(o.clause, report.clauses)}" if o.clause else ""
    return (f"{start} {_safe(o.effect)} is set aside because of {_safe(o.by)}: "
            f"{_principle(o.principle, phrases)}{rule}")


def clamp_text(c: Clamp, report: Report) -> str:
    """A value the zero rule raised to 0."""
    which = f" (value no. {c.index})" if c.index else ""
    return (f"{_safe(c.card)}'s {_safe(c.value)}{which} comes to {c.computed} and counts as 0"
            f" — {_clause(c.clause, report.clauses)}")


def _explained(report: Report, phrases: Mapping[str, str]) -> dict[str, list[str]]:
    """Principle clause -> what the report says it decided (effects set aside, values clamped). Read
    off the report's own lists, so plain ``check`` words it without the graph. A verdict citing the
    clause is told every item under it: the lists do not say which its own derivation met."""
    found: dict[str, list[str]] = {}
    for o in report.overridden_effects:
        if o.clause:
            found.setdefault(o.clause, []).append(set_aside_text(o, report, phrases))
    for c in report.clamped:
        found.setdefault(c.clause, []).append(clamp_text(c, report))
    return found


def report_text(report: Report, *, title: str = "", phrases: Mapping[str, str] | None = None) -> str:
    phrases = {} if phrases is None else phrases
    options = ", ".join(f"{k}={v}" for k, v in report.options.items())
    lines = [f"{title or report.game}: edition {report.edition}; options: {options or 'none'}",
             f"Asked by: {_safe(report.viewpoint)}", ""]
    for v in report.verdicts:
        lines.extend(verdict_text(v, report, phrases))
    if not report.verdicts:
        lines.append("No action is possible in this situation.")
    for o in report.overridden_effects:
        lines.append(set_aside_text(o, report, phrases, start="Effect") + ".")
    for a, b in report.unresolved:
        lines.append(f"Unresolved: effects {_safe(a)} and {_safe(b)} contradict and no principle decides between them.")
    for c in report.clamped:
        lines.append(clamp_text(c, report) + ".")
    legal = sum(v.verdict == "legal" for v in report.verdicts)
    lines += ["", f"{legal} legal, {len(report.verdicts) - legal} illegal."]
    return "\n".join(lines) + "\n"


def tree_text(report: Report, node_id: str, indent: int = 0, seen: set[str] | None = None,
              phrases: Mapping[str, str] | None = None) -> list[str]:
    """An indented tree; a node already shown is not expanded again."""
    seen = set() if seen is None else seen
    phrases = {} if phrases is None else phrases
    node = report.nodes[node_id]
    pad = "  " * indent
    said = phrase(node, phrases)
    if node.kind == "fact":
        return [f"{pad}{said}   [situation]"]
    if node.kind == "absent" and not node.overridden_by:
        return [f"{pad}not: {said}   [required not to hold]"]
    if node_id in seen:
        return [f"{pad}{said}   (shown above)"]
    seen.add(node_id)
    if node.kind == "absent":
        lines = [f"{pad}not: {said}   [would hold, but it was overridden]"]
        derivations = node.overridden_by
    else:
        lines = []
        derivations = node.derivations
    for i, d in enumerate(derivations):
        clause = f"   [{_clause(d.clause, report.clauses)}]" if d.clause else ""
        if node.kind != "absent":
            lines.append(f"{pad}{said}{clause}" if i == 0 else f"{pad}{said} — also{clause}")
        elif clause:
            lines.append(f"{pad}  near{clause}")
        for p in d.premises:
            lines.extend(tree_text(report, p, indent + 1, seen, phrases))
        for a in d.absent:
            lines.extend(tree_text(report, a, indent + 1, seen, phrases))
    if not derivations and node.kind != "absent":
        lines.append(f"{pad}{said}")
    return lines


def explain_text(report: Report, v: Verdict, phrases: Mapping[str, str] | None = None) -> str:
    lines = verdict_text(v, report, phrases) + [""]
    roles = [("Why it is possible", ["granted", "met"]), ("Why it is forbidden", ["blocked"]),
             ("Prohibitions overridden", ["lifted", "waived"])]
    for title, wanted in roles:
        node_ids = [r.node for r in v.reasons if r.role in wanted] + \
            [r.by_node for r in v.reasons if r.role in wanted and r.by_node]
        if node_ids:
            lines.append(f"{title}:")
            seen: set[str] = set()
            for node_id in node_ids:
                lines.extend(tree_text(report, node_id, 1, seen, phrases))
            lines.append("")
    for title, ids in (("Obligations", [o.node for o in v.obligations]),
                       ("Treatment of hidden cards", [t.node for t in v.treatment]),
                       ("Consequences", [c.node for c in v.consequences])):
        if ids:
            lines.append(f"{title}:")
            seen = set()
            for node_id in ids:
                lines.extend(tree_text(report, node_id, 1, seen, phrases))
            lines.append("")
    return "\n".join(lines)


def resolution_text(r: Resolution, report: Report | None = None, phrases: Mapping[str, str] | None = None) -> str:
    lines = [f"{_safe(r.player)}: {_safe(r.declared)} — {r.outcome.upper()}"]
    if r.revealed:
        lines.append(f"    revealed: {', '.join(_safe(c) for c in r.revealed)}; the action is {_safe(r.action)}")
    if r.judged_on == "truth":
        lines.append("    judged again with the revealed cards face up; the other hidden cards stay unknown")
    else:
        lines.append(f"    judged on what {_safe(r.player)} may know: nothing is revealed")
    own = set(r.truth.cites) if r.truth is not None else set()
    for clause_id in r.cites:
        if clause_id not in own:  # the game's clauses on resolving, with their headings
            lines.append(f"    {_clause(clause_id, r.clauses)}")
    if r.truth is not None and report is not None:
        lines.extend("  " + line for line in verdict_text(r.truth, report, phrases))
    lines.append(f"    cites: {', '.join(r.cites)}")
    return "\n".join(lines) + "\n"
