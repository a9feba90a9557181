"""An installed wheel — not only an editable checkout — finds its rules:
build the wheel, install it into a fresh virtual environment, run a ruling
from a folder outside the repository."""

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args, cwd=None):
    # Without PYTHONPATH: a checkout put on the path (a run from a work tree) would shadow the wheel.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd, timeout=900, env=env)


def test_wheel_installs_and_judges_a_ruling(tmp_path):
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", tmp_path / "dist", ROOT)
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next((tmp_path / "dist").glob("ccg_judge-*.whl"))

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    installed = run(python, "-m", "pip", "install", "-q", wheel)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    work = tmp_path / "elsewhere"
    work.mkdir()
    ruling = shutil.copy(ROOT / "tests" / "rulings" / "berserk" / "107" / "107.5-example-2.yaml", work)
    result = run(python, "-m", "pybridge", "test", ruling, cwd=work)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("1 passed, 0 failed")
    where = run(python, "-c", "import pybridge.game.encodings as e; print(e.asp_root())", cwd=work)
    assert str(env_dir) in where.stdout, "the rules must come from the installed wheel"
    # The pages' files travel in the wheel: the ruling page (a file of check --html) and the
    # playground's script, styles and starter board, each from its stage's folder.
    page = run(python, "-m", "pybridge", "check", ruling, "--html", work / "page.html", cwd=work)
    assert page.returncode == 0, page.stdout + page.stderr
    assert "<script>" in (work / "page.html").read_text(encoding="utf-8")
    read = run(python, "-c", "from pybridge.web.playground_page import ASSETS, playground_asset\n"
                             "print(all(playground_asset(name) for name in ASSETS))", cwd=work)
    assert read.stdout.strip() == "True", read.stdout + read.stderr
