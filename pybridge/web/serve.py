"""``ccg-judge serve``: the playground, a local web page to edit a situation and watch the verdicts.

One process keeps the judge warm (the games' rules parsed once, the last judgements cached)
behind a small Starlette app served by uvicorn on the loopback interface. The page sends the
situation's text as it is typed; the server reads it as data only (YAML through the bounded
safe loader, the same validation as a file), refuses anything over the limits of
:mod:`pybridge.input.limits`, judges it and answers with the page data of :mod:`pybridge.report.page.model`.
Nothing a user sends is ever run, evaluated or put into a template.

Requests are JSON posts from the page itself: other content types, other origins and other
Host names (DNS rebinding) are refused. One judgement runs at a time; a request that a newer
one has overtaken while it waited is answered as stale, so typing never queues up solves.

What a request costs is bounded. The judging runs in a worker process (batch's, warmed the same
way, with a warm spare to take over at once) that is replaced once its memory has grown by a quarter over its warm size or after
SERVE_RECYCLE requests, because clingo keeps every symbol it has made for the life of a process
and every new card id is a new symbol; one request may take at most REQUEST_MEMORY_MB more memory
than the warm worker holds (past that it fails alone, and the worker is replaced). A connection
must send its request line and headers within HEADER_SECONDS and its body within BODY_SECONDS,
at most MAX_CONNECTIONS are open at once, and a client that goes away mid-request is one line of
the log, not a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ipaddress
import json
import logging
import os
import socket
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from pybridge import api
from pybridge.errors import JudgeError
from pybridge.game.catalogue import Game, load_game
from pybridge.input import limits
from pybridge.input.situation import Situation, parse_text, situation_from_data
from pybridge.input.structs import replace
from pybridge.input.viewpoint import project, unknown_card_ids
from pybridge.report.page.model import clauses_of, page_data, verdict_tree
from pybridge.report.page.ruling import ruling_block
from pybridge.tools import batch
from pybridge.web import edit
from pybridge.web.playground_page import playground_asset, render_playground
from pybridge.why.justify import Report

log = logging.getLogger(__name__)

EDITOR = "editor"  # the source named in errors about the edited text
SERVE_RECYCLE = 500        # requests a worker answers before it is replaced, at most
MEMORY_GROWTH = 1.25       # a worker grown past this times its warm size is replaced after the request
REQUEST_MEMORY_MB = 2048   # the memory one request may add to the worker (its address space is capped)
HEADER_SECONDS = 10.0      # a connection's request line and headers must arrive within this
BODY_SECONDS = 30.0        # ... and its body within this
MAX_CONNECTIONS = 256      # connections open at once; more are closed as they come
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")
_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
            "X-Frame-Options": "DENY"}


def starter_text() -> str:
    """The situation the playground opens with when no file is given."""
    return playground_asset("starter.yaml")


def is_loopback(host: str) -> bool:
    if host in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str) -> str | None:
    """What to tell someone who serves the playground beyond this machine."""
    if is_loopback(host):
        return None
    return (f"warning: serving on {host}, not on the loopback interface: anyone who can reach this "
            "address can use the playground and make this machine judge what they send (no login, no "
            "encryption). Use it only on a network you trust.")


# --------------------------------------------------------------------------
# The judge


class BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Ask:
    """What the page asks about: the text, and the viewpoint, edition and options chosen
    beside it (None: as the text says)."""

    text: str
    viewpoint: str | None = None
    edition: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    def key(self) -> str:
        raw = json.dumps([self.text, self.viewpoint, self.edition, sorted(self.options.items())], ensure_ascii=False)
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()


@dataclass
class Judged:
    situation: Situation  # as asked: the overrides applied, not projected
    report: Report
    game: Game
    # verdict index -> that verdict's graph (api.explain), made when the verdict is first opened
    trees: dict[int, Report] = field(default_factory=dict)


class Stale(Exception):
    """A newer request has overtaken this one."""


class ControlError(Exception):
    """A viewpoint, edition or option chosen beside the text that the situation does not have."""

    def __init__(self, error: JudgeError) -> None:
        super().__init__(error.message)
        self.error = error


class Tickets:
    """Numbers the page's judge requests as they arrive: one whose number is below the latest has
    been overtaken by a newer one while it waited, and is answered as stale."""

    def __init__(self) -> None:
        self._latest = 0
        self._counter = threading.Lock()

    def ticket(self) -> int:
        with self._counter:
            self._latest += 1
            return self._latest

    def overtaken(self, ticket: int | None) -> bool:
        return ticket is not None and ticket < self._latest


class Judge(Tickets):
    """Judges the page's requests, one at a time, keeping the last few judgements."""

    def __init__(self, *, time_limit: float | None = None, keep: int = 4) -> None:
        super().__init__()
        self.time_limit = time_limit
        self.keep = keep
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, Judged] = OrderedDict()

    @staticmethod
    def check_size(text: str) -> None:
        limit = limits.current().file_bytes
        if len(text.encode("utf-8")) > limit:
            raise JudgeError(limits.over("the situation is too large", limit, "file_bytes", " bytes"), source=EDITOR)

    def situation(self, text: str) -> Situation:
        self.check_size(text)
        return situation_from_data(parse_text(text, source=EDITOR, fmt="yaml"), source=EDITOR)

    def judged(self, ask: Ask, ticket: int | None = None) -> Judged:
        """The judgement of ``ask``; :class:`Stale` when a newer request came in while this one
        waited for its turn (``ticket`` from :meth:`ticket`)."""
        self.check_size(ask.text)  # before the cache: the limits may have changed since
        key = ask.key()
        with self._lock:
            if self.overtaken(ticket):
                raise Stale()
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
            situation = self.situation(ask.text)
            try:
                asked = api.with_overrides(situation, edition=ask.edition, options=ask.options or None,
                                           player=ask.viewpoint)
            except JudgeError as exc:
                raise ControlError(exc) from None
            report = api.check(asked, time_limit=self.time_limit)
            result = Judged(asked, report, load_game(asked.game))
            self._cache[key] = result
            while len(self._cache) > self.keep:
                self._cache.popitem(last=False)
            return result

    def judge(self, ask: Ask, ticket: int | None = None) -> dict[str, Any]:
        """The page data for ``ask`` (trees left out), or the error to show at its field."""
        started = time.perf_counter()
        try:
            judged = self.judged(ask, ticket)
        except Stale:
            return {"ok": False, "stale": True}
        except ControlError as exc:
            return _error(exc.error, ask.text, where="controls")
        except JudgeError as exc:
            return _error(exc, ask.text, where="text")
        page = page_data(project(judged.situation), judged.report, judged.game, trees=False)
        # the time this request took here (a judgement from the cache takes next to none)
        return {"ok": True, "page": page, "controls": _controls(judged),
                "seconds": round(time.perf_counter() - started, 4)}

    def tree(self, ask: Ask, index: int) -> dict[str, Any]:
        try:
            judged = self.judged(ask)
        except ControlError as exc:
            return _error(exc.error, ask.text, where="controls")
        except JudgeError as exc:
            return _error(exc, ask.text, where="text")
        verdicts = judged.report.verdicts
        if not 0 <= index < len(verdicts):
            return {"ok": False, "error": {"message": "no such verdict; judge the text again", "where": "text"}}
        with self._lock:  # a verdict's graph is made once, when it is first opened
            if index not in judged.trees:
                wanted = verdicts[index]
                report = api.explain(judged.situation, wanted.action, time_limit=self.time_limit)
                if (report.verdicts[0].player, report.verdicts[0].action) != (wanted.player, wanted.action):
                    # the same action of another player explained first: take every graph instead
                    whole = api.check(judged.situation, time_limit=self.time_limit, trees=True)
                    report = replace(whole, verdicts=[whole.verdicts[index]])
                judged.trees[index] = report
        explained = judged.trees[index]
        tree = verdict_tree(explained, explained.verdicts[0], judged.game)
        return {"ok": True, "tree": tree, "clauses": clauses_of(tree, judged.game)}

    def move(self, ask: Ask, card: str, cell: dict[str, Any]) -> dict[str, Any]:
        """The text with a card (named as the page shows it) put into a cell."""
        try:
            situation = self.situation(ask.text)
            viewer = ask.viewpoint or situation.viewpoint
            real = {neutral: real for real, neutral in unknown_card_ids(situation, viewer).items()}.get(card, card)
            index = next((i for i, c in enumerate(situation.cards) if c.id == real), None)
            if index is None:
                raise JudgeError(f"no card {card!r} in the situation", source=EDITOR, field="cards")
            placed = situation.cards[index]
            value: dict[str, Any] = {"column": cell["column"], "row": cell["row"]}
            if cell["side"] != placed.controller:
                value = {"side": cell["side"], **value}
            text = edit.set_field(ask.text, ("cards", index, "cell"), value)
            if placed.zone != "battlefield":
                text = edit.set_field(text, ("cards", index, "zone"), "battlefield")
        except JudgeError as exc:
            return _error(exc, ask.text, where="text")
        return {"ok": True, "text": text}

    def download(self, ask: Ask, kind: str) -> dict[str, Any]:
        """The situation with the choices beside it written in; for ``ruling``, with a ruling
        block of the verdicts as judged, replacing any the text had."""
        try:
            text = ask.text
            for path, value in ((("viewpoint",), ask.viewpoint), (("edition",), ask.edition)):
                if value is not None:
                    text = edit.set_field(text, path, value)
            for name, value in sorted(ask.options.items()):
                text = edit.set_field(text, ("options", name), value)
            if kind == "situation":
                return {"ok": True, "filename": "situation.yaml", "text": text}
            judged = self.judged(Ask(text))
            hidden = bool(unknown_card_ids(judged.situation, judged.situation.viewpoint))
            block = ruling_block(judged.report, hidden_cards=hidden, previous=judged.situation.ruling,
                                 title=f"{judged.game.title}: the verdicts for {judged.report.viewpoint}")
            text = edit.append_top_level(edit.drop_top_level(text, "ruling"), "ruling", block)
            return {"ok": True, "filename": "ruling.yaml", "text": text}
        except ControlError as exc:
            return _error(exc.error, ask.text, where="controls")
        except JudgeError as exc:
            return _error(exc, ask.text, where="text")


# --------------------------------------------------------------------------
# The judge in a worker process


_worker_judge: Judge | None = None
_warm_rss: int | None = None
_answered = 0


def _cap_address_space() -> None:
    """Let one request add at most REQUEST_MEMORY_MB to this worker's address space."""
    try:
        import resource

        with open("/proc/self/statm") as handle:
            size = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        cap = size + REQUEST_MEMORY_MB * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, resource.getrlimit(resource.RLIMIT_AS)[1]))
    except (ImportError, OSError, ValueError):  # not on Linux: the memory growth check alone
        pass


def _in_worker(method: str, time_limit: float | None, recycle: int, args: tuple) -> dict[str, Any]:
    """What the worker runs for one request: the judge's ``method``. It asks to be replaced when it
    has grown by MEMORY_GROWTH over its warm size, or answered ``recycle`` requests."""
    global _worker_judge, _warm_rss, _answered
    if _worker_judge is None:
        _worker_judge = Judge(time_limit=time_limit)
        _cap_address_space()
    try:
        answer = getattr(_worker_judge, method)(*args)
    except MemoryError:
        batch.retire_after_this_call()
        return {"ok": False, "error": {"message": f"the judgement needed more than the {REQUEST_MEMORY_MB} MB "
                                                  "one request may use", "where": "text"}}
    _answered += 1
    rss = batch.memory_now()
    if _warm_rss is None:
        # Warm means after a first judgement: it loads the page's modules and the phrases (the starter
        # board took the worker from 67 to 105 MB), which once made every worker retire after one request.
        _warm_rss = rss
    if _answered >= recycle or (rss and _warm_rss and rss > MEMORY_GROWTH * _warm_rss):
        batch.retire_after_this_call()
    return answer


class WorkerJudge(Tickets):
    """The :class:`Judge`'s interface, judging in a worker process that is replaced as its memory
    grows or after ``recycle`` requests; the size limit and the stale check are applied here, before
    a request is handed on."""

    def __init__(self, *, time_limit: float | None = None, recycle: int = SERVE_RECYCLE) -> None:
        super().__init__()
        self.time_limit = time_limit
        self.recycle = recycle
        # The worker retires itself (see _in_worker); the pool's own count is only a backstop.
        self._pool = batch.LocalPool(1, recycle=recycle + 1, spare=True)
        self._lock = threading.Lock()

    def _call(self, method: str, *args) -> dict[str, Any]:
        try:
            return self._pool.submit(_in_worker, method, self.time_limit, self.recycle, args).result()
        except batch.WorkerDied:
            return {"ok": False, "error": {"message": "the judgement was stopped (the worker process ended: out "
                                                      "of memory, or a crash in the solver)", "where": "text"}}

    def judge(self, ask: Ask, ticket: int | None = None) -> dict[str, Any]:
        try:
            Judge.check_size(ask.text)
        except JudgeError as exc:
            return _error(exc, ask.text, where="text")
        with self._lock:
            if self.overtaken(ticket):
                return {"ok": False, "stale": True}
            return self._call("judge", ask)

    def tree(self, ask: Ask, index: int) -> dict[str, Any]:
        with self._lock:
            return self._call("tree", ask, index)

    def move(self, ask: Ask, card: str, cell: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            return self._call("move", ask, card, cell)

    def download(self, ask: Ask, kind: str) -> dict[str, Any]:
        with self._lock:
            return self._call("download", ask, kind)

    def close(self) -> None:
        self._pool.shutdown(wait=True)


def _error(exc: JudgeError, text: str, *, where: str) -> dict[str, Any]:
    line = edit.line_of(text, exc.field) if where == "text" else None
    return {"ok": False, "error": {"message": exc.message, "field": exc.field, "line": line, "where": where}}


def _controls(judged: Judged) -> dict[str, Any]:
    game, report = judged.game, judged.report
    return {
        "game": game.name,
        "players": [p.id for p in judged.situation.players],
        "editions": game.editions,
        "options": {name: {"default": o.default, "values": o.values} for name, o in sorted(game.options.items())},
        "viewpoint": report.viewpoint,
        "edition": report.edition,
        "chosen": report.options,
    }


# --------------------------------------------------------------------------
# The web app


async def _read_json(request: Request) -> dict[str, Any]:
    """The request's JSON body, read within BODY_SECONDS."""
    try:
        return await asyncio.wait_for(_read_body_json(request), BODY_SECONDS)
    except asyncio.TimeoutError:
        raise BadRequest(408, f"the request's body did not arrive within {BODY_SECONDS:g} s") from None


async def _read_body_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, refused when it is not JSON from this page or too large."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise BadRequest(415, "send application/json")
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}":
        raise BadRequest(403, "requests come from the playground page only")
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        raise BadRequest(403, "requests come from the playground page only")
    # Room for the text's JSON escapes around the largest situation a file may hold.
    cap = 2 * limits.current().file_bytes + 65_536
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > cap):
        raise BadRequest(413, limits.over("the request is too large", cap, "file_bytes", " bytes"))
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > cap:
            raise BadRequest(413, limits.over("the request is too large", cap, "file_bytes", " bytes"))
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadRequest(400, "the request is not JSON") from None
    if not isinstance(data, dict):
        raise BadRequest(400, "the request is not a JSON object")
    return data


def _ask(data: dict[str, Any]) -> Ask:
    text = data.get("text")
    if not isinstance(text, str):
        raise BadRequest(400, "text must be a string")
    choices = {}
    for name in ("viewpoint", "edition"):
        value = data.get(name)
        if value is not None and not isinstance(value, str):
            raise BadRequest(400, f"{name} must be a string")
        choices[name] = value or None
    options = data.get("options") or {}
    if not isinstance(options, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in options.items()):
        raise BadRequest(400, "options must map names to values")
    return Ask(text, choices["viewpoint"], choices["edition"], dict(options))


def _json(payload: dict[str, Any], status: int = 200) -> JSONResponse:
    return JSONResponse(payload, status_code=status, headers=_HEADERS)


def create_app(text: str, *, time_limit: float | None = None, hosts: tuple[str, ...] = LOOPBACK_NAMES,
               judge: Judge | WorkerJudge | None = None) -> Starlette:
    """The playground app, opening on ``text``, judging in a worker process (or with ``judge``).
    The first judgement runs here, so the worker is warm before the first request; the worker
    stops with the app (its lifespan's end)."""
    judge = judge if judge is not None else WorkerJudge(time_limit=time_limit)
    start = {"text": text, "judgement": judge.judge(Ask(text))}

    async def index(request: Request) -> Response:
        document, policy = render_playground(start)
        return HTMLResponse(document, headers={**_HEADERS, "Content-Security-Policy": policy})

    def endpoint(handler):
        async def run(request: Request) -> Response:
            try:
                data = await _read_json(request)
                return _json(await handler(data))
            except BadRequest as exc:
                return _json({"ok": False, "error": {"message": exc.message, "where": "request"}}, exc.status)
            except ClientDisconnect:  # nobody is left to answer
                log.info("a client went away before its request to %s was read", request.url.path)
                return Response(status_code=400)
        return run

    async def judge_route(data: dict[str, Any]) -> dict[str, Any]:
        ask, ticket = _ask(data), judge.ticket()
        return await run_in_threadpool(judge.judge, ask, ticket)

    async def tree_route(data: dict[str, Any]) -> dict[str, Any]:
        index = data.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            raise BadRequest(400, "index must be an integer")
        return await run_in_threadpool(judge.tree, _ask(data), index)

    async def move_route(data: dict[str, Any]) -> dict[str, Any]:
        card, cell = data.get("card"), data.get("cell")
        numbers = isinstance(cell, dict) and all(
            isinstance(cell.get(k), int) and not isinstance(cell.get(k), bool) for k in ("column", "row"))
        if not isinstance(card, str) or not numbers or not isinstance(cell.get("side"), str):
            raise BadRequest(400, "move needs a card id and a cell {side, column, row}")
        return await run_in_threadpool(judge.move, _ask(data), card, cell)

    async def download_route(data: dict[str, Any]) -> dict[str, Any]:
        kind = data.get("kind")
        if kind not in ("situation", "ruling"):
            raise BadRequest(400, "kind is 'situation' or 'ruling'")
        return await run_in_threadpool(judge.download, _ask(data), kind)

    routes = [
        Route("/", index, methods=["GET"]),
        Route("/api/judge", endpoint(judge_route), methods=["POST"]),
        Route("/api/tree", endpoint(tree_route), methods=["POST"]),
        Route("/api/move", endpoint(move_route), methods=["POST"]),
        Route("/api/download", endpoint(download_route), methods=["POST"]),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        if isinstance(judge, WorkerJudge):
            await run_in_threadpool(judge.close)

    return Starlette(routes=routes, middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
                     lifespan=lifespan)


def read_start(path: Path | None) -> str:
    """The text the playground opens with: a situation file, or the starter. The file is held
    to the size limit but not validated: the playground shows its errors at their fields."""
    if path is None:
        return starter_text()
    raw = limits.read_input_file(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise JudgeError("not UTF-8 text", source=str(path)) from None


def run(path: Path | None, *, host: str = "127.0.0.1", port: int = 8000, time_limit: float | None = None) -> None:
    """Serve the playground until interrupted. Port 0 takes a free port; the address is printed."""
    import uvicorn  # the [web] extra

    text = read_start(path)
    # On loopback only the loopback names are accepted (no DNS rebinding); served beyond it, the
    # machine is reached by whatever name or address the network gives it.
    hosts = LOOPBACK_NAMES if is_loopback(host) else ("*",)
    app = create_app(text, time_limit=time_limit, hosts=hosts)
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
        sock.listen(128)  # listening before the address is printed: early requests wait, not fail
    except OSError as exc:
        sock.close()
        raise JudgeError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    bound = sock.getsockname()[1]
    shown = f"[{host.strip('[]')}]" if family == socket.AF_INET6 else host
    print(f"ccg-judge playground: http://{shown}:{bound}/  (Ctrl+C stops it)", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False, http=_bounded_protocol(),
                            timeout_keep_alive=5)
    uvicorn.Server(config).run(sockets=[sock])


def _bounded_protocol():
    """uvicorn's HTTP/1.1 protocol, with a deadline for a request's line and headers and a cap on
    the connections open at once: a client that opens connections and sends nothing, or a line
    an hour, holds a descriptor for HEADER_SECONDS at most."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class BoundedProtocol(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            if len(self.connections) > MAX_CONNECTIONS:
                log.info("over %d connections: one closed as it came", MAX_CONNECTIONS)
                transport.close()
                return
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._arm() if self._awaiting_request() else self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._disarm()  # idle now: the keep-alive timeout governs until data comes

        def connection_lost(self, exc) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _awaiting_request(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _arm(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(HEADER_SECONDS, self._stalled)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _stalled(self) -> None:
            self._header_timer = None
            if self._awaiting_request() and not self.transport.is_closing():
                log.info("a connection sent no whole request within %g s: closed", HEADER_SECONDS)
                self.transport.close()

    return BoundedProtocol
