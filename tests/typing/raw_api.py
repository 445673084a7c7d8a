"""A user program of raw responses and per-client options, type-checked (never run) by
test_raw_response_types.py: each call's RawResponse has the plain call's result type, and the
options are checked by name and type.
"""

from __future__ import annotations

import datetime
from typing import assert_type

import httpx

import sdk


def sync_program(client: sdk.Client) -> None:
    """Raw responses and options of a synchronous client."""
    raw = client.with_raw_response.publish("events", {"type": "signup"}, maxlen=10)
    assert_type(raw, sdk.RawResponse[str])
    assert_type(raw.parse(), str)
    assert_type(raw.status_code, int)
    assert_type(raw.headers, httpx.Headers)
    assert_type(raw.request_id, str | None)
    assert_type(raw.elapsed, datetime.timedelta)
    assert_type(raw.retries_taken, int)
    assert_type(raw.http_response, httpx.Response)
    assert_type(client.with_raw_response.publish_many("events", [{}]).parse(), list[str])
    assert_type(client.with_raw_response.health().parse(), sdk.Health)
    assert_type(client.with_raw_response.init_queue("jobs").parse(), sdk.Queue)
    assert_type(client.with_raw_response.streams.info("events").parse(), sdk.StreamInfo)
    assert_type(client.with_raw_response.streams.delete("events").parse(), None)
    assert_type(
        client.with_raw_response.streams.read_group("events", "billing", consumer="w1").parse(),
        list[sdk.DeliveredEntry],
    )
    queue = client.with_raw_response.queue("jobs")
    assert_type(queue.publish("email", {}).parse(), sdk.JobReceipt)
    assert_type(queue.jobs(state="dead").parse(), list[sdk.Job])
    assert_type(client.with_raw_response.queues.get("jobs").parse(), sdk.QueueInfo)
    one = client.with_raw_response.messages.publish_json(url="https://a.test/h", body={})
    assert_type(one.parse(), sdk.MessageReceipt)
    many = client.with_raw_response.messages.publish_json(url_group="hooks", body={})
    assert_type(many.parse(), list[sdk.MessageReceipt])
    assert_type(client.with_raw_response.url_groups.list().parse(), list[sdk.UrlGroup])
    assert_type(client.with_raw_response.dead_letters.list().parse(), list[sdk.DeadLetter])
    assert_type(client.with_raw_response.schedules.pause("nightly").parse(), sdk.Schedule)

    fast = client.with_options(timeout=2, max_retries=0, headers={"X-Tenant": "acme"})
    assert_type(fast, sdk.Client)
    assert_type(fast.with_options(retry_timeout="30s").publish("events", {}), str)
    assert_type(client.with_options(timeout=httpx.Timeout(3.0)), sdk.Client)
    client.with_options(timout=2)  # type: ignore[call-arg]
    client.with_options(max_retries="3")  # type: ignore[arg-type]


async def async_program(client: sdk.AsyncClient) -> None:
    """The same on an AsyncClient: every raw call is awaited."""
    raw = await client.with_raw_response.publish("events", {"type": "signup"})
    assert_type(raw, sdk.RawResponse[str])
    assert_type((await client.with_raw_response.health()).parse(), sdk.Health)
    assert_type((await client.with_raw_response.init_queue("jobs")).parse(), sdk.AsyncQueue)
    assert_type((await client.with_raw_response.streams.length("events")).parse(), int)
    queue = client.with_raw_response.queue("jobs")
    assert_type((await queue.lease(consumer="w1", max_jobs=5)).parse(), list[sdk.LeasedJob])
    one = await client.with_raw_response.messages.publish(url="https://a.test/h", body="hi")
    assert_type(one.parse(), sdk.MessageReceipt)
    derived = client.with_options(headers={"X-Tenant": "acme"})
    assert_type(derived, sdk.AsyncClient)
    assert_type(await derived.publish("events", {}), str)
