"""Slow and malformed clients against a real server (server/http_protocol.py): a request must
arrive whole within the read timeout, and broken HTTP gets a problem+json 400.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests._raw_http import connect, publish_head
from tests.conftest import ServerProcess, ServerStarter

pytestmark = pytest.mark.slow

READ_TIMEOUT = 1.0
TOKEN = "slow-client-token"
CONFIG = {
    "tokens": [
        {
            "id": "all",
            "token": TOKEN,
            "permissions": [{"resource": "*", "actions": ["publish", "consume", "admin"]}],
        }
    ],
    "http": {"read_timeout_seconds": READ_TIMEOUT},
}
# Far longer than the read timeout: a connection still open by then was not cut off.
PATIENCE = 15.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A real server with a one-second read timeout, one for the module: each test opens its own
    connections and none writes what another reads, while a process per test spent most of its
    time starting.
    """
    directory = tmp_path_factory.mktemp("http-protocol")
    starter = ServerStarter(directory)
    try:
        yield starter(f"sqlite:///{directory / 'spool.db'}", config=CONFIG)
    finally:
        starter.stop_all()


def _connect(server: ServerProcess) -> socket.socket:
    return connect(server.base_url, timeout=PATIENCE)


def _read_until_closed(connection: socket.socket) -> tuple[bytes, float]:
    """Everything the server sends until it closes, and how long that took."""
    started = time.monotonic()
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received, time.monotonic() - started


def _read_response(connection: socket.socket) -> bytes:
    """One whole response on a kept-alive connection (its body by Content-Length)."""
    received = b""
    while b"\r\n\r\n" not in received:
        received += connection.recv(65536)
    head, _, body = received.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += connection.recv(65536)
    return head + b"\r\n\r\n" + body


def _problem(response: bytes) -> tuple[str, dict[str, Any]]:
    head, _, body = response.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].decode()
    assert b"content-type: application/problem+json" in head.lower(), head
    # Malformed HTTP is refused for good, as the app says of its own 400s.
    assert b"x-should-retry: false" in head.lower(), head
    problem: dict[str, Any] = json.loads(body)
    return status_line, problem


def test_a_connection_that_sends_nothing_is_closed(server: ServerProcess) -> None:
    """Connecting and then saying nothing holds the connection for the read timeout at most."""
    with _connect(server) as connection:
        received, waited = _read_until_closed(connection)
    assert received == b""
    assert waited < PATIENCE


def test_headers_sent_a_line_at_a_time_are_cut_off(server: ServerProcess) -> None:
    """Headers trickling in one line every 0.4 s never make a request; the server hangs up."""
    with _connect(server) as connection:
        connection.sendall(b"GET /v1/health HTTP/1.1\r\n")
        for number in range(40):
            try:
                connection.sendall(f"X-Slow-{number}: yes\r\n".encode())
            except (BrokenPipeError, ConnectionResetError):
                break
            time.sleep(0.4)
            connection.settimeout(0.01)
            try:
                if connection.recv(1) == b"":
                    break
            except TimeoutError:
                pass
            finally:
                connection.settimeout(PATIENCE)
        else:
            pytest.fail("the server kept a trickling request open for 16 s")


def test_a_body_sent_a_byte_at_a_time_is_cut_off_and_nothing_is_written(
    server: ServerProcess,
) -> None:
    """A body trickling in is dropped at the read timeout, and the publish never happens."""
    body = json.dumps({"body": "x" * 40}).encode()
    head = (
        f"POST /v1/streams/slow/entries HTTP/1.1\r\nHost: spool\r\n"
        f"Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    with _connect(server) as connection:
        connection.sendall(head)
        started = time.monotonic()
        closed = False
        for index in range(len(body)):
            try:
                connection.sendall(body[index : index + 1])
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            connection.settimeout(0.4)
            try:
                if connection.recv(1) == b"":
                    closed = True
                    break
            except TimeoutError:
                pass
        assert closed, "the server read a trickling body to its end"
        assert time.monotonic() - started < PATIENCE
    with _connect(server) as connection:
        connection.sendall(
            f"GET /v1/streams/slow HTTP/1.1\r\nHost: spool\r\nAuthorization: Bearer {TOKEN}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        received, _ = _read_until_closed(connection)
    assert received.startswith(b"HTTP/1.1 404"), received


def test_a_kept_alive_connection_may_idle_between_requests(server: ServerProcess) -> None:
    """The read timeout counts from a request's first byte, not from the previous request."""
    request = b"GET /v1/health HTTP/1.1\r\nHost: spool\r\n\r\n"
    with _connect(server) as connection:
        connection.sendall(request)
        first = _read_response(connection)
        time.sleep(READ_TIMEOUT * 1.5)
        connection.sendall(request.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        second, _ = _read_until_closed(connection)
    assert first.startswith(b"HTTP/1.1 200")
    assert second.startswith(b"HTTP/1.1 200")


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /v1/health HTTP/1.1\r\nHost: spool\r\nContent-Length: abc\r\n\r\n",
        b"GET /v1/\xff\xfe HTTP/1.1\r\nHost: spool\r\n\r\n",
        b"GET /v1/health HTTP/1.1\r\nHost: spool\r\nX-Big: " + b"a" * 1_000_000 + b"\r\n\r\n",
        b"NOT HTTP AT ALL\r\n\r\n",
    ],
    ids=["bad-content-length", "non-ascii-target", "megabyte-header", "garbage"],
)
def test_malformed_http_gets_a_problem_document(
    server: ServerProcess, request_bytes: bytes
) -> None:
    """What cannot be parsed as HTTP/1.1 is answered 400 malformed_request as problem+json."""
    with _connect(server) as connection:
        try:
            connection.sendall(request_bytes)
        except (BrokenPipeError, ConnectionResetError):
            pass
        received, _ = _read_until_closed(connection)
    status_line, problem = _problem(received)
    assert status_line == "HTTP/1.1 400 Bad Request"
    assert (problem["status"], problem["code"]) == (400, "malformed_request")


def _stream_exists(server: ServerProcess, stream: str) -> bool:
    with _connect(server) as connection:
        connection.sendall(
            f"GET /v1/streams/{stream} HTTP/1.1\r\nHost: spool\r\n"
            f"Authorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n".encode()
        )
        received, _ = _read_until_closed(connection)
    assert received.startswith((b"HTTP/1.1 200", b"HTTP/1.1 404")), received
    return received.startswith(b"HTTP/1.1 200")


@pytest.mark.parametrize(
    ("stream", "transfer_encoding", "content_length", "transfer_encoding_first"),
    [
        ("smuggled-cl-first", "Transfer-Encoding: chunked", "Content-Length: {}", False),
        ("smuggled-te-first", "Transfer-Encoding: chunked", "Content-Length: {}", True),
        ("smuggled-lower", "transfer-encoding: chunked", "content-length: {}", False),
        ("smuggled-upper", "TRANSFER-ENCODING: CHUNKED", "CONTENT-LENGTH: {}", True),
        ("smuggled-mixed", "TrAnSfEr-EnCoDiNg: ChUnKeD", "Content-Length: {}", False),
        ("smuggled-spaces", "Transfer-Encoding: \t chunked \t", "Content-Length:   {}  ", True),
        ("smuggled-zero", "Transfer-Encoding: chunked", "Content-Length: 0", False),
    ],
    ids=["cl-first", "te-first", "lower-case", "upper-case", "mixed-case", "whitespace", "cl-0"],
)
def test_a_request_with_both_framings_is_refused_and_its_connection_closed(
    server: ServerProcess,
    stream: str,
    transfer_encoding: str,
    content_length: str,
    transfer_encoding_first: bool,
) -> None:
    """Content-Length with Transfer-Encoding: chunked, however spelled and in either order, is
    400 malformed_request and the end of the connection: neither it nor the request hidden after
    its chunked body is served (RFC 9112 section 6.3).
    """
    body = json.dumps({"body": "outer"}).encode()
    chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    length = content_length.format(len(chunked))
    framing = (
        (transfer_encoding, length) if transfer_encoding_first else (length, transfer_encoding)
    )
    hidden_body = json.dumps({"body": "hidden"}).encode()
    hidden = publish_head(stream, TOKEN, f"Content-Length: {len(hidden_body)}") + hidden_body
    with _connect(server) as connection:
        connection.sendall(publish_head(stream, TOKEN, *framing) + chunked + hidden)
        received, waited = _read_until_closed(connection)
    assert waited < PATIENCE
    assert received.count(b"HTTP/1.1 ") == 1, received
    status_line, problem = _problem(received)
    assert status_line == "HTTP/1.1 400 Bad Request"
    assert (problem["status"], problem["code"]) == (400, "malformed_request")
    assert "Transfer-Encoding" in problem["detail"]
    assert b"\r\nconnection: close\r\n" in received.partition(b"\r\n\r\n")[0].lower()
    assert not _stream_exists(server, stream)


def test_pipelined_requests_on_a_kept_alive_connection_are_all_served(
    server: ServerProcess,
) -> None:
    """Requests sent back to back on one connection, framed by Content-Length, by chunks or not
    at all, are each served in turn: the refusal is for a request framed both ways only.
    """
    first = json.dumps({"body": "first"}).encode()
    second = json.dumps({"body": "second"}).encode()
    pipelined = (
        publish_head("pipelined", TOKEN, f"Content-Length: {len(first)}")
        + first
        + publish_head("pipelined", TOKEN, "Transfer-Encoding: chunked")
        + f"{len(second):x}\r\n".encode()
        + second
        + b"\r\n0\r\n\r\n"
        + f"GET /v1/streams/pipelined HTTP/1.1\r\nHost: spool\r\n"
        f"Authorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n".encode()
    )
    with _connect(server) as connection:
        connection.sendall(pipelined)
        received, _ = _read_until_closed(connection)
    answers = _split_responses(received)
    assert [answer.split(b"\r\n", 1)[0] for answer in answers] == [
        b"HTTP/1.1 201 Created",
        b"HTTP/1.1 201 Created",
        b"HTTP/1.1 200 OK",
    ], answers
    assert json.loads(answers[2].partition(b"\r\n\r\n")[2])["length"] == 2


def _split_responses(received: bytes) -> list[bytes]:
    """Responses sent back to back, each framed by its Content-Length."""
    responses = []
    while received:
        head, _, rest = received.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        responses.append(head + b"\r\n\r\n" + rest[:length])
        received = rest[length:]
    return responses


def test_a_request_framed_both_ways_after_a_good_one_is_refused_too(
    server: ServerProcess,
) -> None:
    """On a kept-alive connection the first publish is served; the next one, framed both ways,
    is refused with the connection closed, and the one after it is never read.
    """
    body = json.dumps({"body": "entry"}).encode()
    chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    pipelined = (
        publish_head("served-first", TOKEN, f"Content-Length: {len(body)}")
        + body
        + publish_head(
            "refused-second", TOKEN, f"Content-Length: {len(chunked)}", "Transfer-Encoding: chunked"
        )
        + chunked
        + publish_head("never-read", TOKEN, f"Content-Length: {len(body)}")
        + body
    )
    with _connect(server) as connection:
        connection.sendall(pipelined)
        received, _ = _read_until_closed(connection)
    first, refusal = _split_responses(received)
    assert first.startswith(b"HTTP/1.1 201 Created\r\n"), received
    status_line, problem = _problem(refusal)
    assert (status_line, problem["code"]) == ("HTTP/1.1 400 Bad Request", "malformed_request")
    assert _stream_exists(server, "served-first")
    assert not _stream_exists(server, "refused-second")
    assert not _stream_exists(server, "never-read")
