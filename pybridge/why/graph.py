"""The full justification graph of an answer: every derivation of the atoms a verdict rests on.

An atom's derivations are the instances of the rules whose head it matches
that hold in the answer (only the rules an atom asks about are looked at).
Most rules' instances are found by matching the body against the answer
(:meth:`Graph.instances`): the head binds what it can, then each positive
premise is looked up among the atoms that hold. A rule whose body the graph
cannot match (an aggregate, a conditional literal) is recorded by the program
(``_wI(V...)``, see :mod:`pybridge.ground.compiler`), and its records are read
instead; so is, for every verdict's graph at once (``check --trees``), a rule
whose head leaves a variable open, since reading all its records once costs
less there than matching each atom. An absent atom a derivation relied on is opened up to its near
derivations when something overrode it. The cites of a verdict
are gathered from its nodes with the same rule as ``check`` reads them from
the why layer, so the two must agree (a test holds them to it).

An action no definition admits (``explain`` of an action ``check`` does not
list) is answered as *impossible*: the candidate rules for its kind, each with
the first of its conditions that fails.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence

import clingo
from clingo import Function, Symbol

from pybridge.errors import JudgeError
from pybridge.game.catalogue import Game
from pybridge.ground import terms
from pybridge.ground.compiler import ANY_HEAD, ELIDED, NearRule, Rule, flat_name
from pybridge.ground.solve import Answer
from pybridge.ground.terms import text
from pybridge.why.justify import Cites, Derivation, Grouped, Node, Nodes, Reason, Verdict, sort_clause_ids


class Graph:
    def __init__(self, answer: Answer, game: Game, cites: Cites, *, many_verdicts: bool | None = None):
        self.answer = answer
        self.game = game
        self.cites = cites
        self.nodes = Nodes()
        self.rules = answer.compiled.rules
        self.by_signature, self.near_by_rule, self._shapes, self._plans = _tables(answer.compiled)
        self._heads_for: dict[tuple, list[Rule]] = {}
        self._records: dict[str, dict[tuple, list[list[int]]]] = {}  # see _index
        self._rows: dict[tuple[str, int], list[list[int]]] = {}  # see _atoms_by
        self._atoms: dict[tuple, dict[tuple, list[list[int]]]] = {}
        self._derived: dict[tuple, list[list[int]]] = {}  # see _from_heads
        self._underived: set[tuple] = set()
        self._derived_signatures: dict[tuple[str, int], bool] = {}  # see _kind
        self._banners: dict[tuple[str, int], frozenset[str | None]] = {}  # see clauses_of
        self._other_heads = answer.compiled.other_heads
        self._builders: dict[tuple, object] = {}
        self._expanded: set[str] = set()
        self._cites: dict[str, frozenset[str]] = {}
        self.rules_named: set[int] = set()
        self.clauses_named: set[str] = set()
        self._near_flags = answer.near
        # The graphs of many verdicts (trees; a plain check's because-lines): a rule's records are
        # read in bulk, indexed once, which costs less than narrowing each atom's instances down
        # first, as one verdict's graph (explain) does.
        self.records_in_bulk = answer.compiled.mode == "trees" if many_verdicts is None else many_verdicts

    # ---- records

    def _index(self, name: str, variables: tuple[str, ...], keys: tuple[str, ...]):
        """The records of ``name`` by the values of ``keys`` (a record's arguments are its rule's
        variables in order, kept as their representations); Symbols and bindings are made only for
        the records a lookup finds."""
        index = self._records.get(name)
        if index is None:
            index = defaultdict(list)
            positions = [variables.index(k) if k in variables else None for k in keys]
            for args in self.answer.lookup_arguments(name, len(variables)):
                index[tuple([None if i is None else args[i] for i in positions])].append(args)
            self._records[name] = index
        return index

    def _matches(self, name: str, rule: Rule, atom: Symbol) -> list[dict[str, Symbol]]:
        """The records of ``name`` (for ``rule``) whose head is ``atom``."""
        bindings: dict[str, Symbol] = {}
        if not terms.unify(rule.head_pattern, atom, bindings):
            return []
        if all(v in bindings for v in rule.variables):
            # The head binds the whole record: ask for that one atom rather than index them all.
            record = Function(name, [bindings[v] for v in rule.variables])
            found = [{v: bindings[v] for v in rule.variables}] if self.answer.holds(record) else []
        else:
            keys = tuple(v for v in terms.variables(rule.head_pattern) if v in bindings)
            index = self._index(name, rule.variables, keys)
            records = [tuple(map(Symbol, args)) for args in index.get(tuple([terms.ident(bindings[k]) for k in keys]), ())]
            if len(records) > 1:  # in the order of their terms, not of the ground program's atom table
                records = sorted(records)
            found = [dict(zip(rule.variables, args)) for args in records]
        if _computed(rule.head_pattern):  # arithmetic in the head: rebuild it and compare
            build = self._builder(rule.head_pattern)
            matching = []
            for b in found:
                built = _safe_build(build, b)
                # an interval or a pool cannot be rebuilt: the record agrees on every other part
                if built is None or built == atom:
                    matching.append(b)
            return matching
        return found

    def _builder(self, pattern):
        key = id(pattern)
        build = self._builders.get(key)
        if build is None:
            build = self._builders[key] = terms.builder(pattern)
        return build

    def _rules_for(self, atom: Symbol) -> list[Rule]:
        """The rules whose head may match the atom: of its predicate, and agreeing with it on each
        argument's constant or functor (a first look, before unify, which would refuse the others;
        the rules of a judgement predicate are many)."""
        _, name, arguments = terms.read(atom)
        key = (name, len(arguments), tuple(map(_shape_of_symbol, arguments)))
        found = self._heads_for.get(key)
        if found is None:
            shapes = self._shapes
            found = self._heads_for[key] = [
                r for r in self.by_signature.get((name, len(arguments)), ())
                if all(want is None or want == have for want, have in zip(shapes[r.index], key[2]))]
        return found

    def supports(self, atom: Symbol, *, first_rule: bool = False) -> list[tuple[Rule, dict[str, Symbol]]]:
        """The instances that derive ``atom``, rule by rule in program order. ``first_rule``: only
        those of the first rule that has any (the first derivation, all a because-line reads, is
        among them; the later rules are not matched)."""
        found = []
        for rule in self._rules_for(atom):
            if first_rule and found:
                break
            if rule.support_only:  # rests_on/2: the supporting atoms, found in the answer
                bindings = {}
                if terms.unify(rule.head_pattern, atom, bindings):
                    found.extend((rule, b) for _, b in _solutions(self, rule.positive_patterns[1], bindings))
                continue
            if ":-" not in rule.text:  # a fact of the rules base
                bindings: dict[str, Symbol] = {}
                if terms.unify(rule.head_pattern, atom, bindings):
                    found.append((rule, bindings))
                continue
            if not rule.recorded:  # its instances are found in the answer
                bindings = {}
                if terms.unify(rule.head_pattern, atom, bindings):
                    found.extend((rule, b) for b in self.instances(rule, bindings, atom))
                continue
            found.extend((rule, b) for b in self._recorded(rule, atom))
        return found

    def instances(self, rule: Rule, bindings: dict[str, Symbol], atom: Symbol) -> list[dict[str, Symbol]]:
        """The instances of an unrecorded rule that derive ``atom`` (``bindings``: what its head binds),
        found by matching the body against the answer as the compiler's ``_joinable`` allows: a
        positive premise at a time (:func:`_next_premise`); an equation binds its plain side once
        the other is bound; comparisons and negations are tested once their variables are. In the
        order of their variables' values, as records are read."""
        plan = self._plan(rule)
        if len(bindings) == len(rule.variables) and not plan.computed_head:  # the head pins it down
            return [bindings] if self._holds(plan, bindings) else []
        found: list[dict[str, Symbol]] = []
        self._join(plan, dict(bindings), tuple(range(len(plan.premises))), plan.tests, found)
        if plan.computed_head:  # arithmetic in the head: rebuild it and compare
            found = [b for b in found if _safe_build(plan.head, b) == atom]
        return _in_order(rule, found)

    def _recorded(self, rule: Rule, atom: Symbol) -> list[dict[str, Symbol]]:
        """The records of a recorded rule whose head is ``atom``. Where the head leaves some of the
        record's variables open, the body's plain part is matched against the answer first, as for
        an unrecorded rule, and each instance it allows is looked up as one record; only where that
        leaves a variable open (one an aggregate binds, say) are all the rule's records read."""
        if self.records_in_bulk:
            return self._matches(rule.record, rule, atom)
        bindings: dict[str, Symbol] = {}
        if not terms.unify(rule.head_pattern, atom, bindings):
            return []
        if all(v in bindings for v in rule.variables):
            return self._matches(rule.record, rule, atom)
        plan = self._plan(rule)
        allowed: list[dict[str, Symbol]] = []
        self._join(plan, bindings, tuple(range(len(plan.premises))), plan.tests, allowed, loose=True)
        if not all(v in b for b in allowed for v in rule.variables):
            return self._matches(rule.record, rule, atom)
        holds = self.answer.holds
        # (a part the plan cannot build matches anything, so two atoms may allow the same instance)
        distinct = {tuple([terms.ident(b[v]) for v in rule.variables]): b for b in allowed}
        found = [b for b in distinct.values() if holds(Function(rule.record, [b[v] for v in rule.variables]))]
        if plan.computed_head:  # as _matches does: an interval or a pool cannot be rebuilt
            found = [b for b in found if (built := _safe_build(plan.head, b)) is None or built == atom]
        return _in_order(rule, found)

    def _holds(self, plan: _Plan, bindings: dict[str, Symbol]) -> bool:
        """Whether the instance of a rule whose variables are all bound holds."""
        holds = self.answer.holds
        try:
            return all(holds(p.build(bindings)) for p in plan.premises) and \
                all(_COMPARE[t[0]](t[5](bindings), t[6](bindings)) for t in plan.tests) and \
                not any(holds(build(bindings)) for build in plan.negatives)
        except terms.Unbuildable:  # undefined arithmetic: clingo makes no instance
            return False

    def _plan(self, rule: Rule) -> _Plan:
        plan = self._plans.get(rule.index)
        if plan is None:
            plan = self._plans[rule.index] = _plan(rule)
        return plan

    def _join(self, plan: _Plan, bindings: dict[str, Symbol], todo: tuple[int, ...], tests: tuple,
              found: list[dict[str, Symbol]], loose: bool = False) -> None:
        """Extend ``bindings`` through the premises in ``todo`` and the comparisons in ``tests``,
        adding each instance whose negations do not hold to ``found``. ``loose``: the plain part of a
        recorded rule's body, which only narrows the instances down (a test or a negation whose
        variables stay unbound is left to the record)."""
        if tests:
            tests = _settle(tests, bindings)
            if tests is None:
                return
        if not todo:
            if tests and not loose:  # the compiler's _joinable binds every variable a test needs
                raise JudgeError(f"rule {plan.rule} could not be matched against the answer "
                                 "(a defect in ccg-judge)")
            holds = self.answer.holds
            for build in plan.negatives:
                negated = _safe_build(build, bindings)
                if negated is None and not loose:  # undefined arithmetic: clingo makes no instance
                    return
                if negated is not None and holds(negated):
                    return
            found.append(bindings)
            return
        best = _next_premise(plan.premises, todo, bindings)
        rest = tuple(i for i in todo if i != best)
        for extended in self._premise(plan.premises[best], bindings):
            self._join(plan, extended, rest, tests, found, loose)

    def _premise(self, premise: _Premise, bindings: dict[str, Symbol]) -> list[dict[str, Symbol]]:
        """The extensions of ``bindings`` under which the premise holds: one look-up where all its
        arguments are known; else the atoms its predicate's rules can derive, where their heads fix
        the unknown arguments (:meth:`_from_heads`); else those of the predicate's atoms that agree
        on the known ones."""
        positions, key, open_ = [], [], []
        try:
            for k, argument in enumerate(premise.arguments):
                tag = argument[0]
                if tag == "c":
                    positions.append(k)
                    key.append(argument[1])
                elif tag == "v" and argument[1] in bindings:
                    positions.append(k)
                    key.append(terms.ident(bindings[argument[1]]))
                elif tag == "p" and all(v in bindings for v in argument[2]):
                    positions.append(k)
                    key.append(terms.ident(argument[3](bindings)))
                else:
                    open_.append(k)
        except terms.Unbuildable:  # undefined arithmetic: no atom has it
            return []
        if not open_:
            return [bindings] if self.answer.holds(premise.build(bindings)) else []
        positions_, key_ = tuple(positions), tuple(key)
        derived = self._from_heads(premise, positions_, key_)
        if derived is not None:
            rows = derived
        else:
            rows = self._atoms_by(premise.signature, positions_).get(key_, ())
        found = []
        arguments = premise.arguments
        for row in rows:
            extended = dict(bindings)
            for k in open_:
                argument = arguments[k]
                tag = argument[0]
                if tag == "v":
                    have = extended.get(argument[1])
                    if have is None:
                        extended[argument[1]] = Symbol(row[k])
                    elif terms.ident(have) != row[k]:  # a variable twice in the premise
                        break
                elif tag != "x" and not terms.unify(argument[1], Symbol(row[k]), extended):
                    break
            else:
                found.append(extended)
        return found

    def _from_heads(self, premise: _Premise, positions: tuple[int, ...], key: tuple) -> list[list[int]] | None:
        """The atoms of a premise's predicate that agree with ``key`` at ``positions`` and hold, found
        from the heads of the predicate's rules: a head that matches the known arguments and then
        fixes the others names one atom, looked up alone. None where that cannot be done (a head
        leaves an argument open, the situation has facts of the predicate, some other statement
        derives it): then the predicate's atoms are read. A board has hundreds of actions, and a rule
        like ``action_kind(shot(A, T), shot) :- ...`` fixes an action's kind without reading them."""
        signature = premise.signature
        found = self._derived.get((signature, positions, key))
        if found is not None or (signature, positions) in self._underived:
            return found
        other = self._other_heads
        if signature in self.answer.given_signatures() or signature in other or ANY_HEAD in other:
            self._underived.add((signature, positions))
            return None
        known = [(k, Symbol(value)) for k, value in zip(positions, key)]
        atoms: dict[int, list[int]] = {}
        for rule in self.by_signature.get(signature, ()):
            if rule.support_only:
                continue
            arguments = rule.head_pattern[2]
            head: dict[str, Symbol] = {}
            if not all(terms.unify(arguments[k], value, head) for k, value in known):
                continue
            try:
                atom = self._builder(rule.head_pattern)(head)
            except terms.Unbuildable:  # the head leaves an argument open
                self._underived.add((signature, positions))
                return None
            row = [terms.ident(a) for a in terms.read(atom)[2]]
            # (a known argument the head computes was not compared by unify)
            if all(row[k] == value for k, value in zip(positions, key)) and terms.ident(atom) not in atoms \
                    and self.answer.holds(atom):
                atoms[terms.ident(atom)] = row
        found = self._derived[(signature, positions, key)] = list(atoms.values())
        return found

    def _atoms_by(self, signature: tuple[str, int], positions: tuple[int, ...]) -> dict[tuple, list[list[int]]]:
        """The atoms of a predicate that hold, as their arguments' representations, by the values at
        ``positions``: read once per predicate, indexed once per set of positions."""
        index = self._atoms.get((signature, positions))
        if index is None:
            rows = self._rows.get(signature)
            if rows is None:
                rows = self._rows[signature] = self.answer.lookup_arguments(*signature)
            index = defaultdict(list)
            for row in rows:
                index[tuple([row[i] for i in positions])].append(row)
            self._atoms[(signature, positions)] = index
        return index

    def near_supports(self, atom: Symbol) -> list[tuple[NearRule, dict[str, Symbol]]]:
        if not self._near_flags:
            return []
        flag = Function(flat_name("_nm_", terms.signature_of(atom)), list(terms.read(atom)[2]))
        if not self.answer.holds(flag):
            return []
        found = []
        for rule in self._rules_for(atom):
            for record in self.near_by_rule.get(rule.index, ()):
                for bindings in self._matches(record.name, rule, atom):
                    found.append((record, bindings))
        return found

    # ---- nodes

    def _premises(self, rule: Rule, bindings: dict[str, Symbol]) -> tuple[list[Symbol], list[Symbol]]:
        positive = [_safe_build(self._builder(p), bindings) for p in rule.positive_patterns]
        negative = [_safe_build(self._builder(p), bindings) for p in rule.negative_patterns]
        return [p for p in positive if p is not None], [n for n in negative if n is not None]

    def _kind(self, atom: Symbol) -> str:
        if self.answer.is_fact(atom):
            return "fact"
        signature = terms.signature_of(atom)
        derived = self._derived_signatures.get(signature)
        if derived is None:  # some rule with a body derives the predicate (asked once per predicate)
            rules = self.by_signature.get(signature, ())
            derived = self._derived_signatures[signature] = any(":-" in r.text for r in rules)
        return "derived" if derived else "fact"

    def clauses_of(self, atom: Symbol) -> frozenset[str | None]:
        """The clauses a derivation of the atom may be of (:meth:`_derivation`): the clause the atom
        names, if it names one; else the banner of any rule of its predicate."""
        named = self.cites.named(atom)
        if named:
            return frozenset({named})
        signature = terms.signature_of(atom)
        found = self._banners.get(signature)
        if found is None:
            found = self._banners[signature] = frozenset(r.banner for r in self.by_signature.get(signature, ()))
        return found

    def expand(self, atom: Symbol, *, one_level: bool = False, first_rule: bool = False) -> str:
        """The node of a derived atom, expanded down to the facts (every node once). ``one_level``:
        its derivations only, their premises named but not expanded (:class:`OpenedOnRead` expands
        them when read), in a graph that is expanded so throughout. ``first_rule`` (with
        ``one_level``): the derivations of its first rule that has any (see :meth:`supports`)."""
        node_id = self.nodes(atom, self._kind(atom))
        if node_id in self._expanded:
            return node_id
        self._expanded.add(node_id)
        node = self.nodes.nodes[node_id]
        if node.kind == "fact" and self.answer.is_fact(atom):
            return node_id
        for rule, bindings in self.supports(atom, first_rule=first_rule and one_level):
            node.derivations.append(self._derivation(atom, rule, bindings, one_level=one_level))
        node.kind = "derived" if node.derivations else node.kind
        node.expanded = True
        return node_id

    def _derivation(self, atom: Symbol, rule: Rule, bindings: dict[str, Symbol], *,
                    fault: int | None = None, defeat: int | None = None, one_level: bool = False) -> Derivation:
        self.rules_named.add(rule.index)
        positive, negative = self._premises(rule, bindings)
        clause = self.cites.named(atom) or rule.banner
        if clause:
            self.clauses_named.add(clause)
        if rule.support_only:
            positive = positive[1:]  # the atom itself is not its own premise
        premise_ids = []
        absent_ids = []
        if one_level:  # named in the order a full expansion names them, kinds as it first gives them
            premise_ids = [self.nodes(premise, self._kind(premise)) for premise in positive]
            absent_ids = [self.nodes(negated, "absent") for negated in negative]
        for slot, premise in enumerate(positive if not one_level else ()):
            premise_ids.append(self.absent(premise) if slot == fault else self.expand(premise))
        for slot, negated in enumerate(negative if not one_level else ()):
            absent_ids.append(self.expand(negated) if slot == defeat else self.absent(negated))
        if one_level:  # read for its words only (a plain check's because-line): no cites, no bindings
            return Derivation(rule=rule.index, clause=clause, near=False, cites=[], bindings={},
                              premises=premise_ids, absent=absent_ids)
        named = self.cites.named(atom)
        own = self.cites.keep(set(rule.clauses) | ({named} if named else set()))
        return Derivation(rule=rule.index, clause=clause, near=fault is not None or defeat is not None,
                          cites=sort_clause_ids(own),
                          bindings={k: text(v) for k, v in sorted(bindings.items()) if not k.endswith("__")},
                          premises=premise_ids, absent=absent_ids)

    def absent(self, atom: Symbol) -> str:
        """The node of an atom required not to hold, opened up to what overrode it, if anything did."""
        node_id = self.nodes(atom, "absent")
        node = self.nodes.nodes[node_id]
        if node_id in self._expanded or node.kind != "absent":
            return node_id
        self._expanded.add(node_id)
        for record, bindings in self.near_supports(atom):
            rule = self.rules[record.rule]
            node.overridden_by.append(self._derivation(atom, rule, bindings, fault=record.fault,
                                                       defeat=record.defeat))
        node.expanded = True
        return node_id

    # ---- cites, read off the graph

    def cites_of(self, node_id: str) -> frozenset[str]:
        """The clauses of every derivation on this node's graph (its near derivations included), the
        verdict's own roots (candidate/3, legal/2) not followed; a fixpoint, so cycles are exact."""
        found = self._cites.get(node_id)
        if found is not None:
            return found
        reached, stack, edges = [], [node_id], {}
        while stack:
            current = stack.pop()
            if current in edges or current in self._cites:
                continue
            node = self.nodes.nodes[current]
            own: set[str] = set()
            children: list[str] = []
            for d in node.derivations + node.overridden_by:
                own |= set(d.cites)
                for p in d.premises + d.absent:
                    name, arity = self.nodes.nodes[p].predicate.rsplit("/", 1)
                    if (name, int(arity)) not in ELIDED:
                        children.append(p)
            edges[current] = (self.cites.keep(own), children)
            reached.append(current)
            stack.extend(children)
        value = {n: set(edges[n][0]) for n in reached}
        changed = True
        while changed:
            changed = False
            for n in reached:
                for child in edges[n][1]:
                    extra = self._cites[child] if child in self._cites else value[child]
                    if not extra <= value[n]:
                        value[n] |= extra
                        changed = True
        for n in reached:
            self._cites[n] = frozenset(value[n])
        return self._cites[node_id]

    def _atom(self, node_id: str) -> Symbol | None:
        return self.nodes.atoms.get(node_id)

    # ---- a verdict's graph

    def expand_blocked(self, verdict: Verdict, key: tuple, g: Grouped, *, one_level: bool = False) -> None:
        """Point an illegal verdict's blocking reasons, and the conditions card text waived, at their
        expanded nodes, and nothing else: what plain ``check`` needs to word its deciding condition (a
        waived condition is not it; its cites stay as the why layer read them). ``one_level``: see
        :meth:`expand`."""
        player, action = g.pairs[key]
        # The because-line reads a prohibition's first derivation, unless card text waived some of its
        # conditions: then the first resting on none of them, and every derivation of what waived them.
        first_rule = not any(reason.role == "waived" for reason in verdict.reasons)
        for reason in verdict.reasons:
            if reason.role == "blocked":
                reason.node = self.expand(Function("forbidden", [player, action, clingo.String(reason.clause)]),
                                          one_level=one_level, first_rule=first_rule)
            elif reason.role == "waived":
                atom = self._waived_atom(reason, key, g)
                if atom is not None:
                    reason.node = self.expand(atom, one_level=one_level)

    @staticmethod
    def _waived_atom(reason: Reason, key: tuple, g: Grouped) -> Symbol | None:
        return next((a[-1] for a in g.atoms("waived", key) if text(a[2]) == reason.clause
                     and text(a[3]) == reason.condition and text(a[4]) == reason.by), None)

    def expand_verdict(self, verdict: Verdict, key: tuple, g: Grouped) -> None:
        """Point the verdict's reasons at their expanded nodes; its cites are read off the graph."""
        player, action = g.pairs[key]
        is_legal = verdict.verdict == "legal"
        roots: list[str] = []
        candidates = sorted(g.atoms("candidate", key), key=lambda a: text(a[2]))
        for args in candidates:
            node_id = self.expand(args[-1])
            roots.append(node_id)
        for reason in verdict.reasons:
            if reason.role == "granted":
                reason.node = self.expand(Function("candidate", [player, action, clingo.String(reason.clause)]))
            elif reason.role == "met":
                reason.node = self.expand(Function("satisfied", [player, action, clingo.String(reason.clause)]))
                roots.append(reason.node)
            elif reason.role in ("blocked", "lifted"):
                atom = Function("forbidden", [player, action, clingo.String(reason.clause)])
                reason.node = self.expand(atom)
                if reason.role == "blocked" and not is_legal:
                    roots.append(reason.node)
            elif reason.role == "waived":
                atom = self._waived_atom(reason, key, g)
                if atom is not None:
                    reason.node = self.expand(atom)
        for args in g.atoms("forbidden", key):
            lifts = g.lifts(key, args[2])
            if is_legal and lifts:
                roots.append(self.expand(args[-1]))
                for e in lifts:
                    lifted_by = self.expand(e[-1])
                    roots.append(lifted_by)
                    for reason in verdict.reasons:
                        if reason.role == "lifted" and reason.clause == text(args[2]) and reason.by == text(e[3]):
                            reason.by_node = lifted_by
                for w in g.atoms("waived", key):
                    if terms.ident(w[2]) == terms.ident(args[2]):
                        roots.append(self.expand(w[-1]))
        for t, args in zip(verdict.treatment, sorted(g.atoms("assumed", key), key=lambda a: (text(a[2]), text(a[3])))):
            t.node = self.expand(args[-1])
            roots.append(t.node)
        for o, args in zip(verdict.obligations, sorted(g.atoms("obliged", key), key=lambda a: text(a[2]))):
            o.node = self.expand(args[-1])
        verdict_atom = Function("legal" if is_legal else "illegal", [player, action])
        verdict.node = self.expand(verdict_atom)
        if is_legal:  # what kept it from being blocked, if anything overrode that
            roots.append(self.absent(Function("is_blocked", [player, action])))
        else:  # what would have lifted a prohibition that blocks it, if something overrode that
            for args in g.atoms("forbidden", key):
                if not g.lifts(key, args[2]):
                    roots.append(self.absent(Function("lifted", [player, action, args[2]])))
        found: set[str] = set()
        for node_id in roots:
            found |= self.cites_of(node_id)
            atom = self._atom(node_id)
            if atom is not None:
                named = self.cites.named(atom)
                if named:
                    found |= self.cites.keep([named])
        verdict.cites = sort_clause_ids(found)
        for c, args in zip(verdict.consequences, sorted(g.atoms("consequence", key), key=lambda a: text(a[2]))):
            c.node = self.expand(args[-1])
            c.cites = sort_clause_ids(self.cites_of(c.node))


_tables_made: dict[int, tuple] = {}  # by the compiled program's id, with the program itself


class OpenedOnRead(Mapping):
    """A graph's nodes, each expanded one level when first read: what reads a few levels of a
    prohibition's graph (a plain check's because-line, :mod:`pybridge.why.reasons`) gets the
    first derivation a full expansion gives, without expanding the rest down to the facts. An atom
    required not to hold is read for its words alone: it has no derivation to look for."""

    def __init__(self, graph: Graph):
        self.graph = graph

    def __getitem__(self, node_id: str) -> Node:
        node = self.graph.nodes.nodes[node_id]
        if not node.expanded and node.kind != "absent":
            self.graph.expand(self.graph.nodes.atoms[node_id], one_level=True, first_rule=True)
        return node

    def peek(self, node_id: str) -> Node:
        """The node as it is, not expanded: its atom and predicate, for a reader deciding whether
        it needs the derivations."""
        return self.graph.nodes.nodes[node_id]

    def may_be_of(self, node_id: str, clause: str | None) -> bool:
        """Whether a derivation of the node may be of ``clause`` (:meth:`Graph.clauses_of`), told
        without expanding it: a reader that opens only premises of its own clause skips the others."""
        return clause in self.graph.clauses_of(self.graph.nodes.atoms[node_id])

    def __iter__(self):
        return iter(self.graph.nodes.nodes)

    def __len__(self) -> int:
        return len(self.graph.nodes.nodes)


def _tables(compiled) -> tuple[_BySignature, dict[int, list[NearRule]], _HeadShapes, dict[int, _Plan]]:
    """A compiled program's rules by head signature, its near-miss records by rule, each rule's
    head arguments as :func:`_shape_of_pattern` gives them, and the plans of the rules the graph
    matches against the answer (filled as rules are first matched), made once per program in a
    process (a few programs at most are live). The rules themselves are made only as the graph
    asks for their signature (a plain check's because-lines read a few dozen)."""
    found = _tables_made.get(id(compiled))
    if found is None or found[0] is not compiled:
        rules = compiled.rules
        near_by_rule: dict[int, list[NearRule]] = defaultdict(list)
        for record in compiled.near:
            near_by_rule[record.rule].append(record)
        found = (compiled, _BySignature(rules), dict(near_by_rule), _HeadShapes(rules), {})
        if len(_tables_made) >= 16:
            _tables_made.clear()
        _tables_made[id(compiled)] = found
    return found[1], found[2], found[3], found[4]


class _BySignature:
    """A program's rules by their head's signature, each signature's list made when first asked for."""

    def __init__(self, rules: Sequence[Rule]):
        self._rules = rules
        signatures = rules.signatures() if hasattr(rules, "signatures") else [r.signature for r in rules]
        self._indices: dict[tuple, list[int]] = defaultdict(list)
        for index, signature in enumerate(signatures):
            self._indices[signature].append(index)
        self._lists: dict[tuple, list[Rule]] = {}

    def get(self, signature: tuple, default=()) -> list[Rule]:
        found = self._lists.get(signature)
        if found is None:
            indices = self._indices.get(signature)
            if indices is None:
                return default
            found = self._lists[signature] = [self._rules[i] for i in indices]
        return found


class _HeadShapes(dict):
    """Each rule's head arguments as :func:`_shape_of_pattern` gives them, by rule index, made when
    first asked for."""

    def __init__(self, rules: Sequence[Rule]):
        super().__init__()
        self._rules = rules

    def __missing__(self, index: int) -> tuple:
        pattern = self._rules[index].head_pattern
        found = self[index] = tuple(map(_shape_of_pattern, pattern[2])) if pattern[0] == "f" else ()
        return found


# --------------------------------------------------------------------------
# Matching an unrecorded rule's body against the answer


class _Premise(NamedTuple):
    """A positive premise: its predicate, a builder of its atom, and per argument ``("c", rep)`` a
    constant, ``("v", name)`` a variable, ``("p", pattern, variables, builder)`` a compound term, or
    ``("x",)`` a part the graph cannot build (it matches anything)."""

    signature: tuple[str, int]
    build: Callable
    arguments: tuple


class _Plan(NamedTuple):
    """How :meth:`Graph.instances` matches a rule: its positive premises, its comparisons as
    ``(operator, left, right, left's variables, right's variables, build left, build right)``, its
    negations as builders, and its head's builder where the head computes (arithmetic)."""

    rule: int
    premises: tuple[_Premise, ...]
    tests: tuple[tuple, ...]
    negatives: tuple[Callable, ...]
    computed_head: bool
    head: Callable


def _plan(rule: Rule) -> _Plan:
    """A rule's plan. A part the graph cannot build (an interval, a pool: only a recorded rule has
    one) constrains nothing: an argument of it matches any value, a comparison or negation of it is
    left out, so the plan allows a superset of the instances, which the records decide."""
    premises = []
    for pattern in rule.positive_patterns:
        arguments = []
        for argument in pattern[2]:
            names = terms.variables(argument)
            if _unknown(argument):
                arguments.append(("x",))
            elif argument[0] == "v":
                arguments.append(("v", argument[1]))
            elif not names and not _computed(argument):
                arguments.append(("c", terms.ident(terms.to_symbol(argument))))
            else:  # a compound term, or arithmetic (-2: built, as it has no variables)
                arguments.append(("p", argument, tuple(names), terms.builder(argument)))
        premises.append(_Premise(terms.signature(pattern), terms.builder(pattern), tuple(arguments)))
    tests = tuple((operator, left, right, tuple(terms.variables(left)), tuple(terms.variables(right)),
                   terms.builder(left), terms.builder(right)) for _, operator, left, right in rule.comparisons
                  if operator in _COMPARE and not _unknown(left) and not _unknown(right))
    return _Plan(rule=rule.index, premises=tuple(premises), tests=tests,
                 negatives=tuple(terms.builder(p) for p in rule.negative_patterns if not _unknown(p)),
                 computed_head=_computed(rule.head_pattern), head=terms.builder(rule.head_pattern))


def _unknown(pattern) -> bool:
    """Whether a pattern has a part the graph cannot build (an interval, a pool, ...)."""
    return terms.has_part(pattern, terms.UNKNOWN)


def _in_order(rule: Rule, instances: list[dict[str, Symbol]]) -> list[dict[str, Symbol]]:
    """Instances in the order of their variables' values, as records are read."""
    if len(instances) > 1:
        instances.sort(key=lambda b: tuple([b[v] for v in rule.variables]))
    return instances


def _next_premise(premises: tuple[_Premise, ...], todo: tuple[int, ...], bindings: dict[str, Symbol]) -> int:
    """The premise to match next: one whose arguments are all known (a single look-up), else the
    first as written with an argument known (a rule's author writes the premise that narrows the
    instance first), else the first as written."""
    first_known = None
    for i in todo:
        known = [_known(a, bindings) for a in premises[i].arguments]
        if all(known):
            return i
        if first_known is None and any(known):
            first_known = i
    return todo[0] if first_known is None else first_known


def _known(argument: tuple, bindings: dict[str, Symbol]) -> bool:
    tag = argument[0]
    return tag == "c" or (tag == "v" and argument[1] in bindings) or (
        tag == "p" and all(v in bindings for v in argument[2]))


def _settle(tests: tuple, bindings: dict[str, Symbol]) -> tuple | None:
    """Decide the comparisons whose variables are bound (None if one fails), binding an equation's
    plain side once its other side is bound; the others are left for later."""
    waiting = tests
    while True:
        left_over = []
        bound_more = False
        for test in waiting:
            operator, left, right, on_left, on_right, build_left, build_right = test
            left_known = all(v in bindings for v in on_left)
            right_known = all(v in bindings for v in on_right)
            try:
                if left_known and right_known:
                    if not _COMPARE[operator](build_left(bindings), build_right(bindings)):
                        return None
                elif operator == "=" and right_known and not _computed(left):  # unify binds its side
                    if not terms.unify(left, build_right(bindings), bindings):
                        return None
                    bound_more = True
                elif operator == "=" and left_known and not _computed(right):
                    if not terms.unify(right, build_left(bindings), bindings):
                        return None
                    bound_more = True
                else:
                    left_over.append(test)
            except terms.Unbuildable:  # undefined arithmetic: clingo makes no instance
                return None
        if not bound_more or not left_over:
            return tuple(left_over)
        waiting = tuple(left_over)


def _shape_of_pattern(pattern) -> tuple | None:
    """What an argument of a head must be, at its top: a number or string, a function of a name and
    arity (a tuple's name is empty), or None for anything (a variable, arithmetic)."""
    tag = pattern[0]
    if tag in ("n", "s"):
        return (tag, pattern[1])
    if tag == "f":
        return ("f", pattern[1], len(pattern[2]))
    if tag == "t":
        return ("f", "", len(pattern[1]))
    return None


def _shape_of_symbol(symbol: Symbol) -> tuple:
    kind, value, arguments = terms.read(symbol)
    return ("f", value, len(arguments)) if kind == "f" else (kind, value)


def _computed(pattern) -> bool:
    return terms.has_part(pattern, terms.COMPUTED)


def _safe_build(build, bindings) -> Symbol | None:
    try:
        return build(bindings)
    except terms.Unbuildable:
        return None


# --------------------------------------------------------------------------
# An action no definition admits


def impossible(answer: Answer, game: Game, cites: Cites, player: Symbol, action: Symbol) -> tuple[Verdict, Graph]:
    """Why ``action`` is not an action ``player`` may try here: each candidate rule for its kind, and
    the first of its conditions that fails (the definition it does not meet)."""
    graph = Graph(answer, game, cites)
    reasons: list[Reason] = []
    found: set[str] = set()
    for rule in graph.by_signature.get(("candidate", 3), ()):
        bindings: dict[str, Symbol] = {}
        head = rule.head_pattern
        if not (terms.unify(head[2][0], player, bindings) and terms.unify(head[2][1], action, bindings)):
            continue
        if any(terms.signature(p) == ("candidate", 3) for p in rule.positive_patterns):
            continue  # a special case of another definition: it fails with that one
        clause = head[2][2][1] if head[2][2][0] == "s" else (rule.banner or "")
        atom = Function("candidate", [player, action, clingo.String(clause)])
        node_id = graph.nodes(atom, "absent")
        failure, missing = _first_failure(graph, rule, bindings)
        node = graph.nodes.nodes[node_id]
        if failure is not None:
            node.overridden_by.append(failure)
        if missing is not None:
            readings = _defining_readings(graph, cites, missing)
            found |= readings
            graph.clauses_named |= readings
        node.expanded = True
        graph.rules_named.add(rule.index)
        found.add(clause)
        graph.clauses_named.add(clause)
        reasons.append(Reason(role="definition", clause=clause, node=node_id))
    verdict = Verdict(player=text(player), action=text(action), verdict="impossible",
                      cites=sort_clause_ids(cites.keep(found)), reasons=reasons)
    return verdict, graph


def _defining_readings(graph: Graph, cites: Cites, missing: Symbol) -> set[str]:
    """The clauses of the rules that would derive a condition not met, when the condition is itself
    a reading of the rules (every rule for it is a game clause, as model:strike-reach is for
    strike_reach/2): the reading decides that the action is impossible. A condition the vocabulary
    defines (creature/1) is a fact about the cards, not a reading: nothing more is cited."""
    banners = {r.banner for r in graph.by_signature.get(terms.signature_of(missing), ())
               if terms.unify(r.head_pattern, missing, {})}
    kept = cites.keep(banners - {None})
    return set(kept) if kept and None not in banners and len(kept) == len(banners) else set()


def _first_failure(graph: Graph, rule: Rule, bindings: dict[str, Symbol]) -> tuple[Derivation | None, Symbol | None]:
    """The rule's body evaluated against the answer, premise by premise: the derivation up to the
    first condition that fails (that premise listed absent), and the premise's atom when it is a
    whole atom that does not hold."""
    holding: list[str] = []
    for pattern in rule.positive_patterns:
        options = list(_solutions(graph, pattern, bindings))
        if not options:
            atom = _safe_build(graph._builder(pattern), bindings)
            absent = [graph.nodes(atom, "absent")] if atom is not None else []
            return Derivation(rule=rule.index, clause=rule.banner, bindings={k: text(v) for k, v in sorted(
                bindings.items()) if not k.endswith("__")}, premises=holding, absent=absent, near=True), atom
        atom, bindings = options[0]
        holding.append(graph.expand(atom))
    for comparison in rule.comparisons:
        holds = _compare(graph, comparison, bindings)
        if holds is False:
            return Derivation(rule=rule.index, clause=rule.banner, bindings={k: text(v) for k, v in sorted(
                bindings.items()) if not k.endswith("__")}, premises=holding, near=True), None
    for pattern in rule.negative_patterns:
        atom = _safe_build(graph._builder(pattern), bindings)
        if atom is not None and graph.answer.holds(atom):
            return Derivation(rule=rule.index, clause=rule.banner, bindings={k: text(v) for k, v in sorted(
                bindings.items()) if not k.endswith("__")}, premises=holding + [graph.expand(atom)], near=True), None
    return None, None


_COMPARE = {"=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _compare(graph: Graph, comparison, bindings) -> bool | None:
    """A comparison of the body under the bindings (None when it cannot be evaluated)."""
    _, operator, left, right = comparison
    a = _safe_build(graph._builder(left), bindings)
    b = _safe_build(graph._builder(right), bindings)
    test = _COMPARE.get(operator)
    if a is None or b is None or test is None:
        return None
    return test(a, b)


def _solutions(graph: Graph, pattern, bindings: dict[str, Symbol]) -> Iterable[tuple[Symbol, dict[str, Symbol]]]:
    atom = _safe_build(graph._builder(pattern), bindings)
    if atom is not None:
        if graph.answer.holds(atom):
            yield atom, bindings
        return
    name, arity = terms.signature(pattern)
    for candidate in graph.answer.lookup(name, arity):
        extended = dict(bindings)
        if terms.unify(pattern, candidate, extended):
            yield candidate, extended

