"""Streams against the real service: publish, caps, publishers, inspection, batches, idempotency."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import re
import uuid
from collections.abc import Callable

import pydantic
import pytest

import sdk
from tests.e2e.conftest import AnyClient
from tests.sdk._support import resolve

pytestmark = pytest.mark.slow

ENTRY_ID = re.compile(r"\d+-\d+")


async def _bodies(client: AnyClient, stream: str) -> list[object]:
    return [entry.body for entry in await resolve(client.streams.range(stream))]


async def test_publish_returns_an_entry_id(client: AnyClient, name: Callable[[str], str]) -> None:
    """`client.publish("events", {...})` appends the body and returns an id like 1793095014218-0."""
    events = name("events")
    entry_id = await resolve(client.publish(events, {"type": "signup", "user": 42}))
    assert ENTRY_ID.fullmatch(entry_id)
    [entry] = await resolve(client.streams.range(events))
    assert (entry.id, entry.body) == (entry_id, {"type": "signup", "user": 42})


async def test_ids_increase_in_publish_order(client: AnyClient, name: Callable[[str], str]) -> None:
    """Entries keep their order, and each id is greater than the one before."""
    events = name("events")
    ids = [await resolve(client.publish(events, {"n": n})) for n in range(5)]
    as_numbers = [tuple(int(part) for part in entry_id.split("-")) for entry_id in ids]
    assert as_numbers == sorted(as_numbers) and len(set(ids)) == 5
    assert await _bodies(client, events) == [{"n": n} for n in range(5)]


async def test_a_stream_definition_caps_the_stream(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """`Stream(name, maxlen=...)`: publish keeps the stream near its cap (never below it)."""
    events = sdk.Stream(name("events"), maxlen=1000)
    for n in range(5):
        await resolve(client.publish(events, {"type": "login", "n": n}))
    assert await resolve(client.streams.length(events)) == 5
    capped = sdk.Stream(name("capped"), maxlen=3)
    for n in range(20):
        await resolve(client.publish(capped, {"n": n}))
    assert 3 <= await resolve(client.streams.length(capped)) <= 20


async def test_exact_cap_keeps_exactly_maxlen(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """`approximate=False`: after every publish past the cap, the length is exactly maxlen."""
    events = sdk.Stream(name("events"), maxlen=3)
    for n in range(8):
        await resolve(client.publish(events, {"n": n}, approximate=False))
        assert await resolve(client.streams.length(events)) == min(n + 1, 3)
    assert await _bodies(client, events.name) == [{"n": 5}, {"n": 6}, {"n": 7}]


async def test_the_calls_maxlen_wins_over_the_streams(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """`client.publish(EVENTS, {...}, maxlen=2)` caps at 2 though the Stream says 1000."""
    events = sdk.Stream(name("events"), maxlen=1000)
    for n in range(6):
        await resolve(client.publish(events, {"n": n}, maxlen=2, approximate=False))
    assert await resolve(client.streams.length(events)) == 2


async def test_nomkstream_refuses_a_missing_stream(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """`nomkstream=True` on a stream that does not exist is a PublishError from a 404."""
    with pytest.raises(sdk.PublishError) as caught:
        await resolve(client.publish(name("missing"), {"a": 1}, nomkstream=True))
    assert isinstance(caught.value.__cause__, sdk.NotFoundError)


async def test_a_publisher_publishes_to_its_stream(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """`client.publisher("events").publish({...})`, with the publisher's maxlen applied."""
    events, invoices = name("events"), name("invoices")
    audit = client.publisher(events)
    entry_id = await resolve(audit.publish({"type": "audit"}))
    assert ENTRY_ID.fullmatch(entry_id)
    assert await _bodies(client, events) == [{"type": "audit"}]
    capped = client.publisher(invoices, maxlen=2, approximate=False)
    for n in range(4):
        await resolve(capped.publish({"invoice": n}))
    assert await _bodies(client, invoices) == [{"invoice": 2}, {"invoice": 3}]


async def test_length_info_range_and_trim(client: AnyClient, name: Callable[[str], str]) -> None:
    """The inspection calls agree with what was published, and trim removes the oldest."""
    events = name("events")
    ids = [await resolve(client.publish(events, {"n": n})) for n in range(6)]
    await resolve(client.streams.create_group(events, "billing", start_id="0"))
    assert await resolve(client.streams.length(events)) == 6
    info = await resolve(client.streams.info(events))
    assert (info.name, info.length, info.first_id, info.last_id) == (events, 6, ids[0], ids[-1])
    assert [group.group for group in info.groups] == ["billing"]
    some = await resolve(client.streams.range(events, start=ids[1], end=ids[3]))
    assert [entry.id for entry in some] == ids[1:4]
    newest = await resolve(client.streams.range(events, count=2, reverse=True))
    assert [entry.body for entry in newest] == [{"n": 5}, {"n": 4}]
    trimmed = await resolve(client.streams.trim(events, maxlen=2, approximate=False))
    assert (trimmed.length, trimmed.trimmed) == (2, 4)
    assert await _bodies(client, events) == [{"n": 4}, {"n": 5}]


async def test_a_missing_stream_is_not_found(client: AnyClient, name: Callable[[str], str]) -> None:
    """Inspecting a stream that was never published to raises NotFoundError with the code."""
    with pytest.raises(sdk.NotFoundError) as caught:
        await resolve(client.streams.length(name("missing")))
    assert caught.value.status_code == 404 and caught.value.request_id


async def test_publish_many_appends_all_in_order(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """`publish_many` uses one batch request and returns one id per body, in order."""
    events = name("events")
    ids = await resolve(client.publish_many(events, [{"n": n} for n in range(4)]))
    assert len(ids) == 4 and all(ENTRY_ID.fullmatch(entry_id) for entry_id in ids)
    entries = await resolve(client.streams.range(events))
    assert [(entry.id, entry.body) for entry in entries] == [
        (entry_id, {"n": n}) for n, entry_id in enumerate(ids)
    ]


async def test_the_same_idempotency_key_appends_once(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """Publishing twice with one idempotency key returns the first id and appends nothing new."""
    events = name("events")
    key = f"key-{uuid.uuid4().hex}"
    first = await resolve(client.publish(events, {"a": 1}, idempotency_key=key))
    second = await resolve(client.publish(events, {"a": 1}, idempotency_key=key))
    assert first == second
    assert await resolve(client.streams.length(events)) == 1
    batch_key = f"key-{uuid.uuid4().hex}"
    batch = await resolve(
        client.publish_many(events, [{"b": 1}, {"b": 2}], idempotency_key=batch_key)
    )
    again = await resolve(
        client.publish_many(events, [{"b": 1}, {"b": 2}], idempotency_key=batch_key)
    )
    assert batch == again
    assert await resolve(client.streams.length(events)) == 3


@dataclasses.dataclass
class _Point:
    x: int
    y: int


class _Order(pydantic.BaseModel):
    id: int
    placed: datetime.date


async def test_the_default_codec_turns_rich_values_into_strings(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """Dates, UUIDs, decimals and dataclasses arrive as strings; pydantic models as their JSON."""
    events = name("events")
    token = uuid.UUID(int=7)
    body = {
        "when": datetime.datetime(2026, 11, 29, 12, 0, tzinfo=datetime.UTC),
        "id": token,
        "price": decimal.Decimal("9.99"),
        "point": _Point(1, 2),
    }
    await resolve(client.publish(events, body))
    await resolve(client.publish(events, _Order(id=7, placed=datetime.date(2026, 11, 29))))
    stored = await _bodies(client, events)
    assert stored == [
        {
            "when": "2026-11-29 12:00:00+00:00",
            "id": str(token),
            "price": "9.99",
            "point": str(_Point(1, 2)),
        },
        {"id": 7, "placed": "2026-11-29"},
    ]
