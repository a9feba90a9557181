"""--executor dask on a real LocalCluster (worker processes on the loopback interface): the rows
equal the local run's, row for row. Dask is in the test extra, so this runs in CI."""

from __future__ import annotations

import json
import subprocess
import sys

from batch_inputs import ROOT, write_inputs


def batch_rows(paths, *extra):
    result = subprocess.run([sys.executable, "-m", "pybridge", "batch", *map(str, paths), "--jobs", "2",
                             "--trees", *extra], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 1, result.stderr  # the inputs hold three broken situations
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_dask_rows_equal_the_local_rows(tmp_path):
    paths, expected = write_inputs(tmp_path)
    local = batch_rows(paths)
    on_dask = batch_rows(paths, "--executor", "dask", "--chunk", "2")
    assert on_dask == local
    assert [r["situation"] for r in local if "error" in r] == [name for name, data in expected if data is None]
    assert sum("error" not in r for r in local) > len(expected)  # verdicts were checked, not only errors
