"""No function of the bridge is longer than a screen or two (120 lines): a longer one is a set of
steps that want names of their own."""

from __future__ import annotations

import ast
from pathlib import Path

LIMIT = 120
PACKAGE = Path(__file__).resolve().parent.parent / "pybridge"


def _long_functions(root: Path, limit: int) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > limit:
                    found.append(f"{path.relative_to(root.parent).as_posix()}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_of_pybridge_is_over_the_limit():
    assert _long_functions(PACKAGE, LIMIT) == []


def test_the_check_finds_a_long_function(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "long.py").write_text("def f():\n" + "    x = 1\n" * LIMIT, encoding="utf-8")
    (package / "short.py").write_text("def g():\n    return 1\n", encoding="utf-8")
    assert _long_functions(package, LIMIT) == ["pkg/long.py:1 f (121 lines)"]
