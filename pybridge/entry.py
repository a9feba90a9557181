"""The program's entry point (``ccg-judge``, ``python -m pybridge``): the command line in a process
of its own, started and ended as cheaply as it can be, since a short command such as ``check`` is
mostly start-up.

- Python's cyclic garbage collector is off from the first import. Importing the package and reading
  the rules base make tens of thousands of long-lived objects, and the collector walks them again
  and again; a check pauses it anyway (:func:`pybridge.api.collector_paused`), and resuming it only
  walks all that once more before the process ends. Commands that may run long (batch, serve, the
  author tools) switch it back on when they start (:data:`pybridge.cli.ONE_SHOT`).
- A one-shot command's process ends without tearing the interpreter down: by then it has closed what
  it opened, and freeing each module and object one by one adds about a tenth to a check. What was
  written is flushed first; a write that fails exits 120, as Python does. Any other command ends the
  usual way, so exit handlers run (multiprocessing's stops the workers a command left).
"""

import gc
import logging
import os
import sys


def run() -> None:
    gc.disable()
    from pybridge import cli  # after the collector is off: imports are a third of a check

    process = {"collector_off": True}
    try:
        cli.main(process=process)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        if not isinstance(exc.code, (int, type(None))):
            print(exc.code, file=sys.stderr)
    if not process.get("one_shot"):
        sys.exit(code)  # the usual ending: exit handlers run (multiprocessing stops its workers)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120
    logging.shutdown()
    os._exit(code)
