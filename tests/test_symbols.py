"""pybridge.ground.symbols reads atoms through clingo's C library; the public API reads the same."""

import clingo
import pytest

from pybridge.api import facts_text
from pybridge.ground import solve, symbols
from pybridge.input.situation import load_situation
from pybridge.tools.rulings import ruling_files

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = ruling_files([ROOT / "tests" / "rulings"])


def _run(path):
    """A real trees run: the game's compiled program and a ruling's facts, with its model open."""
    situation = load_situation(path)
    control = clingo.Control(["--warn=none"])
    control.add("base", [], solve.program(situation.game, "trees").text)
    control.add("base", [], facts_text(situation))
    control.ground([("base", [])])
    handle = control.solve(yield_=True)
    return control, handle, handle.model()


@pytest.mark.skipif(not symbols.FAST, reason="this clingo does not expose its C library")
@pytest.mark.parametrize("path", [FILES[0], FILES[len(FILES) // 2], FILES[-1]], ids=lambda p: p.name)
def test_the_c_library_reads_what_the_public_api_reads(path, monkeypatch):
    control, handle, model = _run(path)
    try:
        shown = model.symbols(shown=True)
        signatures = sorted({(s[0], s[1]) for s in control.symbolic_atoms.signatures if s[2]})
        def read():
            return (symbols.names(shown), symbols.arguments(shown), symbols.argument_reps(shown),
                    [symbols.true_atoms(control, model, name, arity) for name, arity in signatures],
                    [symbols.true_arguments(control, model, name, arity) for name, arity in signatures],
                    [symbols.has_atoms(control, name, arity) for name, arity in signatures + [("no_such", 2)]])
        fast = read()
        monkeypatch.setattr(symbols, "FAST", False)
        public = read()
    finally:
        handle.cancel()
    assert fast == public
    assert any(fast[3]) and len(fast[0]) == len(shown) > 0
    # what the public API's own objects say, atom by atom
    assert fast[0] == [s.name for s in shown] and fast[1] == [tuple(s.arguments) for s in shown]
    assert fast[2] == [[a._rep for a in s.arguments] for s in shown]
    some = next(atoms for atoms in fast[3] if atoms)
    assert all(model.contains(a) or control.symbolic_atoms[a].is_fact for a in some)
    assert fast[4] == [[[a._rep for a in atom.arguments] for atom in atoms] for atoms in fast[3]]
    assert fast[5][-1] is False and True in fast[5]


def test_a_judgement_is_the_same_either_way(monkeypatch):
    from pybridge.api import check, explain
    from pybridge.report.render import to_json

    path = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"
    report = check(path, trees=True)
    action = report.verdicts[0].action
    fast = (to_json(report), to_json(explain(path, action)))
    monkeypatch.setattr(symbols, "FAST", False)
    assert (to_json(check(path, trees=True)), to_json(explain(path, action))) == fast
