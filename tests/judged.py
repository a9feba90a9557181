"""One judgement of a situation file per worker, shared by the tests that read it.

Several modules test every ruling file from a different side (the ruling's expectations, the
because-lines, the cites against the graph, the words, the specialiser); each used to judge the
file again. Their tests of one file are grouped (``xdist_group``, tests/conftest.py) so that one
worker runs them one after another, and ``judged`` keeps the last reports it made. Callers share
one report and must not change it; each call checks that the report still encodes to the bytes it
had when made (decoding a fresh copy would cost a third of a check), so a test that changed it is
caught by the next one to read it.

Only the shipped settings are shared: a test that changes a setting (the specialiser off, a rule
recorded) judges for itself.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

import msgspec

from pybridge import api
from pybridge.ground import specialise
from pybridge.why.justify import Report

KEPT = 16  # a file's tests run together on one worker: a few recent reports are all that is read again

_reports: OrderedDict[tuple[str, bool], tuple[Report, bytes]] = OrderedDict()


def judged(path: Path, *, trees: bool = False) -> Report:
    """``api.check(path, trees=trees)``, made once while a file's tests run."""
    key = (str(Path(path).resolve()), trees)
    if key not in _reports:
        if not specialise.ENABLED:
            raise RuntimeError("judged() shares reports made with the shipped settings; "
                               "a test that turns the specialiser off judges for itself")
        report = api.check(path, trees=trees)
        _reports[key] = report, msgspec.msgpack.encode(report)
        while len(_reports) > KEPT:
            _reports.popitem(last=False)
    _reports.move_to_end(key)
    report, made = _reports[key]
    assert msgspec.msgpack.encode(report) == made, \
        f"a test changed the shared report of {path} (trees={trees}); copy it before changing it"
    return report
