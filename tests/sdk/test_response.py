"""`with_raw_response`: every call's HTTP answer, with what the plain call returns."""

from __future__ import annotations

import datetime
import inspect
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import respx

import sdk
from sdk._response import (
    AsyncClientWithRawResponse,
    AsyncDeadLettersWithRawResponse,
    AsyncFlowControlKeysWithRawResponse,
    AsyncMessagesWithRawResponse,
    AsyncQueuesWithRawResponse,
    AsyncQueueWithRawResponse,
    AsyncSchedulesWithRawResponse,
    AsyncStreamsWithRawResponse,
    AsyncUrlGroupsWithRawResponse,
    ClientWithRawResponse,
    DeadLettersWithRawResponse,
    FlowControlKeysWithRawResponse,
    MessagesWithRawResponse,
    QueuesWithRawResponse,
    QueueWithRawResponse,
    SchedulesWithRawResponse,
    StreamsWithRawResponse,
    UrlGroupsWithRawResponse,
)
from tests.sdk._support import BASE_URL, RECEIPT, appended, problem, resolve

ClientFactory = Callable[..., "sdk.Client | sdk.AsyncClient"]
JOB_RECEIPT = {"job_id": "job_1", "queue": "jobs", "topic": "email-jobs", "deduplicated": False}
STREAM = {"stream": "events", "length": 2, "groups": []}

# Each resource with its raw view, sync and async.
VIEWS: list[tuple[type, type]] = [
    (sdk.Streams, StreamsWithRawResponse),
    (sdk.AsyncStreams, AsyncStreamsWithRawResponse),
    (sdk.Queues, QueuesWithRawResponse),
    (sdk.AsyncQueues, AsyncQueuesWithRawResponse),
    (sdk.Queue, QueueWithRawResponse),
    (sdk.AsyncQueue, AsyncQueueWithRawResponse),
    (sdk.Messages, MessagesWithRawResponse),
    (sdk.AsyncMessages, AsyncMessagesWithRawResponse),
    (sdk.UrlGroups, UrlGroupsWithRawResponse),
    (sdk.AsyncUrlGroups, AsyncUrlGroupsWithRawResponse),
    (sdk.DeadLetters, DeadLettersWithRawResponse),
    (sdk.AsyncDeadLetters, AsyncDeadLettersWithRawResponse),
    (sdk.Schedules, SchedulesWithRawResponse),
    (sdk.AsyncSchedules, AsyncSchedulesWithRawResponse),
    (sdk.FlowControlKeys, FlowControlKeysWithRawResponse),
    (sdk.AsyncFlowControlKeys, AsyncFlowControlKeysWithRawResponse),
    (sdk.Client, ClientWithRawResponse),
    (sdk.AsyncClient, AsyncClientWithRawResponse),
]

# What sends no request of its own when called: these have no raw form.
NO_RAW_FORM = {
    # Background, decorators, the worker loop and the client's own lifecycle.
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


def raw_methods(resource: type) -> set[str]:
    """The public methods of `resource` that must have a raw form: all but NO_RAW_FORM and the
    listings, which page as they are iterated (annotated Iterator or AsyncIterator).
    """
    names = set()
    for name, member in inspect.getmembers(resource, callable):
        if name.startswith("_") or isinstance(member, type) or name in NO_RAW_FORM:
            continue
        returns = str(inspect.signature(member).return_annotation)
        if not returns.startswith(("Iterator[", "AsyncIterator[")):
            names.add(name)
    return names


# A client's resources, by attribute name.
RESOURCES = {
    "streams": sdk.Streams,
    "queues": sdk.Queues,
    "messages": sdk.Messages,
    "url_groups": sdk.UrlGroups,
    "dead_letters": sdk.DeadLetters,
    "schedules": sdk.Schedules,
    "flow_control": sdk.FlowControlKeys,
}


def raw_view(resource_class: type, client: sdk.Client | sdk.AsyncClient) -> object:
    """The raw view of `client`'s `resource_class` (of a queue "jobs" for a Queue)."""
    raw = client.with_raw_response
    plain = resource_class.__name__.removeprefix("Async")
    if plain == "Client":
        return raw
    if plain == "Queue":
        return raw.queue("jobs")
    return getattr(raw, next(name for name, cls in RESOURCES.items() if cls.__name__ == plain))


@pytest.mark.parametrize(("resource", "view"), VIEWS, ids=lambda cls: cls.__name__)
async def test_every_call_that_sends_a_request_has_its_raw_form(resource: type, view: type) -> None:
    """The view has exactly the resource's request-making methods (plus `queue` on the
    clients' views), each wrapping the method of the same name.
    """
    client_class = sdk.AsyncClient if resource.__name__.startswith("Async") else sdk.Client
    client = client_class(BASE_URL)
    try:
        raw = raw_view(resource, client)
        assert isinstance(raw, view)
        attributes = {name: value for name, value in vars(raw).items() if name[0] != "_"}
        wrapped = {name for name, value in attributes.items() if inspect.isfunction(value)}
        assert wrapped == raw_methods(resource)
        for name in wrapped:
            method = attributes[name]
            assert method.__wrapped__.__name__ == name
            assert inspect.iscoroutinefunction(method) == (client_class is sdk.AsyncClient)
        if resource in (sdk.Client, sdk.AsyncClient):
            views = {name: type(value) for name, value in attributes.items() if name not in wrapped}
            resources = {name: type(raw_view(cls, client)) for name, cls in RESOURCES.items()}
            assert views == resources
    finally:
        await resolve(client.close())


async def test_a_raw_publish_has_the_answer_and_the_result(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Status, headers, request id, elapsed time, the request; parse() is the entry id."""
    answer = appended("7-0")
    answer.headers["X-Request-Id"] = "req_1"
    route = api.post("/v1/streams/events/entries").mock(return_value=answer)
    raw = await resolve(client.with_raw_response.publish("events", {"n": 1}))
    assert isinstance(raw, sdk.RawResponse)
    assert (raw.status_code, raw.request_id, raw.retries_taken) == (201, "req_1", 0)
    assert raw.headers["content-type"] == "application/json"
    assert isinstance(raw.elapsed, datetime.timedelta)
    assert (raw.method, str(raw.url)) == ("POST", f"{BASE_URL}/v1/streams/events/entries")
    assert raw.json()["id"] == "7-0" and b"7-0" in raw.content and "7-0" in raw.text
    assert raw.parse() == "7-0"
    assert raw.http_response.request.headers["idempotency-key"]
    assert repr(raw) == "<RawResponse [201] POST /v1/streams/events/entries>"
    assert route.call_count == 1


async def test_a_retried_call_is_its_last_attempts_answer(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Two failures then a success: the 200, and two retries taken."""
    api.get("/v1/streams/events").mock(
        side_effect=[
            problem(503, "unavailable"),
            httpx.ConnectError("refused"),
            httpx.Response(200, json=STREAM),
        ]
    )
    raw = await resolve(client.with_raw_response.streams.length("events"))
    assert (raw.status_code, raw.retries_taken, raw.parse()) == (200, 2, 2)


async def test_a_failure_raises_as_the_plain_call_does(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A raw call does not turn errors into answers: the typed error, with its status."""
    api.get("/v1/streams/events").mock(return_value=problem(404, "stream_not_found"))
    with pytest.raises(sdk.NotFoundError):
        await resolve(client.with_raw_response.streams.info("events"))


async def test_a_call_that_sends_nothing_has_no_raw_response(
    client: sdk.Client | sdk.AsyncClient,
) -> None:
    """publish_many of no bodies sends no request: a typed error says so."""
    with pytest.raises(sdk.InvalidArgumentError, match=r"publish_many\(\) sent no request"):
        await resolve(client.with_raw_response.publish_many("events", []))


async def test_raw_publishes_are_never_batched(
    make_client: ClientFactory, api: respx.MockRouter
) -> None:
    """On a batching client the raw publish is still one request with its own answer."""
    client = make_client(batching=True)
    single = api.post("/v1/streams/events/entries").mock(return_value=appended("3-0"))
    raw = await resolve(client.with_raw_response.publish("events", {}))
    assert raw.parse() == "3-0" and single.call_count == 1


async def test_a_queues_calls_have_raw_forms(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """`queue(name)` sends nothing itself; its publish answers 202 with the receipt."""
    api.post("/v1/queues/jobs/jobs").mock(return_value=httpx.Response(202, json=JOB_RECEIPT))
    raw = await resolve(client.with_raw_response.queue("jobs").publish("email-jobs", {}))
    assert raw.status_code == 202
    assert raw.parse().job_id == "job_1"
    with pytest.raises(sdk.InvalidNameError):
        client.with_raw_response.queue("no spaces")


async def test_an_overloaded_call_keeps_its_result(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """messages.publish_json to a URL: one receipt, parsed as the plain call parses it."""
    api.post("/v1/messages").mock(return_value=httpx.Response(202, json={"messages": [RECEIPT]}))
    raw = await resolve(
        client.with_raw_response.messages.publish_json(url="https://my-api.test/hook", body={})
    )
    assert raw.parse().message_id == "msg_1"


async def test_the_raw_view_follows_with_options(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A derived client's raw view sends the derived client's headers."""
    route = api.get("/v1/health").mock(
        return_value=httpx.Response(200, json={"status": "ok", "store": "sqlite", "version": "1"})
    )
    raw = await resolve(
        client.with_options(headers={"X-Tenant": "acme"}).with_raw_response.health()
    )
    assert raw.parse().status == "ok"
    assert route.calls.last.request.headers["x-tenant"] == "acme"


def test_the_raw_view_is_made_once(make_client: ClientFactory) -> None:
    """`with_raw_response` is the same object each time: no client is made per access."""
    client: Any = make_client()
    assert client.with_raw_response is client.with_raw_response
