"""Specialise a compiled program to a situation before grounding it.

Most rules of a game can never fire in a given situation: they are about a
feature no card has, a phase the turn is not in, an action kind nobody can
take. clingo still pays for each of them (its grounder visits every rule),
and with the why layer beside the rules that fixed cost is most of the
grounding time of a small or ordinary board.

So before grounding, an abstract interpretation of the program over the
situation's facts finds the rules whose positive body cannot hold, and they
are left out. It is sound, never a guess: it over-approximates every atom
the program can derive, and leaves out a rule only when some premise (or a
variable shared by premises) has no possible value. The answer is the same
atom for atom; only grounding work is saved (tests/test_specialise.py checks
it on every ruling and on generated boards).

The abstraction of a term: a constant is itself (``shot``), a compound term
is its name and arity (``strike_attack/2``), and any string or number is
``"`` or ``#``. Per predicate and argument position the interpretation keeps
the set of abstract values an atom may carry there, or "anything". A rule
fires abstractly when each positive body literal matches and each variable
has a value common to all its positions; its head then adds what its
arguments may be. Negative literals, comparisons and aggregates never stop a
rule (they could only make it fire less). The per-statement shapes are read
once, when the program is compiled, and cached with it."""

from __future__ import annotations

import heapq
import os
import re
import threading
import weakref
from collections import defaultdict
from typing import Callable, Container, Iterable, NamedTuple, Sequence

import clingo
from clingo import ast
from clingo.ast import ASTType, Sign

from pybridge.ground.terms import parse_program, program_lines

# An argument of a literal in a rule: None (anything: "_", arithmetic, an interval), a variable
# ["v", name], or an abstract value (str).
Argument = object
Atom = tuple  # (name, arity, (Argument, ...))

STRING = '"'
NUMBER = "#"
# Answers remembered per program: a facts' shape is a few kilobytes of key, and a batch of a template
# repeats few shapes.
REMEMBERED = 64
# Set CCG_JUDGE_SPECIALISE=0 to ground the whole program (to compare, or to rule the step out).
ENABLED = os.environ.get("CCG_JUDGE_SPECIALISE", "1") != "0"


def value_of_symbol(symbol: clingo.Symbol) -> str:
    kind = symbol.type
    if kind == clingo.SymbolType.Function:
        arguments = symbol.arguments
        return f"{symbol.name}/{len(arguments)}" if arguments else symbol.name
    if kind == clingo.SymbolType.String:
        return STRING
    if kind == clingo.SymbolType.Number:
        return NUMBER
    return None  # #inf, #sup: rare, taken as anything


def _argument(term: ast.AST) -> Argument:
    kind = term.ast_type
    if kind == ASTType.Variable:
        return None if term.name == "_" else ["v", term.name]
    if kind == ASTType.SymbolicTerm:
        return value_of_symbol(term.symbol)
    if kind == ASTType.Function and not term.external:
        return f"{term.name}/{len(term.arguments)}" if term.arguments else term.name
    return None


def _atom(term: ast.AST) -> Atom | None:
    if term.ast_type == ASTType.Function and not term.external:
        return (term.name, len(term.arguments), tuple(_argument(a) for a in term.arguments))
    if term.ast_type == ASTType.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
        s = term.symbol
        return (s.name, len(s.arguments), tuple(value_of_symbol(a) for a in s.arguments))
    return None


def head_atoms(node: ast.AST, out: list[Atom]) -> None:
    """Every atom a head (a literal, a choice, a disjunction) may derive."""
    if node.ast_type == ASTType.SymbolicAtom:
        terms = node.symbol.arguments if node.symbol.ast_type == ASTType.Pool else [node.symbol]
        for term in terms:
            atom = _atom(term)
            if atom is not None:
                out.append(atom)
            elif term.ast_type != ASTType.UnaryOperation:  # a classically negated atom gates nothing
                raise ValueError(f"a head atom the specialiser cannot read: {term}")
        return
    if node.ast_type == ASTType.ConditionalLiteral:  # its condition only restricts the head
        head_atoms(node.literal, out)
        return
    for key in node.child_keys:
        child = getattr(node, key)
        if child is None:
            continue
        for item in ([child] if isinstance(child, ast.AST) else child):
            head_atoms(item, out)


def shapes(statements: Sequence[ast.AST]) -> list[list]:
    """Per statement: [gates, heads] for a rule (its plain positive body atoms and what its head may
    derive), or None for any other statement (always kept). Empty if some head cannot be read: the
    program is then grounded whole (an unread head could feed any rule)."""
    try:
        return _shapes(statements)
    except ValueError:
        return []


_UNREADABLE, _NOT_A_RULE = object(), object()  # markers: a head it cannot read; a shape of None
_by_line: dict[str, object] = {}  # a statement's text -> its shape, across the compiles of a process


# The line memory as plain data, for a cache entry (pybridge.ground.solve keeps it on disk, so that a
# new process compiling a rules base a few lines off one compiled before reads only those lines).
def lines_as_data() -> dict[str, object]:
    return {line: "unreadable" if shape is _UNREADABLE else 0 if shape is _NOT_A_RULE else shape
            for line, shape in _by_line.items()}


def lines_known() -> int:
    return len(_by_line)


def recall_lines(data: object) -> bool:
    """Take in lines remembered as :func:`lines_as_data` wrote them (False: not such data, nothing
    taken). A shape read from data is one :func:`_shapes` made: only its outer form is checked."""
    if not isinstance(data, dict):
        return False
    taken = {}
    for line, shape in data.items():
        if not isinstance(line, str):
            return False
        if isinstance(shape, list) and len(shape) == 2 and all(isinstance(part, list) for part in shape):
            taken[line] = shape
        elif shape == "unreadable" or (shape == 0 and type(shape) is int):
            taken[line] = _UNREADABLE if shape == "unreadable" else _NOT_A_RULE
        else:
            return False
    for line, shape in taken.items():
        _by_line.setdefault(line, shape)
    return True


def text_shapes(text: str) -> list[list]:
    """:func:`shapes` of a compiled program's text (a statement a line), remembered per statement:
    a game's programs (check, trees, explain, each witness variant) share most of their statements, and
    reading a shape off the parsed statement is most of a compile's time."""
    lines = program_lines(text)
    known = {line: _by_line.get(line) for line in dict.fromkeys(lines)}  # this compile's own copy
    new = [line for line, shape in known.items() if shape is None]
    if new:
        parsed = parse_program("\n".join(new))
        if len(parsed) != len(new) + 1:  # not a statement a line (clingo adds a #program first)
            return shapes(parse_program(text))
        for line, statement in zip(new, parsed[1:]):
            try:
                known[line] = _shapes([statement])[0] or _NOT_A_RULE
            except ValueError:
                known[line] = _UNREADABLE
        if len(_by_line) > 200_000:  # a long-lived process compiling many programs: start afresh
            _by_line.clear()
        _by_line.update((line, known[line]) for line in new)
    found = [known[line] for line in lines]
    if any(shape is _UNREADABLE for shape in found):
        return []
    # clingo's own #program base. comes before the first line
    return [None] + [None if shape is _NOT_A_RULE else shape for shape in found]


def _shapes(statements: Sequence[ast.AST]) -> list[list]:
    found: list[list | None] = []
    for statement in statements:
        if statement.ast_type == ASTType.Rule:
            gates = []
            for literal in statement.body:
                if (literal.ast_type == ASTType.Literal and literal.sign == Sign.NoSign
                        and literal.atom.ast_type == ASTType.SymbolicAtom):
                    atom = _atom(literal.atom.symbol)
                    if atom is not None:
                        gates.append(atom)
            heads: list[Atom] = []
            head_atoms(statement.head, heads)
            found.append([gates, heads])
        elif statement.ast_type == ASTType.External and statement.atom.ast_type == ASTType.SymbolicAtom:
            heads = []
            head_atoms(statement.atom, heads)
            found.append([[], [(n, a, (None,) * a) for n, a, _ in heads]])
        else:
            found.append(None)
    return [list(map(_to_data, s)) if s is not None else None for s in found]


def _to_data(atoms: list[Atom]) -> list:
    return [[name, arity, list(arguments)] for name, arity, arguments in atoms]


class Program:
    """The statement shapes of one compiled program, indexed for the fixpoint: per statement its
    gates as (signature, constants, variables) with (position, value) and (position, name) pairs, and
    its heads as (signature, arguments); and who watches what, so that a change wakes only the
    statements it can affect."""

    made: weakref.WeakSet = weakref.WeakSet()  # every live one (see forget)

    def __init__(self, data: list[list | None], *, extends: Program | None = None,
                 rank: Sequence[int] | None = None):
        """``extends``: a program whose statements come first, its index copied rather than built again
        (the program with its near misses after it, once the program alone is indexed). ``rank``: the
        statements' ranks as an earlier index of the same statements found them (kept with the
        compiled program), so that they need not be worked out again."""
        start = extends.size if extends is not None else 0
        self.size = start + len(data)
        self.extends = extends
        self.results: dict[frozenset, Kept] = {}
        self.fixpoints: dict[frozenset, _Fixpoint] = {}
        self.held = bytes(self.size)  # see hold()
        Program.made.add(self)
        if extends is None:
            self.always = frozenset()
            self.gates: list[tuple] = []
            self.heads: list[tuple] = []
            self.on_new: dict[tuple[str, int], list[int]] = defaultdict(list)  # a predicate's first atom
            self.on_value: dict[tuple, list[int]] = defaultdict(list)  # (sig, position, value) added
            self.on_any: dict[tuple, list[int]] = defaultdict(list)  # (sig, position) changed
        else:
            self.always = extends.always
            self.gates, self.heads = list(extends.gates), list(extends.heads)
            self.on_new, self.on_value, self.on_any = (
                defaultdict(list, {key: list(watchers) for key, watchers in table.items()})
                for table in (extends.on_new, extends.on_value, extends.on_any))
        self.always |= frozenset(start + i for i, item in enumerate(data) if item is None)
        # (one pass over each gate's arguments, with the tables at hand: a new process indexes
        # thousands of statements before its first run)
        on_new, on_value, on_any = self.on_new, self.on_value, self.on_any
        add_gates, add_heads = self.gates.append, self.heads.append
        for i, item in enumerate(data, start):
            if item is None:
                add_gates(())
                add_heads(())
                continue
            gates, heads = item
            compiled = []
            for name, arity, arguments in gates:
                sig = (name, arity)
                constants, variables = [], []
                for k, a in enumerate(arguments):
                    if type(a) is str:
                        constants.append((k, a))
                        on_value[(sig, k, a)].append(i)
                    elif type(a) is list:
                        variables.append((k, a[1]))
                        on_any[(sig, k)].append(i)
                compiled.append((sig, tuple(constants), tuple(variables)))
                on_new[sig].append(i)
            add_gates(tuple(compiled))
            add_heads(tuple(((n, a), tuple([tuple(x) if type(x) is list else x for x in args]))
                            for n, a, args in heads))
        # a position that becomes "anything" may let any constant through: wake those too
        self.on_top: dict[tuple, list[int]] = defaultdict(list)
        for (sig, k, _), watchers in self.on_value.items():
            self.on_top[(sig, k)].extend(watchers)
        # The order statements are evaluated in: by the strata of their heads' predicates, so that
        # a statement runs once its premises are complete (recursion aside), not once per change.
        if rank is not None and len(rank) == self.size:
            self.rank = list(rank)
        else:
            order = _strata(self.gates, self.heads)
            self.rank = [min((order[sig] for sig, _ in heads), default=0) for heads in self.heads]

    # The index as plain data (tuples, lists, dicts, a frozenset), for marshal: a new process reads a
    # program's index in about 40% of the time building it takes (pybridge/ground/solve.py keeps it cached).
    STATE_FIELDS = ("size", "always", "gates", "heads", "on_new", "on_value", "on_any", "on_top", "rank")

    def state(self) -> tuple:
        """The whole index (a program that extends another holds the other's index too)."""
        return tuple(dict(v) if isinstance(v, defaultdict) else v
                     for v in (getattr(self, name) for name in self.STATE_FIELDS))

    @classmethod
    def from_state(cls, state: tuple, *, extends: Program | None = None) -> Program:
        """The program :meth:`state` was taken of (it is checked only for its shape: the data comes
        from a cache entry keyed by the content it was made from); ``extends``: the program it
        extended, taken as it was then."""
        if not isinstance(state, tuple) or len(state) != len(cls.STATE_FIELDS):
            raise ValueError("not a program's index")
        program = cls.__new__(cls)
        program.extends = extends
        program.results, program.fixpoints = {}, {}
        for name, value in zip(cls.STATE_FIELDS, state):
            setattr(program, name, defaultdict(list, value) if name.startswith("on_") else value)
        if not (len(program.gates) == len(program.heads) == len(program.rank) == program.size):
            raise ValueError("not a program's index")
        program.held = bytes(program.size)
        Program.made.add(program)
        return program

    def hold(self, statements: Iterable[int]) -> None:
        """Leave these statements out of the fixpoint: a part grounded after the rest that nothing of
        the rest reads (a check's why layer on top of the ground rules), judged by
        :class:`LaterPart` on the ground atoms instead, for less. A program that extends it wakes
        them when it goes on from its fixpoint."""
        held = bytearray(self.size)
        for i in statements:
            held[i] = 1
        with _remembering:
            self.held = bytes(held)
            self.results.clear()
            self.fixpoints.clear()


def _strata(gates: list[tuple], heads: list[tuple]) -> dict[tuple[str, int], int]:
    """Each predicate's place in a topological order of the predicate graph's strongly connected
    components (premise before conclusion), by Tarjan's algorithm, iteratively."""
    edges: dict[tuple, set] = defaultdict(set)
    nodes: set = set()
    for gate, head in zip(gates, heads):
        for h, _ in head:
            nodes.add(h)
            for g, _, _ in gate:
                nodes.add(g)
                edges[g].add(h)
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    components: list[list] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    # Tarjan finishes a component after every component it reaches: reversed, premises come first.
    return {sig: place for place, component in enumerate(reversed(components)) for sig in component}


def facts_key(facts: Iterable[clingo.Symbol]) -> frozenset:
    """The facts as the interpretation sees them: each atom's predicate and abstract arguments, read
    from the Symbols. The reference :func:`text_key` is held to (tests/test_specialise.py); solving uses
    text_key, which is cheaper."""
    return frozenset((f.name, len(args), tuple(map(value_of_symbol, args)))
                     for f in facts for args in (f.arguments,))


_STRING_TEXT = re.compile(r'"(?:[^"\\]|\\.)*"')
_NUMBER_TEXT = re.compile(r"(?<![A-Za-z0-9_'])-?[0-9]+")
_TOKEN = re.compile(r"\"\"|0|[a-z_][A-Za-z0-9_']*\(?|[(),]|\S")


def text_key(text: str) -> frozenset:
    """:func:`facts_key` read off the facts as clingo prints them, one per line: strings and numbers
    are blanked first, so a board's lines collapse to their few shapes before any is read (a tenth
    of the cost of asking each Symbol)."""
    shapes = set(_NUMBER_TEXT.sub("0", _STRING_TEXT.sub('""', text)).split("\n"))
    found = set()
    for line in shapes:
        tokens = _TOKEN.findall(line.rstrip("."))
        if not tokens:
            continue
        head = tokens[0]
        if not head.endswith("("):
            found.add((head, 0, ()))
            continue
        arguments: list = []
        depth, name, count, value = 0, "", 0, None
        for token in tokens[1:]:
            if depth == 0:
                if token in (",", ")"):
                    arguments.append(value)
                    value = None
                    if token == ")":
                        break
                elif token.endswith("("):
                    depth, name, count, empty = 1, token[:-1], 0, True
                elif token == '""':
                    value = STRING
                elif token == "0":
                    value = NUMBER
                elif token[0].isalpha() or token[0] == "_":
                    value = token
                else:
                    value = None  # #inf, #sup: anything
            else:  # inside a term: count its elements, where a comma only ends one ("(1,)" has one)
                if token.endswith("("):
                    if depth == 1 and empty:
                        count, empty = count + 1, False
                    depth += 1
                elif token == ")":
                    depth -= 1
                    if depth == 0:
                        value = f"{name}/{count}" if count else name
                elif token == "," and depth == 1:
                    empty = True
                elif depth == 1 and empty:
                    count, empty = count + 1, False
        found.add((head[:-1], len(arguments), tuple(arguments)))
    return frozenset(found)


def read_by_roots(program: Program, statements: Sequence[int], roots: Iterable[tuple[str, int]],
                  derived: Callable[[str], bool], seen: dict[int, tuple | None]) -> tuple[int, ...]:
    """``statements`` less the statements of a derived layer that no root reads: a statement all of
    whose heads are of ``derived`` predicates (read by no statement outside the layer) is kept only if
    a root, or a statement kept so, reads one of its heads (a gate: the layer reads its own atoms
    only as plain positive premises, tests/test_specialise.py holds the compiler to it). What
    :func:`kept` says may fire is what the answer can have; this keeps of the layer what the answer
    is read for. ``seen``: each statement's heads and layer gates as read before (None: not of the
    layer), kept by the caller per program."""
    makers: dict[tuple[str, int], list[int]] = defaultdict(list)
    kept = []
    for i in statements:
        layer = seen.get(i, False)
        if layer is False:
            layer = seen[i] = _of_layer(program, i, derived)
        if layer is None:
            kept.append(i)
        else:
            for sig in layer[0]:
                makers[sig].append(i)
    needed, todo, read = set(), list(roots), []
    while todo:
        sig = todo.pop()
        if sig in needed:
            continue
        needed.add(sig)
        for i in makers.get(sig, ()):
            read.append(i)
            todo.extend(seen[i][1])
    return tuple(sorted(kept + read)) if read else tuple(kept)


class LaterPart:
    """The statements of a part grounded after the rest (a why layer on top of the ground rules),
    indexed once for :meth:`fed`: per statement, how many distinct predicates its premises (gates)
    are of; per predicate, the statements it gates."""

    def __init__(self, program: Program, part: Iterable[int]):
        self.free: list[int] = []  # the statements with no gate
        self.needs: dict[int, int] = {}
        self.gating: dict[tuple[str, int], list[int]] = defaultdict(list)
        self.heads: dict[int, tuple[tuple[str, int], ...]] = {}
        for i in part:
            sigs = {gate[0] for gate in program.gates[i]}
            for sig in sigs:
                self.gating[sig].append(i)
            if sigs:
                self.needs[i] = len(sigs)
            else:
                self.free.append(i)
            self.heads[i] = tuple(dict.fromkeys(sig for sig, _ in program.heads[i]))
        self.gating = dict(self.gating)

    STATE_FIELDS = ("free", "needs", "gating", "heads")

    def state(self) -> tuple:
        """The index as plain data, for marshal (kept in the cache folder beside its program)."""
        return tuple(getattr(self, name) for name in self.STATE_FIELDS)

    @classmethod
    def from_state(cls, state: tuple) -> LaterPart:
        if not isinstance(state, tuple) or len(state) != len(cls.STATE_FIELDS):
            raise ValueError("not a later part's index")
        part = cls.__new__(cls)
        for name, value in zip(cls.STATE_FIELDS, state):
            setattr(part, name, value)
        if not (isinstance(part.free, list) and all(isinstance(getattr(part, n), dict) for n in cls.STATE_FIELDS[1:])):
            raise ValueError("not a later part's index")
        return part

    def fed(self, present: Callable[[tuple[str, int]], bool], among: Container[int] | None = None) -> set[int]:
        """The statements of the part that can fire on top of a ground program: each premise is of a
        predicate the ground program has atoms of (``present``) or the head of a statement fed so.
        Sound as the fixpoint is, and sharper: the ground program knows which instances exist, where
        the abstract fixpoint knows only which values may. ``among``: only these statements may
        feed (those the fixpoint kept, say). Counts down, predicate by predicate."""
        needs, gating, heads = dict(self.needs), self.gating, self.heads
        ready = [i for i in self.free if among is None or i in among]

        def available(sig: tuple[str, int]) -> None:
            for waiter in gating.get(sig, ()):
                needs[waiter] -= 1
                if not needs[waiter] and (among is None or waiter in among):
                    ready.append(waiter)

        made = {sig for sig in gating if present(sig)}  # (a predicate counts down its waiters once)
        for sig in made:
            available(sig)
        fed: set[int] = set()
        while ready:
            i = ready.pop()
            fed.add(i)
            for sig in heads[i]:
                if sig not in made:
                    made.add(sig)
                    available(sig)
        return fed


def _of_layer(program: Program, i: int, derived: Callable[[str], bool]) -> tuple | None:
    """A statement's head predicates and the layer's predicates among its gates, if every head is of
    the layer (None if not, or if it has no head)."""
    heads = [sig for sig, _ in program.heads[i]]
    if not heads or not all(derived(name) for name, _ in heads):
        return None
    return tuple(dict.fromkeys(heads)), tuple(gate[0] for gate in program.gates[i] if derived(gate[0][0]))


class Kept(NamedTuple):
    statements: tuple[int, ...]  # the statements that may fire, in program order
    predicates: frozenset[tuple[str, int]]  # the predicates that may have atoms


class _Fixpoint(NamedTuple):
    """A fixpoint itself, for a program that extends this one to go on from: what each argument
    position may hold, and which statements fired."""

    state: dict
    fired: bytes


def forget() -> None:
    """Drop every remembered answer (the benchmark measures the work for a new situation)."""
    with _remembering:
        for program in list(Program.made):
            program.results.clear()
            program.fixpoints.clear()


_remembering = threading.Lock()  # the API may be called from several threads
# Fixpoints kept per program for its extension to go on from: a few hundred kilobytes each on a
# large board, and the extension asks right after the program alone, for the same facts.
FIXPOINTS_KEPT = 4


def kept(program: Program, key: frozenset) -> Kept:
    """What may fire for facts of this abstract shape (remembered per program: situations of one
    shape, a batch's say, share the answer). A program that extends another goes on from the
    other's fixpoint (check asks of the program alone first, and often of it alone)."""
    hit = program.results.get(key)
    if hit is None:
        start = None
        if program.extends is not None:
            kept(program.extends, key)
            start = program.extends.fixpoints.get(key)
        hit, reached = _kept(program, key, start)
        with _remembering:
            program.results[key] = hit
            if len(program.results) > REMEMBERED:
                program.results.pop(next(iter(program.results)))
            if program.extends is None:  # a program that may be extended keeps its latest fixpoints
                program.fixpoints[key] = reached
                if len(program.fixpoints) > FIXPOINTS_KEPT:
                    program.fixpoints.pop(next(iter(program.fixpoints)))
    return hit


def going_on(program: Program, key: frozenset, base: Program, awake: Iterable[int]) -> tuple[int, ...]:
    """Of the statements ``awake`` (ones ``base`` held out of its fixpoint, or ones ``program`` adds
    to it), those that may fire once the fixpoint of ``base`` for these facts goes on with them
    and nothing else awake: found fed by :class:`LaterPart`, say, and now judged value by value.
    Sound: a statement left asleep can only be one that cannot fire."""
    kept(base, key)
    start = base.fixpoints.get(key) or _kept(base, key)[1]
    awake = tuple(sorted(awake))
    fired = _kept(program, key, start, awake)[1].fired
    return tuple(i for i in awake if fired[i])


def _kept(program: Program, key: frozenset, base: _Fixpoint | None = None,
          awake: Sequence[int] | None = None) -> tuple[Kept, _Fixpoint]:
    """The fixpoint over the facts' shape; with ``base``, the fixpoint of the program this one
    extends for the same facts, from which it goes on: what an extension adds only grows the atoms,
    so starting from the smaller fixpoint with every added statement awake reaches the same one.
    ``awake`` (with ``base``): only these statements are woken (see :func:`going_on`)."""
    state: dict[tuple[str, int], list] = {}
    queue: list[tuple[int, int]] = []  # a heap of (rank, statement)
    if awake is None:
        queued = bytearray(program.held)  # a held statement counts as queued: it is never woken
    else:
        queued = bytearray(b"\x01") * program.size
        for i in awake:
            queued[i] = 0
    rank = program.rank

    def wake(watchers) -> None:
        for w in watchers:
            if not queued[w]:
                queued[w] = 1
                heapq.heappush(queue, (rank[w], w))

    def add(sig, values) -> None:
        current = state.get(sig)
        if current is None:
            state[sig] = [None if v is None else set(v) for v in values]
            wake(program.on_new.get(sig, ()))
            return
        for k, v in enumerate(values):
            have = current[k]
            if have is None:
                continue
            if v is None:
                current[k] = None
                wake(program.on_any.get((sig, k), ()))
                wake(program.on_top.get((sig, k), ()))
            elif not v <= have:
                for value in v - have:
                    wake(program.on_value.get((sig, k, value), ()))
                have |= v
                wake(program.on_any.get((sig, k), ()))

    def fires(i: int) -> dict | None:
        bound: dict[str, object] = {}
        for sig, constants, variables in program.gates[i]:
            current = state.get(sig)
            if current is None:
                return None
            for k, value in constants:
                have = current[k]
                if have is not None and value not in have:
                    return None
            for k, name in variables:
                have = current[k]
                if name in bound:
                    if have is not None:
                        before = bound[name]
                        now = have if before is None else before & have
                        if not now:
                            return None
                        bound[name] = now
                else:
                    bound[name] = have
        return bound

    # What a statement's gates see only grows, so one that fired once fires at the end too; and every
    # change that could let a statement fire wakes it. So the statements that fired on the way are
    # exactly those that fire at the fixpoint, with no second look at the others.
    fired = bytearray(program.size)
    if base is not None and (awake is not None or len(base.fired) == program.extends.size):
        for sig, values in base.state.items():
            state[sig] = [None if v is None else set(v) for v in values]
        fired[:len(base.fired)] = base.fired
        # an added statement whose gates' predicates have no atoms yet waits for the first of them
        gates = program.gates
        if awake is None:  # the added statements, and those the extended program held out
            held = program.extends.held
            awake = [*(i for i in range(len(held)) if held[i]), *range(len(base.fired), program.size)] \
                if 1 in held else range(len(base.fired), program.size)
        wake(i for i in awake if all(g[0] in state for g in gates[i]))
    else:
        for name, arity, arguments in key:
            add((name, arity), [None if a is None else {a} for a in arguments])
        wake(i for i in range(program.size) if not program.gates[i])
    while queue:
        _, i = heapq.heappop(queue)
        queued[i] = 0
        bound = fires(i)
        if bound is None:
            continue
        fired[i] = 1
        for sig, arguments in program.heads[i]:
            add(sig, [bound.get(a[1]) if type(a) is tuple else (None if a is None else {a})
                      for a in arguments])
    always = program.always
    return (Kept(tuple(i for i in range(program.size) if fired[i] or i in always), frozenset(state)),
            _Fixpoint(state, bytes(fired)))
