"""A user program of per-call request options, type-checked (never run) by
test_request_options_types.py: every call takes `timeout`, `max_retries` and `extra_headers`,
checked by name and type, and keeps its result type; a raw call takes them too.
"""

from __future__ import annotations

from typing import assert_type

import httpx

import sdk


def sync_program(client: sdk.Client) -> None:
    """The options on a synchronous client's calls."""
    headers = {"X-Tenant": "acme"}
    info = client.streams.info("events", timeout=2, max_retries=0, extra_headers=headers)
    assert_type(info, sdk.StreamInfo)
    assert_type(client.publish("events", {}, timeout=httpx.Timeout(3.0)), str)
    assert_type(client.health(timeout=1), sdk.Health)
    assert_type(client.init_queue("jobs", max_retries=5), sdk.Queue)
    assert_type(client.init_queue("jobs").publish("email", {}, timeout=2), sdk.JobReceipt)
    for summary in client.streams.list(prefix="a", timeout=2.5):
        assert_type(summary, sdk.StreamSummary)
    receipt = client.messages.publish_json(
        url="https://a.test/h", body={}, timeout=30, request_timeout=2.5, max_retries=1
    )
    assert_type(receipt, sdk.MessageReceipt)
    raw = client.with_raw_response.queues.get("jobs", extra_headers=headers)
    assert_type(raw.parse(), sdk.QueueInfo)
    options: sdk.RequestOptions = {"timeout": 2, "extra_headers": headers}
    assert_type(client.streams.length("events", **options), int)

    client.streams.info("events", timeout="2s")  # type: ignore[arg-type]
    client.streams.info("events", max_retries="3")  # type: ignore[arg-type]
    client.streams.info("events", extra_headers=[("X-Tenant", "acme")])  # type: ignore[arg-type]
    client.streams.info("events", timout=2)  # type: ignore[call-arg]
    client.publish_nowait("events", {}, timeout=2)  # type: ignore[call-arg]
    client.messages.publish_json(url="https://a.test/h", body={}, request_timeout="2s")  # type: ignore[call-overload]


async def async_program(client: sdk.AsyncClient) -> None:
    """The same on an AsyncClient."""
    info = await client.streams.info("events", timeout=2, max_retries=0, extra_headers={})
    assert_type(info, sdk.StreamInfo)
    assert_type(await client.whoami(timeout=1), sdk.TokenInfo)
    async for message in client.messages.list(extra_headers={"X-Tenant": "acme"}):
        assert_type(message, sdk.Message)
    raw = await client.with_raw_response.publish("events", {}, max_retries=0)
    assert_type(raw.parse(), str)

    await client.streams.info("events", timeout=None)  # type: ignore[arg-type]
    await client.dead_letters.list(limit=10, extra_header={})  # type: ignore[call-arg]
