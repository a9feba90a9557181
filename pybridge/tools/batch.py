"""Checking many situations at once: on all cores, or on a Dask cluster.

The unit of work is one :func:`pybridge.api.check`. The main process only
lists the inputs (file paths and the lines of JSONL files, never parsed
there) and cuts them into chunks; long-lived worker processes parse, check
and return one :class:`Outcome` per situation, in the order of the input
whatever the number of workers. A worker warms up once (imports, parses
every game's rules, checks a tiny situation) and is replaced after
``recycle`` situations, because clingo keeps every symbol it has ever
made for the life of the process.

A situation that fails validation, hits a limit or even trips a bug of
ccg-judge is an outcome with its error; it never stops the batch. Every
situation of the input gets at least one row: one per verdict, one saying it
has none, or one with its error (a JSONL line that is not UTF-8 included).
"""

from __future__ import annotations

import contextlib
import csv
import functools
import json
import logging
import os
import queue
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any, TextIO

from msgspec import Struct, field

from pybridge.errors import JudgeError
from pybridge.input import limits

DEFAULT_CHUNK = 8          # situations per message to a worker, at most (see chunk_size)
DEFAULT_RECYCLE = 1000     # situations a worker checks before it is replaced
SITUATION_SUFFIXES = (".yaml", ".yml", ".json")
JSONL_SUFFIX = ".jsonl"
STDIN = "-"
STDIN_NAME = "<stdin>"
# A JSONL record may name itself; the key is the batch's, not part of the situation.
ID_KEY = "id"
DASK_HINT = "--executor dask needs the Dask extra: pip install 'ccg-judge[dask]'"


# --------------------------------------------------------------------------
# The workers' allocator

# The allocator of the worker processes. clingo allocates many small objects while it grounds;
# under jemalloc or mimalloc (preloaded) a check measured 1.19-1.26x faster than under glibc's malloc
# (issue 33). Neither is required: with none installed the workers use glibc's, and the batch's
# summary says so once.
ALLOCATOR_VARIABLE = "CCG_JUDGE_ALLOCATOR"
FASTER_ALLOCATORS = ("jemalloc", "mimalloc")  # "auto" takes the first installed, in this order
ALLOCATOR_CHOICES = ("auto", "glibc", *FASTER_ALLOCATORS)
_spawn_environment = threading.Lock()  # LD_PRELOAD is set in os.environ only while a worker starts


class Allocator(Struct, frozen=True):
    """The allocator workers start with: its name, and the shared library preloaded for it (none for glibc)."""

    name: str
    library: str | None = None
    note: str = ""  # why it is this one, when that is not what was asked


def _installed(name: str) -> str | None:
    import ctypes.util

    return ctypes.util.find_library(name)  # a soname the dynamic loader finds, e.g. libjemalloc.so.2


@functools.cache
def worker_allocator() -> Allocator:
    """The allocator ``CCG_JUDGE_ALLOCATOR`` asks for (auto, glibc, jemalloc or mimalloc; default auto:
    the first faster one installed, else glibc). A name that is not installed is refused."""
    from pybridge.errors import close_matches

    wanted = os.environ.get(ALLOCATOR_VARIABLE, "auto").strip().lower() or "auto"
    if wanted not in ALLOCATOR_CHOICES:
        near = close_matches(wanted, ALLOCATOR_CHOICES)
        raise JudgeError(f"{ALLOCATOR_VARIABLE}={wanted!r} is not an allocator: expected one of "
                         f"{', '.join(ALLOCATOR_CHOICES)}" + (f" (nearest: {near[0]})" if near else ""),
                         field=ALLOCATOR_VARIABLE)
    if wanted == "glibc":
        return Allocator("glibc")
    for name in FASTER_ALLOCATORS if wanted == "auto" else (wanted,):
        library = _installed(name)
        if library:
            return Allocator(name, library)
    if wanted != "auto":
        raise JudgeError(f"{ALLOCATOR_VARIABLE}={wanted}, but no {wanted} library is installed "
                         "(Debian: libjemalloc2 or libmimalloc2.0); unset it to use what is installed",
                         field=ALLOCATOR_VARIABLE)
    return Allocator("glibc", note="no jemalloc or mimalloc installed; either checks ~1.2x faster")


@contextlib.contextmanager
def _preloaded(allocator: Allocator) -> Iterator[None]:
    """os.environ with the allocator's library preloaded, while a spawned worker copies it."""
    if allocator.library is None:
        yield
        return
    with _spawn_environment:
        before = os.environ.get("LD_PRELOAD")
        os.environ["LD_PRELOAD"] = f"{allocator.library} {before}" if before else allocator.library
        try:
            yield
        finally:
            if before is None:
                del os.environ["LD_PRELOAD"]
            else:
                os.environ["LD_PRELOAD"] = before



# --------------------------------------------------------------------------
# What goes to a worker and what comes back


class Task(Struct, frozen=True):
    """One situation to check: a file (``path``), a JSONL line (``text``) or parsed data (``data``).

    ``source`` is where it came from (``file`` or ``file:line``), used in error messages
    and as the situation's id unless the record names one."""

    source: str
    path: str | None = None
    text: str | None = None
    data: dict[str, Any] | None = None
    error: str | None = None  # the input could not even be read (a missing file, ...)


class Settings(Struct, frozen=True):
    """What applies to every situation of a batch (the command line's overrides)."""

    player: str | None = None
    edition: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    time_limit: float | None = None
    trees: bool = False
    details: bool = False  # add each verdict's consequences, obligations and ruling text (interactions)


class Outcome(Struct, frozen=True):
    """The result of one situation: its verdicts (as rows) or its error."""

    situation: str
    verdicts: tuple[dict[str, Any], ...] = ()
    error: dict[str, str | None] | None = None


class WorkerSample(Struct, frozen=True):
    """A worker's memory after a chunk: resident now, and the most it has held."""

    pid: int
    rss: int | None
    peak: int
    checked: int  # situations this process has checked so far


class WorkerMemory(Struct):
    first_rss: int | None
    last_rss: int | None
    peak: int
    checked: int


class Summary(Struct):
    situations: int = 0
    verdicts: int = 0
    errors: int = 0
    seconds: float = 0.0
    workers: dict[int, WorkerMemory] = field(default_factory=dict)
    allocator: Allocator | None = None  # the local workers' (None: Dask's workers, not chosen here)

    def text(self) -> str:
        rate = self.situations / self.seconds if self.seconds else 0.0
        said = (f"{self.situations} situations, {self.verdicts} verdicts, {self.errors} with errors; "
                f"{self.seconds:.1f} s, {rate:.1f} situations/s")
        if self.allocator is not None:
            said += f"; workers on {self.allocator.name}" + (f" ({self.allocator.note})" if self.allocator.note else "")
        return said

    def record(self, sample: WorkerSample) -> None:
        seen = self.workers.get(sample.pid)
        if seen is None:
            self.workers[sample.pid] = WorkerMemory(sample.rss, sample.rss, sample.peak, sample.checked)
        else:
            seen.last_rss, seen.peak, seen.checked = sample.rss, max(seen.peak, sample.peak), sample.checked


# --------------------------------------------------------------------------
# Listing the inputs (main process: nothing is parsed here)


def _folder_files(folder: Path) -> list[Path]:
    """The situation and JSONL files under a folder, by name. A FIFO or device so named is
    listed too, and refused by name when it is read (never opened: it could block)."""
    suffixes = SITUATION_SUFFIXES + (JSONL_SUFFIX,)
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() in suffixes and not p.is_dir())


_TOO_LONG = object()  # a line over the size limit, whose rest was skipped unread


def _bounded_lines(handle, limit: int) -> Iterator[bytes | object]:
    """The lines of a binary stream, each read only up to ``limit`` bytes: a longer one is
    ``_TOO_LONG`` and the rest of it is skipped in pieces, so one huge line costs no memory."""
    while True:
        line = handle.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or line.endswith(b"\n"):
            yield line
            continue
        while line and not line.endswith(b"\n"):
            line = handle.readline(limit + 1)
        yield _TOO_LONG


def _jsonl_tasks(lines: Iterable[bytes | str | object], name: str) -> Iterator[Task]:
    """One task per non-blank line, numbered from 1. A line is decoded on its own, so a byte
    that is not UTF-8 makes that line an error and the lines after it are still read."""
    limit = limits.current().file_bytes
    for number, line in enumerate(lines, start=1):
        source = f"{name}:{number}"
        if line is _TOO_LONG:
            yield Task(source, error=limits.over("the line is too long", limit, "file_bytes", " bytes"))
            continue
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield Task(source, error=f"not UTF-8 text (byte {exc.start + 1} of the line)")
                continue
        if not line.strip():
            continue
        if len(line) > limit:  # characters, a lower bound of the bytes: cheap and safe
            yield Task(source, error=limits.over("the line is too long", limit, "file_bytes", " bytes"))
        else:
            yield Task(source, text=line)


def _stdin_lines(stdin: TextIO | None) -> Iterable[bytes | str | object]:
    stream = stdin if stdin is not None else sys.stdin
    buffer = getattr(stream, "buffer", None)
    return _bounded_lines(buffer, limits.current().file_bytes) if buffer is not None else stream


def tasks_from_paths(paths: Iterable[str | Path], *, stdin: TextIO | None = None) -> Iterator[Task]:
    """Files, folders (recursively, sorted) and JSONL files; ``-`` reads JSONL from stdin."""
    for raw in paths:
        if str(raw) == STDIN:
            yield from _jsonl_tasks(_stdin_lines(stdin), STDIN_NAME)
            continue
        path = Path(raw)
        files = _folder_files(path) if path.is_dir() else [path]
        for file in files:
            if file.suffix.lower() != JSONL_SUFFIX:
                yield Task(str(file), path=str(file))
                continue
            try:
                handle = limits.open_regular(file)
            except JudgeError as exc:
                yield Task(str(file), error=exc.message)
                continue
            with handle:
                try:
                    yield from _jsonl_tasks(_bounded_lines(handle, limits.current().file_bytes), str(file))
                except OSError as exc:  # the file went away or the disk failed while it was read
                    yield Task(str(file), error=f"cannot read the file further: {exc.strerror}")


def count_tasks(paths: Iterable[str | Path]) -> int | None:
    """How many situations the paths hold (None when one of them is stdin)."""
    paths = list(paths)
    if any(str(p) == STDIN for p in paths):
        return None
    return sum(1 for _ in tasks_from_paths(paths))


# --------------------------------------------------------------------------
# The worker side


_checked_here = 0  # situations this process has checked (for its memory samples)
_retire_asked = False  # a call asked this worker to be replaced after it (serve: its memory grew)


def retire_after_this_call() -> None:
    """In a worker: be replaced by a fresh process once the current call has answered."""
    global _retire_asked
    _retire_asked = True


def memory_now() -> int | None:
    """This process's resident set size in bytes (None where it cannot be read)."""
    return _memory()[0]
_warm = False


def warm_up() -> None:
    """Import the pipeline, parse every game's rules and check a tiny situation of each."""
    global _warm
    if _warm:
        return
    from pybridge import api
    from pybridge.game.catalogue import load_game
    from pybridge.game.encodings import known_games
    from pybridge.input.situation import situation_from_data

    for name in known_games():
        game = load_game(name)
        tiny = {"game": name, "viewpoint": "p1", "players": [{"id": "p1", "first": True}, {"id": "p2"}],
                "turn": {"number": 1, "active": "p1", "stage": game.stages[0]}}
        api.check(situation_from_data(tiny, source="warm-up"))
    _warm = True


def _memory() -> tuple[int | None, int]:
    """Resident set size now (None without /proc) and at its peak (0 if unknown), in bytes."""
    try:
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    except ImportError:  # not on Unix
        peak = 0
    try:
        with open("/proc/self/statm") as handle:
            rss = int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None, peak
    return rss, max(rss, peak)


def record_id(data: Any, source: str) -> str | None:
    """The ``id`` a JSONL record names itself by, or None. It is checked as a card id is: a
    non-empty text with no control or format character, so it cannot forge a line of a report."""
    from pybridge.game.vocabulary import unprintable

    if not isinstance(data, dict) or ID_KEY not in data:
        return None
    name = data[ID_KEY]
    if not isinstance(name, str) or not name.strip():
        raise JudgeError(f"the {ID_KEY!r} of a batch record must be a non-empty text, got {name!r}",
                         source=source, field=ID_KEY)
    bad = unprintable(name)
    if bad:
        raise JudgeError(f"the {ID_KEY!r} of a batch record contains {bad}, which a report cannot print",
                         source=source, field=ID_KEY)
    return name


class _Named:
    """The name a situation's rows carry, learnt as soon as its record is read: an error
    found later (a wrong field, a limit) still names the record by its ``id``."""

    def __init__(self, source: str) -> None:
        self.name = source


def _load(task: Task, named: _Named):
    from pybridge.input.situation import load_situation, parse_text, situation_from_data

    if task.path is not None:
        return load_situation(task.path)
    data = task.data if task.data is not None else parse_text(task.text or "", source=task.source, fmt="json")
    name = record_id(data, task.source)
    if name is not None:
        named.name = name
        data = {k: v for k, v in data.items() if k != ID_KEY}
    return situation_from_data(data, source=task.source)


def verdict_row(report, verdict, *, trees: bool, details: bool = False) -> dict[str, Any]:
    """What a row says of one verdict: the verdict, whether it is an obligation, what it rests on,
    how certain it is, what it does, and the rules it was judged under; with ``details``, also the
    clauses each consequence rests on and the verdict worded as a ruling (interactions)."""
    from pybridge.game.catalogue import load_game
    from pybridge.report.render import verdict_graph, verdict_text

    row = {"player": verdict.player, "action": verdict.action, "verdict": verdict.verdict,
           "obliged": bool(verdict.obligations), "obliged_by": sorted({o.clause for o in verdict.obligations}),
           "cites": list(verdict.cites), "certainty": verdict.certainty,
           "consequences": [c.effect for c in verdict.consequences],
           "edition": report.edition, "options": dict(sorted(report.options.items()))}
    if trees:
        row["justification"] = verdict_graph(report, verdict)
    if details:
        row["consequence_cites"] = [list(c.cites) for c in verdict.consequences]
        row["text"] = verdict_text(verdict, report, load_game(report.game).phrases)
    return row


def check_one(task: Task, settings: Settings) -> Outcome:
    """Check one situation; every failure becomes the outcome's error."""
    from pybridge import api

    named = _Named(task.source)
    try:
        if task.error is not None:
            raise JudgeError(task.error, source=task.source)
        situation = _load(task, named)
        report = api.check(situation, player=settings.player, edition=settings.edition,
                           options=settings.options or None, time_limit=settings.time_limit, trees=settings.trees,
                           reasons=settings.details)  # a plain row carries no because-line; a ruling text does
    except JudgeError as exc:
        return Outcome(named.name, error={"file": exc.source or task.source, "field": exc.field,
                                          "message": exc.message})
    except Exception as exc:  # a defect of ccg-judge: one row says so, the batch goes on
        return Outcome(named.name, error={"file": task.source, "field": None,
                                          "message": f"internal error: {type(exc).__name__}: {exc} "
                                                     "(a bug in ccg-judge; please report it with this situation)"})
    return Outcome(named.name, verdicts=tuple(verdict_row(report, v, trees=settings.trees, details=settings.details)
                                              for v in report.verdicts))


def check_chunk(tasks: list[Task], settings: Settings) -> tuple[list[Outcome], WorkerSample]:
    """The function a worker runs: a chunk of situations, then a memory sample."""
    global _checked_here
    warm_up()
    outcomes = [check_one(task, settings) for task in tasks]
    _checked_here += len(tasks)
    rss, peak = _memory()
    return outcomes, WorkerSample(os.getpid(), rss, peak, _checked_here)


# --------------------------------------------------------------------------
# Executors


class WorkerDied(Exception):
    """The worker process ended while it held a chunk (killed, out of memory, a crash in the solver)."""


def _worker_main(connection, recycle: int) -> None:
    """A worker process: warm up, then run calls until told to stop or until it has checked
    ``recycle`` situations (it says so with its last answer, and the pool starts a fresh one)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    warm_up()
    while True:
        call = connection.recv()
        if call is None:
            return
        fn, args = call
        try:
            answer = (True, fn(*args))
        except Exception as exc:
            answer = (False, exc)
        retiring = _checked_here >= recycle or _retire_asked
        connection.send((*answer, retiring))
        if retiring:
            return


class _Worker:
    """One worker process and the pipe to it, owned by one thread of the pool."""

    def __init__(self, context, recycle: int, allocator: Allocator) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(child, recycle), daemon=True)
        with _preloaded(allocator):
            self.process.start()
        child.close()
        self.retired = False

    def call(self, fn, args: tuple):
        try:
            self.connection.send((fn, args))
            while not self.connection.poll(0.2):
                if not self.process.is_alive():
                    raise WorkerDied(f"exit code {self.process.exitcode}")
            ok, value, self.retired = self.connection.recv()
        except (EOFError, OSError):
            self.process.join(1)
            raise WorkerDied(f"exit code {self.process.exitcode}") from None
        if not ok:
            raise value
        return value

    def stop(self) -> None:
        if not self.retired and self.process.is_alive():
            with contextlib.suppress(OSError):
                self.connection.send(None)
        self.process.join(5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join()
        self.connection.close()


class LocalPool(Executor):
    """``jobs`` long-lived worker processes on this machine, each replaced after it has checked
    ``recycle`` situations; a worker that dies is replaced too, and its call fails with
    :class:`WorkerDied`. Workers start with ``spawn``: fresh interpreters that inherit no
    solver state or threads from this process.

    Hand-rolled rather than ``ProcessPoolExecutor(max_tasks_per_child=...)``, which hangs on
    Python 3.11 once a worker retires with calls still queued."""

    def __init__(self, jobs: int, *, recycle: int = DEFAULT_RECYCLE, spare: bool = False) -> None:
        self.jobs = jobs
        self.recycle = recycle
        # Keep a warmed worker beside each one, to take over the moment it retires (serve, where a
        # person waits for each answer): the new spare's warm-up then costs no one any time.
        self.spare = spare
        self.allocator = worker_allocator()
        from multiprocessing import get_context  # here: a check in a new process imports this module too

        self._context = get_context("spawn")
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._threads = [threading.Thread(target=self._serve, name=f"ccg-judge worker {i}", daemon=True)
                         for i in range(jobs)]
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self._closing = False
        for thread in self._threads:
            thread.start()

    def _new_worker(self) -> _Worker:
        worker = _Worker(self._context, self.recycle, self.allocator)
        with self._lock:
            self._workers.append(worker)
        return worker

    def _serve(self) -> None:
        worker = self._new_worker()  # started at once: the warm-up overlaps reading the input
        spare = self._new_worker() if self.spare else None
        while True:
            item = self._queue.get()
            if item is None:
                break
            future, fn, args = item
            if self._closing:
                future.cancel()
            if not future.set_running_or_notify_cancel():
                continue
            if worker is None or worker.retired:
                if worker is not None:
                    worker.stop()
                worker, spare = (spare, self._new_worker()) if spare is not None else (self._new_worker(), None)
            try:
                future.set_result(worker.call(fn, args))
            except WorkerDied as exc:
                worker.stop()
                worker = None
                future.set_exception(exc)
            except Exception as exc:
                future.set_exception(exc)
        for left in (worker, spare):
            if left is not None:
                left.stop()

    def submit(self, fn, /, *args):
        future: Future = Future()
        self._queue.put((future, fn, args))
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        for _ in self._threads:
            self._queue.put(None)
        if wait:
            for thread in self._threads:
                thread.join()

    def terminate(self) -> None:
        """Stop every worker now (on Ctrl-C or an error of the caller)."""
        self._closing = True
        with self._lock:
            for worker in self._workers:
                if worker.process.is_alive():
                    worker.process.terminate()
        self.shutdown(wait=True)

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.shutdown(wait=True)
        else:
            self.terminate()
        return False


@contextlib.contextmanager
def dask_executor(jobs: int, *, scheduler: str | None = None) -> Iterator[Executor]:
    """Dask distributed: a LocalCluster of ``jobs`` single-threaded worker processes on the
    loopback interface, or the cluster whose scheduler is at ``scheduler``."""
    try:
        import dask
    except ImportError:
        raise JudgeError(DASK_HINT) from None
    quiet = logging.getLogger().getEffectiveLevel() > logging.INFO  # ccg-judge -v shows Dask's messages
    if quiet:  # read when distributed is first imported, and handed on to the workers
        dask.config.set({"logging.distributed": "warning"})
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise JudgeError(DASK_HINT) from None
    with contextlib.ExitStack() as stack:
        if scheduler:
            client = stack.enter_context(_connect(Client, scheduler))
        else:
            cluster = stack.enter_context(LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                                       host="127.0.0.1", dashboard_address=None,
                                                       silence_logs=logging.WARNING if quiet else False))
            client = stack.enter_context(Client(cluster))
        pool = client.get_executor(pure=False)
        pool.jobs = sum(client.nthreads().values()) or jobs  # how many chunks keep it busy
        yield pool


SCHEDULER_TIMEOUT = 10  # seconds to reach a Dask scheduler before the batch is refused


def _connect(client_class, scheduler: str):
    """A client of the scheduler at ``scheduler``, or one line saying it cannot be reached,
    before any situation is read."""
    try:
        return client_class(scheduler, timeout=SCHEDULER_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise JudgeError(f"cannot reach the Dask scheduler at {scheduler!r} within {SCHEDULER_TIMEOUT} s: "
                         f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
                         field="--scheduler") from None


def all_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def executor(kind: str = "local", jobs: int | None = None, *, recycle: int = DEFAULT_RECYCLE,
             scheduler: str | None = None) -> contextlib.AbstractContextManager[Executor]:
    """The workers of a batch: ``local`` processes or ``dask``; ``jobs`` defaults to all cores."""
    jobs = jobs or all_cores()
    if kind == "dask":
        return dask_executor(jobs, scheduler=scheduler)
    if scheduler:
        raise JudgeError("--scheduler is for --executor dask")
    return LocalPool(jobs, recycle=recycle)


# --------------------------------------------------------------------------
# Running a batch


def chunk_size(total: int | None, jobs: int, largest: int = DEFAULT_CHUNK) -> int:
    """Situations per message: up to ``largest`` to save messages, but small enough that every
    worker gets many chunks (so one slow chunk at the end does not leave the others idle)."""
    if total is None:
        return largest
    return max(1, min(largest, total // (16 * jobs)))


def _chunks(tasks: Iterable[Task], size: int) -> Iterator[list[Task]]:
    chunk: list[Task] = []
    for task in tasks:
        chunk.append(task)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _died(chunk: list[Task], reason: str) -> list[Outcome]:
    return [Outcome(t.source, error={"file": t.source, "field": None,
                                     "message": f"the worker process died while checking it ({reason})"})
            for t in chunk]


def _one_by_one(part: list[Task], settings: Settings, executor: Executor) -> tuple[list[Outcome], list[WorkerSample]]:
    """The situations of a chunk whose worker was killed, each alone, to find the one that did it."""
    outcomes, samples = [], []
    for task in part:
        try:
            (outcome,), sample = executor.submit(check_chunk, [task], settings).result()
        except WorkerDied:
            outcomes.extend(_died([task], "killed: out of memory, or a crash inside the solver"))
            continue
        outcomes.append(outcome)
        samples.append(sample)
    return outcomes, samples


def _settle(part: list[Task], future, settings: Settings, executor: Executor) -> tuple[list[Outcome], list[WorkerSample]]:
    try:
        outcomes, sample = future.result()
        return outcomes, [sample]
    except WorkerDied:
        return _one_by_one(part, settings, executor)
    except Exception as exc:  # Dask gave up on the chunk (its workers kept dying, ...)
        return _died(part, f"{type(exc).__name__}: {exc}"), []


def run(tasks: Iterable[Task], settings: Settings, executor: Executor, *, chunk: int = DEFAULT_CHUNK,
        window: int | None = None, summary: Summary | None = None) -> Iterator[Outcome]:
    """Outcomes in input order. At most ``window`` chunks are in flight (default: four per
    worker), so a stream of any length is read while it is checked. ``summary`` is kept
    up to date as outcomes are yielded."""
    summary = summary if summary is not None else Summary()
    summary.allocator = getattr(executor, "allocator", None)
    window = window or 4 * (getattr(executor, "jobs", None) or os.cpu_count() or 1)
    started = time.perf_counter()
    pending: deque = deque()

    def settle_first() -> Iterator[Outcome]:
        part, future = pending.popleft()
        outcomes, samples = _settle(part, future, settings, executor)
        for sample in samples:
            summary.record(sample)
        for outcome in outcomes:
            summary.situations += 1
            summary.verdicts += len(outcome.verdicts)
            summary.errors += outcome.error is not None
            summary.seconds = time.perf_counter() - started
            yield outcome

    for part in _chunks(tasks, chunk):
        pending.append((part, executor.submit(check_chunk, part, settings)))
        while len(pending) >= window:
            yield from settle_first()
    while pending:
        yield from settle_first()
    summary.seconds = time.perf_counter() - started


# --------------------------------------------------------------------------
# Output rows


CSV_COLUMNS = ("situation", "player", "action", "verdict", "obliged", "obliged_by", "cites", "certainty",
               "consequences", "edition", "options", "error_file", "error_field", "error_message")


def rows(outcome: Outcome) -> Iterator[dict[str, Any]]:
    """One row per verdict; one row with the error; or, for a situation judged with no verdict
    at all (no action to judge), one row whose ``verdict`` is null: zero verdicts is an answer."""
    if outcome.error is not None:
        yield {"situation": outcome.situation, "error": dict(outcome.error)}
        return
    if not outcome.verdicts:
        yield {"situation": outcome.situation, "verdict": None}
        return
    for verdict in outcome.verdicts:
        yield {"situation": outcome.situation, **verdict}


def csv_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row as CSV cells: lists joined (cites by spaces, consequences by '; '), options as
    ``key=value`` words, an error's parts in columns of their own."""
    error = row.get("error") or {}
    flat = {"situation": row["situation"], "player": row.get("player", ""), "action": row.get("action", ""),
            "verdict": row.get("verdict") or "", "obliged": "yes" if row.get("obliged") else "",
            "obliged_by": " ".join(row.get("obliged_by", ())), "cites": " ".join(row.get("cites", ())),
            "certainty": row.get("certainty", ""), "consequences": "; ".join(row.get("consequences", ())),
            "edition": row.get("edition", ""),
            "options": " ".join(f"{k}={v}" for k, v in (row.get("options") or {}).items()),
            "error_file": error.get("file") or "", "error_field": error.get("field") or "",
            "error_message": error.get("message") or ""}
    if "justification" in row:
        flat["justification"] = json.dumps(row["justification"], ensure_ascii=False, sort_keys=True)
    return flat


# Text from the input (file names, record ids, card and player ids in actions) reaches the rows.
# A character a terminal or an editor would act on is written as an escape, and a CSV cell that
# a spreadsheet would run as a formula is made plain text by a leading apostrophe (OWASP's advice).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def printable(text: str) -> str:
    """``text`` with each control or format character (line breaks, ESC, bidirectional
    overrides, line separators) written as a visible escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)


def spreadsheet_cell(text: str) -> str:
    """A CSV cell that shows ``text`` and that no spreadsheet runs as a formula."""
    text = printable(text)
    return "'" + text if text.startswith(FORMULA_START) else text


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_line(row: dict[str, Any]) -> str:
    """A row as one JSON line: the same data, with every character a terminal could act on
    (JSON escapes only the controls below U+0020) written as a \\u escape."""
    text = json.dumps(row, ensure_ascii=False)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == " " else _json_escape(ch) for ch in text)


class RowWriter:
    """Writes outcomes as JSONL or CSV rows, one per verdict (or one with the error)."""

    def __init__(self, out: TextIO, fmt: str = "jsonl", *, trees: bool = False) -> None:
        self.out = out
        self.fmt = fmt
        if fmt == "csv":
            columns = CSV_COLUMNS + (("justification",) if trees else ())
            self._csv = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
            self._csv.writeheader()

    def write(self, outcome: Outcome) -> None:
        for row in rows(outcome):
            if self.fmt == "csv":
                self._csv.writerow({k: spreadsheet_cell(v) for k, v in csv_row(row).items()})
            else:
                self.out.write(json_line(row) + "\n")
        self.out.flush()
