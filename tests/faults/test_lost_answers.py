"""Answers lost on the way back: the service applied a publish, the client never heard.

A fault-injecting proxy (tests/faults/_proxy.py) between the SDK and a real service either resets
every other connection as soon as the service's answer starts to come back, or delays every other
connection's traffic past the client's timeout. The SDK sees a connection error or a timeout,
retries with the same Idempotency-Key, and the service replays its first answer (or writes once,
if the delayed request had not arrived yet): every publish succeeds, and the store holds each
exactly once, on both stores.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

import sdk
from server.stores import store_from_url
from tests.conftest import ServerProcess
from tests.faults._config import CONFIG, TOKEN
from tests.faults._proxy import Fault, fault_proxy

pytestmark = pytest.mark.slow

PUBLISHES = 10
# Nothing listens there; the messages are scheduled an hour ahead and never attempted anyway.
HOOK = "http://127.0.0.1:9/hook"


def _every_other_answer_lost(connection: int) -> Fault:
    return "reset_after_request" if connection % 2 == 0 else "pass"


def _every_other_answer_late(connection: int) -> Fault:
    return "delay" if connection % 2 == 0 else "pass"


# The client gives up on an answer before a delayed one arrives, although the service got the
# request (and wrote) long before.
CLIENT_TIMEOUT = 0.3
PROXY_DELAY = 0.5


def _client(base_url: str) -> sdk.Client:
    # One connection per request, so each attempt meets the next fault in turn.
    http = httpx.Client(limits=httpx.Limits(max_keepalive_connections=0))
    return sdk.Client(base_url, TOKEN, http_client=http, max_retries=4, timeout=CLIENT_TIMEOUT)


async def _count_messages(store_url: str) -> int:
    store = store_from_url(store_url)
    await store.open()
    try:
        return len(await store.claim_due_messages(now=1e12, limit=10_000, lease_margin=1))
    finally:
        await store.close()


def _publish_all(client: sdk.Client, kind: str) -> list[Any]:
    if kind == "stream":
        return [client.publish("lost", {"n": n}) for n in range(PUBLISHES)]
    if kind == "queue":
        queue = client.init_queue("lost")
        return [queue.publish("work", {"n": n}) for n in range(PUBLISHES)]
    return [
        client.messages.publish_json(url=HOOK, body={"n": n}, delay=3600) for n in range(PUBLISHES)
    ]


@pytest.mark.parametrize("kind", ["stream", "queue", "message"])
@pytest.mark.parametrize(
    "faults", [_every_other_answer_lost, _every_other_answer_late], ids=["lost", "late"]
)
def test_publishes_whose_answers_are_lost_are_written_exactly_once(
    spool_server: Callable[..., ServerProcess],
    store_url: str,
    kind: str,
    faults: Callable[[int], Fault],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every publish returns, and the store holds each one once, whether its first answer was
    reset on the way back or came after the client gave up waiting.
    """
    # The backoff before each retry is tests/sdk/test_retry.py's business; here it only waits.
    monkeypatch.setattr("sdk._retry.INITIAL_DELAY", 0.02)
    server = spool_server(store_url, config=CONFIG)
    parts = urlsplit(server.base_url)
    assert parts.hostname is not None and parts.port is not None
    with sdk.Client(server.base_url, TOKEN) as admin:
        admin.queues.create("lost")
    with fault_proxy((parts.hostname, parts.port), faults, delay=PROXY_DELAY) as proxy:
        with _client(f"http://127.0.0.1:{proxy.port}") as client:
            results = _publish_all(client, kind)
    assert proxy.connections >= 2 * PUBLISHES
    assert len(results) == PUBLISHES
    with sdk.Client(server.base_url, TOKEN) as reader:
        if kind == "stream":
            entries = reader.streams.range("lost", count=1000)
            assert sorted(entry.body["n"] for entry in entries) == list(range(PUBLISHES))
            assert [entry.id for entry in entries] == results
        elif kind == "queue":
            jobs = reader.init_queue("lost").jobs(limit=1000)
            assert sorted(job.payload["n"] for job in jobs) == list(range(PUBLISHES))
    if kind == "message":
        server.stop()
        assert asyncio.run(_count_messages(store_url)) == PUBLISHES
