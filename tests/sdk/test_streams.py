"""Publishing to streams and the other stream operations, on both clients."""

from __future__ import annotations

import datetime
import uuid
from typing import Any, TypedDict

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import appended, problem, resolve, sent_json


class Upper:
    """A custom codec: strings upper-cased on the way out, lower-cased on the way in."""

    def encode(self, value: Any) -> Any:
        """Upper-case."""
        return str(value).upper()

    def decode(self, value: Any) -> Any:
        """Lower-case."""
        return str(value).lower()


@pytest.fixture
def append(api: respx.MockRouter) -> respx.Route:
    """appendEntry on `events`, answering 201."""
    return api.post("/v1/streams/events/entries").mock(return_value=appended())


async def test_publish_by_name(client: sdk.Client | sdk.AsyncClient, append: respx.Route) -> None:
    """A plain name publishes the body and returns the entry id."""
    entry_id = await resolve(client.publish("events", {"type": "signup", "user": 42}))
    assert entry_id == "1793095014218-0"
    assert sent_json(append.calls.last) == {"body": {"type": "signup", "user": 42}}


async def test_the_streams_maxlen_is_approximate_by_default(
    client: sdk.Client | sdk.AsyncClient, append: respx.Route
) -> None:
    """A Stream's maxlen caps the stream, approximately."""
    await resolve(client.publish(sdk.Stream("events", maxlen=1000), {"type": "login"}))
    assert sent_json(append.calls.last) == {
        "body": {"type": "login"},
        "maxlen": 1000,
        "approximate": True,
    }


async def test_the_calls_maxlen_wins(
    client: sdk.Client | sdk.AsyncClient, append: respx.Route
) -> None:
    """maxlen on the call overrides the Stream's, including 0."""
    events = sdk.Stream("events", maxlen=1000)
    await resolve(client.publish(events, {}, maxlen=500))
    assert sent_json(append.calls.last)["maxlen"] == 500
    await resolve(client.publish(events, {}, maxlen=0))
    assert sent_json(append.calls.last)["maxlen"] == 0


async def test_approximate_false_asks_for_an_exact_cap(
    client: sdk.Client | sdk.AsyncClient, append: respx.Route
) -> None:
    """approximate=False is sent with the cap."""
    await resolve(client.publish(sdk.Stream("events", maxlen=10), {}, approximate=False))
    assert sent_json(append.calls.last)["approximate"] is False


async def test_minid_and_nomkstream_are_sent(
    client: sdk.Client | sdk.AsyncClient, append: respx.Route
) -> None:
    """Per-call trimming by id and refusing a missing stream reach the request."""
    await resolve(client.publish("events", {}, minid="1793095014000", nomkstream=True))
    assert sent_json(append.calls.last) == {
        "body": {},
        "minid": "1793095014000",
        "approximate": True,
        "nomkstream": True,
    }


async def test_publish_uses_only_name_maxlen_and_codec(
    client: sdk.Client | sdk.AsyncClient, append: respx.Route
) -> None:
    """The group of a Stream does not matter to publishing; its codec does."""
    orders = sdk.Stream("events", group="billing", codec=Upper())
    await resolve(client.publish(orders, "hello"))
    assert sent_json(append.calls.last) == {"body": "HELLO"}


async def test_the_clients_codec_is_the_default(make_client: Any, api: respx.MockRouter) -> None:
    """A codec given to the client encodes every body without a Stream codec."""
    client = make_client(codec=Upper())
    route = api.post("/v1/streams/events/entries").mock(return_value=appended())
    await resolve(client.publish("events", "hi"))
    assert sent_json(route.calls.last) == {"body": "HI"}


async def test_unusual_values_are_encoded_as_strings(
    client: sdk.Client | sdk.AsyncClient, append: respx.Route
) -> None:
    """The default codec does not raise on dates or UUIDs."""
    when = datetime.datetime(2026, 11, 29, tzinfo=datetime.UTC)
    key = uuid.uuid4()
    await resolve(client.publish("events", {"when": when, "key": key}))
    assert sent_json(append.calls.last)["body"] == {"when": str(when), "key": str(key)}


async def test_an_unencodable_body_is_a_publish_error_and_sends_nothing(
    client: sdk.Client | sdk.AsyncClient, append: respx.Route
) -> None:
    """NaN cannot be JSON: PublishError chained to the ValueError, no request."""
    with pytest.raises(sdk.PublishError, match="could not publish to events") as raised:
        await resolve(client.publish("events", {"x": float("nan")}))
    assert isinstance(raised.value.__cause__, ValueError)
    assert append.call_count == 0


@pytest.mark.parametrize("name", ["bad name", "", "x" * 129])
async def test_an_invalid_stream_name_raises_before_any_request(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, name: str
) -> None:
    """InvalidNameError at once; the mocked service sees nothing."""
    with pytest.raises(sdk.InvalidNameError):
        await resolve(client.publish(name, {}))
    assert api.calls.call_count == 0


async def test_an_invalid_maxlen_raises_before_any_request(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A negative cap is an InvalidArgumentError, not a 422 from the service."""
    with pytest.raises(sdk.InvalidArgumentError, match="maxlen"):
        await resolve(client.publish("events", {}, maxlen=-1))
    assert api.calls.call_count == 0


async def test_publish_many_sends_one_batch_and_returns_ids_in_order(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """All bodies go in one request with one key; the ids come back per item."""
    route = api.post("/v1/streams/events/batch").mock(
        return_value=httpx.Response(
            201, json={"stream": "events", "ids": ["5-0", "5-1"], "length": 2, "trimmed": 0}
        )
    )
    ids = await resolve(client.publish_many(sdk.Stream("events", maxlen=100), [{"n": 1}, {"n": 2}]))
    assert ids == ["5-0", "5-1"]
    assert sent_json(route.calls.last) == {
        "entries": [{"body": {"n": 1}}, {"body": {"n": 2}}],
        "maxlen": 100,
        "approximate": True,
    }
    assert route.calls.last.request.headers["Idempotency-Key"]


async def test_publish_many_of_nothing_sends_nothing(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """An empty batch is an empty result, not a 422."""
    assert await resolve(client.publish_many("events", [])) == []
    assert api.calls.call_count == 0


async def test_publish_many_refuses_more_than_the_batch_limit(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Over 1000 bodies is an InvalidArgumentError before any request."""
    with pytest.raises(sdk.InvalidArgumentError, match="1000"):
        await resolve(client.publish_many("events", [{}] * 1001))
    assert api.calls.call_count == 0


async def test_publish_many_failure_is_a_publish_error(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A refused batch raises PublishError with the typed cause."""
    api.post("/v1/streams/events/batch").mock(return_value=problem(413, "payload_too_large"))
    with pytest.raises(sdk.PublishError) as raised:
        await resolve(client.publish_many("events", [{}]))
    assert isinstance(raised.value.__cause__, sdk.PayloadTooLargeError)


async def test_length_and_info(client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter) -> None:
    """getStream becomes StreamInfo; length is its length."""
    api.get("/v1/streams/events").mock(
        return_value=httpx.Response(
            200,
            json={
                "stream": "events",
                "length": 2,
                "first_id": "1-0",
                "last_id": "2-0",
                "groups": [
                    {"group": "billing", "consumers": 1, "pending": 1, "last_delivered_id": "1-0"}
                ],
            },
        )
    )
    assert await resolve(client.streams.length("events")) == 2
    info = await resolve(client.streams.info(sdk.Stream("events")))
    assert info == sdk.StreamInfo(
        name="events",
        length=2,
        first_id="1-0",
        last_id="2-0",
        groups=[sdk.GroupInfo(group="billing", consumers=1, pending=1, last_delivered_id="1-0")],
    )


async def test_info_of_an_empty_stream_has_no_ends(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Absent first/last ids are None, not the generated layer's UNSET."""
    api.get("/v1/streams/events").mock(
        return_value=httpx.Response(200, json={"stream": "events", "length": 0, "groups": []})
    )
    info = await resolve(client.streams.info("events"))
    assert (info.first_id, info.last_id) == (None, None)


async def test_range_decodes_with_the_streams_codec(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Entries come back as Entry values, decoded, with the query as given."""
    route = api.get("/v1/streams/events/entries").mock(
        return_value=httpx.Response(
            200, json={"stream": "events", "entries": [{"id": "1-0", "body": "HELLO"}]}
        )
    )
    entries = await resolve(
        client.streams.range(sdk.Stream("events", codec=Upper()), start="1", count=5, reverse=True)
    )
    assert entries == [sdk.Entry(id="1-0", body="hello")]
    assert dict(route.calls.last.request.url.params) == {
        "start": "1",
        "end": "+",
        "count": "5",
        "reverse": "true",
    }


async def test_trim(client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter) -> None:
    """trim sends maxlen or minid and returns what is left."""
    route = api.post("/v1/streams/events/trim").mock(
        return_value=httpx.Response(200, json={"stream": "events", "length": 100, "trimmed": 12})
    )
    result = await resolve(client.streams.trim("events", maxlen=100, approximate=False))
    assert result == sdk.TrimResult(length=100, trimmed=12)
    assert sent_json(route.calls.last) == {"maxlen": 100, "approximate": False}


class _TrimBounds(TypedDict, total=False):
    """trim's bounds, either of which may be left out."""

    maxlen: int
    minid: str


async def test_trim_needs_exactly_one_bound(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Neither or both of maxlen and minid is an InvalidArgumentError."""
    bounds: tuple[_TrimBounds, ...] = ({}, {"maxlen": 1, "minid": "1"})
    for kwargs in bounds:
        with pytest.raises(sdk.InvalidArgumentError):
            await resolve(client.streams.trim("events", **kwargs))
    assert api.calls.call_count == 0


async def test_delete(client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter) -> None:
    """deleteStream answers 204 and returns None."""
    route = api.delete("/v1/streams/events").mock(return_value=httpx.Response(204))
    assert await resolve(client.streams.delete("events")) is None
    assert route.call_count == 1


async def test_groups(client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter) -> None:
    """create_group takes the group from the Stream; delete_group too."""
    create = api.post("/v1/streams/orders/groups").mock(
        return_value=httpx.Response(
            201, json={"group": "billing", "consumers": 0, "pending": 0, "last_delivered_id": "0-0"}
        )
    )
    delete = api.delete("/v1/streams/orders/groups/billing").mock(return_value=httpx.Response(204))
    orders = sdk.Stream("orders", group="billing")
    info = await resolve(client.streams.create_group(orders, start_id="0", mkstream=True))
    assert info.last_delivered_id == "0-0"
    assert sent_json(create.calls.last) == {"group": "billing", "start_id": "0", "mkstream": True}
    await resolve(client.streams.delete_group(orders))
    assert delete.call_count == 1


async def test_a_group_with_max_deliveries(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """max_deliveries is sent when given and read back; absent, it is None (unlimited)."""
    create = api.post("/v1/streams/orders/groups").mock(
        return_value=httpx.Response(
            201,
            json={
                "group": "billing",
                "consumers": 0,
                "pending": 0,
                "last_delivered_id": "0-0",
                "max_deliveries": 3,
            },
        )
    )
    orders = sdk.Stream("orders", group="billing")
    info = await resolve(client.streams.create_group(orders, max_deliveries=3))
    assert info.max_deliveries == 3
    assert sent_json(create.calls.last) == {
        "group": "billing",
        "start_id": "$",
        "mkstream": False,
        "max_deliveries": 3,
    }


@pytest.mark.parametrize(
    ("stream", "max_deliveries", "error"),
    [
        ("orders", 0, sdk.InvalidArgumentError),
        ("orders", 1_000_001, sdk.InvalidArgumentError),
        ("orders", True, sdk.InvalidArgumentError),
        ("orders", "3", sdk.InvalidArgumentError),
        ("o" * 124, 3, sdk.InvalidNameError),
    ],
)
async def test_an_unusable_max_deliveries_is_refused_before_sending(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    stream: str,
    max_deliveries: Any,
    error: type[Exception],
) -> None:
    """Out of 1..1000000, not an int, or a stream whose `<name>.dead` would be too long."""
    with pytest.raises(error):
        await resolve(client.streams.create_group(stream, "billing", max_deliveries=max_deliveries))
    assert api.calls.call_count == 0


async def test_a_group_operation_without_a_group_is_refused(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """No group on the call or the Stream: InvalidArgumentError, nothing sent."""
    with pytest.raises(sdk.InvalidArgumentError, match="consumer group"):
        await resolve(client.streams.pending("orders"))
    assert api.calls.call_count == 0


async def test_read_ack_claim_and_pending(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """The consumer-group calls send the spec's fields and return SDK values."""
    read = api.post("/v1/streams/orders/groups/billing/read").mock(
        return_value=httpx.Response(
            200,
            json={
                "stream": "orders",
                "group": "billing",
                "entries": [{"id": "1-0", "body": {"id": 7}, "delivery_count": 1}],
            },
        )
    )
    ack = api.post("/v1/streams/orders/groups/billing/ack").mock(
        return_value=httpx.Response(200, json={"acked": 1})
    )
    claim = api.post("/v1/streams/orders/groups/billing/claim").mock(
        return_value=httpx.Response(
            200,
            json={
                "stream": "orders",
                "group": "billing",
                "next_start_id": "0-0",
                "entries": [{"id": "1-0", "body": {"id": 7}, "delivery_count": 2}],
                "deleted_ids": ["0-1"],
                "dead_lettered_ids": ["0-2"],
            },
        )
    )
    pending = api.get("/v1/streams/orders/groups/billing/pending").mock(
        return_value=httpx.Response(
            200,
            json={
                "stream": "orders",
                "group": "billing",
                "pending": [{"id": "1-0", "consumer": "w1", "idle_ms": 1200, "delivery_count": 1}],
            },
        )
    )
    orders = sdk.Stream("orders", group="billing")
    entries = await resolve(client.streams.read_group(orders, consumer="w1", count=5, wait="2s"))
    assert entries == [sdk.DeliveredEntry(id="1-0", body={"id": 7}, delivery_count=1)]
    assert sent_json(read.calls.last) == {"consumer": "w1", "count": 5, "wait_ms": 2000}
    assert await resolve(client.streams.ack(orders, None, ["1-0"])) == 1
    assert sent_json(ack.calls.last) == {"ids": ["1-0"]}
    assert await resolve(client.streams.ack(orders, None, [])) == 0
    claimed = await resolve(client.streams.claim(orders, consumer="w2", min_idle="1m"))
    assert claimed == sdk.ClaimResult(
        entries=[sdk.DeliveredEntry(id="1-0", body={"id": 7}, delivery_count=2)],
        deleted_ids=["0-1"],
        next_start_id="0-0",
        dead_lettered_ids=["0-2"],
    )
    assert sent_json(claim.calls.last) == {
        "consumer": "w2",
        "min_idle_ms": 60000,
        "count": 100,
        "start_id": "0-0",
    }
    listed = await resolve(client.streams.pending(orders, count=10))
    assert listed == [
        sdk.PendingEntry(
            id="1-0",
            consumer="w1",
            idle=datetime.timedelta(milliseconds=1200),
            delivery_count=1,
        )
    ]
    assert pending.calls.last.request.url.params["count"] == "10"
    assert ack.call_count == 1


async def test_a_long_poll_over_the_spec_limit_is_refused(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """wait is at most 30 s."""
    with pytest.raises(sdk.InvalidDurationError):
        await resolve(
            client.streams.read_group(
                sdk.Stream("orders", group="billing"), consumer="w1", wait="31s"
            )
        )
    assert api.calls.call_count == 0
