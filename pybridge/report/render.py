"""Render results as text or JSON. No logic: wording only.

Text a situation supplies (ids, names) is printed escaped: a control
character never reaches the terminal raw, so a report line cannot be forged."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Mapping

from pybridge.why.justify import Clamp, ClauseInfo, Node, OverriddenEffect, Report, Resolution, Verdict
from pybridge.why.wording import _safe, phrase, say_term  # noqa: F401  (re-exported: callers word atoms here)

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


def _clause(clause_id: str, clauses: dict[str, ClauseInfo]) -> str:
    info = clauses.get(clause_id)
    return f"{clause_id} ({info.heading})" if info is not None and info.heading else clause_id


def _not(said: str) -> str:
    return f"it does not hold that {said}"


def _premises(report: Report, node_id: str, phrases: Mapping[str, str]) -> str:
    """What a reason's atom rests on, in words: the premises of its derivations; a premise derived
    under the same clause (a condition of it) is opened up to its own premises."""
    node = report.nodes.get(node_id)
    if node is None or not node.derivations:
        return ""
    parts: list[str] = []
    _premise_words(report, node, 0, phrases, parts)
    return "; ".join(dict.fromkeys(parts))


def _premise_words(report: Report, n: Node, depth: int, phrases: Mapping[str, str], parts: list[str]) -> None:
    for d in n.derivations:
        for p in d.premises:
            premise = report.nodes[p]
            if premise.predicate == "candidate/3":
                continue
            if depth < 3 and premise.derivations and premise.derivations[0].clause == d.clause:
                _premise_words(report, premise, depth + 1, phrases, parts)
            else:
                parts.append(phrase(premise, phrases))
        parts.extend(_not(phrase(report.nodes[a], phrases)) for a in d.absent)


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
    body = [f"    {_safe(v.assuming)}"] if v.assuming else []
    if v.because:
        body.append(f"    because {_safe(v.because)}")
    told: set[str] = set()
    for r in v.reasons:
        told.add(r.clause)
        if r.role == "granted":
            body.append(f"    possible under {_clause(r.clause, clauses)}")
        elif r.role == "met":
            why = _premises(report, r.node, phrases) if r.node else ""
            body.append(f"    within what {_clause(r.clause, clauses)} allows" + (f": {why}" if why else ""))
        elif r.role == "blocked":
            why = _premises(report, r.node, phrases) if r.node and not v.because else ""
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


def effect_said(name: str, phrases: Mapping[str, str]) -> str:
    """An effect (or what set it aside) as the report names it: a situation's effect by its id, as
    written; one a rule made, a term such as ab(C, F, I, R) (a constant ability's step in force on a
    card), in the words the phrases give its name."""
    if "(" not in name or name.startswith("("):
        return name
    return say_term(name, phrases)


def set_aside_text(o: OverriddenEffect, report: Report, phrases: Mapping[str, str], *, start: str = "effect") -> str:
    """An effect a principle set aside, what set it aside, and what the principle decides."""
    rule = f" — {_clause(o.clause, report.clauses)}" if o.clause else ""
    return (f"{start} {_safe(effect_said(o.effect, phrases))} is set aside because of "
            f"{_safe(effect_said(o.by, phrases))}: {_principle(o.principle, phrases)}{rule}")


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


class _GraphText:
    """A verdict's justification graph as indented lines. Each derived atom is numbered where it is
    first shown and referred to by its number afterwards ("see [3] above"), so a shared premise is
    opened once for the whole explanation; the situation's facts a derivation rests on go on one
    "given:" line, the atoms it required not to hold on one "and not:" line. Below ``depth`` levels a
    node is shown without its premises (None: no limit)."""

    def __init__(self, report: Report, phrases: Mapping[str, str], depth: int | None):
        self.report, self.phrases, self.depth = report, phrases, depth
        self.numbers: dict[str, int] = {}
        self.cut = False  # whether the depth left something out
        self.deepest = 0  # the deepest level a numbered node is shown at

    def _leaf(self, node: Node) -> bool:
        return node.kind == "fact" or (node.kind == "absent" and not node.overridden_by) or \
            (node.kind == "derived" and not node.derivations)

    def lines(self, node_id: str, indent: int, level: int = 0) -> list[str]:
        node = self.report.nodes[node_id]
        pad = "  " * indent
        said = phrase(node, self.phrases)
        if self._leaf(node):
            return [f"{pad}{'not: ' if node.kind == 'absent' else ''}{said}"]
        if node.kind == "absent":
            said = f"not: {said}, which would hold but was overridden"
        if node_id in self.numbers:
            return [f"{pad}{said}   (see [{self.numbers[node_id]}] above)"]
        self.numbers[node_id] = number = len(self.numbers) + 1
        self.deepest = max(self.deepest, level + 1)
        derivations = node.overridden_by if node.kind == "absent" else node.derivations
        out = []
        for i, d in enumerate(derivations[:1]):  # the others are counted, not opened (the JSON has them)
            clause = f"   [{_clause(d.clause, self.report.clauses)}]" if d.clause else ""
            out.append(f"{pad}[{number}] {said}{clause}")
            if len(derivations) > 1:
                others = sorted({o.clause for o in derivations[1:] if o.clause})
                out.append(f"{pad}    (and {len(derivations) - 1} other derivation{'s' if len(derivations) > 2 else ''}"
                           + (f", under {', '.join(others)}" if others else "") + ")")
            if self.depth is not None and level + 1 >= self.depth:
                if d.premises or d.absent:
                    out[-1] += "  …"
                    self.cut = True
                continue
            given = [phrase(self.report.nodes[p], self.phrases) for p in d.premises
                     if self._leaf(self.report.nodes[p]) and self.report.nodes[p].kind != "absent"]
            missing = [phrase(self.report.nodes[a], self.phrases) for a in d.premises + d.absent
                       if self.report.nodes[a].kind == "absent" and self._leaf(self.report.nodes[a])]
            if given:
                out.append(f"{pad}    given: {'; '.join(dict.fromkeys(given))}")
            if missing:
                out.append(f"{pad}    and not: {'; '.join(dict.fromkeys(missing))}")
            for p in d.premises + d.absent:
                if not self._leaf(self.report.nodes[p]):
                    out.extend(self.lines(p, indent + 2, level + 1))
        return out


def explain_text(report: Report, v: Verdict, phrases: Mapping[str, str] | None = None, *,
                 depth: int | None = None, fit: int | None = None) -> str:
    """The verdict as check words it, then its justification graph, section by section, each atom
    opened once for the whole (later mentions refer to its number); ``depth`` cuts the graph below
    that many levels; ``fit`` (no depth given): the whole graph if it fits that many lines, else cut
    at the deepest level that fits (or at one level)."""
    text, deepest = _explained_graph(report, v, {} if phrases is None else phrases, depth)
    if depth is None and fit is not None:
        level = deepest
        while text.count("\n") + 1 > fit and level > 1:
            level -= 1
            text, _ = _explained_graph(report, v, {} if phrases is None else phrases, level)
    return text


def _explained_graph(report: Report, v: Verdict, phrases: Mapping[str, str], depth: int | None) -> tuple[str, int]:
    graph = _GraphText(report, phrases, depth)
    lines = verdict_text(v, report, phrases) + [""]
    roles = [("Why it is forbidden", ["blocked"]), ("Why it is possible", ["granted", "met"]),
             ("Prohibitions overridden", ["lifted", "waived"])]
    sections = [(title, [r.node for r in v.reasons if r.role in wanted] +
                 [r.by_node for r in v.reasons if r.role in wanted and r.by_node]) for title, wanted in roles]
    sections += [("Obligations", [o.node for o in v.obligations]),
                 ("Assumption about hidden cards", [t.node for t in v.treatment]),
                 ("Consequences", [c.node for c in v.consequences])]
    for title, node_ids in sections:
        node_ids = [n for n in dict.fromkeys(node_ids) if n]
        if node_ids:
            lines.append(f"{title}:")
            for node_id in node_ids:
                lines.extend(graph.lines(node_id, 1))
            lines.append("")
    if graph.cut:
        lines.append(f"(cut {depth} level{'s' if depth != 1 else ''} deep, marked …: --depth N shows N levels, "
                     "--depth 0 all)")
    return "\n".join(lines), graph.deepest


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
