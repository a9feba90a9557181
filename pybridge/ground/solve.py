"""The clingo Control lifecycle: the compiled rules, the situation's facts,
ground, solve, and hand back what justify reads.

The rules are compiled once per content of ``asp/`` (:mod:`pybridge.ground.compiler`)
and kept in memory (parsed) and in the cache folder (:mod:`pybridge.game.cache`), so a
long-lived process pays nothing per situation for them and a new process only
reads a file. Facts go in as text, printed as clingo prints their Symbols
(:mod:`pybridge.ground.facts`; user text never becomes program text).

The why layer is specialised: with no effects in a situation, nothing can
set an effect aside, replace a property or push a value below zero, so the
cite paths through those *witness* predicates are left out. A run checks the
witnesses it shows; one that holds against the guess makes the run again with
the layer that covers it. A *defeater* that holds (an effect set aside, a
property replaced, a hidden card's constant feature silenced) calls for the
near misses: they are grounded on top of the run's own program, in the same
Control, and solved again there, so the rules are never grounded twice for
them. The verdicts never depend on the guess, only the time does."""

from __future__ import annotations

import logging
import marshal
import re
import sys
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any, Callable, Iterable

import clingo
from clingo import ast

from pybridge.errors import AnswerCount, JudgeError, TimeLimitError
from pybridge.game import cache
from pybridge.game.catalogue import Game, load_game
from pybridge.game.encodings import entry_file
from pybridge.ground import specialise, symbols, terms
from pybridge.ground.compiler import (CHECK_READS, GRAPH_MODES, Compiled, Signature, asp_digest, compile_game,
                                      of_the_layer)
from pybridge.ground.facts import FactSet
from pybridge.ground.terms import parse_program, program_lines
from pybridge.input import limits

log = logging.getLogger(__name__)

DEFAULT_TIME_LIMIT = limits.DEFAULTS.time_limit  # the default; see pybridge/input/limits.py
# Core witness predicates (asp/core/effects.lp): they hold only where effects are in play.
CORE_WITNESSES: frozenset[Signature] = frozenset({("ignored", 3), ("set_aside", 1), ("replacement", 3),
                                                   ("below_zero", 4), ("selector_reaches", 2)})


def _logger(code: clingo.MessageCode, message: str) -> None:
    # An atom or a shown signature with no atoms in this situation is clingo's informational note
    # (the rules base shows what a situation may lack); other messages are warnings.
    level = logging.INFO if code == clingo.MessageCode.AtomUndefined else logging.WARNING
    log.log(level, "clingo: %s", _BLOCK.sub("<string>:", message.strip()))


# clingo names a text given to Control.add "<block>" and one parsed into statements "<string>". A
# program's first run hands it text, later runs parsed statements: the same statements on the same
# lines, so the messages name the same place either way.
_BLOCK = re.compile(r"(?m)^<block>:")


# --------------------------------------------------------------------------
# Compiled programs: in memory, then in the cache folder, then compiled


@lru_cache(maxsize=1)
def _digest() -> str:
    return asp_digest()


def witnesses(game: Game) -> frozenset[Signature]:
    return CORE_WITNESSES | frozenset(game.witnesses)


@lru_cache(maxsize=32)
def program(game_name: str, mode: str, absent: frozenset[Signature] = frozenset()) -> Compiled:
    """The game's rules compiled for ``mode`` (check, trees or explain), with the why layer specialised to
    the witnesses in ``absent`` having no atoms. Its near misses and its rules as the graph reads
    them are read when first asked for (:class:`pybridge.ground.compiler.Parts`)."""
    key = "-".join([game_name, mode, _digest()] + sorted(f"{n}.{a}" for n, a in absent))

    def compile_() -> Compiled:
        game = load_game(game_name)
        known = _recall_shape_lines()
        made = compile_game(game_name, entry_file(game_name, game.entry), mode=mode,
                            clause_kind=game.clause_kind, principle_of_banner=game.principle_of,
                            witnesses=witnesses(game), absent=absent, defeaters=frozenset(game.defeaters))
        _keep_shape_lines(known)
        for part in Compiled.PARTS:  # the parts first: a reader that finds the program finds them too
            cache.write_json(f"{key}.{part}.json", made.part_data(part))
        cache.write_json(f"{key}.json", made.to_data())
        return replace(made, key=key)

    def read_part(part: str, fresh: bool = False) -> dict:
        """A part of the cached program, read when first asked for; made again if it is gone, or
        ``fresh`` (what was read would not build: :class:`pybridge.ground.compiler.Parts`)."""
        data = None if fresh else cache.read_json(f"{key}.{part}.json")
        if data is not None:
            return data
        log.info("the cached part %s of %s is missing or broken: compiling it again", part, key)
        return compile_().part_data(part)

    data = cache.read_json(f"{key}.json")
    if data is not None:
        try:
            return Compiled.from_data(data, read_part, key=key)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:  # a broken cache entry is made again
            log.info("ignoring the cached program %s: %s", key, exc)
    return compile_()


# The specialiser's memory of statement shapes by line (specialise.text_shapes), kept in the cache
# folder: a cold compile spends nearly half its time reading shapes off parsed statements, and a
# rules base a few lines off one compiled before (a mutant, a planted rule, an author's edit) needs
# only those lines read. One entry under a fixed key, in the interpreter's marshal format.
_SHAPE_LINES = f"data-{'0' * 24}-shape-lines-{sys.implementation.cache_tag}.marshal"
_SHAPE_LINES_KEPT = 200_000  # lines; past it the memory starts afresh, as the process's own does
_shape_lines_read: list[bool] = []  # [True] once this process has read the entry


def _recall_shape_lines() -> int:
    """Read the kept lines into the process's memory, once; how many lines it then knows."""
    if not _shape_lines_read and sys.implementation.cache_tag:
        _shape_lines_read.append(True)
        raw = cache.read_bytes(_SHAPE_LINES)
        if raw is not None:
            try:
                if not specialise.recall_lines(marshal.loads(raw)):
                    log.info("ignoring the cached shape lines: not such data")
            except (ValueError, EOFError, TypeError):
                log.info("ignoring the cached shape lines: not marshal data")
    return specialise.lines_known()


def _keep_shape_lines(known: int) -> None:
    """Write the memory back when the compile added lines to it."""
    if sys.implementation.cache_tag and specialise.lines_known() != known:
        lines = specialise.lines_as_data()
        if len(lines) <= _SHAPE_LINES_KEPT:
            cache.write_bytes(_SHAPE_LINES, marshal.dumps(lines))


# --------------------------------------------------------------------------
# Solving


@dataclass
class Answer:
    """What a run gives justify: the shown atoms by predicate name, the program that made them, and
    (in the graph's modes, trees and explain) the Control with its model held open, for looking up
    atoms lazily. Call :meth:`close` when done with such an answer."""

    shown: dict[str, list[clingo.Symbol]]  # by predicate name (shown predicates differ by name)
    compiled: Compiled
    given: Iterable[clingo.Symbol]  # the situation's facts (a FactSet makes its Symbols when first read)
    control: clingo.Control | None = field(default=None, repr=False)
    near: bool = False
    deadline: float = float("inf")
    time_limit: float = 0.0
    _handle: ExitStack | None = field(default=None, repr=False)
    _fact_idents: frozenset[int] | None = field(default=None, repr=False)
    _facts_known: dict[int, bool] = field(default_factory=dict, repr=False)
    _model: clingo.Model | None = field(default=None, repr=False)
    # A check's Control kept for a graph read later (solve(..., graph=True)): it becomes ``control``
    # only by :meth:`open_graph`, so that what a check reads before is read off the shown atoms alone.
    _kept: clingo.Control | None = field(default=None, repr=False)
    _arguments: dict[str, list[tuple[clingo.Symbol, ...]]] = field(default_factory=dict, repr=False)
    _argument_reps: dict[str, list[list[int]]] = field(default_factory=dict, repr=False)
    _given_signatures: frozenset[Signature] | None = field(default=None, repr=False)

    def atoms(self, name: str) -> list[clingo.Symbol]:
        return self.shown.get(name, [])

    def arguments(self, name: str) -> list[tuple[clingo.Symbol, ...]]:
        """The arguments of each shown atom of ``name``, in order, read once."""
        found = self._arguments.get(name)
        if found is None:
            found = self._arguments[name] = symbols.arguments(self.shown.get(name, ()))
        return found

    def argument_reps(self, name: str) -> list[list[int]]:
        """:meth:`arguments` as their representations (``terms.ident``), read once."""
        found = self._argument_reps.get(name)
        if found is None:
            found = self._argument_reps[name] = symbols.argument_reps(self.shown.get(name, ()))
        return found

    def is_fact(self, atom: clingo.Symbol) -> bool:
        """Whether ``atom`` is one of the situation's facts (only the graph asks, of every atom it
        meets, some many times: the answer is remembered per atom)."""
        key = terms.ident(atom)
        found = self._facts_known.get(key)
        if found is None:
            if isinstance(self.given, FactSet):
                found = terms.signature_of(atom) in self.given_signatures() and atom in self.given
            else:
                if self._fact_idents is None:
                    self._fact_idents = frozenset(map(terms.ident, self.given))
                found = key in self._fact_idents
            self._facts_known[key] = found
        return found

    def given_signatures(self) -> frozenset[Signature]:
        """The predicates the situation's facts are of."""
        if isinstance(self.given, FactSet):
            return self.given.signatures
        if self._given_signatures is None:
            self._given_signatures = frozenset(terms.signature_of(f) for f in self.given)
        return self._given_signatures

    def lookup(self, name: str, arity: int) -> Iterable[clingo.Symbol]:
        """Every atom of a signature in the answer (in the graph's modes: read from the ground program)."""
        if self.control is None:
            return self.atoms(name)
        return symbols.true_atoms(self.control, self._model, name, arity)

    def lookup_arguments(self, name: str, arity: int) -> list[list[int]]:
        """:meth:`lookup`'s atoms' arguments, as their representations (the graph's modes). A predicate
        the rules base shows is read off the shown atoms (one call into clingo an atom, where walking
        the ground program's atoms takes several)."""
        if (name, arity) in self.compiled.whole_shown:
            return [args for args in self.argument_reps(name) if len(args) == arity]
        return symbols.true_arguments(self.control, self._model, name, arity)

    def holds(self, atom: clingo.Symbol) -> bool:
        if self.control is None:
            return atom in self.shown.get(atom.name, ())
        found = self.control.symbolic_atoms[atom]
        return found is not None and (found.is_fact or self._model.contains(atom))

    def within_time(self) -> None:
        """Refuse a run that went past its time limit (justifications count too)."""
        _past(self.deadline, self.time_limit, "the judgement")

    def open_graph(self) -> None:
        """Make a check's answer one the graph can read (:class:`pybridge.why.graph.Graph`): its kept
        Control, with the model held open. For a plain check's because-line, which then needs no
        second solve."""
        if self.control is None:
            if self._kept is None:
                raise JudgeError("this answer was solved without keeping its program (a defect in ccg-judge)")
            self.control, self._kept = self._kept, None
            self._handle, self._model = _hold_model(self.control)

    def close(self) -> None:
        self._kept = None
        if self._handle is not None:
            self._handle.close()  # the ExitStack that holds the solve open
            self._handle = self._model = None


def _past(deadline: float, time_limit: float, what: str) -> None:
    if time.monotonic() > deadline:
        raise TimeLimitError(limits.over(f"{what} did not finish within the time limit", time_limit, "time_limit"))


def _run(compiled: Compiled, facts: Facts, time_limit: float, deadline: float, *, first: bool,
         near: bool | None = None) -> tuple[dict[str, list[clingo.Symbol]], clingo.Control, bool]:
    """Ground the rules kept for these facts, then their why layer on top of them (a part of its own,
    ``why``, in the same Control: the layer reads the rules' atoms and derives only its own), and solve
    once. The layer takes the near misses when a defeater has an atom once the rules are grounded
    (``near`` None; or as ``near`` says): the rules decide whether their justification needs them,
    with no second run. ``first``: this process has not run the program before (:func:`_run_before`).
    Gives the shown atoms, the Control and whether the near misses went in."""
    ctl = clingo.Control(["--models=2"], logger=_logger, message_limit=50)
    _add(ctl, compiled, facts, RULES, first)
    ctl.add("base", [], facts.text)
    _ground(ctl, "base", deadline, time_limit)
    if near is None:
        defeating = [atom for name, arity in compiled.defeaters for atom in ctl.symbolic_atoms.by_signature(name, arity)]
        # a fact of the ground program holds in any model: no solve is needed to know it
        near = any(atom.is_fact for atom in defeating) or _holds_any(ctl, [atom.symbol for atom in defeating],
                                                                      deadline, time_limit)
    _add(ctl, compiled, facts, WHY_NEAR if near else WHY, first, present=_has_atoms(ctl))
    _ground(ctl, "why", deadline, time_limit)
    return _the_model(ctl, deadline, time_limit), ctl, near


# The parts of a compiled program a run grounds in turn: its rules (records included), then the why
# layer on top (cites, the verdict's cites) with or without the near misses.
RULES, WHY, WHY_NEAR = "rules", "why", "why+near"


def _add(ctl: clingo.Control, compiled: Compiled, facts: Facts, part: str, first: bool,
         present: Callable[[Signature], bool] | None = None) -> None:
    """Hand clingo a part of the program kept for these facts: a process's first run of a program
    as text (clingo parses only the statements kept), later runs as the statements parsed once.
    ``present``: whether the program ground so far has atoms of a predicate (the why layer goes on
    top of the ground rules: of it, only what their atoms can feed is kept)."""
    name = "base" if part == RULES else "why"
    if not first or not _a_statement_a_line(compiled, part == WHY_NEAR):
        with ast.ProgramBuilder(ctl) as builder:
            add = builder.add
            add(ast.Program(_LOCATION, name, []))
            for statement in _statements(compiled, facts, part == WHY_NEAR, part, present, directives=False):
                add(statement)
    else:  # clingo parses the text itself, with no statement passing through Python
        for text in _statements_text(compiled, facts, part == WHY_NEAR, part, present):
            ctl.add(name, [], text)


def _has_atoms(ctl: clingo.Control) -> Callable[[Signature], bool]:
    """Whether the Control's ground program has atoms of a predicate, asked of clingo once each, and
    only of the predicates its atom base has a domain for (a predicate it has never seen has none)."""
    known: dict[Signature, bool] = {}
    domains: set[Signature] = set()
    has_atoms = symbols.atoms_present(ctl)

    def present(signature: Signature) -> bool:
        found = known.get(signature)
        if found is None:
            if not known:
                domains.update((name, arity) for name, arity, positive in ctl.symbolic_atoms.signatures if positive)
            found = known[signature] = signature in domains and has_atoms(*signature)
        return found

    return present


_LOCATION = ast.Location(ast.Position("<parts>", 1, 1), ast.Position("<parts>", 1, 1))


def finished_by(handle: clingo.SolveHandle, deadline: float) -> bool:
    """Whether the solve finished before the deadline. clingo's wait can return before its timeout
    with the solve unfinished: the deep profile met it about once in 8,000 solves, each a board
    that takes milliseconds on replay, with no stall (a 20 s watchdog never fired) — so a wait is
    asked again for the time left, and only a deadline passed ends it."""
    while not handle.wait(max(0.0, deadline - time.monotonic())):
        if time.monotonic() >= deadline:
            return False
        log.debug("clingo's wait returned before its timeout with the solve unfinished: waiting again")
    return True


def _finish_or_stop(handle: clingo.SolveHandle, deadline: float, time_limit: float) -> None:
    """Wait for the solve; past the deadline, stop it and say the time limit was met."""
    if not finished_by(handle, deadline):
        handle.cancel()
        raise TimeLimitError(limits.over("the solver did not finish within the time limit", time_limit, "time_limit"))


def _holds_any(ctl: clingo.Control, atoms: list[clingo.Symbol], deadline: float, time_limit: float) -> bool:
    """Whether any of these atoms of the ground program is true in its model. The grounder leaves
    some atoms to the solver (those resting on a negation it cannot settle alone), so an atom of the
    ground program may yet be false: the rules are solved for them, if there are any."""
    if not atoms:
        return False
    found = []
    with ctl.solve(on_model=lambda model: found.append(any(model.contains(a) for a in atoms)), async_=True) as handle:
        _finish_or_stop(handle, deadline, time_limit)
    return any(found)


def _ground(ctl: clingo.Control, part: str, deadline: float, time_limit: float) -> None:
    try:
        ctl.ground([(part, [])])
    except RuntimeError as exc:
        raise JudgeError(f"grounding failed: {exc}") from None
    _past(deadline, time_limit, "grounding")  # clingo cannot interrupt grounding: the limit is checked after it


def _the_model(ctl: clingo.Control, deadline: float, time_limit: float) -> dict[str, list[clingo.Symbol]]:
    """The one model's shown atoms by predicate name (refused if there is none or more than one)."""
    models: list[list[clingo.Symbol]] = []

    def on_model(model: clingo.Model) -> None:
        models.append(list(model.symbols(shown=True)))

    with ctl.solve(on_model=on_model, async_=True) as handle:
        _finish_or_stop(handle, deadline, time_limit)
        result = handle.get()
    if result.unsatisfiable or not models:
        raise AnswerCount("the rules have no answer for this situation (it contradicts them)", answers=0)
    if len(models) > 1:
        raise AnswerCount("the rules give more than one answer for this situation; "
                          "the verdict layer must be deterministic", answers=2)
    shown: dict[str, list[clingo.Symbol]] = {}
    for atom, name in zip(models[0], symbols.names(models[0])):
        shown.setdefault(name, []).append(atom)
    return shown


def answer_count(game_name: str, facts: FactSet | list[clingo.Symbol], *, time_limit: float | None = None) -> int:
    """How many answers the rules give for these facts: 0, 1, or 2 for "more than one". Only the
    rules kept for the facts are ground and solved, with no why layer: the layer derives, from the
    one answer, atoms nothing else reads (cites, records, near misses), so it cannot change the count
    and is left out (a third of a check's cost). What the property "every valid situation has
    exactly one answer" needs, at a scale a check per situation cannot afford."""
    time_limit = limits.current().time_limit if time_limit is None else limits.seconds(time_limit)
    compiled = program(game_name, "check")
    deadline = time.monotonic() + time_limit
    given = Facts(facts)
    ctl = clingo.Control(["--models=2"], logger=_logger, message_limit=50)
    _add(ctl, compiled, given, RULES, not _run_before(compiled))
    ctl.add("base", [], given.text)
    _ground(ctl, "base", deadline, time_limit)
    found = []
    with ctl.solve(on_model=lambda model: found.append(True), async_=True) as handle:
        _finish_or_stop(handle, deadline, time_limit)
        handle.get()
    return len(found)


class Facts:
    """A situation's facts as clingo reads them (one parse is cheaper than a backend call per fact,
    and it is exactly what `ccg-judge facts` shows), and their shape for :mod:`pybridge.ground.specialise`:
    from a :class:`pybridge.ground.facts.FactSet`, which has both at hand, or from Symbols, printed."""

    def __init__(self, facts: FactSet | list[clingo.Symbol]):
        self.facts = facts

    @cached_property
    def text(self) -> str:
        return self.facts.text if isinstance(self.facts, FactSet) else render(self.facts)

    @cached_property
    def key(self) -> frozenset:
        return self.facts.key if isinstance(self.facts, FactSet) else specialise.text_key(self.text)


def _statements(compiled: Compiled, facts: Facts, near: bool, part: str | None = None,
                present: Callable[[Signature], bool] | None = None, directives: bool = True) -> list[ast.AST]:
    """The program for these facts: the rules that can fire for them (:mod:`pybridge.ground.specialise`);
    ``near`` adds the near misses. ``part``: only the statements of that part (:data:`RULES`,
    :data:`WHY`, :data:`WHY_NEAR`; None: all). ``present``: see :func:`_add`. ``directives``: with
    the ``#program`` statements (without them, for a caller that names the part itself: telling them
    apart is a call into clingo a statement, half the cost of handing them over)."""
    base = _parsed(compiled.text)
    statements = base + (_parsed(compiled.near_text) if near else ())
    if not specialise.ENABLED or not compiled.shaped:
        kept: Iterable[int] = range(len(statements))
    else:
        kept = _kept(compiled, facts, near, layer=part != RULES, present=present)
    if directives:
        return [statements[i] for i in _in_part(compiled, kept, part)]
    skip = _directives(compiled.text) | ({len(base) + i for i in _directives(compiled.near_text)} if near else set())
    return [statements[i] for i in _in_part(compiled, kept, part) if i not in skip]


def _in_part(compiled: Compiled, kept: Iterable[int], part: str | None) -> Iterable[int]:
    """The statements among ``kept`` (indices of the program, then of its near misses) of a part."""
    if part is None:
        return kept
    layer, size = compiled.layer, _count(compiled.text)
    if part == RULES:
        return (i for i in kept if i < size and i not in layer)
    return (i for i in kept if i >= size or i in layer)


def _statements_text(compiled: Compiled, facts: Facts, near: bool, part: str | None = None,
                     present: Callable[[Signature], bool] | None = None) -> list[str]:
    """:func:`_statements` as the texts of the program and, with ``near``, of its near misses, for a
    program this process has not run: parsing them costs only the statements kept. A statement left
    out is an empty line, so every statement keeps its line and clingo's messages name the same
    place either way. The compiler writes a statement a line (see :func:`_a_statement_a_line`);
    clingo's parse puts a ``#program base.`` of its own first, so statement ``i`` of a part is its
    line ``i - 1``. ``part``: only that part's statements (its other lines empty too); the program's
    rules leave out the near misses' text."""
    parts = [program_lines(compiled.text)] + ([program_lines(compiled.near_text)] if near and part != RULES else [])
    if not specialise.ENABLED or not compiled.shaped:
        kept: Iterable[int] = range(sum(len(lines) + 1 for lines in parts))
    else:
        kept = _kept(compiled, facts, near, layer=part != RULES, present=present)
    chosen = set(_in_part(compiled, kept, part))
    texts, first = [], 0  # first: the index of the part's own #program base. among all statements
    for lines in parts:
        texts.append("\n".join(line if first + 1 + n in chosen else "" for n, line in enumerate(lines)))
        first += len(lines) + 1
    return texts


def _count(text: str) -> int:
    """How many statements clingo parses from a compiled text: a line each and its own first one."""
    return text.count("\n") + 1 if text.endswith("\n") else text.count("\n") + 2


def _a_statement_a_line(compiled: Compiled, near: bool) -> bool:
    """Whether each line of the compiled texts in use is one statement, as the shapes read them (a
    statement printed over several lines, a #script say, would break the line-for-statement match)."""
    return compiled.shaped == _count(compiled.text) and (
        not near or compiled.near_shaped == _count(compiled.near_text))


# The API may be called from several threads (an application's; the playground's requests arrive in
# a thread pool): the per-process tables below change under this lock, since taking the oldest entry
# out iterates a table, which another thread's insert would break.
_tables = threading.Lock()
_ran: dict[int, Compiled] = {}  # the compiled programs this process has run, by id


def _run_before(compiled: Compiled) -> bool:
    """Whether this process has run the program before. Its first run goes to clingo as the text of
    what it grounds, so a process that judges one situation parses no more than that; from the
    second on, the whole program is parsed once and its statements reused (a third of the cost of
    parsing them again)."""
    with _tables:
        if _ran.get(id(compiled)) is compiled:
            return True
        _ran[id(compiled)] = compiled
        if len(_ran) > 64:
            _ran.pop(next(iter(_ran)))
        return False


def _kept(compiled: Compiled, facts: Facts, near: bool, layer: bool = True,
          present: Callable[[Signature], bool] | None = None) -> tuple[int, ...]:
    """The statements the specialiser keeps for a run, ``near`` with the near misses: of the rules,
    those the abstract fixpoint finds may fire (it leaves the why layer out: no rule reads it); of
    the layer, with the rules ground (``present``, see :func:`_add`), only what their atoms can feed
    (:class:`specialise.LaterPart`; with nothing ground, all of it): the layer's rules rest on the
    rules' records, and the abstract fixpoint cannot tell a record that has an instance from one
    that has none (cards are all alike to it). A check reads its why
    layer only for what it shows (:data:`pybridge.ground.compiler.CHECK_READS`): of the layer it
    keeps what those read, the near misses that end in no verdict's cites left out. ``layer``: the
    statements are wanted for the layer (False: for the rules alone, which that leaves as they are)."""
    program = _shapes(compiled, near=near)
    if compiled.mode in GRAPH_MODES:  # no cites layer: the near misses, value by value, then fed
        found = specialise.kept(program, facts.key).statements
        if present is not None:
            part, later = _later(compiled, near)
            fed, of_part = later.fed(present, among=frozenset(found)), frozenset(part)
            found = tuple(i for i in found if i not in of_part or i in fed)
        return found
    base = _shapes(compiled, near=False)
    found = specialise.kept(base, facts.key).statements  # the layer held out
    if not layer:
        return found
    part, later = _later(compiled, near)
    fed = part if present is None else later.fed(present)  # (with nothing ground, any of it may be)
    found = tuple(sorted((*found, *specialise.going_on(program, facts.key, base, fed))))
    with _tables:
        seen = _layer_seen.setdefault(id(program), (program, {}))
        if seen[0] is not program:
            seen = _layer_seen[id(program)] = (program, {})
        if len(_layer_seen) > 64:
            _layer_seen.pop(next(iter(_layer_seen)))
    return specialise.read_by_roots(program, found, CHECK_READS, of_the_layer, seen[1])


# Per specialiser's program: its statements' heads and layer gates, read once (specialise.read_by_roots).
_layer_seen: dict[int, tuple[specialise.Program, dict[int, tuple | None]]] = {}


_indexed: dict[tuple[int, bool], tuple[Compiled, specialise.Program]] = {}


def _shapes(compiled: Compiled, near: bool) -> specialise.Program:
    """The statement shapes of a compiled program, with its near misses after them if ``near``,
    indexed once per process (with them, by extending the index without them), and kept in the
    cache folder (:func:`_kept_index`)."""
    found = _indexed.get((id(compiled), near))
    if found is None or found[0] is not compiled:
        if near:  # the program's own index, extended by its near misses
            base = _shapes(compiled, near=False)
            program = _kept_index(
                compiled, "near_shapes",
                lambda: specialise.Program(compiled.near_shapes, extends=base, rank=compiled.near_ranks),
                lambda state: specialise.Program.from_state(state, extends=base),
                lambda program: program.size == base.size + compiled.near_shaped)
            found = (compiled, program)
        else:
            found = (compiled, _kept_index(compiled, "shapes",
                                           lambda: specialise.Program(compiled.shapes, rank=compiled.ranks),
                                           specialise.Program.from_state,
                                           lambda program: program.size == compiled.shaped))
            if compiled.mode not in GRAPH_MODES:  # no statement of the program reads its layer
                found[1].hold(compiled.layer)
        with _tables:
            _indexed[(id(compiled), near)] = found
            if len(_indexed) > 64:
                _indexed.pop(next(iter(_indexed)))
    return found[1]


_laters: dict[tuple[int, bool], tuple[Compiled, tuple[int, ...], specialise.LaterPart]] = {}


def _later(compiled: Compiled, near: bool) -> tuple[tuple[int, ...], specialise.LaterPart]:
    """The statements of a program's why layer (with ``near``, its near misses too, all of the
    layer) and their index for :meth:`specialise.LaterPart.fed`, made once per process and kept in
    the cache folder."""
    found = _laters.get((id(compiled), near))
    if found is None or found[0] is not compiled:
        program, size = _shapes(compiled, near), _count(compiled.text)
        part = tuple(sorted(compiled.layer)) + tuple(range(size, program.size) if near else ())
        later = _kept_index(compiled, "later_near" if near else "later", lambda: specialise.LaterPart(program, part),
                            specialise.LaterPart.from_state, lambda later: tuple(later.heads) == part)
        found = (compiled, part, later)
        with _tables:
            _laters[(id(compiled), near)] = found
            if len(_laters) > 64:
                _laters.pop(next(iter(_laters)))
    return found[1], found[2]


def _kept_index(compiled: Compiled, what: str, make: Callable[[], Any], read: Callable[[tuple], Any],
                fits: Callable[[Any], bool]) -> Any:
    """An index of the specialiser's for a compiled program (``what``: its own statements' shapes,
    with its near misses, a later part's), kept in the cache folder beside the program as marshal
    data (in the interpreter's own format, hence its tag in the name): a new process reads one in
    less time than making it takes (the program's own: about 40%). ``read`` makes it from the data,
    ``fits`` checks it against the program; an entry that does neither is made again."""
    tag = sys.implementation.cache_tag  # None where the interpreter keeps no bytecode cache
    name = f"{compiled.key}.{what}-{tag}.marshal" if compiled.key and tag else None
    raw = cache.read_bytes(name) if name else None
    if raw is not None:
        try:
            found = read(marshal.loads(raw))
            if fits(found):
                return found
        except (ValueError, EOFError, TypeError, IndexError, AttributeError):  # a broken entry is made again
            pass
    found = make()
    if name:
        cache.write_bytes(name, marshal.dumps(found.state()))
    return found


@lru_cache(maxsize=64)
def _directives(text: str) -> frozenset[int]:
    """Which statements of :func:`_parsed` are ``#program`` directives."""
    return frozenset(i for i, statement in enumerate(_parsed(text)) if statement.ast_type == ast.ASTType.Program)


@lru_cache(maxsize=64)
def _parsed(text: str) -> tuple[ast.AST, ...]:
    """A compiled program parsed once per process: handing clingo the parsed statements costs
    a third of parsing the text again for every situation."""
    return tuple(parse_program(text))


def _hold_model(ctl: clingo.Control) -> tuple[ExitStack, clingo.Model]:
    """The (only) model again, held open for lookups: atoms the grounder left to the solver (those
    resting on aggregates, say) are true in it though not facts of the ground program."""
    stack = ExitStack()
    handle = stack.enter_context(ctl.solve(yield_=True))
    model = handle.model()
    if model is None:  # cannot happen after a satisfiable run; say so rather than guess
        stack.close()
        raise JudgeError("the rules lost their answer on a second look (a defect in ccg-judge)")
    return stack, model


def render(facts: list[clingo.Symbol]) -> str:
    return "".join([f"{fact}.\n" for fact in facts])


@dataclass(frozen=True)
class EffectShape:
    """What the guess of witnesses looks at in an effect: its target, its kind, whether a card made it,
    and whether its target is a selector (which may reach any card)."""

    target: str
    kind: str
    sourced: bool
    selector: bool = False


def expected_witnesses(effects: Iterable[EffectShape], game: Game) -> frozenset[Signature]:
    """The core witnesses a situation's effects may bring about: a clash needs two effects on one card
    (or a source, which a game may set aside); a replaced property needs a set effect; a value below
    zero, a modifier. A game's own witnesses are always expected. A wrong guess costs a second run."""
    effects = list(effects)
    per_target: dict[str, int] = {}
    for e in effects:
        per_target[e.target] = per_target.get(e.target, 0) + 1
    expected = set(game.witnesses)
    if any(n > 1 for n in per_target.values()) or any(e.sourced or e.selector for e in effects):
        expected |= {("ignored", 3), ("set_aside", 1)}
    if any(e.selector for e in effects):
        expected.add(("selector_reaches", 2))
    if any(e.kind == "set" for e in effects):
        expected.add(("replacement", 3))
    if any(e.kind == "modify" for e in effects):
        expected.add(("below_zero", 4))
    return frozenset(expected)


def solve(game_name: str, facts: FactSet | list[clingo.Symbol], *, mode: str = "check",
          time_limit: float | None = None, expected: frozenset[Signature] | None = None,
          graph: bool = False) -> Answer:
    """Ground and solve one situation. ``expected``: the witnesses the situation may bring about
    (:func:`expected_witnesses`; None: any). ``graph``: keep a check's program for
    :meth:`Answer.open_graph` (the graph's modes always keep it open)."""
    bounds = limits.current()
    time_limit = bounds.time_limit if time_limit is None else limits.seconds(time_limit)
    game = load_game(game_name)
    all_witnesses = witnesses(game)
    absent = all_witnesses - expected if expected is not None else frozenset()
    compiled = program(game_name, mode, absent if mode == "check" else frozenset())
    # One budget for grounding, solving and justifying this situation. It starts once the rules
    # are compiled: compiling them (on a cold cache, seconds) is the installation's time, not the
    # situation's, and is the same whatever the situation.
    deadline = time.monotonic() + time_limit
    given = Facts(facts)
    shown, control, near = _run(compiled, given, time_limit, deadline, first=not _run_before(compiled))
    present = frozenset(s for s in all_witnesses if shown.get(s[0]))
    if mode == "check" and present & set(compiled.absent):  # the guess missed: the layer that covers it
        compiling = time.monotonic()
        absent = all_witnesses - present
        if near:
            # A witness with no atom may still be nearly derived (an effect set aside nearly replaces a
            # property): one the situation's effects may bring about keeps its near misses.
            possible = expected if expected is not None else all_witnesses
            absent -= set(compiled.near_witnesses) & possible
        compiled = program(game_name, mode, frozenset(absent))
        deadline += time.monotonic() - compiling
        shown, control, near = _run(compiled, given, time_limit, deadline, first=not _run_before(compiled),
                                    near=near)
    if not (mode in GRAPH_MODES or graph):
        control = None
    judgements = sum(len(v) for name, v in shown.items() if not name.startswith("_"))
    if judgements > bounds.judgements:
        raise JudgeError(limits.over(f"the situation gives {judgements} judgements (verdicts, prohibitions, "
                                     "ignored effects, ...)", bounds.judgements, "judgements"))
    graph_mode = mode in GRAPH_MODES
    answer = Answer(shown=shown, compiled=compiled, given=facts, control=control if graph_mode else None,
                    near=near, deadline=deadline, time_limit=time_limit, _kept=None if graph_mode else control)
    if graph_mode:
        answer._handle, answer._model = _hold_model(control)
    return answer
