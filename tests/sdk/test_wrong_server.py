"""A base URL that does not lead to Spool: every answer that is not Spool's is a clear
APIResponseValidationError naming the URL, the status and what was expected, never an
AttributeError or KeyError from deep inside the SDK. The server is a real one on loopback.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import sdk
from tests.sdk._support import API_KEY, resolve

NGINX = (
    b"<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>\n</head>\n"
    b"<body><h1>Welcome to nginx!</h1></body>\n</html>\n"
)

# By path: the status, content type and body a server that is not Spool answers with.
ANSWERS: dict[str, tuple[int, str, bytes]] = {
    "/v1/streams/html": (200, "text/html; charset=utf-8", NGINX),
    "/v1/streams/other-json": (200, "application/json", json.dumps({"status": "ok"}).encode()),
    "/v1/streams/plain": (200, "text/plain", b"OK"),
    "/v1/streams/list": (200, "application/json", b"[1, 2, 3]"),
    # appendEntry answers 201; a 200 is some other service's idea of success.
    "/v1/streams/events/entries": (200, "application/json", json.dumps({"id": "1-0"}).encode()),
    "/v1/health": (200, "text/html", NGINX),
}


class _NotSpool(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        status, content_type, body = ANSWERS.get(
            self.path.partition("?")[0], (404, "text/html", b"<h1>Not Found</h1>")
        )
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the tests read the SDK's errors, not the server's log."""


@pytest.fixture(scope="module")
def not_spool() -> Iterator[str]:
    """The base URL of a real HTTP server on loopback that is not Spool."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotSpool)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


ClientFactory = Callable[..., "sdk.Client | sdk.AsyncClient"]


async def test_an_html_page_is_named_for_what_it_is(
    make_client: ClientFactory, not_spool: str
) -> None:
    """A web server's page: the URL, the status, the content type, what was expected, and the
    start of the page.
    """
    client = make_client(base_url=not_spool, max_retries=0)
    with pytest.raises(sdk.APIResponseValidationError) as raised:
        await resolve(client.streams.length("html"))
    error = raised.value
    assert error.status_code == 200
    assert error.url == f"{not_spool}/v1/streams/html"
    assert error.expected == "a JSON document (application/json)"
    message = str(error)
    assert f"GET {not_spool}/v1/streams/html" in message
    assert "200 answer (text/html)" in message
    assert "Welcome to nginx!" in message
    assert f"Is {not_spool} the Spool API?" in message
    assert API_KEY not in message


@pytest.mark.parametrize(
    ("stream", "expected"),
    [
        ("other-json", "a document with the field 'stream'"),
        ("plain", "a JSON document (application/json)"),
    ],
)
async def test_another_services_answer_says_what_was_expected(
    make_client: ClientFactory, not_spool: str, stream: str, expected: str
) -> None:
    """Other JSON names the field Spool's document has; text is no JSON document at all."""
    client = make_client(base_url=not_spool, max_retries=0)
    with pytest.raises(sdk.APIResponseValidationError) as raised:
        await resolve(client.streams.length(stream))
    assert raised.value.expected == expected
    assert expected in str(raised.value)


async def test_a_document_of_the_wrong_shape_is_named(
    make_client: ClientFactory, not_spool: str
) -> None:
    """JSON that is not an object still says which operation could not read it."""
    client = make_client(base_url=not_spool, max_retries=0)
    with pytest.raises(sdk.APIResponseValidationError) as raised:
        await resolve(client.streams.length("list"))
    assert "to get_stream is not a Spool API answer: expected a JSON object" in str(raised.value)
    assert not isinstance(raised.value.__cause__, sdk.SpoolError)


async def test_a_status_the_operation_never_answers_with_is_named(
    make_client: ClientFactory, not_spool: str
) -> None:
    """A 200 where Spool answers 201: not an AttributeError on None, but the status named."""
    client = make_client(base_url=not_spool, max_retries=0)
    with pytest.raises(sdk.PublishError) as raised:
        await resolve(client.publish("events", {"n": 1}))
    cause = raised.value.__cause__
    assert isinstance(cause, sdk.APIResponseValidationError)
    assert cause.status_code == 200
    assert cause.expected == "one of the statuses it is documented to answer with"
    assert f"POST {not_spool}/v1/streams/events/entries" in str(cause)


async def test_the_health_check_of_a_web_server_is_not_healthy(
    make_client: ClientFactory, not_spool: str
) -> None:
    """`health()` against a web server fails clearly instead of reporting a status."""
    client = make_client(base_url=not_spool, max_retries=0)
    with pytest.raises(sdk.APIResponseValidationError, match="Welcome to nginx"):
        await resolve(client.health())


async def test_a_wrong_servers_404_is_still_a_status_error(
    make_client: ClientFactory, not_spool: str
) -> None:
    """A non-2xx answer keeps its status error (and so its retry rules), problem or not."""
    client = make_client(base_url=not_spool, max_retries=0)
    with pytest.raises(sdk.NotFoundError) as raised:
        await resolve(client.streams.length("missing"))
    assert raised.value.code is None
