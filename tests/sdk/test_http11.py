"""The HTTP/1.1 exchange and pool (sdk/_http11.py) against a scripted loopback
receiver that answers each request with the exact bytes a test gives it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from sdk._http11 import MAX_HEAD_BYTES, Http11Transport, _Connection
from tests._loopback import OK, ReceiverFactory

Receiver = ReceiverFactory


@pytest.fixture
def receiver(loopback_receiver: ReceiverFactory) -> ReceiverFactory:
    """Scripted receivers: ``receiver([answer, ...], closing=...)``."""
    return loopback_receiver


@contextlib.asynccontextmanager
async def client(**limits: Any) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client on the delivery transport (no vetting: the receivers are on loopback)."""
    transport = Http11Transport(httpx.Limits(**{"max_connections": 10, **limits}))
    async with httpx.AsyncClient(transport=transport, timeout=5) as sending:
        yield sending


async def test_a_kept_alive_connection_carries_the_next_request(receiver: Receiver) -> None:
    """A framed HTTP/1.1 answer read to its end leaves the connection for the next request."""
    scripted = await receiver([OK])
    async with client() as sending:
        for _ in range(3):
            answer = await sending.post(scripted.url, content=b'{"n":1}')
            assert (answer.status_code, answer.text, answer.reason_phrase) == (200, "ok", "OK")
    assert (len(scripted.heads), scripted.connections) == (3, 1)
    assert scripted.bodies == [b'{"n":1}'] * 3
    assert scripted.heads[0].startswith(b"POST /hook HTTP/1.1\r\n")
    assert b"\r\nContent-Length: 7\r\n" in scripted.heads[0]


async def test_a_chunked_body_is_decoded_with_its_extensions_and_trailers(
    receiver: Receiver,
) -> None:
    """Chunk sizes in hex with extensions, then a trailer field: the body comes out whole and
    the connection is reused.
    """
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;name=value\r\nhello\r\nA\r\n, chunked!\r\n0\r\nTrailer: yes\r\n\r\n"
    )
    scripted = await receiver([chunked])
    async with client() as sending:
        for _ in range(2):
            assert (await sending.get(scripted.url)).text == "hello, chunked!"
    assert scripted.connections == 1


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        (b"HTTP/1.1 200 OK\r\n\r\nuntil the end", "until the end"),
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", "ok"),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", "ok"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nraw", "raw"),
    ],
    ids=["unframed", "connection-close", "http-1.0", "not-chunked-last"],
)
async def test_an_answer_that_does_not_allow_reuse_closes_its_connection(
    receiver: Receiver, answer: bytes, text: str
) -> None:
    """A body that runs until the close, ``Connection: close`` and HTTP/1.0 end the connection."""
    scripted = await receiver([answer], closing=frozenset(range(10)))
    async with client() as sending:
        for _ in range(2):
            assert (await sending.get(scripted.url)).text == text
    assert scripted.connections == 2


async def test_interim_answers_are_skipped(receiver: Receiver) -> None:
    """``100 Continue`` and ``103 Early Hints`` come before the real answer and are not it."""
    interim = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
    scripted = await receiver([interim + OK])
    async with client() as sending:
        assert (await sending.post(scripted.url, content=b"x")).text == "ok"


@pytest.mark.parametrize(
    ("method", "answer"),
    [
        ("HEAD", b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n"),
        ("POST", b"HTTP/1.1 204 No Content\r\n\r\n"),
        ("GET", b"HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n"),
    ],
)
async def test_answers_without_a_body_read_none(
    receiver: Receiver, method: str, answer: bytes
) -> None:
    """HEAD, 204 and 304 have no body whatever their headers say; the connection is reused."""
    scripted = await receiver([answer])
    async with client() as sending:
        for _ in range(2):
            assert (await sending.request(method, scripted.url)).content == b""
    assert scripted.connections == 1


async def test_a_folded_header_is_joined(receiver: Receiver) -> None:
    """An obsolete line folding continues the previous header's value."""
    scripted = await receiver([b"HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\nContent-Length: 0\r\n\r\n"])
    async with client() as sending:
        assert (await sending.get(scripted.url)).headers["x-long"] == "a b"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (b"HTTP/1.1 2OO OK\r\n\r\n", "malformed status line"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n", "malformed header"),
        (b"HTTP/1.1 101 Switching Protocols\r\n\r\n", "unexpected status 101"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "complete message body"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "chunk size"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokay\r\n0\r\n\r\n", "chunk"),
        (b"HTTP/1.1 200 OK\r\nX: " + b"y" * MAX_HEAD_BYTES, "head is over"),
        (b"HTTP/1.1 200 O", "middle of its answer's head"),
    ],
    ids=[
        "status",
        "two-lengths",
        "negative-length",
        "header-name",
        "upgrade",
        "short-body",
        "chunk-size",
        "long-chunk",
        "huge-head",
        "cut-head",
    ],
)
async def test_a_malformed_answer_is_a_protocol_error(
    receiver: Receiver, answer: bytes, message: str
) -> None:
    """What the receiver got wrong is named; the connection is not kept."""
    scripted = await receiver([answer], closing=frozenset({0}))
    async with client() as sending:
        with pytest.raises(httpx.RemoteProtocolError, match=message):
            await sending.get(scripted.url)


@pytest.mark.parametrize(
    "headers",
    [{"X-Evil": "a\r\nInjected: yes"}, {"X-Nul": "a\x00b"}, {"Bad Name": "x"}],
    ids=["crlf-value", "nul-value", "space-in-name"],
)
async def test_a_header_that_could_split_the_request_is_refused_unsent(
    receiver: Receiver, headers: dict[str, str]
) -> None:
    """Nothing reaches the receiver when a header name or value is not allowed on the wire."""
    scripted = await receiver([OK])
    transport = Http11Transport(httpx.Limits(max_connections=1))
    request = httpx.Request("POST", scripted.url, content=b"x", headers=headers)
    with pytest.raises(httpx.LocalProtocolError, match="invalid header"):
        await transport.handle_async_request(request)
    await transport.aclose()
    assert scripted.connections == 0


async def test_a_reused_connection_closed_unanswered_is_retried_once_on_a_new_one(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The receiver closes a kept-alive connection as the next request goes out on it: that
    request is sent again on a new connection, and arrives once.
    """
    scripted = await receiver([OK], closing=frozenset({0}))
    # The close has not reached this side yet when the connection is taken from the pool.
    monkeypatch.setattr(_Connection, "unusable", lambda _self: False)
    async with client() as sending:
        assert (await sending.post(scripted.url, content=b"1")).text == "ok"
        await asyncio.sleep(0.05)
        assert (await sending.post(scripted.url, content=b"2")).text == "ok"
    assert scripted.bodies == [b"1", b"2"]
    assert scripted.connections == 2


async def test_a_new_connection_closed_unanswered_is_an_error(receiver: Receiver) -> None:
    """Only a reused connection's silent close is retried."""

    async def hang_up(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _reader.readuntil(b"\r\n\r\n")
        writer.close()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with client() as sending:
            with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
                await sending.get(f"http://127.0.0.1:{port}/")
    finally:
        server.close()
        await server.wait_closed()


async def test_a_silent_receiver_is_a_read_timeout(receiver: Receiver) -> None:
    """No answer within the read timeout raises httpx's ReadTimeout."""
    scripted = await receiver([b""])
    async with client() as sending:
        with pytest.raises(httpx.ReadTimeout):
            await sending.get(scripted.url, timeout=0.2)


async def test_idle_connections_expire_and_are_capped(receiver: Receiver) -> None:
    """Past ``keepalive_expiry`` an idle connection is not used again; with
    ``max_keepalive_connections=0`` none is kept at all.
    """
    expiring = await receiver([OK])
    async with client(keepalive_expiry=0.05) as sending:
        await sending.get(expiring.url)
        await asyncio.sleep(0.1)
        await sending.get(expiring.url)
    assert expiring.connections == 2
    unkept = await receiver([OK])
    async with client(max_keepalive_connections=0) as sending:
        for _ in range(2):
            await sending.get(unkept.url)
    assert unkept.connections == 2


async def test_requests_over_max_connections_wait_for_a_slot(receiver: Receiver) -> None:
    """With one connection allowed, a second request waits for the first answer to be closed,
    and gives up after the pool timeout.
    """
    scripted = await receiver([OK])
    transport = Http11Transport(httpx.Limits(max_connections=1))
    first = await transport.handle_async_request(httpx.Request("GET", scripted.url))
    waiting = httpx.Request("GET", scripted.url, extensions={"timeout": {"pool": 0.1}})
    with pytest.raises(httpx.PoolTimeout):
        await transport.handle_async_request(waiting)
    await first.aread()
    await first.aclose()
    second = await transport.handle_async_request(httpx.Request("GET", scripted.url))
    assert await second.aread() == b"ok"
    await second.aclose()
    await transport.aclose()
    assert scripted.connections == 1


async def test_an_unsupported_scheme_is_refused() -> None:
    """Only http and https are delivered to."""
    async with client() as sending:
        with pytest.raises(httpx.UnsupportedProtocol):
            await sending.get("ftp://127.0.0.1/file")
