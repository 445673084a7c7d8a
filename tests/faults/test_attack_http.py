"""Hostile HTTP against a real service: a request smuggled behind an ambiguous one, and a client
that hangs up halfway through its body.

A request with both ``Content-Length`` and ``Transfer-Encoding: chunked`` is framed one way by one
HTTP parser and the other way by the next, so whatever follows the chunked body can be a second
request that a proxy in front never saw. The service refuses the first with a 400 and closes the
connection (RFC 9112 section 6.3) without running anything pipelined after it. A client that
closes its connection before its body has arrived is no failure of the service: it is counted
as ``client_closed``, not ``5xx``, logged without a traceback, and writes nothing.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests._raw_http import connect, publish_head
from tests.conftest import ServerProcess
from tests.faults._config import CONFIG, TOKEN

pytestmark = pytest.mark.slow

PATIENCE = 15.0


def _connect(server: ServerProcess) -> socket.socket:
    return connect(server.base_url, timeout=PATIENCE)


def _read_until_closed(connection: socket.socket) -> bytes:
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received


def _exchange(server: ServerProcess, request: bytes) -> bytes:
    """Everything the service answers ``request`` with, until it closes the connection."""
    with _connect(server) as connection:
        connection.sendall(request)
        return _read_until_closed(connection)


def _get(server: ServerProcess, path: str) -> bytes:
    return _exchange(
        server,
        f"GET {path} HTTP/1.1\r\nHost: spool\r\nAuthorization: Bearer {TOKEN}\r\n"
        "Connection: close\r\n\r\n".encode(),
    )


def _server(spool_server: Callable[..., ServerProcess], tmp_path: Path) -> ServerProcess:
    return spool_server(
        f"sqlite:///{tmp_path / 'spool.db'}",
        config=CONFIG,
        log_level="info",
        arguments=["--metrics"],
    )


def test_a_request_smuggled_behind_both_framings_never_runs(
    spool_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    """Content-Length and Transfer-Encoding together: 400, the connection closes, and neither
    that request nor the one hidden after its chunked body is written.
    """
    server = _server(spool_server, tmp_path)
    hidden_body = json.dumps({"body": "smuggled"}).encode()
    hidden = publish_head("smuggled", TOKEN, f"Content-Length: {len(hidden_body)}") + hidden_body
    body = json.dumps({"body": "outer"}).encode()
    chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    outer = publish_head(
        "smuggled", TOKEN, f"Content-Length: {len(chunked)}", "Transfer-Encoding: chunked"
    )
    received = _exchange(server, outer + chunked + hidden)
    assert received.startswith(b"HTTP/1.1 400 Bad Request\r\n"), received
    assert received.count(b"HTTP/1.1 ") == 1, received
    head, _, document = received.partition(b"\r\n\r\n")
    assert b"\r\nconnection: close\r\n" in head.lower()
    assert json.loads(document)["code"] == "malformed_request"
    assert _get(server, "/v1/streams/smuggled").startswith(b"HTTP/1.1 404"), server.log()


def _requests_by_class(server: ServerProcess, operation: str) -> dict[str, float]:
    scrape = _get(server, "/metrics")
    assert scrape.startswith(b"HTTP/1.1 200"), scrape
    text = scrape.partition(b"\r\n\r\n")[2].decode()
    return {
        sample.labels["status_class"]: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "spool_http_requests_total" and sample.labels["operation"] == operation
    }


def test_a_client_that_hangs_up_mid_body_is_no_server_error(
    spool_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    """Headers promising 1000 bytes, 10 sent, then the connection closed: counted as
    ``client_closed`` and not ``5xx``, logged at INFO without a traceback, nothing written.
    """
    server = _server(spool_server, tmp_path)
    with _connect(server) as connection:
        connection.sendall(publish_head("abandoned", TOKEN, "Content-Length: 1000") + b'{"body": "')
    counted = _eventually_counted(server, "appendEntry")
    assert counted.get("client_closed") == 1, counted
    assert counted.get("5xx") == 0, counted
    assert _get(server, "/v1/streams/abandoned").startswith(b"HTTP/1.1 404")
    log = server.log()
    assert "Traceback" not in log, log
    assert "ERROR" not in log, log
    assert "ClientDisconnect" not in log, log
    assert any(
        line.startswith("INFO:") and "/v1/streams/abandoned/entries" in line
        for line in log.splitlines()
    ), log


def _eventually_counted(server: ServerProcess, operation: str) -> dict[str, float]:
    """The operation's counts once the abandoned request has been counted (the service notices
    the closed connection on its own time).
    """
    deadline = time.monotonic() + PATIENCE
    while True:
        counted = _requests_by_class(server, operation)
        if counted.get("client_closed") or counted.get("5xx") or time.monotonic() > deadline:
            return counted
        time.sleep(0.05)
