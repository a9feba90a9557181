"""Term patterns of the rules: the heads and premises of rules, as data.

A pattern is a small tree of lists (JSON-ready, so compiled programs can be
cached): ``["v", name]`` a variable, ``["n", 3]`` a number, ``["s", text]`` a
string, ``["f", name, [args]]`` a function or constant, ``["t", [args]]`` a
tuple, ``["op", operator, left, right]`` / ``["neg", x]`` / ``["abs", x]``
arithmetic, ``["?", text]`` anything else (intervals, pools). Justify turns
patterns and the variable bindings a record carries into clingo Symbols
(atoms it looks up) and into text (premises it only shows), and matches an
atom against a rule head to find the records that derived it.

Also here, the two things every stage does with clingo's values: read a Symbol (once: every part
read is a call into clingo) and parse a compiled program's text (a statement a line)."""

from __future__ import annotations

from typing import Any, Callable

import clingo
from clingo import Function, Number, String, Symbol, SymbolType, ast

Pattern = list  # see the module docstring
Bindings = dict[str, Symbol]

OPERATORS = {
    ast.BinaryOperator.Plus: "+", ast.BinaryOperator.Minus: "-", ast.BinaryOperator.Multiplication: "*",
    ast.BinaryOperator.Division: "/", ast.BinaryOperator.Modulo: "\\", ast.BinaryOperator.Power: "**",
    ast.BinaryOperator.And: "&", ast.BinaryOperator.Or: "?", ast.BinaryOperator.XOr: "^",
}


def pattern(term: ast.AST) -> Pattern:
    """The pattern of a term of a rule (clingo AST)."""
    kind = term.ast_type
    if kind == ast.ASTType.Variable:
        return ["v", term.name]
    if kind == ast.ASTType.SymbolicTerm:
        return from_symbol(term.symbol)
    if kind == ast.ASTType.Function:
        args = [pattern(a) for a in term.arguments]
        return ["t", args] if not term.name else ["f", term.name, args]
    if kind == ast.ASTType.BinaryOperation and term.operator_type in OPERATORS:
        return ["op", OPERATORS[term.operator_type], pattern(term.left), pattern(term.right)]
    if kind == ast.ASTType.UnaryOperation:
        if term.operator_type == ast.UnaryOperator.Minus:
            return ["neg", pattern(term.argument)]
        if term.operator_type == ast.UnaryOperator.Absolute:
            return ["abs", pattern(term.argument)]
    return ["?", str(term)]


def from_symbol(symbol: Symbol) -> Pattern:
    if symbol.type == SymbolType.Number:
        return ["n", symbol.number]
    if symbol.type == SymbolType.String:
        return ["s", symbol.string]
    if symbol.type == SymbolType.Function:
        args = [from_symbol(a) for a in symbol.arguments]
        return ["t", args] if not symbol.name else ["f", symbol.name, args]
    return ["?", str(symbol)]


def variables(p: Pattern) -> list[str]:
    """The variables of a pattern, in order of first appearance. (A loop, not a recursive inner
    function: one that calls itself is a reference cycle, left for the collector to free.)"""
    found: list[str] = []
    stack = [p]
    while stack:
        node = stack.pop()
        tag = node[0]
        if tag == "v":
            if node[1] not in found:
                found.append(node[1])
        elif tag == "f":
            stack.extend(reversed(node[2]))
        elif tag == "t":
            stack.extend(reversed(node[1]))
        elif tag == "op":
            stack += (node[3], node[2])
        elif tag in ("neg", "abs"):
            stack.append(node[1])
    return found


def signature(p: Pattern) -> tuple[str, int]:
    if p[0] == "f":
        return (p[1], len(p[2]))
    return ("", 0)


class Unbuildable(Exception):
    """A pattern with a part justify cannot rebuild (an interval, a pool, an unbound variable)."""


def _arith(operator: str, a: int, b: int) -> int:
    """An operation as clingo does it: on 32-bit integers, wrapping around on overflow."""
    return wrap(_exact(operator, a, b))


def wrap(value: int) -> int:
    """A Python integer as clingo's 32-bit one (it wraps around: 2**31 is -2147483648)."""
    return (value + 2 ** 31) % 2 ** 32 - 2 ** 31


def _exact(operator: str, a: int, b: int) -> int:
    if operator == "+":
        return a + b
    if operator == "-":
        return a - b
    if operator == "*":
        return a * b
    if operator == "/":
        if b == 0:
            raise Unbuildable("division by zero")
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q  # clingo divides towards zero
    if operator == "\\":
        if b == 0:
            raise Unbuildable("modulo by zero")
        return a - b * _exact("/", a, b)
    if operator == "**":
        if b < 0:  # clingo: 0 for any base but 0, for which it is undefined
            if a == 0:
                raise Unbuildable("0 to a negative power")
            return 0
        return pow(a, b, 2 ** 32)  # the low 32 bits are all that wrap() keeps
    if operator == "&":
        return a & b
    if operator == "?":
        return a | b
    return a ^ b


_made: dict[tuple, Symbol] = {}


def _function(name: str, arguments: list[Symbol]) -> Symbol:
    """``Function(name, arguments)``, made once per process: a graph builds the same premise for many
    derivations, and a look-up by the arguments' identities (:func:`ident`) costs a fraction of the
    calls into clingo that making a Symbol takes."""
    key = (name, *[a._rep for a in arguments])
    found = _made.get(key)
    if found is None:
        if len(_made) > 200_000:  # symbols live as long as the process; keep the cache bounded
            _made.clear()
        found = _made[key] = Function(name, arguments)
    return found


def builder(p: Pattern) -> Callable[[Bindings], Symbol]:
    """A function building the Symbol of the pattern under bindings."""
    tag = p[0]
    if tag == "v":
        name = p[1]

        def variable(b: Bindings) -> Symbol:
            try:
                return b[name]
            except KeyError:
                raise Unbuildable(f"unbound variable {name}") from None
        return variable
    if tag in ("n", "s") or (tag == "f" and not _has_vars(p)) or (tag == "t" and not _has_vars(p)):
        constant = to_symbol(p)
        return lambda b: constant
    if tag in ("f", "t"):
        name = p[1] if tag == "f" else ""
        parts = [builder(a) for a in (p[2] if tag == "f" else p[1])]
        return lambda b: _function(name, [part(b) for part in parts])
    if tag == "op":
        operator, left, right = p[1], builder(p[2]), builder(p[3])

        def operation(b: Bindings) -> Symbol:
            x, y = left(b), right(b)
            if x.type != SymbolType.Number or y.type != SymbolType.Number:
                raise Unbuildable("arithmetic on a non-number")
            return Number(_arith(operator, x.number, y.number))
        return operation
    if tag in ("neg", "abs"):
        inner = builder(p[1])

        def unary(b: Bindings) -> Symbol:
            x = inner(b)
            if x.type != SymbolType.Number:
                raise Unbuildable("arithmetic on a non-number")
            return Number(wrap(-x.number if tag == "neg" else abs(x.number)))
        return unary
    text = p[1]

    def unknown(b: Bindings) -> Symbol:
        raise Unbuildable(f"cannot rebuild {text}")
    return unknown


def has_part(p: Pattern, tags: frozenset[str]) -> bool:
    """Whether a pattern has a part of one of these kinds (``"v"``, ``"op"``, ``"?"``, ...) anywhere."""
    tag = p[0]
    if tag in tags:
        return True
    if tag == "f":
        return any(has_part(a, tags) for a in p[2])
    if tag == "t":
        return any(has_part(a, tags) for a in p[1])
    if tag == "op":
        return has_part(p[2], tags) or has_part(p[3], tags)
    if tag in ("neg", "abs"):
        return has_part(p[1], tags)
    return False


COMPUTED = frozenset({"op", "neg", "abs", "?"})  # arithmetic, and what justify cannot rebuild
UNKNOWN = frozenset({"?"})  # an interval, a pool, an external function, ...
_OPEN = frozenset({"v", "?"})  # what keeps arithmetic from having one value


def _has_vars(p: Pattern) -> bool:
    """Whether a pattern is not a constant (``range(1..3)`` is no constant either)."""
    return has_part(p, COMPUTED | {"v"})


def to_symbol(p: Pattern) -> Symbol:
    tag = p[0]
    if tag == "n":
        return Number(p[1])
    if tag == "s":
        return String(p[1])
    if tag == "f":
        return Function(p[1], [to_symbol(a) for a in p[2]])
    if tag == "t":
        return Function("", [to_symbol(a) for a in p[1]])
    raise Unbuildable(f"not a constant: {p}")


def ident(symbol: Symbol) -> int:
    """A Symbol's identity as a plain int, for dict keys and comparisons: clingo keeps one copy of
    each symbol (and never frees one), so equal Symbols have equal representations
    (tests/test_terms.py holds it to that), and an int hashes and compares without the call into
    clingo a Symbol's hash and == each make. ``_rep`` is clingo 5's Python API, which the ``<6`` pin
    in pyproject.toml holds."""
    return symbol._rep


_read: dict[int, tuple] = {}


def read(symbol: Symbol) -> tuple:
    """A Symbol's parts, read from clingo once per process: ("f", name, arguments) for a function
    (a tuple has the name ""), ("n", number, ()), ("s", string, ()), or ("?", None, ()) for #inf and
    #sup. Matching a premise against every rule of its predicate asks the same atoms many times."""
    key = ident(symbol)
    found = _read.get(key)
    if found is None:
        kind = symbol.type
        if kind == SymbolType.Function:
            found = ("f", symbol.name, tuple(symbol.arguments))
        elif kind == SymbolType.Number:
            found = ("n", symbol.number, ())
        elif kind == SymbolType.String:
            found = ("s", symbol.string, ())
        else:
            found = ("?", None, ())
        if len(_read) > 200_000:  # symbols live as long as the process; keep the cache bounded
            _read.clear()
        _read[key] = found
    return found


def signature_of(atom: Symbol) -> tuple[str, int]:
    """An atom's predicate: its name and arity (read once, as :func:`read` does)."""
    _, name, arguments = read(atom)
    return name, len(arguments)


def unify(p: Pattern, symbol: Symbol, bindings: dict[str, Symbol]) -> bool:
    """Match a symbol against a pattern, extending bindings; False when they cannot match.
    Ground arithmetic (``-2``, ``1 + 1``) is compared by its value; arithmetic over variables is not
    inverted: a variable only inside it stays unbound, and the part matches anything."""
    tag = p[0]
    if tag == "v":
        bound = bindings.get(p[1])
        if bound is None:
            bindings[p[1]] = symbol
            return True
        return ident(bound) == ident(symbol)
    if tag == "n" or tag == "s":
        kind, value, _ = read(symbol)
        return kind == tag and value == p[1]
    if tag == "f" or tag == "t":
        name, args = (p[1], p[2]) if tag == "f" else ("", p[1])
        kind, value, sargs = read(symbol)
        if kind != "f" or value != name or len(sargs) != len(args):
            return False
        return all(unify(a, s, bindings) for a, s in zip(args, sargs))
    if tag in ("op", "neg", "abs") and not has_part(p, _OPEN):  # ground arithmetic (-2): its value
        try:
            return ident(builder(p)({})) == ident(symbol)
        except Unbuildable:
            return False
    return True  # arithmetic over variables and the rest: checked once the instance is rebuilt


# --------------------------------------------------------------------------
# Text: how people read terms (strings unquoted, tuples in parentheses)


def text(symbol: Symbol, _cache: dict[int, str] = {}) -> str:  # noqa: B006 - a deliberate cache
    """A term as people read it: strings unquoted, tuples in parentheses."""
    key = ident(symbol)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    kind, value, args = read(symbol)
    if kind == "s":
        result = value
    elif kind == "f":
        inner = ", ".join(text(a) for a in args)
        if not value:
            result = f"({inner}{',' if len(args) == 1 else ''})"
        else:
            result = f"{value}({inner})" if args else value
    else:
        result = str(symbol)
    if len(_cache) > 200_000:  # symbols are interned by clingo; keep the cache bounded anyway
        _cache.clear()
    _cache[key] = result
    return result


def argument_texts(symbol: Symbol) -> list[str]:
    return [text(a) for a in read(symbol)[2]]


def describe(p: Pattern) -> str:
    """A pattern as rule text (variables by name)."""
    tag = p[0]
    if tag == "v":
        return p[1]
    if tag == "n":
        return str(p[1])
    if tag == "s":
        return str(String(p[1]))
    if tag in ("f", "t"):
        name, args = (p[1], p[2]) if tag == "f" else ("", p[1])
        inner = ", ".join(describe(a) for a in args)
        if tag == "t":
            return f"({inner}{',' if len(args) == 1 else ''})"
        return f"{name}({inner})" if args else name
    if tag == "op":
        return f"{describe(p[2])} {p[1]} {describe(p[3])}"
    if tag == "neg":
        return f"-{describe(p[1])}"
    if tag == "abs":
        return f"|{describe(p[1])}|"
    return str(p[1])


def is_symbol_type(value: Any) -> bool:
    return isinstance(value, clingo.Symbol)


# --------------------------------------------------------------------------
# A compiled program's text: a statement a line


def parse_program(text: str) -> list[ast.AST]:
    """A program's statements, parsed. clingo puts a ``#program base.`` of its own first, so in a
    compiled text (a statement a line) statement ``i`` is line ``i - 1``."""
    statements: list[ast.AST] = []
    ast.parse_string(text, statements.append)
    return statements


def program_lines(text: str) -> list[str]:
    """A compiled text's statements, one a line."""
    return text.rstrip("\n").split("\n")
