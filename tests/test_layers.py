"""The package's stages stay in order: no module imports a later stage, and no modules import each
other in a circle. Read from the code's imports (grimp), lazy imports inside functions included."""

from __future__ import annotations

import grimp
import pytest

# Lowest first. A module may import its own stage and the stages before it. The playground (web) runs
# its judgements in batch's recycled workers, so it stands above the tools. The package's own
# __init__ and __main__ are not a stage.
LAYERS = [
    ["pybridge.errors"],
    ["pybridge.game"],
    ["pybridge.input"],
    ["pybridge.ground"],
    ["pybridge.why"],
    ["pybridge.report"],
    ["pybridge.api"],
    ["pybridge.tools"],
    ["pybridge.web"],
    ["pybridge.cli"],
    ["pybridge.entry"],
]
TOP = {"pybridge", "pybridge.__main__"}


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("pybridge", cache_dir=None)


def place_of(module: str) -> tuple[int, str]:
    """The stage a module belongs to: (its layer's index, the stage's package or module)."""
    for index, layer in enumerate(LAYERS):
        for stage in layer:
            if module == stage or module.startswith(stage + "."):
                return index, stage
    raise AssertionError(f"{module} belongs to no stage: add it to a stage's folder (or to LAYERS)")


def test_every_module_has_a_stage(graph):
    for module in sorted(graph.modules - TOP):
        place_of(module)


def test_no_stage_imports_a_later_one(graph):
    wrong = []
    for module in sorted(graph.modules - TOP):
        here, stage = place_of(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module) - TOP):
            there, other = place_of(imported)
            if there > here or (there == here and other != stage):
                wrong.append(f"{module} imports {imported} ({other} is not below {stage})")
    assert not wrong, "\n".join(wrong)


def circles(graph) -> list[list[str]]:
    """Each import A -> B that is part of a circle (B imports A again, directly or through others),
    as [A, B, ..., A]: the whole circle."""
    found = []
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back:
                found.append([module, *back])
    return found


def test_no_modules_import_each_other(graph):
    assert circles(graph) == []


def test_the_checks_see_a_violation():
    """The same checks on a small made-up graph: a circle and an upward import are both caught."""
    made = grimp.ImportGraph()
    for name in ("pybridge.errors", "pybridge.game.a", "pybridge.input.b", "pybridge.web.c", "pybridge.tools.d"):
        made.add_module(name)
    made.add_import(importer="pybridge.game.a", imported="pybridge.input.b")  # upward
    made.add_import(importer="pybridge.input.b", imported="pybridge.game.a")  # and so a circle
    made.add_import(importer="pybridge.tools.d", imported="pybridge.web.c")  # a tool reaching up to the page
    assert circles(made) == [["pybridge.game.a", "pybridge.input.b", "pybridge.game.a"],
                             ["pybridge.input.b", "pybridge.game.a", "pybridge.input.b"]]
    with pytest.raises(AssertionError) as caught:
        test_no_stage_imports_a_later_one(made)
    assert "pybridge.game.a imports pybridge.input.b" in str(caught.value)
    assert "pybridge.tools.d imports pybridge.web.c" in str(caught.value)
    assert "pybridge.input.b imports" not in str(caught.value)  # a downward import is allowed
