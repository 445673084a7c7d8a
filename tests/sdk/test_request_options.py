"""Per-call request options: `timeout=`, `max_retries=` and `extra_headers=` on every call that
sends requests, sync and async, raw responses included.

The every-call test finds the calls by introspection: each public method of the classes in
TWINS (and of each resource a client holds), but those that send no request of their own when
called. A method added later is covered as soon as it exists, and fails here until it takes
the options, or until SAMPLES knows how to fill a required parameter it is the first to have.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import (
    API_KEY,
    BASE_URL,
    QUEUE,
    RECEIPT,
    TWINS,
    appended,
    collect,
    problem,
    resolve,
    sent_json,
)

ClientFactory = Callable[..., "sdk.Client | sdk.AsyncClient"]
STREAM = {"stream": "events", "length": 2, "groups": []}

# What sends no request of its own when called: the worker and its decorators, the client's
# lifecycle, and publish_nowait, whose publishes share requests made later (it refuses them).
NOT_CALLS = frozenset(
    {
        "publish_nowait",
        "publisher",
        "subscribe",
        "run",
        "stop",
        "flush",
        "close",
        "close_with",
        "embedded",
        "with_options",
    }
)

LEASED = sdk.LeasedJob(
    job_id="job_1",
    queue="jobs",
    topic="email-jobs",
    payload={},
    attempt=1,
    lease_id="lease_1",
    lease_expires_at=datetime(2026, 11, 29, 12, 0, 30, tzinfo=UTC),
    published_at=datetime(2026, 11, 29, 12, 0, tzinfo=UTC),
)
# A value for each required parameter, by name (and annotation where one name has two types).
SAMPLES: dict[str, Any] = {
    "bodies": [{"n": 1}],
    "body": "hello",
    "consumer": "worker-1",
    "cron": "0 * * * *",
    "destination": sdk.StreamDestination("events", {"n": 1}),
    "endpoints": ["https://example.test/hook"],
    "group": "billing",
    "ids": ["1-0"],
    "job": LEASED,
    "job_id": "job_1",
    "key": "acme",
    "jobs: Iterable[JobRequest | tuple[str, Any]]": [("email-jobs", {})],
    "jobs: Iterable[LeasedJob]": [LEASED],
    "lease": 30,
    "message_id": "msg_1",
    "message_ids: Iterable[str]": ["msg_1"],
    "messages": [sdk.MessageRequest(url="https://example.test/hook", body="hello")],
    "min_idle": 1,
    "name": "jobs",
    "payload": {},
    "stream": sdk.Stream("events", group="billing"),
    "topic": "email-jobs",
}
# Optional parameters given wherever they are taken, since some calls need one of a pair: `url`
# or `url_group` of a message publish, `maxlen` or `minid` of a trim.
ALSO = {"url": "https://example.test/hook", "maxlen": 10}
PROBE = "X-Probe"


def calls() -> Iterator[tuple[type, str]]:
    """Every (class, method) pair that must take the request options."""
    for pair in TWINS:
        for cls in pair:
            for name, member in inspect.getmembers(cls, callable):
                if name.startswith("_") or isinstance(member, type) or name in NOT_CALLS:
                    continue
                yield cls, name


CALLS = sorted(calls(), key=lambda pair: (pair[0].__name__, pair[1]))


def options_type(function: Callable[..., Any]) -> type:
    """The TypedDict of `function`'s `**options`."""
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind is parameter.VAR_KEYWORD:
            typed = re.fullmatch(r"Unpack\[(\w+)\]", str(parameter.annotation))
            assert typed is not None, f"{function.__qualname__}: **{parameter.name} is untyped"
            found: type = getattr(sdk, typed[1])
            return found
    raise AssertionError(f"{function.__qualname__} takes no **options: Unpack[RequestOptions]")


def timeout_keyword(function: Callable[..., Any]) -> str:
    """`timeout`, or `request_timeout` for the message publishes, whose `timeout` is the
    delivery's.
    """
    return (
        "request_timeout"
        if "request_timeout" in options_type(function).__annotations__
        else ("timeout")
    )


def arguments(function: Callable[..., Any]) -> dict[str, Any]:
    """Values for the required parameters of `function`, from SAMPLES."""
    parameters = inspect.signature(function).parameters
    values = {name: value for name, value in ALSO.items() if name in parameters}
    for parameter in parameters.values():
        if parameter.name == "self" or parameter.default is not parameter.empty:
            continue
        if parameter.kind in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL):
            continue
        key = f"{parameter.name}: {parameter.annotation}"
        if key not in SAMPLES and parameter.name not in SAMPLES:
            pytest.fail(f"{function.__qualname__}: add a sample of {key} to SAMPLES")
        values[parameter.name] = SAMPLES.get(key, SAMPLES.get(parameter.name))
    return values


def recording(requests: list[httpx.Request]) -> Callable[[httpx.Request], httpx.Response]:
    """A service that records each request carrying the probe header and answers it 503, so
    that no answer needs to be read and every call fails the same way; `init_queue`'s check of
    the queue, without the header, finds it.
    """

    def answer(request: httpx.Request) -> httpx.Response:
        if PROBE not in request.headers:
            return httpx.Response(200, json=QUEUE)
        requests.append(request)
        return problem(503, "unavailable")

    return answer


async def instances(client: sdk.Client | sdk.AsyncClient) -> dict[type, tuple[object, object]]:
    """Each class of the facade with an instance on `client` and its raw view (None without
    one): the client, every resource it holds, a queue and a publisher.
    """
    raw = client.with_raw_response
    found: dict[type, tuple[object, object]] = {type(client): (client, raw)}
    for name, resource in vars(client).items():
        if not name.startswith("_"):
            found[type(resource)] = (resource, getattr(raw, name, None))
    queue = await resolve(client.init_queue("jobs"))
    found[type(queue)] = (queue, raw.queue("jobs"))
    publisher = client.publisher("events")
    found[type(publisher)] = (publisher, None)
    return found


async def call(function: Callable[..., Any], **kwargs: Any) -> None:
    """Call `function` and, for a listing, reach its first page."""
    result = function(**kwargs)
    if inspect.isawaitable(result):
        await result
    elif isinstance(result, Iterator | AsyncIterator):
        await collect(result)


def test_the_calls_are_found() -> None:
    """The discovery finds every kind of call, so a rename cannot empty the tests below."""
    found = {f"{cls.__name__}.{name}" for cls, name in CALLS}
    assert {
        "Client.publish",
        "Client.health",
        "Client.whoami",
        "Client.init_queue",
        "AsyncStreams.list",
        "Streams.read_group",
        "Queue.lease",
        "AsyncQueue.ack_many",
        "Messages.publish_json",
        "Messages.list",
        "AsyncUrlGroups.upsert",
        "DeadLetters.retry",
        "AsyncSchedules.set",
        "Publisher.publish",
        "AsyncPublisher.publish",
    } <= found
    assert not {name for _, name in CALLS} & NOT_CALLS


@pytest.mark.parametrize(("cls", "name"), CALLS, ids=[f"{c.__name__}.{n}" for c, n in CALLS])
async def test_every_call_takes_the_request_options(
    cls: type, name: str, api: respx.MockRouter
) -> None:
    """Each call, and its raw form, sends its requests with the call's timeout, retries and
    headers: one attempt (the client would retry a 503 three times), the timeout on the
    request, the header on the wire.
    """
    requests: list[httpx.Request] = []
    api.route().mock(side_effect=recording(requests))
    client_class = sdk.AsyncClient if cls.__name__.startswith("Async") else sdk.Client
    client = client_class(BASE_URL, API_KEY, max_retries=3)
    try:
        instance, raw = (await instances(client))[cls]
        function = getattr(instance, name)
        timeout = timeout_keyword(function)
        taken = set(options_type(function).__annotations__)
        assert {timeout, "max_retries", "extra_headers"} <= taken
        forms = [("plain", function)]
        if raw is not None and hasattr(raw, name):
            forms.append(("raw", getattr(raw, name)))
        for form, method in forms:
            requests.clear()
            options = {
                timeout: 1.25,
                "max_retries": 0,
                "extra_headers": {PROBE: f"{form} {name}"},
            }
            with pytest.raises((sdk.APIError, sdk.PublishError)):
                await call(method, **arguments(function), **options)
            assert len(requests) == 1, f"{form}: {len(requests)} attempts"
            (request,) = requests
            assert request.headers[PROBE] == f"{form} {name}"
            assert request.headers["authorization"] == f"Bearer {API_KEY}"
            assert request.extensions["timeout"] == httpx.Timeout(1.25).as_dict()
    finally:
        await resolve(client.close())


@pytest.mark.parametrize(("cls", "name"), CALLS, ids=[f"{c.__name__}.{n}" for c, n in CALLS])
async def test_every_call_suggests_the_request_option_meant(
    cls: type, name: str, api: respx.MockRouter
) -> None:
    """A misspelled option is a TypeError naming the right one, before any request: `**options`
    would otherwise take any name in silence.
    """
    api.route().mock(return_value=httpx.Response(200, json=QUEUE))
    client_class = sdk.AsyncClient if cls.__name__.startswith("Async") else sdk.Client
    client = client_class(BASE_URL, API_KEY)
    try:
        instance, _ = (await instances(client))[cls]
        function = getattr(instance, name)
        sent = api.calls.call_count
        timeout = timeout_keyword(function)
        for keyword in (timeout, "max_retries", "extra_headers"):
            typo = keyword.replace("timeout", "tiemout").replace("headers", "header")
            typo = typo.replace("retries", "retires")
            message = f"unexpected keyword argument {typo!r}; did you mean {keyword!r}?"
            with pytest.raises(TypeError, match=re.escape(message)):
                await call(function, **arguments(function), **{typo: 1})
        assert api.calls.call_count == sent
    finally:
        await resolve(client.close())


@pytest.mark.parametrize(
    ("name", "instead"),
    [
        ("Authorization", "api_key="),
        ("idempotency-key", "idempotency_key="),
        ("Content-Type", "encodes the body"),
        ("Content-Length", "encodes the body"),
        ("Transfer-Encoding", "encodes the body"),
        ("host", "base_url="),
    ],
)
async def test_the_sdks_own_headers_are_refused_before_anything_is_sent(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, name: str, instead: str
) -> None:
    """As `with_options(headers=)` refuses them, naming what to use, never showing the value;
    on a plain call, a publish, a listing and a message publish alike.
    """
    route = api.route().mock(return_value=problem(503, "unavailable"))
    headers = {name: "Bearer stolen"}
    attempts: list[Callable[[], Any]] = [
        lambda: client.streams.info("events", extra_headers=headers),
        lambda: client.publish("events", {}, extra_headers=headers),
        lambda: collect(client.streams.list(extra_headers=headers)),
        lambda: client.messages.publish(url="https://a.test/h", body="x", extra_headers=headers),
    ]
    for attempt in attempts:
        with pytest.raises(sdk.ConfigurationError, match=instead) as raised:
            await resolve(attempt())
        assert "stolen" not in str(raised.value)
    assert route.call_count == 0


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"timeout": 0}, "timeout must be a positive number"),
        ({"timeout": "fast"}, "timeout must be seconds"),
        ({"max_retries": -1}, "max_retries must be an int >= 0"),
        ({"max_retries": True}, "max_retries must be an int >= 0"),
        ({"extra_headers": [("X-A", "b")]}, "extra_headers must be a mapping"),
        ({"extra_headers": {"X A": "b"}}, "not a valid HTTP header name"),
        ({"extra_headers": {"X-Key": "line\r\nbreak-secret"}}, "a value HTTP cannot send"),
        ({"extra_headers": {"X-Key": 42}}, "must have a str value"),
    ],
)
async def test_bad_values_are_configuration_errors(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    options: dict[str, Any],
    match: str,
) -> None:
    """Each option is checked as `with_options` checks its own, before anything is sent."""
    route = api.route().mock(return_value=httpx.Response(200, json=STREAM))
    with pytest.raises(sdk.ConfigurationError, match=match) as raised:
        await resolve(client.streams.info("events", **options))
    assert "secret" not in str(raised.value)
    assert route.call_count == 0


async def test_a_call_with_nothing_to_send_checks_its_options_all_the_same(
    client: sdk.Client | sdk.AsyncClient,
) -> None:
    """No bodies, no ids: nothing is sent, and a bad option is refused as if it were."""
    with pytest.raises(sdk.ConfigurationError, match="Authorization"):
        await resolve(client.publish_many("events", [], extra_headers={"Authorization": "x"}))
    with pytest.raises(sdk.ConfigurationError, match="max_retries"):
        await resolve(client.streams.ack("events", "billing", [], max_retries=-1))
    assert await resolve(client.publish_many("events", [], timeout=2)) == []


async def test_a_message_publishes_request_timeout_is_its_timeout(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """`timeout` stays the delivery's, in the message; `request_timeout` bounds the request and
    is checked under its own name.
    """
    route = api.post("/v1/messages").mock(
        return_value=httpx.Response(202, json={"messages": [RECEIPT]})
    )
    await resolve(
        client.messages.publish_json(
            url="https://a.test/h", body={}, timeout=30, request_timeout=2.5
        )
    )
    request = route.calls.last.request
    assert request.extensions["timeout"] == httpx.Timeout(2.5).as_dict()
    assert sent_json(route.calls.last)["timeout"] == 30
    with pytest.raises(sdk.ConfigurationError, match="request_timeout must be seconds"):
        await resolve(
            client.messages.publish_json(
                url="https://a.test/h",
                body={},
                request_timeout="2s",  # type: ignore[call-overload]
            )
        )
    assert route.call_count == 1


async def test_the_timeout_bounds_each_attempt_and_this_call_only(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A retried call sends every attempt with its timeout (an httpx.Timeout as it is); the
    client's next call has the client's own.
    """
    route = api.get("/v1/streams/events").mock(
        side_effect=[
            problem(503, "unavailable"),
            httpx.Response(200, json=STREAM),
            httpx.Response(200, json=STREAM),
        ]
    )
    timeout = httpx.Timeout(4.0, connect=1.0)
    assert await resolve(client.streams.length("events", timeout=timeout)) == 2
    assert await resolve(client.streams.length("events")) == 2
    sent = [call.request.extensions["timeout"] for call in route.calls]
    assert sent == [timeout.as_dict(), timeout.as_dict(), httpx.Timeout(10.0).as_dict()]


async def test_max_retries_replaces_the_clients_for_the_call(
    make_client: ClientFactory, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """More retries than the client's on one call, and the client's again on the next."""
    client = make_client(max_retries=0)
    route = api.get("/v1/streams/events").mock(return_value=problem(503, "unavailable"))
    with pytest.raises(sdk.InternalServerError):
        await resolve(client.streams.length("events", max_retries=2))
    assert (route.call_count, len(sleeps)) == (3, 2)
    with pytest.raises(sdk.InternalServerError):
        await resolve(client.streams.length("events"))
    assert route.call_count == 4


async def test_extra_headers_add_to_the_clients_and_win_over_them(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A header the derived client sends too is sent once, with the call's value (in any letter
    case); the others stay, and the next call has the client's own again.
    """
    route = api.post("/v1/streams/events/entries").mock(return_value=appended())
    acme = client.with_options(headers={"X-Tenant": "acme", "X-Trace": "1"})
    headers = {"x-tenant": "beta"}
    await resolve(acme.publish("events", {}, extra_headers=headers))
    await resolve(acme.publish("events", {}))
    first, second = (call.request.headers for call in route.calls)
    assert first.get_list("x-tenant") == ["beta"] and first["x-trace"] == "1"
    assert second["x-tenant"] == "acme"
    assert first["authorization"] == second["authorization"] == f"Bearer {API_KEY}"
    assert headers == {"x-tenant": "beta"}


async def test_every_page_of_a_listing_is_fetched_with_the_options(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """The options go with the iterator: the second page, fetched later, has them too."""
    summary = {"length": 0, "group_count": 0}
    route = api.get("/v1/streams").mock(
        side_effect=[
            httpx.Response(
                200, json={"streams": [{"stream": "a", **summary}], "next_cursor": "czph"}
            ),
            httpx.Response(
                200, json={"streams": [{"stream": "b", **summary}], "next_cursor": None}
            ),
        ]
    )
    streams = client.streams.list(timeout=3, extra_headers={"X-Tenant": "acme"})
    assert [stream.name for stream in await collect(streams)] == ["a", "b"]
    assert [call.request.headers["x-tenant"] for call in route.calls] == ["acme", "acme"]
    timeouts = [call.request.extensions["timeout"] for call in route.calls]
    assert timeouts == [httpx.Timeout(3.0).as_dict()] * 2


async def test_a_batching_clients_publish_with_options_is_sent_alone(
    make_client: ClientFactory, api: respx.MockRouter
) -> None:
    """A batch is one request for many callers, so a publish with options of its own goes on its
    own, as one with its own idempotency key does; the others are still batched.
    """
    client = make_client(batching=True)
    single = api.post("/v1/streams/events/entries").mock(return_value=appended("3-0"))
    batch = api.post("/v1/streams/events/batch").mock(
        return_value=httpx.Response(
            201, json={"ids": ["4-0"], "stream": "events", "length": 1, "trimmed": 0}
        )
    )
    jobs = api.post("/v1/queues/jobs/jobs").mock(
        return_value=httpx.Response(
            202,
            json={"job_id": "job_1", "queue": "jobs", "topic": "email", "deduplicated": False},
        )
    )
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    assert await resolve(client.publish("events", {}, extra_headers={"X-A": "1"})) == "3-0"
    assert await resolve(client.publish("events", {})) == "4-0"
    queue = await resolve(client.init_queue("jobs"))
    receipt = await resolve(queue.publish("email", {}, timeout=2))
    assert receipt.job_id == "job_1"
    assert single.calls.last.request.headers["x-a"] == "1"
    assert (single.call_count, batch.call_count, jobs.call_count) == (1, 1, 1)
    assert "x-a" not in batch.calls.last.request.headers
    assert jobs.calls.last.request.extensions["timeout"] == httpx.Timeout(2).as_dict()


async def test_publish_nowait_refuses_the_options_and_says_where_they_go(
    client: sdk.Client | sdk.AsyncClient,
) -> None:
    """Its publishes share requests made later, so it takes none: the TypeError says to set
    them on the client, and type checkers refuse the call too.
    """
    for publish_nowait in (client.publish_nowait, client.streams.publish_nowait):
        with pytest.raises(TypeError, match=r"takes no per-call request options") as raised:
            publish_nowait("events", {}, timeout=2)  # type: ignore[call-arg]
        assert "client.with_options(timeout=...)" in str(raised.value)


async def test_a_raw_response_shows_the_request_sent_with_the_options(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """`with_raw_response` passes the options on: its request is the one sent with them."""
    api.get("/v1/streams/events").mock(return_value=httpx.Response(200, json=STREAM))
    raw = await resolve(
        client.with_raw_response.streams.info("events", extra_headers={"X-Tenant": "acme"})
    )
    assert raw.http_response.request.headers["x-tenant"] == "acme"
    assert raw.parse().length == 2
