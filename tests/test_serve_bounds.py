"""Issue 29's reproducers for ``ccg-judge serve``, against a real server process on 127.0.0.1: its
memory stays flat while every request brings new card ids (the worker is replaced as it grows);
stalled connections are closed; a client that goes away mid-request is a line of the log.
Every loop is bounded in count and time, and the server is stopped by the test."""

from __future__ import annotations

import os
import socket
import sys
import time

import pytest

from pybridge.web import serve
from serve_soak import Server, soak

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
SOAK_REQUESTS = int(os.environ.get("CCG_JUDGE_SOAK_REQUESTS", "200"))


@pytest.fixture
def server(tmp_path):
    with Server(tmp_path / "serve.log") as running:
        yield running


def test_memory_stays_within_a_third_over_its_start_with_new_card_ids(server):
    figures = soak(server, SOAK_REQUESTS)
    assert figures["requests"] == SOAK_REQUESTS
    assert figures["most"] <= 1.3 * figures["start"], figures


def _connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=30)


def test_a_connection_that_sends_no_whole_request_is_closed(server):
    silent = [_connect(server.port) for _ in range(20)]
    partial = [_connect(server.port) for _ in range(20)]
    for sock in partial:
        sock.sendall(b"POST /api/judge HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the rest
    time.sleep(serve.HEADER_SECONDS + 3)
    for sock in silent + partial:
        sock.settimeout(5)
        assert sock.recv(4096) == b"", "the server closed it"
        sock.close()
    assert "Traceback" not in server.log_text()


def test_connections_over_the_cap_are_closed_as_they_come(server):
    before = server.descriptors()
    held = []
    try:
        for _ in range(serve.MAX_CONNECTIONS + 100):
            held.append(_connect(server.port))
        time.sleep(2)
        assert server.descriptors() <= before + serve.MAX_CONNECTIONS + 5
    finally:
        for sock in held:
            sock.close()


def test_a_client_that_goes_away_mid_body_is_a_log_line(server):
    for _ in range(5):
        sock = _connect(server.port)
        sock.sendall(b"POST /api/judge HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 5000\r\n\r\n{\"text\": \"game: ber")
        time.sleep(0.2)
        sock.close()
    time.sleep(2)
    log = server.log_text()
    assert "Traceback" not in log and "Exception" not in log
    assert log.count("went away before its request") == 5
