"""Every failure of a call becomes a typed error; publish failures become PublishError."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import re
import ssl

import httpx
import pytest
import respx

import sdk
from sdk import _endpoints, _http
from tests.conftest import ROOT
from tests.sdk._support import (
    API_KEY,
    BASE_URL,
    appended,
    problem,
    record_http_clients,
    resolve,
)

STATUS_CLASSES = [
    (400, "invalid_name", sdk.BadRequestError),
    (401, "unauthenticated", sdk.AuthenticationError),
    (403, "permission_denied", sdk.PermissionDeniedError),
    (404, "stream_not_found", sdk.NotFoundError),
    (409, "conflict", sdk.ConflictError),
    (413, "payload_too_large", sdk.PayloadTooLargeError),
    (415, "unsupported_media_type", sdk.UnsupportedMediaTypeError),
    (418, "teapot", sdk.APIStatusError),
    (422, "validation_failed", sdk.UnprocessableEntityError),
    (429, "quota_exceeded", sdk.QuotaExceededError),
    (500, "internal_error", sdk.InternalServerError),
    (502, "bad_gateway", sdk.InternalServerError),
]

STREAM_INFO = {"stream": "events", "length": 3, "groups": []}


@pytest.mark.parametrize(("status", "code", "cls"), STATUS_CLASSES)
async def test_a_non_2xx_answer_raises_its_typed_error(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    status: int,
    code: str,
    cls: type[sdk.APIStatusError],
) -> None:
    """The generated layer's returned Problem becomes the raised class, with its details."""
    api.get("/v1/streams/events").mock(
        return_value=problem(status, code, "nope", headers={"X-Request-Id": "req_42"})
    )
    with pytest.raises(cls) as raised:
        await resolve(client.streams.length("events"))
    assert type(raised.value) is cls
    assert (raised.value.status_code, raised.value.code) == (status, code)
    assert raised.value.request_id == "req_42"
    assert str(raised.value) == f"{status} {code}: nope (request req_42)"


@pytest.mark.parametrize(
    "answer",
    [
        httpx.Response(400, text="<html>bad request</html>"),
        httpx.Response(400, json={"unexpected": "shape"}),
        httpx.Response(400, json={"type": "t", "title": "t", "status": 400, "code": "brand_new"}),
    ],
)
async def test_a_documented_error_the_generated_layer_cannot_read_keeps_its_status(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, answer: httpx.Response
) -> None:
    """HTML, another shape or an error code newer than the SDK is still a BadRequestError."""
    api.get("/v1/streams/events").mock(return_value=answer)
    with pytest.raises(sdk.BadRequestError) as raised:
        await resolve(client.streams.length("events"))
    assert raised.value.status_code == 400


async def test_a_newer_error_code_keeps_its_code(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """An error code this SDK does not know is passed through as `code`."""
    api.get("/v1/streams/events").mock(return_value=problem(404, "brand_new_not_found"))
    with pytest.raises(sdk.NotFoundError) as raised:
        await resolve(client.streams.length("events"))
    assert raised.value.code == "brand_new_not_found"


async def test_an_unreadable_success_is_a_response_validation_error(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A 2xx answer that does not match the document is APIResponseValidationError."""
    api.get("/v1/streams/events").mock(return_value=httpx.Response(200, json={"stream": "x"}))
    with pytest.raises(sdk.APIResponseValidationError) as raised:
        await resolve(client.streams.length("events"))
    assert raised.value.status_code == 200
    assert isinstance(raised.value.__cause__, KeyError)


@pytest.mark.parametrize(
    ("transport_error", "cls"),
    [
        (httpx.ConnectError("[Errno 111] Connection refused"), sdk.APIConnectionError),
        (httpx.RemoteProtocolError("peer closed connection"), sdk.APIConnectionError),
        (httpx.ReadTimeout("timed out"), sdk.APITimeoutError),
        (httpx.ConnectTimeout("timed out"), sdk.APITimeoutError),
    ],
)
async def test_transport_errors_are_wrapped_and_chained(
    make_client: object,
    api: respx.MockRouter,
    transport_error: httpx.TransportError,
    cls: type[sdk.APIConnectionError],
) -> None:
    """httpx errors become APIConnectionError/APITimeoutError raised from the original."""
    client = make_client(max_retries=0)  # type: ignore[operator]
    api.get("/v1/streams/events").mock(side_effect=transport_error)
    with pytest.raises(cls) as raised:
        await resolve(client.streams.length("events"))
    assert type(raised.value) is cls
    assert raised.value.__cause__ is transport_error
    assert "spool.test" in str(raised.value)


async def test_the_api_key_is_sent_as_a_bearer_token(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Every request carries Authorization: Bearer <key>."""
    route = api.get("/v1/streams/events").mock(return_value=httpx.Response(200, json=STREAM_INFO))
    assert await resolve(client.streams.length("events")) == 3
    assert route.calls.last.request.headers["Authorization"] == f"Bearer {API_KEY}"


async def test_a_client_without_a_key_sends_no_authorization(
    make_client: object, api: respx.MockRouter
) -> None:
    """Health needs no token, so a client may have none."""
    client = make_client(api_key=None)  # type: ignore[operator]
    route = api.get("/v1/health").mock(
        return_value=httpx.Response(
            200, json={"status": "ok", "store": "sqlite", "version": "0.1.0"}
        )
    )
    health = await resolve(client.health())
    assert health == sdk.Health(status="ok", store="sqlite", version="0.1.0")
    assert "Authorization" not in route.calls.last.request.headers


async def test_publish_failures_are_publish_errors_chained_to_the_typed_error(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """The API error stays reachable as __cause__; the message names target and reason."""
    api.post("/v1/streams/events/entries").mock(
        return_value=problem(403, "permission_denied", "token may not publish to 'events'")
    )
    with pytest.raises(sdk.PublishError) as raised:
        await resolve(client.publish("events", {"x": 1}))
    cause = raised.value.__cause__
    assert isinstance(cause, sdk.PermissionDeniedError)
    assert str(raised.value) == (
        "could not publish to events: 403 permission_denied: token may not publish to 'events'"
    )


async def test_an_unreachable_service_is_a_publish_error_with_a_connection_cause(
    make_client: object, api: respx.MockRouter
) -> None:
    """Like RillKit's example: the connection error is chained under the PublishError."""
    client = make_client(max_retries=0)  # type: ignore[operator]
    refused = httpx.ConnectError("[Errno 111] Connection refused")
    api.post("/v1/streams/events/entries").mock(side_effect=refused)
    with pytest.raises(sdk.PublishError, match="could not publish to events: could not connect"):
        await resolve(client.publish("events", {"x": 1}))


async def test_error_messages_never_contain_the_api_key(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Neither the typed error nor the PublishError mentions the key."""
    api.post("/v1/streams/events/entries").mock(return_value=problem(401, "unauthenticated"))
    with pytest.raises(sdk.PublishError) as raised:
        await resolve(client.publish("events", {}))
    for error in (raised.value, raised.value.__cause__):
        assert API_KEY not in str(error) and API_KEY not in repr(error)


async def test_publishing_succeeds(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A 201 returns the new entry id."""
    api.post("/v1/streams/events/entries").mock(return_value=appended("7-0"))
    assert await resolve(client.publish("events", {"x": 1})) == "7-0"


async def test_a_mock_patching_httpxs_transport_answers_the_sdks_own_clients(
    make_client: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pytest-httpx patches httpx's transports (respx, as the `api` fixture does, httpcore's
    pool): the SDK's own clients send through httpx's, so either mock answers every call.
    """
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={**STREAM_INFO, "length": 9})

    def mocked(transport: httpx.HTTPTransport, request: httpx.Request) -> httpx.Response:
        return answer(request)

    async def amocked(
        transport: httpx.AsyncHTTPTransport, request: httpx.Request
    ) -> httpx.Response:
        return answer(request)

    monkeypatch.setattr(httpx.HTTPTransport, "handle_request", mocked)
    monkeypatch.setattr(httpx.AsyncHTTPTransport, "handle_async_request", amocked)
    client = make_client()  # type: ignore[operator]
    assert await resolve(client.streams.length("events")) == 9
    assert [str(request.url) for request in seen] == [f"{BASE_URL}/v1/streams/events"]
    assert seen[0].headers["Authorization"] == f"Bearer {API_KEY}"


@pytest.mark.parametrize("base_url", [BASE_URL, f"{BASE_URL}/prefix", f"{BASE_URL}/prefix/"])
async def test_paths_join_the_base_url_as_httpx_joins_them(
    make_client: object, api: respx.MockRouter, base_url: str
) -> None:
    """A base URL with a path prefix keeps it, whatever its trailing slash, for every call."""
    route = api.get(f"{base_url.rstrip('/')}/v1/streams/orders:eu").mock(
        return_value=httpx.Response(200, json=STREAM_INFO)
    )
    client = make_client(base_url=base_url)  # type: ignore[operator]
    for _ in range(2):  # the second call reuses the joined URL
        assert await resolve(client.streams.length("orders:eu")) == 3
    assert route.call_count == 2


@pytest.mark.parametrize(
    "base_url",
    [
        BASE_URL,
        f"{BASE_URL}/",
        f"{BASE_URL}/prefix",
        f"{BASE_URL}/prefix/",
        "http://127.0.0.1:8321/a%20b/c",
    ],
)
@pytest.mark.parametrize("stream", ["orders", "orders:eu", "a-b_c.d", "x:y:z"])
async def test_the_url_sent_is_httpxs_own_join_byte_for_byte(
    make_client: object, base_url: str, stream: str
) -> None:
    """The absolute URL each request carries is the one an httpx client with this base URL
    makes of the same path, so a caller's client is never given the base URL to join it.
    """
    sent: list[httpx.URL] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request.url)
        return httpx.Response(200, json=STREAM_INFO)

    client = make_client(base_url=base_url)  # type: ignore[operator]
    with respx.mock() as anywhere:
        anywhere.route().mock(side_effect=answer)
        await resolve(client.streams.length(stream))
    path = _endpoints.get_stream._get_kwargs(stream)["url"]
    with httpx.Client(base_url=base_url.rstrip("/")) as http:
        expected = http.build_request("GET", path).url
    assert [url.raw_path for url in sent] == [expected.raw_path]
    assert [str(url) for url in sent] == [str(expected)]


def _generated_endpoints() -> list[str]:
    """Every generated endpoint module, as `<tag>.<operation>`."""
    modules = sorted((ROOT / "generated" / "api").glob("*/*.py"))
    return [f"{path.parent.name}.{path.stem}" for path in modules if path.stem != "__init__"]


def test_every_generated_endpoint_has_the_halves_the_transport_uses() -> None:
    """Each generated module has `_get_kwargs` and `_parse_response`, and asks to send only
    what the transport sends (method, url, params, headers, json).
    """
    names = _generated_endpoints()
    assert len(names) >= 30
    for name in names:
        module = importlib.import_module(f"generated.api.{name}")
        assert callable(module._get_kwargs) and callable(module._parse_response), name
        source = inspect.getsource(module._get_kwargs)
        sent = set(re.findall(r'_kwargs\["(\w+)"\]', source)) | set(
            re.findall(r'^\s+"(\w+)": ', source, re.M)
        )
        assert sent <= {"method", "url", "params", "headers", "json"}, (name, sent)


def test_the_facade_reaches_each_operation_as_its_generated_module() -> None:
    """`_endpoints.<operation>` is `generated.api.<tag>.<operation>`, kept after the first use;
    a name that is no operation the facade calls is an AttributeError.
    """
    by_operation = {name.partition(".")[2]: name for name in _generated_endpoints()}
    assert _endpoints.__all__
    for operation in _endpoints.__all__:
        module = getattr(_endpoints, operation)
        assert module is importlib.import_module(f"generated.api.{by_operation[operation]}")
        assert vars(_endpoints)[operation] is module
    with pytest.raises(AttributeError, match="has no attribute 'get_openapi_document'"):
        _endpoints.get_openapi_document  # noqa: B018


def test_the_sdks_own_http_clients_share_one_verifying_tls_context(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every client the SDK makes uses one TLS context, httpx's default: verification on."""
    context = _http.tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    made = record_http_clients(monkeypatch)
    first, second = sdk.Client(BASE_URL, API_KEY), sdk.AsyncClient(BASE_URL, API_KEY)
    assert [type(client.http) for client in made] == [httpx.Client, httpx.AsyncClient]
    # httpx uses an SSLContext given as `verify` as it is.
    assert all(client.options["verify"] is context for client in made)
    first.close()
    asyncio.run(second.close())


async def test_the_sdks_own_clients_send_no_cookie_back(
    make_client: object, api: respx.MockRouter
) -> None:
    """A cookie the service (or a load balancer) sets is not kept: calls carry the key alone."""
    route = api.get("/v1/streams/events").mock(
        return_value=httpx.Response(
            200, json=STREAM_INFO, headers={"Set-Cookie": "session=abc; Path=/"}
        )
    )
    client = make_client()  # type: ignore[operator]
    for _ in range(2):
        assert await resolve(client.streams.length("events")) == 3
    assert [call.request.headers.get("Cookie") for call in route.calls] == [None, None]
