"""Client and AsyncClient: identical surfaces, context managers, closing and documentation."""

from __future__ import annotations

import inspect

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import API_KEY, BASE_URL, TWINS, record_http_clients, resolve

# Methods that send nothing, so they are plain methods on both clients.
LOCAL = {
    "close_with",
    "publish_nowait",
    "publisher",
    "subscribe",
    "stop",
    "with_options",
    "__call__",
}


def public_methods(cls: type) -> dict[str, object]:
    """The public methods of a class (and __call__), by name."""
    return {
        name: member
        for name, member in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_") or name == "__call__"
    }


@pytest.mark.parametrize(("sync_class", "async_class"), TWINS, ids=lambda cls: cls.__name__)
def test_sync_and_async_surfaces_are_identical(sync_class: type, async_class: type) -> None:
    """Same method names and parameters; the async twin awaits whatever sends a request."""
    sync_methods = public_methods(sync_class)
    async_methods = public_methods(async_class)
    assert sorted(sync_methods) == sorted(async_methods)
    for name, sync_method in sync_methods.items():
        async_method = async_methods[name]
        sync_parameters = inspect.signature(sync_method).parameters  # type: ignore[arg-type]
        async_parameters = inspect.signature(async_method).parameters  # type: ignore[arg-type]
        assert [(p.name, p.kind, p.default) for p in sync_parameters.values()] == [
            (p.name, p.kind, p.default) for p in async_parameters.values()
        ], f"{sync_class.__name__}.{name}"
        assert not inspect.iscoroutinefunction(sync_method), name
        # A listing (its sync twin answers an Iterator) is iterated with `async for`, not awaited.
        iterated = str(inspect.signature(sync_method).return_annotation).startswith("Iterator[")  # type: ignore[arg-type]
        assert inspect.iscoroutinefunction(async_method) == (name not in LOCAL and not iterated), (
            name
        )


def test_both_clients_have_the_same_resources() -> None:
    """client.streams/queues/messages/url_groups/dead_letters exist on both, as twins."""
    sync_client = sdk.Client(BASE_URL)
    async_client = sdk.AsyncClient(BASE_URL)
    twins = dict(TWINS)
    for name in ("streams", "queues", "messages", "url_groups", "dead_letters"):
        assert twins[type(getattr(sync_client, name))] is type(getattr(async_client, name))
    sync_client.close()


def test_the_constructors_take_the_same_arguments() -> None:
    """base_url and api_key positional, everything else keyword-only."""
    for cls in (sdk.Client, sdk.AsyncClient):
        parameters = inspect.signature(cls).parameters
        assert list(parameters) == [
            "base_url",
            "api_key",
            "timeout",
            "max_retries",
            "retry_timeout",
            "codec",
            "http_client",
            "proxy",
            "batching",
        ]
        assert parameters["timeout"].default == 10.0
        assert parameters["max_retries"].default == 3
        assert all(
            parameters[name].kind is inspect.Parameter.KEYWORD_ONLY
            for name in ("timeout", "max_retries", "codec", "http_client", "proxy")
        )


def test_client_docstrings_have_usage_examples() -> None:
    """Client and AsyncClient document themselves with a Usage block."""
    for cls in (sdk.Client, sdk.AsyncClient, sdk.Stream, sdk.Publisher, sdk.Queue, sdk.Messages):
        assert "Usage:" in (cls.__doc__ or ""), cls.__name__


def test_the_sync_client_is_a_context_manager_that_closes() -> None:
    """Leaving the with block closes the HTTP client the SDK made."""
    with sdk.Client(BASE_URL) as client:
        assert isinstance(client, sdk.Client)
    with pytest.raises(RuntimeError):
        client.streams.length("events")


async def test_the_async_client_is_a_context_manager_that_closes() -> None:
    """Leaving the async with block closes the HTTP client the SDK made."""
    async with sdk.AsyncClient(BASE_URL) as client:
        assert isinstance(client, sdk.AsyncClient)
    with pytest.raises(RuntimeError):
        await client.streams.length("events")


async def test_a_callers_async_http_client_stays_open(api: respx.MockRouter) -> None:
    """An httpx.AsyncClient passed in is used as it is and left open."""
    api.get("/v1/health").mock(
        return_value=httpx.Response(200, json={"status": "ok", "store": "redis", "version": "1"})
    )
    async with httpx.AsyncClient() as http:
        async with sdk.AsyncClient(BASE_URL, "key", http_client=http) as client:
            assert (await client.health()).store == "redis"
        assert not http.is_closed


@pytest.mark.parametrize("flavour", ["sync", "async"])
async def test_close_with_runs_its_callbacks_once_after_the_clients_own_closing(
    flavour: str,
) -> None:
    """`close_with` callbacks run once, at the first close, in the order given (the async
    client awaits what they return); a caller's http_client can be closed that way.
    """
    http: httpx.Client | httpx.AsyncClient
    if flavour == "sync":
        http = httpx.Client()
        client: sdk.Client | sdk.AsyncClient = sdk.Client(BASE_URL, http_client=http)
    else:
        http = httpx.AsyncClient()
        client = sdk.AsyncClient(BASE_URL, http_client=http)
    ran: list[str] = []

    async def awaited() -> None:
        ran.append("awaited")

    client.close_with(lambda: ran.append("first"))
    client.close_with(http.close if isinstance(http, httpx.Client) else http.aclose)
    if isinstance(client, sdk.AsyncClient):
        client.close_with(awaited)
    client.close_with(lambda: ran.append(f"last, http closed: {http.is_closed}"))
    assert ran == [] and not http.is_closed
    await resolve(client.close())
    assert ran == ["first", *(["awaited"] if flavour == "async" else []), "last, http closed: True"]
    await resolve(client.close())
    assert len(ran) == (3 if flavour == "async" else 2)


HEALTH = {"status": "ok", "store": "sqlite", "version": "1"}


def _state(http: httpx.Client | httpx.AsyncClient) -> tuple[object, ...]:
    """What the SDK could have changed on a caller's client."""
    return (
        list(http.headers.multi_items()),
        http.base_url,
        http.timeout,
        list(http.cookies.items()),
    )


@pytest.mark.parametrize("flavour", ["sync", "async"])
@pytest.mark.parametrize("callers_base_url", [None, BASE_URL])
async def test_a_callers_http_client_is_never_modified(
    api: respx.MockRouter, flavour: str, callers_base_url: str | None
) -> None:
    """The base URL, the Bearer key and the timeout go on the SDK's own requests alone: the
    caller's client keeps its headers, base URL and timeout, and what it then sends elsewhere
    carries no Spool key. A base URL the caller's client has is the SDK's default one.
    """
    spool = api.get("/v1/health").mock(return_value=httpx.Response(200, json=HEALTH))
    elsewhere = api.get("http://elsewhere.test/ping").mock(return_value=httpx.Response(204))
    mine = api.get(f"{BASE_URL}/mine").mock(return_value=httpx.Response(204))
    options: dict[str, object] = {"headers": {"X-App": "orders"}, "timeout": 3.0}
    if callers_base_url is not None:
        options["base_url"] = callers_base_url
    http = (httpx.Client if flavour == "sync" else httpx.AsyncClient)(**options)  # type: ignore[arg-type]
    before = _state(http)
    base_url = None if callers_base_url is not None else BASE_URL
    client: sdk.Client | sdk.AsyncClient
    if isinstance(http, httpx.Client):
        client = sdk.Client(base_url, API_KEY, timeout=7.0, http_client=http)
    else:
        client = sdk.AsyncClient(base_url, API_KEY, timeout=7.0, http_client=http)
    assert (await resolve(client.health())).status == "ok"
    sent = spool.calls.last.request
    assert sent.headers["Authorization"] == f"Bearer {API_KEY}"
    assert sent.headers["X-App"] == "orders"
    assert sent.extensions["timeout"] == httpx.Timeout(7.0).as_dict()
    await resolve(client.close())
    assert _state(http) == before
    await resolve(http.get("http://elsewhere.test/ping"))
    if callers_base_url is not None:
        await resolve(http.get("/mine"))
        assert "Authorization" not in mine.calls.last.request.headers
    assert "Authorization" not in elsewhere.calls.last.request.headers
    assert elsewhere.calls.last.request.extensions["timeout"] == httpx.Timeout(3.0).as_dict()
    if isinstance(http, httpx.Client):
        http.close()
    else:
        await http.aclose()


@pytest.mark.parametrize("flavour", ["sync", "async"])
async def test_the_sdks_own_http_client_is_httpx_as_shipped(
    flavour: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client without http_client sends through a plain httpx client of its own, with its
    default headers and no base URL or Authorization of Spool's on it.
    """
    made = record_http_clients(monkeypatch)
    client = (
        sdk.Client(BASE_URL, API_KEY) if flavour == "sync" else sdk.AsyncClient(BASE_URL, API_KEY)
    )
    [own] = made
    http = own.http
    assert type(http) is (httpx.Client if flavour == "sync" else httpx.AsyncClient)
    assert http.base_url == httpx.URL("") and "Authorization" not in http.headers
    await resolve(client.close())
    assert http.is_closed
