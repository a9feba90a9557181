"""A soak of ``ccg-judge serve`` on the loopback interface: REQUESTS judgements in a row, each of
the starter board with card ids never seen before, measuring the resident memory of the server and
its worker processes together. Bounded in count and time; it stops the server itself.

Run alone: ``python tests/serve_soak.py [REQUESTS]`` (default 1000) prints the figures."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STARTER = ROOT / "pybridge" / "web" / "assets" / "starter.yaml"
SECONDS_AT_MOST = 1800.0


class Server:
    """``ccg-judge -v serve`` on a free loopback port; its log goes to ``log``."""

    def __init__(self, log: Path) -> None:
        self.log = log.open("w", encoding="utf-8")
        self.process = subprocess.Popen([sys.executable, "-m", "pybridge", "-v", "serve", "--port", "0"],
                                        stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=ROOT)
        self.url = self._address()

    def _address(self, timeout: float = 120.0) -> str:
        deadline = time.monotonic() + timeout
        assert self.process.stdout is not None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", line or "")
            if found:
                self.port = int(found.group(1))
                return found.group(0)
            if not line:
                break
        self.stop()
        raise RuntimeError("the playground did not start")

    def memory(self) -> int:
        """Resident bytes of the server and every process under it."""
        return sum(_rss(pid) for pid in [self.process.pid, *_descendants(self.process.pid)])

    def log_text(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(encoding="utf-8")

    def descriptors(self) -> int:
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.log.close()

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0  # ended meanwhile


def _descendants(pid: int) -> list[int]:
    found, stack = [], [pid]
    while stack:
        parent = stack.pop()
        children = []
        try:
            threads = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for thread in threads:  # a child belongs to the thread that started it
            try:
                with open(f"/proc/{parent}/task/{thread}/children") as handle:
                    children += [int(c) for c in handle.read().split()]
            except OSError:
                continue
        found += children
        stack += children
    return found


def fresh_ids(text: str, n: int) -> str:
    """The starter board with every card id made new (``elf`` -> ``elf_n17``), effects following."""
    ids = re.findall(r"\bid: ([a-z][a-z0-9_-]*)", text.split("cards:", 1)[1].split("effects:", 1)[0])
    for ident in ids:
        text = re.sub(rf"(?<![\w-]){re.escape(ident)}(?![\w-])", f"{ident}_n{n}", text)
    return text


def judge(url: str, text: str) -> dict:
    request = urllib.request.Request(url + "api/judge", data=json.dumps({"text": text}).encode("utf-8"),
                                     headers={"content-type": "application/json", "origin": url.rstrip("/")})
    with urllib.request.urlopen(request, timeout=120) as answer:
        return json.loads(answer.read())


def soak(server: Server, requests: int, *, every: int = 50, progress: bool = False) -> dict:
    """Judge ``requests`` boards of new ids; the memory after the first (the warm start), every
    ``every`` requests, and at the end."""
    starter = STARTER.read_text(encoding="utf-8")
    started = time.monotonic()
    assert judge(server.url, fresh_ids(starter, 0))["ok"]
    start = server.memory()
    samples = []
    for n in range(1, requests + 1):
        answer = judge(server.url, fresh_ids(starter, n))
        assert answer.get("ok"), answer
        if n % every == 0 or n == requests:
            samples.append(server.memory())
            if progress:
                print(f"{n} requests, {samples[-1] / 2 ** 20:.0f} MB, {time.monotonic() - started:.0f} s",
                      file=sys.stderr, flush=True)
        if time.monotonic() - started > SECONDS_AT_MOST:
            break
    return {"requests": n, "start": start, "samples": samples, "end": samples[-1], "most": max(samples),
            "seconds": time.monotonic() - started}


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    with Server(Path(tempfile.gettempdir()) / "ccg-judge-soak.log") as running:
        figures = soak(running, count, progress=True)
    mb = 1024 * 1024
    print(f"{figures['requests']} requests in {figures['seconds']:.0f} s; resident memory at the start "
          f"{figures['start'] / mb:.0f} MB, at the end {figures['end'] / mb:.0f} MB, at most "
          f"{figures['most'] / mb:.0f} MB ({figures['most'] / figures['start']:.2f}x the start)")
