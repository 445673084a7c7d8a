"""The delivery engine's HTTP transport (server/delivery/transport.py): it connects only to vetted
addresses, so DNS rebinding gets nowhere and the Host header keeps the name; and, against real
HTTP/1.1 servers on loopback, it keeps connections alive, drops closed ones and speaks TLS with the
host's name.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from server.delivery import default_transport
from server.delivery.transport import DeliveryTransport, tls_context
from server.destinations import DestinationPolicy, IPAddress, Resolver
from tests._eventually import eventually
from tests._loopback import OK, ReceiverFactory


def delivery_client(policy: DestinationPolicy) -> httpx.AsyncClient:
    """A client on the engine's own transport, for sending requests through it by hand."""
    return httpx.AsyncClient(transport=default_transport(policy))


class _Receiver:
    """A loopback HTTP/1.1 endpoint that counts connections and keeps each request's head."""

    def __init__(self) -> None:
        self.connections = 0
        self.heads: list[bytes] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            self.heads.append(head)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            await writer.drain()
        except asyncio.IncompleteReadError:
            pass
        finally:
            writer.close()


@contextlib.asynccontextmanager
async def _receiver() -> AsyncIterator[tuple[_Receiver, int]]:
    receiver = _Receiver()
    server = await asyncio.start_server(receiver.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield receiver, port


def _resolver(*answers: list[str]) -> tuple[list[str], Resolver]:
    """A resolver giving each answer in turn (the last one from then on), and the names asked."""
    asked: list[str] = []
    remaining = list(answers)

    async def resolve(hostname: str, port: int) -> list[IPAddress]:
        asked.append(hostname)
        answer = remaining.pop(0) if len(remaining) > 1 else remaining[0]
        return [ipaddress.ip_address(address) for address in answer]

    return asked, resolve


async def test_a_name_that_rebinds_to_loopback_after_the_check_gets_no_connection() -> None:
    """The publish-time check sees a public address, the connection's own resolution sees
    loopback: the connection is refused and not one byte reaches the loopback listener.
    """
    asked, resolve = _resolver(["8.8.8.8"], ["127.0.0.1"])
    policy = DestinationPolicy(resolver=resolve)
    async with _receiver() as (receiver, port):
        url = f"http://rebind.test:{port}/hook"
        await policy.check(url)
        async with delivery_client(policy) as client:
            with pytest.raises(httpx.ConnectError, match="destination not allowed.*loopback"):
                await client.post(url, content=b"secret")
        await asyncio.sleep(0.05)
        assert receiver.connections == 0
    assert asked == ["rebind.test", "rebind.test"]


async def test_a_vetted_connection_keeps_the_host_name_in_the_request() -> None:
    """An allowed address is connected to directly, and the Host header still names the host."""
    _, resolve = _resolver(["127.0.0.1"])
    policy = DestinationPolicy(["127.0.0.0/8"], resolver=resolve)
    async with _receiver() as (receiver, port):
        async with delivery_client(policy) as client:
            response = await client.post(f"http://receiver.test:{port}/hook", content=b"x")
    assert response.status_code == 200
    assert f"host: receiver.test:{port}".encode() in receiver.heads[0].lower()


async def test_every_address_is_checked_before_any_is_used() -> None:
    """A public first address does not excuse a private second one."""
    _, resolve = _resolver(["8.8.8.8", "10.0.0.1"])
    policy = DestinationPolicy(resolver=resolve)
    async with delivery_client(policy) as client:
        with pytest.raises(httpx.ConnectError, match="10.0.0.1, a private address"):
            await client.get("http://mixed.test/")


async def test_the_next_vetted_address_is_tried_when_one_refuses() -> None:
    """Like an ordinary client, a refused connection moves on to the name's next address."""
    _, resolve = _resolver(["127.0.0.3", "127.0.0.1"])
    policy = DestinationPolicy(["127.0.0.0/8"], resolver=resolve)
    async with _receiver() as (receiver, port):
        async with delivery_client(policy) as client:
            response = await client.get(f"http://two.test:{port}/")
    assert response.status_code == 200
    assert receiver.connections == 1


async def test_an_ip_literal_is_checked_without_resolving() -> None:
    """A literal address is vetted as it is; the resolver is never asked."""
    asked, resolve = _resolver(["8.8.8.8"])
    policy = DestinationPolicy(resolver=resolve)
    async with delivery_client(policy) as client:
        with pytest.raises(httpx.ConnectError, match="loopback"):
            await client.get("http://127.0.0.1:9/")
    assert asked == []


@pytest.mark.parametrize("host", ["[::1]", "127.1", "2130706433", "[::ffff:127.0.0.1]"])
async def test_an_address_in_any_spelling_is_vetted(host: str) -> None:
    """aiohttp connects to what it takes for an address without asking a resolver: each of these
    spellings of loopback is vetted by the transport itself, refused, and never connected to.
    """
    async with _receiver() as (receiver, port):
        async with delivery_client(DestinationPolicy()) as client:
            with pytest.raises(httpx.ConnectError, match="destination not allowed"):
                await client.post(f"http://{host}:{port}/hook", content=b"secret")
        await asyncio.sleep(0.05)
        assert receiver.connections == 0


# The receivers here listen on this machine, which the delivery client refuses unless allowed.
LOOPBACK = DestinationPolicy(["127.0.0.0/8", "::1", "localhost"])


ServerFactory = ReceiverFactory


@pytest.fixture
def keep_alive_server(loopback_receiver: ReceiverFactory) -> ReceiverFactory:
    """Receivers answering ``200 ok`` on kept-alive connections (``close_after``, ``ssl_context``)."""
    return loopback_receiver


async def test_attempts_one_after_the_other_reuse_one_connection(
    keep_alive_server: ServerFactory,
) -> None:
    """A quiet destination keeps one connection: every request goes to the same pool."""
    server = await keep_alive_server()
    client = delivery_client(LOOPBACK)
    try:
        for _ in range(5):
            assert (await client.post(server.url, content=b"{}")).status_code == 200
    finally:
        await client.aclose()
    assert (server.requests, server.connections) == (5, 1)


async def test_concurrent_attempts_spread_and_their_connections_are_reused(
    keep_alive_server: ServerFactory,
) -> None:
    """Attempts in flight together each get a connection; later rounds reuse those connections."""
    server = await keep_alive_server()
    client = delivery_client(LOOPBACK)
    try:
        for _ in range(3):
            answers = await asyncio.gather(
                *(client.post(server.url, content=b"{}") for _ in range(20))
            )
            assert {answer.status_code for answer in answers} == {200}
    finally:
        await client.aclose()
    assert server.requests == 60
    assert server.connections <= 20


async def test_a_connection_the_receiver_closed_is_not_reused(
    keep_alive_server: ServerFactory,
) -> None:
    """A kept-alive connection that the receiver closed meanwhile reads as readable (its end of
    stream), so the pool drops it and the next attempt connects afresh instead of failing.
    """
    server = await keep_alive_server(close_after=1)
    client = delivery_client(LOOPBACK)
    try:
        for round_number in range(1, 4):
            assert (await client.post(server.url, content=b"{}")).status_code == 200

            # On loopback the close has reached this side once the receiver finished closing.
            def closed(expected: int = round_number) -> bool:
                return server.closed == expected

            await eventually(closed)
    finally:
        await client.aclose()
    assert (server.requests, server.connections) == (3, 3)


async def test_a_request_goes_out_whole_with_its_body(keep_alive_server: ServerFactory) -> None:
    """The head and the body, sent together, arrive as one request with the body's length."""
    server = await keep_alive_server()
    body = b"x" * 200_000
    client = delivery_client(LOOPBACK)
    try:
        for content in (b"{}", body, b""):
            assert (await client.post(server.url, content=content)).status_code == 200
    finally:
        await client.aclose()
    lengths = [
        line.partition(":")[2].strip()
        for head in server.heads
        for line in head.decode("latin-1").lower().split("\r\n")
        if line.startswith("content-length:")
    ]
    assert lengths == ["2", str(len(body)), "0"]


async def test_a_connect_error_and_a_read_timeout_are_httpx_errors() -> None:
    """Refused connections and silent receivers raise httpx's own errors, as the engine expects."""
    client = delivery_client(LOOPBACK)
    writers: list[asyncio.StreamWriter] = []

    async def listen_only(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)

    silent = await asyncio.start_server(listen_only, "127.0.0.1", 0)
    port = silent.sockets[0].getsockname()[1]
    try:
        with pytest.raises(httpx.ConnectError):
            await client.post("http://127.0.0.1:1/hook", content=b"{}")
        with pytest.raises(httpx.ReadTimeout):
            await client.post(f"http://127.0.0.1:{port}/hook", content=b"{}", timeout=0.2)
    finally:
        await client.aclose()
        silent.close()
        for writer in writers:
            writer.close()
        await silent.wait_closed()


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for ``localhost`` and its key, made by the openssl command."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is not installed")
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost"]
        + ["-addext", "subjectAltName=DNS:localhost"],
        check=True,
        capture_output=True,
    )
    return cert, key


async def test_https_goes_through_tls_and_verifies_the_receiver(
    keep_alive_server: ServerFactory, certificate: tuple[Path, Path]
) -> None:
    """An https destination is reached over TLS with the client's verification: a receiver whose
    certificate the client trusts answers on a kept-alive connection, and with the default trust
    store the same receiver is refused.
    """
    cert, key = certificate
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(cert, key)
    server = await keep_alive_server(ssl_context=server_context)
    trusting = ssl.create_default_context(cafile=str(cert))
    client = httpx.AsyncClient(transport=DeliveryTransport(LOOPBACK, ssl_context=trusting))
    try:
        for _ in range(3):
            assert (await client.post(server.url, content=b"{}")).text == "ok"
    finally:
        await client.aclose()
    assert (server.requests, server.connections) == (3, 1)

    refusing = delivery_client(LOOPBACK)
    try:
        with pytest.raises(httpx.ConnectError):
            await refusing.post(server.url, content=b"{}")
    finally:
        await refusing.aclose()


async def test_the_default_tls_context_ignores_the_environment_and_is_made_once(
    keep_alive_server: ServerFactory,
    certificate: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Deliveries trust the default CA bundle, not ``$SSL_CERT_FILE``: a receiver whose
    certificate the environment names is refused. The context is made at the first request,
    not with each transport, and every transport of the process shares it.
    """
    cert, key = certificate
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(cert, key)
    server = await keep_alive_server(ssl_context=server_context)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    tls_context.cache_clear()
    clients = [delivery_client(LOOPBACK) for _ in range(2)]
    try:
        assert tls_context.cache_info().currsize == 0
        for client in clients:
            with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await client.post(server.url, content=b"{}")
    finally:
        for client in clients:
            await client.aclose()
    made = tls_context.cache_info()
    assert (made.misses, made.hits) == (1, 1)
    assert server.requests == 0


async def test_a_redirect_is_answered_not_followed(keep_alive_server: ServerFactory) -> None:
    """A 3xx comes back as it is: following it would let a receiver send the service anywhere."""
    redirect = (
        b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:9/elsewhere\r\nContent-Length: 0\r\n\r\n"
    )
    server = await keep_alive_server([redirect])
    client = delivery_client(LOOPBACK)
    try:
        answer = await client.post(server.url, content=b"{}")
    finally:
        await client.aclose()
    assert (answer.status_code, answer.headers["location"]) == (302, "http://127.0.0.1:9/elsewhere")
    assert server.requests == 1


async def test_a_cookie_set_by_one_answer_is_not_sent_with_the_next_request(
    keep_alive_server: ServerFactory,
) -> None:
    """No cookie jar: one receiver's cookie never rides along on another message."""
    setting = (
        b"HTTP/1.1 200 OK\r\nSet-Cookie: session=secret; Path=/\r\nContent-Length: 2\r\n\r\nok"
    )
    server = await keep_alive_server([setting, OK])
    # The engine's way, the transport alone: an httpx.AsyncClient would keep cookies of its own.
    transport = default_transport(LOOPBACK)
    # By name: a cookie jar may refuse cookies from an IP address.
    url = server.url.replace("127.0.0.1", "localhost")
    try:
        for _ in range(2):
            answer = await transport.handle_async_request(httpx.Request("POST", url, content=b"{}"))
            await answer.aread()
            await answer.aclose()
            assert answer.status_code == 200
    finally:
        await transport.aclose()
    assert server.requests == 2
    assert all(b"cookie" not in head.lower() for head in server.heads)


async def test_environment_proxies_are_ignored(
    keep_alive_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proxy named by the environment would connect somewhere the policy never checked."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    server = await keep_alive_server()
    client = delivery_client(LOOPBACK)
    try:
        assert (await client.post(server.url, content=b"{}")).status_code == 200
    finally:
        await client.aclose()
    assert server.requests == 1


async def test_the_request_carries_its_own_headers_and_its_url_as_encoded(
    keep_alive_server: ServerFactory,
) -> None:
    """The HTTP client adds no headers of its own (no ``Accept-Encoding`` or ``User-Agent`` the
    engine did not choose), and the target goes out byte for byte as httpx encoded it: the
    signature covers the URL.
    """
    server = await keep_alive_server()
    transport = default_transport(LOOPBACK)
    url = server.url + "/%7Eme/a%2Fb?q=a%20b&r=%C3%A9"
    try:
        request = httpx.Request("POST", url, content=b"{}", headers={"X-Mine": "1"})
        answer = await transport.handle_async_request(request)
        await answer.aread()
        await answer.aclose()
    finally:
        await transport.aclose()
    request_line, *fields = server.heads[0].decode("latin-1").rstrip("\r\n").split("\r\n")
    assert request_line == f"POST {httpx.URL(url).raw_path.decode()} HTTP/1.1"
    names = sorted(field.partition(":")[0].lower() for field in fields)
    assert names == ["content-length", "host", "x-mine"]


async def test_a_new_connection_closed_without_an_answer_is_an_error_sent_once() -> None:
    """Only a kept-alive connection the receiver closed is tried again; a new connection that
    ends without an answer is the receiver's failure, and the request went out once.
    """
    requests: list[bytes] = []

    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        requests.append(await reader.readuntil(b"\r\n\r\n"))
        writer.close()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = delivery_client(LOOPBACK)
    try:
        with pytest.raises(httpx.RemoteProtocolError):
            await client.post(f"http://127.0.0.1:{port}/hook", content=b"")
    finally:
        await client.aclose()
        server.close()
        await server.wait_closed()
    assert len(requests) == 1


async def test_a_long_header_field_in_the_answer_is_read(keep_alive_server: ServerFactory) -> None:
    """A receiver's long header (a Content-Security-Policy, a cookie) does not fail its answer."""
    policy = b"default-src 'self' " + b"x" * 20_000
    long_answer = b"HTTP/1.1 200 OK\r\nContent-Security-Policy: " + policy + b"\r\n"
    server = await keep_alive_server([long_answer + b"Content-Length: 2\r\n\r\nok"])
    client = delivery_client(LOOPBACK)
    try:
        answer = await client.post(server.url, content=b"{}")
    finally:
        await client.aclose()
    assert (answer.status_code, len(answer.headers["content-security-policy"])) == (
        200,
        len(policy),
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [("X-Split", "v\r\nInjected: 1"), ("X-Null", "v\x00"), ("X Space", "v"), ("X-A\r\nB", "v")],
    ids=["crlf-in-value", "nul-in-value", "name-not-a-token", "crlf-in-name"],
)
async def test_a_header_that_could_inject_is_refused_before_connecting(
    name: str, value: str
) -> None:
    """A name that is not a token, or CR, LF or NUL anywhere, is a LocalProtocolError, and the
    receiver gets no connection, let alone bytes.
    """
    async with _receiver() as (receiver, port):
        transport = default_transport(LOOPBACK)
        try:
            request = httpx.Request(
                "POST", f"http://127.0.0.1:{port}/hook", content=b"{}", headers={name: value}
            )
            with pytest.raises(httpx.LocalProtocolError):
                await transport.handle_async_request(request)
        finally:
            await transport.aclose()
        await asyncio.sleep(0.05)
        assert receiver.connections == 0
