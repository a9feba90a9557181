"""The program's entry point: exit codes and output survive the exit without teardown, and only a
one-shot command runs without the cyclic garbage collector."""

import contextlib
import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pybridge import api, cli
from pybridge.report.render import to_json

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "berserk" / "first-turn-rush.yaml"
RULING = next(iter(sorted((ROOT / "tests" / "rulings" / "berserk").rglob("*.yaml"))))


def run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pybridge", *args], capture_output=True, text=True, timeout=120,
                          **kwargs)


def test_the_output_is_all_there_and_the_same_as_the_apis():
    done = run("check", str(EXAMPLE), "--format", "json")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == to_json(api.check(EXAMPLE))
    assert json.loads(done.stdout)["schema"] == "ccg-judge/report"


@pytest.mark.parametrize("args, code", [(("check", "no-such-file.yaml"), 2), (("check", "--no-such-option"), 2),
                                        (("--help",), 0), (("no-such-command",), 2)])
def test_exit_codes_pass_through(args, code):
    done = run(*args)
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr


def test_output_nobody_reads_fails_without_a_traceback():
    """`ccg-judge check ... | head -c 0`: the report cannot be written. click's exit status for a reader
    that went away is 1, and nothing is printed about it."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    try:
        done = subprocess.run([sys.executable, "-m", "pybridge", "check", str(EXAMPLE), "--format", "json"], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (1, "")


@pytest.mark.parametrize("args, one_shot", [(["schema"], True), (["facts", str(EXAMPLE)], True),
                                            (["test", str(RULING)], False)])
def test_only_a_one_shot_command_runs_without_the_collector(monkeypatch, capsys, args, one_shot):
    monkeypatch.setattr(sys, "argv", ["ccg-judge", *args])
    was = gc.isenabled()
    gc.disable()
    process = {"collector_off": True}
    try:
        with pytest.raises(SystemExit) if args[0] == "test" else contextlib.nullcontext():
            cli.main(process=process)
        assert gc.isenabled() is not one_shot
    finally:
        (gc.enable if was else gc.disable)()
    assert process["one_shot"] is one_shot  # and only then does the process skip its teardown
    capsys.readouterr()


def test_a_caller_of_main_keeps_its_collector(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["ccg-judge", "test", str(RULING)])
    assert gc.isenabled()
    with pytest.raises(SystemExit):
        cli.main()
    assert gc.isenabled()
    capsys.readouterr()

