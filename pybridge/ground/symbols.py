"""Reading many clingo atoms at once, through clingo's C library.

clingo's Python API makes every read of a symbol (its name, its arguments) and every step over the
atom base a call that allocates its own return buffers: about 4 microseconds each, and a judgement
makes tens of thousands (a third of a 60-card explain went to indexing records). The functions here
make the same calls of clingo's C API with buffers allocated once per batch and hand back Symbols
built from their representations, as clingo's own Python code does.

The C library is reached the way clingo 5's Python package reaches it (``clingo._internal``; the
``<6`` pin in pyproject.toml holds it). Where it is not there, the public API does the same work
(``FAST`` is False; the tests compare both ways on real programs).
"""

from __future__ import annotations

from typing import Callable, Iterable

import clingo
from clingo import Symbol

try:
    from clingo._internal import _ffi, _handle_error, _lib
    FAST = all(hasattr(_lib, f) for f in (
        "clingo_symbol_name", "clingo_symbol_arguments", "clingo_signature_create", "clingo_symbolic_atoms_begin",
        "clingo_symbolic_atoms_is_valid", "clingo_symbolic_atoms_symbol", "clingo_symbolic_atoms_is_fact",
        "clingo_symbolic_atoms_next", "clingo_model_contains"))
except ImportError:  # pragma: no cover - a clingo without its C library in clingo._internal
    FAST = False

# clingo keeps one copy of every name and never frees it: a name read once is known by its address.
_names: dict[int, str] = {}


def names(symbols: Iterable[Symbol]) -> list[str]:
    """The names of function symbols (atoms), in order."""
    if not FAST:
        return [s.name for s in symbols]
    found, known = [], _names
    out = _ffi.new("char**")
    address = _ffi.cast("uintptr_t*", out)  # the same pointer, read as a number
    read, handle = _lib.clingo_symbol_name, _handle_error
    for symbol in symbols:
        handle(read(symbol._rep, out))
        name = known.get(address[0])
        if name is None:
            name = known[address[0]] = _ffi.string(out[0]).decode()
        found.append(name)
    return found


def arguments(symbols: Iterable[Symbol]) -> list[tuple[Symbol, ...]]:
    """The arguments of function symbols (atoms), in order, each as a tuple."""
    if not FAST:
        return [tuple(s.arguments) for s in symbols]
    found = []
    args, size = _ffi.new("clingo_symbol_t**"), _ffi.new("size_t*")
    read, unpack, handle = _lib.clingo_symbol_arguments, _ffi.unpack, _handle_error
    for symbol in symbols:
        handle(read(symbol._rep, args, size))
        found.append(tuple(map(Symbol, unpack(args[0], size[0]))) if size[0] else ())
    return found


def argument_reps(symbols: Iterable[Symbol]) -> list[list[int]]:
    """:func:`arguments` as their representations (``terms.ident``; the Symbol is ``Symbol(rep)``):
    a reader keying thousands of atoms by their arguments makes no Symbol for them."""
    if not FAST:
        return [[a._rep for a in s.arguments] for s in symbols]
    found = []
    args, size = _ffi.new("clingo_symbol_t**"), _ffi.new("size_t*")
    read, unpack, handle = _lib.clingo_symbol_arguments, _ffi.unpack, _handle_error
    for symbol in symbols:
        handle(read(symbol._rep, args, size))
        found.append(unpack(args[0], size[0]) if size[0] else [])
    return found


def has_atoms(control: clingo.Control, name: str, arity: int) -> bool:
    """Whether the ground program has an atom of the predicate (true, or possible for the solver)."""
    return atoms_present(control)(name, arity)


def atoms_present(control: clingo.Control) -> Callable[[str, int], bool]:
    """:func:`has_atoms` for many predicates of one ground program: the buffers clingo answers in
    are made once (a why layer asks of a few hundred predicates; making them was most of a question)."""
    if not FAST:
        return lambda name, arity: next(iter(control.symbolic_atoms.by_signature(name, arity)), None) is not None
    atoms = control.symbolic_atoms._rep
    signature, it = _ffi.new("clingo_signature_t*"), _ffi.new("clingo_symbolic_atom_iterator_t*")
    valid = _ffi.new("bool*")
    create, begin, is_valid = _lib.clingo_signature_create, _lib.clingo_symbolic_atoms_begin, _lib.clingo_symbolic_atoms_is_valid

    def present(name: str, arity: int) -> bool:
        _handle_error(create(name.encode(), arity, True, signature))
        _handle_error(begin(atoms, signature, it))
        _handle_error(is_valid(atoms, it[0], valid))
        return bool(valid[0])
    return present


def true_atoms(control: clingo.Control, model: clingo.Model, name: str, arity: int) -> list[Symbol]:
    """The atoms of a predicate that hold: facts of the ground program, or true in ``model``."""
    return _true(control, model, name, arity, False)


def true_arguments(control: clingo.Control, model: clingo.Model, name: str, arity: int) -> list[list[int]]:
    """The arguments of :func:`true_atoms`, each as its representation (``terms.ident``; the
    Symbol is ``Symbol(rep)``): an index of many atoms makes Symbols only of those it finds."""
    return _true(control, model, name, arity, True)


def _true(control, model, name: str, arity: int, unpacked: bool) -> list:
    if not FAST:
        held = [a.symbol for a in control.symbolic_atoms.by_signature(name, arity)
                if a.is_fact or model.contains(a.symbol)]
        return [[a._rep for a in s.arguments] for s in held] if unpacked else held
    atoms = control.symbolic_atoms._rep
    signature, it = _ffi.new("clingo_signature_t*"), _ffi.new("clingo_symbolic_atom_iterator_t*")
    valid, fact, contained = _ffi.new("bool*"), _ffi.new("bool*"), _ffi.new("bool*")
    symbol = _ffi.new("clingo_symbol_t*")
    handle = _handle_error
    handle(_lib.clingo_signature_create(name.encode(), arity, True, signature))
    handle(_lib.clingo_symbolic_atoms_begin(atoms, signature, it))
    is_valid, read, is_fact = _lib.clingo_symbolic_atoms_is_valid, _lib.clingo_symbolic_atoms_symbol, \
        _lib.clingo_symbolic_atoms_is_fact
    step, contains, held = _lib.clingo_symbolic_atoms_next, _lib.clingo_model_contains, model._rep
    args, size = _ffi.new("clingo_symbol_t**"), _ffi.new("size_t*")
    read_arguments, unpack = _lib.clingo_symbol_arguments, _ffi.unpack
    found = []
    while True:
        handle(is_valid(atoms, it[0], valid))
        if not valid[0]:
            return found
        handle(read(atoms, it[0], symbol))
        handle(is_fact(atoms, it[0], fact))
        holds = fact[0]
        if not holds:
            handle(contains(held, symbol[0], contained))
            holds = contained[0]
        if holds:
            if unpacked:
                handle(read_arguments(symbol[0], args, size))
                found.append(unpack(args[0], size[0]) if size[0] else [])
            else:
                found.append(Symbol(symbol[0]))
        handle(step(atoms, it[0], it))
