"""Answer set -> verdicts with justification trees. The only module that
knows the names of the output (judgement) predicates.

Every derived atom carries ``_why`` records (see :mod:`pybridge.solve`):
which rule derived it from which premises. A tree is read off them down to
the situation's facts; the clause of each node comes from the judgement
atom's own rule-id argument or from the banner above the rule.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Literal

import clingo
from clingo import ast
from pydantic import BaseModel, Field

from pybridge.catalogue import Game
from pybridge.solve import WHY, Answer, RuleInfo

REPORT_SCHEMA = "ccg-judge/report"
REPORT_VERSION = 1
ABSENT_CANDIDATE = "absent"


# --------------------------------------------------------------------------
# Result types


class ClauseRef(BaseModel):
    id: str
    heading: str = ""
    summary: str = ""


class Node(BaseModel):
    """One step of a justification: an atom, the rule and clause that
    derived it, the variable bindings, and its premises."""

    atom: str
    kind: Literal["derived", "fact", "absent", "unexplained"]
    predicate: str = Field(default="", description="name/arity of the atom, for wording it (phrases.yaml).")
    arguments: list[str] = Field(default_factory=list, description="The atom's arguments, as text.")
    clause: ClauseRef | None = None
    rule: str | None = None
    bindings: dict[str, str] = Field(default_factory=dict)
    premises: list[Node] = Field(default_factory=list)
    absent: list[str] = Field(default_factory=list, description="Atoms the rule required to be false.")


class Reason(BaseModel):
    """A clause behind a verdict, with every derivation of it that held."""

    clause: ClauseRef
    grounds: list[Node]


class Lifted(BaseModel):
    """A prohibition that was overridden, and the clause that overrode it."""

    clause: ClauseRef
    by: ClauseRef
    principle: str
    grounds: list[Node]


class Waived(BaseModel):
    """One condition of a prohibition that card text explicitly overrides. The clause is lifted
    (listed in ``lifted``) only when every condition the action fails is waived; otherwise it
    still blocks, and this records what was overridden."""

    clause: ClauseRef
    condition: str
    by: ClauseRef
    principle: str
    grounds: list[Node]


class Assumption(BaseModel):
    """What the acting player treats an opponent's hidden card as having (or lacking)."""

    card: str
    property: str
    value: Literal["has", "lacks"]
    clause: ClauseRef
    grounds: list[Node] = Field(default_factory=list)


class Verdict(BaseModel):
    player: str
    action: str
    verdict: Literal["legal", "illegal"]
    cites: list[str] = Field(description="Clause ids the verdict rests on, sorted.")
    granted_by: list[Reason]
    blocked_by: list[Reason] = Field(default_factory=list)
    lifted: list[Lifted] = Field(default_factory=list)
    waived: list[Waived] = Field(
        default_factory=list, description="Conditions of prohibitions that card text explicitly overrides.")
    obliged_by: list[Reason] = Field(default_factory=list)
    consequences: list[str] = Field(default_factory=list)
    consequence_grounds: list[Node] = Field(
        default_factory=list, description="How each consequence was derived (one tree per derivation).")
    certainty: Literal["every", "some"] = Field(
        default="every",
        description="'every': the verdict holds under every admissible treatment of the opponent's hidden "
                    "cards (cautious); 'some': it holds under at least one (brave), the witness is in 'treatment'.")
    treatment: list[Assumption] = Field(
        default_factory=list, description="The witness treatment of hidden cards a 'some' verdict rests on.")


class OverriddenEffect(BaseModel):
    effect: str
    by: str
    principle: str
    clause: ClauseRef | None


class Clamp(BaseModel):
    """A value the zero rule raised to 0."""

    card: str
    value: str
    index: int
    computed: int
    clause: ClauseRef


class Report(BaseModel):
    schema_id: Literal["ccg-judge/report"] = Field(default=REPORT_SCHEMA, alias="schema")
    version: Literal[1] = REPORT_VERSION
    game: str
    edition: str
    options: dict[str, str]
    viewpoint: str
    verdicts: list[Verdict]
    overridden_effects: list[OverriddenEffect] = Field(default_factory=list)
    unresolved: list[list[str]] = Field(default_factory=list, description="Pairs of clashing effects no principle decides.")
    clamped: list[Clamp] = Field(default_factory=list, description="Values the zero rule raised to 0.")
    atoms: list[str] = Field(description="The judgement atoms exactly as clingo prints them, sorted.")

    model_config = {"populate_by_name": True}

    def verdict(self, player: str, action: str) -> Verdict | None:
        return next((v for v in self.verdicts if v.player == player and v.action == action), None)


# --------------------------------------------------------------------------
# Rendering symbols for people


def text(symbol: clingo.Symbol) -> str:
    """A term as people read it: strings unquoted, tuples in parentheses."""
    if symbol.type == clingo.SymbolType.String:
        return symbol.string
    if symbol.type == clingo.SymbolType.Function:
        args = ", ".join(text(a) for a in symbol.arguments)
        if not symbol.name:
            return f"({args}{',' if len(symbol.arguments) == 1 else ''})"
        return f"{symbol.name}({args})" if symbol.arguments else symbol.name
    return str(symbol)


# --------------------------------------------------------------------------
# Reading _why records


def _unify(pattern: ast.AST, symbol: clingo.Symbol, bindings: dict[str, clingo.Symbol]) -> None:
    kind = pattern.ast_type
    if kind == ast.ASTType.Variable:
        bindings.setdefault(pattern.name, symbol)
    elif kind == ast.ASTType.Function and symbol.type == clingo.SymbolType.Function:
        if len(pattern.arguments) == len(symbol.arguments):
            for sub, arg in zip(pattern.arguments, symbol.arguments):
                _unify(sub, arg, bindings)


class Explainer:
    def __init__(self, answer: Answer, game: Game):
        self.game = game
        self.rules: dict[int, RuleInfo] = {r.index: r for r in answer.rules}
        self.facts = answer.facts
        self.supports: dict[clingo.Symbol, list[tuple[int, tuple, tuple]]] = defaultdict(list)
        for atom in answer.atoms:
            if atom.name == WHY and len(atom.arguments) == 4:
                index, head, pos, neg = atom.arguments
                self.supports[head].append((index.number, tuple(pos.arguments), tuple(neg.arguments)))
        for entries in self.supports.values():
            entries.sort(key=lambda e: (e[0], [str(p) for p in e[1]]))
        self.level = self._levels()

    def _levels(self) -> dict[clingo.Symbol, int]:
        """Derivation depth: facts 0, others one more than their deepest premise."""
        level = {f: 0 for f in self.facts}
        changed = True
        while changed:
            changed = False
            for head, entries in self.supports.items():
                for _, pos, _ in entries:
                    if all(p in level for p in pos):
                        depth = 1 + max((level[p] for p in pos), default=0)
                        if depth < level.get(head, 1 << 30):
                            level[head] = depth
                            changed = True
        return level

    def clause_ref(self, clause_id: str) -> ClauseRef:
        clause = self.game.clause(clause_id)
        if clause is None:
            return ClauseRef(id=clause_id)
        return ClauseRef(id=clause.id, heading=clause.heading, summary=clause.summary)

    def _clause_of(self, rule: RuleInfo, head: clingo.Symbol) -> ClauseRef | None:
        cited = _cited_clause(head)
        if cited is not None:
            return self.clause_ref(cited)
        return self.clause_ref(rule.clause) if rule.clause else None

    def _node(self, atom: clingo.Symbol, support: tuple[int, tuple, tuple] | None, depth: int) -> Node:
        if support is None:
            if atom in self.facts:
                return Node(atom=text(atom), kind="fact", **_parts(atom))
            return Node(atom=text(atom), kind="unexplained", **_parts(atom))
        index, pos, neg = support
        rule = self.rules[index]
        bindings: dict[str, clingo.Symbol] = {}
        _unify(rule.head, atom, bindings)
        for pattern, premise in zip(rule.positive, pos):
            _unify(pattern, premise, bindings)
        premises = [self.tree(p, depth + 1) for p in pos] if depth < 40 else []
        return Node(
            atom=text(atom),
            kind="derived",
            **_parts(atom),
            clause=self._clause_of(rule, atom),
            rule=rule.text,
            bindings={k: text(v) for k, v in sorted(bindings.items()) if not k.startswith("Anonymous")},
            premises=premises,
            absent=[text(n) for n in neg],
        )

    def best_support(self, atom: clingo.Symbol):
        entries = self.supports.get(atom)
        if not entries:
            return None
        # a well-founded derivation: all premises strictly shallower than the atom
        mine = self.level.get(atom, 1 << 30)
        for entry in entries:
            if all(self.level.get(p, 1 << 30) < mine for p in entry[1]):
                return entry
        return entries[0]

    def tree(self, atom: clingo.Symbol, depth: int = 0) -> Node:
        return self._node(atom, self.best_support(atom), depth)

    def all_trees(self, atom: clingo.Symbol) -> list[Node]:
        """One tree per rule instance that derived the atom (every ground of a verdict)."""
        entries = self.supports.get(atom) or [None]
        return [self._node(atom, entry, 0) for entry in entries]


def _parts(atom: clingo.Symbol) -> dict[str, Any]:
    if atom.type != clingo.SymbolType.Function:
        return {}
    return {"predicate": f"{atom.name}/{len(atom.arguments)}", "arguments": [text(a) for a in atom.arguments]}


def _cited_clause(head: clingo.Symbol) -> str | None:
    """The rule-id argument of a judgement atom."""
    name, args = head.name, head.arguments
    if name in ("candidate", "forbidden", "obliged") and len(args) == 3 and args[2].type == clingo.SymbolType.String:
        return args[2].string
    if name == "violation" and len(args) == 4 and args[2].type == clingo.SymbolType.String:
        return args[2].string
    if name == "waived" and len(args) == 5 and args[4].type == clingo.SymbolType.String:
        return args[4].string
    if name == "exempt" and len(args) == 4 and args[3].type == clingo.SymbolType.String:
        return args[3].string
    return None


# --------------------------------------------------------------------------
# Verdicts


def _cite_key(clause_id: str) -> tuple:
    parts = []
    for piece in clause_id.replace("-", ".").split("."):
        parts.append((0, int(piece), "") if piece.isdigit() else (1, 0, piece))
    return tuple(parts)


def sort_clause_ids(ids) -> list[str]:
    return sorted(set(ids), key=_cite_key)


def build_report(answer: Answer, game: Game, *, edition: str, options: dict[str, str], viewpoint: str) -> Report:
    why = Explainer(answer, game)
    shown = answer.shown
    by_name: dict[str, list[clingo.Symbol]] = defaultdict(list)
    for atom in shown:
        by_name[f"{atom.name}/{len(atom.arguments)}"].append(atom)

    candidates: dict[tuple, list[clingo.Symbol]] = defaultdict(list)
    for atom in by_name["candidate/3"]:
        candidates[(atom.arguments[0], atom.arguments[1])].append(atom)
    forbidden = defaultdict(list)
    for atom in by_name["forbidden/3"]:
        forbidden[(atom.arguments[0], atom.arguments[1])].append(atom)
    exempt = defaultdict(list)
    for atom in by_name["exempt/4"]:
        exempt[(atom.arguments[0], atom.arguments[1], atom.arguments[2])].append(atom)
    waived = defaultdict(list)
    for atom in by_name["waived/5"]:
        waived[(atom.arguments[0], atom.arguments[1])].append(atom)
    obliged = defaultdict(list)
    for atom in by_name["obliged/3"]:
        obliged[(atom.arguments[0], atom.arguments[1])].append(atom)
    consequences = defaultdict(list)
    for atom in by_name["consequence/3"]:
        consequences[(atom.arguments[0], atom.arguments[1])].append(atom.arguments[2])
    legal = {(a.arguments[0], a.arguments[1]) for a in by_name["legal/2"]}
    principle_of = _principles(answer)
    # Hidden cards (treatments): legal under every admissible treatment, or only under some.
    in_every = {(a.arguments[0], a.arguments[1]) for a in by_name["legal_in_every/2"]}
    in_some = {(a.arguments[0], a.arguments[1]) for a in by_name["legal_in_some/2"]}
    assumed = defaultdict(list)
    for atom in by_name["assumed/6"]:
        assumed[(atom.arguments[0], atom.arguments[1])].append(atom)

    verdicts: list[Verdict] = []
    for key in sorted(candidates, key=lambda k: (text(k[0]), text(k[1]))):
        player, action = key
        granted = [Reason(clause=why.clause_ref(a.arguments[2].string), grounds=why.all_trees(a))
                   for a in sorted(candidates[key])]
        blocked, lifted = [], []
        for f in sorted(forbidden.get(key, []), key=lambda a: _cite_key(a.arguments[2].string)):
            clause_id = f.arguments[2].string
            lifts = exempt.get((player, action, f.arguments[2]), [])
            if lifts:
                for e in sorted(lifts):
                    by = e.arguments[3].string
                    lifted.append(Lifted(clause=why.clause_ref(clause_id), by=why.clause_ref(by),
                                         principle=principle_of.get(by, "exception"),
                                         grounds=why.all_trees(e)))
            else:
                blocked.append(Reason(clause=why.clause_ref(clause_id), grounds=why.all_trees(f)))
        waivers = [Waived(clause=why.clause_ref(w.arguments[2].string), condition=text(w.arguments[3]),
                          by=why.clause_ref(w.arguments[4].string),
                          principle=principle_of.get(w.arguments[4].string, "exception"), grounds=why.all_trees(w))
                   for w in sorted(waived.get(key, []))]
        duties = [Reason(clause=why.clause_ref(o.arguments[2].string), grounds=why.all_trees(o))
                  for o in sorted(obliged.get(key, []))]
        is_legal = key in legal
        brave = is_legal and key in in_some and key not in in_every
        treatment = [Assumption(card=text(a.arguments[2]), property=text(a.arguments[3]),
                                value=text(a.arguments[4]), clause=why.clause_ref(a.arguments[5].string),
                                grounds=why.all_trees(a))
                     for a in sorted(assumed.get(key, []))] if brave else []
        if is_legal:
            cites = [r.clause.id for r in granted] + [x for l in lifted for x in (l.clause.id, l.by.id)]
            cites += [t.clause.id for t in treatment]
        else:
            cites = [r.clause.id for r in blocked]
        effects = sorted(consequences.get(key, []), key=text)
        verdicts.append(Verdict(
            player=text(player), action=text(action), verdict="legal" if is_legal else "illegal",
            cites=sort_clause_ids(cites), granted_by=granted, blocked_by=blocked, lifted=lifted,
            waived=waivers,
            obliged_by=duties, consequences=sorted(text(c) for c in effects),
            consequence_grounds=[why.tree(_consequence(player, action, c)) for c in effects],
            certainty="some" if brave else "every", treatment=treatment,
        ))

    overridden = []
    for atom in sorted(by_name["ignored/3"]):
        effect, by, principle = atom.arguments
        clause_id = principle_of.get(principle.name) if principle.type == clingo.SymbolType.Function else None
        overridden.append(OverriddenEffect(
            effect=text(effect), by=text(by), principle=text(principle),
            clause=why.clause_ref(clause_id) if clause_id else None,
        ))
    return Report(
        game=game.name, edition=edition, options=options, viewpoint=viewpoint, verdicts=verdicts,
        overridden_effects=overridden,
        unresolved=[[text(a.arguments[0]), text(a.arguments[1])] for a in sorted(by_name["unresolved/2"])],
        clamped=[Clamp(card=text(a.arguments[0]), value=text(a.arguments[1]), index=a.arguments[2].number,
                       computed=a.arguments[3].number, clause=why.clause_ref(a.arguments[4].string))
                 for a in sorted(by_name["clamped/5"])],
        atoms=sorted(str(a) for a in shown),
    )


class Resolution(BaseModel):
    """A declared action judged against the truth, the hidden cards it involves revealed."""

    player: str
    declared: str = Field(description="The action as the declaring player named it.")
    action: str = Field(description="The same action with the revealed cards' real ids.")
    revealed: list[str] = Field(default_factory=list, description="Hidden cards revealed by the declaration.")
    outcome: Literal["executed", "not executed but paid"]
    cites: list[str] = Field(description="Clause ids the outcome rests on, sorted.")
    rule: ClauseRef | None = Field(default=None, description="The clause on declarations that prove illegal on reveal.")
    truth: Verdict | None = Field(default=None, description="The verdict on the action once the cards are revealed.")


def build_resolution(answer: Answer, truth: Report, *, player: str, declared: str, action: str,
                     revealed: list[str], game: Game) -> Resolution:
    """Executed if the action is legal against the truth; otherwise not executed but paid, citing the
    game's clause for the principle ``illegal_on_reveal`` and every blocking clause."""
    verdict = truth.verdict(player, action)
    if verdict is not None and verdict.verdict == "legal":
        return Resolution(player=player, declared=declared, action=action, revealed=revealed,
                          outcome="executed", cites=verdict.cites, truth=verdict)
    clause_id = _principles(answer).get("illegal_on_reveal")
    rule = Explainer(answer, game).clause_ref(clause_id) if clause_id else None
    blocking = verdict.cites if verdict is not None else []
    return Resolution(player=player, declared=declared, action=action, revealed=revealed,
                      outcome="not executed but paid", cites=sort_clause_ids(([clause_id] if clause_id else []) + blocking),
                      rule=rule, truth=verdict)


def _consequence(player: clingo.Symbol, action: clingo.Symbol, effect: clingo.Symbol) -> clingo.Symbol:
    return clingo.Function("consequence", [player, action, effect])


def _principles(answer: Answer) -> dict[Any, str]:
    """principle name -> clause id, and clause id -> principle name (both directions)."""
    result: dict[Any, str] = {}
    for atom in answer.atoms:
        if atom.name == "principle_clause" and len(atom.arguments) == 2:
            principle, clause = atom.arguments
            result[principle.name] = clause.string
            result[clause.string] = principle.name
    return result
