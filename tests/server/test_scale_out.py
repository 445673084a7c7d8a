"""Scale-out of the delivery engine (server/delivery/, as server/app.py wires it) and of rate
limits (server/routes/_publish.py's check_rate): real ``python -m server`` processes sharing one
store deliver each attempt once, a message whose process was killed mid-delivery is delivered by
another process once its lease ends, and a token's rate limit holds for all processes together.

tests/server/delivery/ covers the same guarantees inside one process; these tests show
they hold across processes, which only the store's atomic claim, its leases and its shared rate
buckets can give.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

import sdk
from tests.conftest import ServerProcess
from tests.e2e._receivers import Answer, ScriptedReceiver

pytestmark = pytest.mark.slow

EVERYTHING = [{"resource": "*", "name": "*", "actions": ["publish", "consume", "admin"]}]
MESSAGE_COUNT = 40
# The messages fall due one by one over this many seconds, so that every poll of either process
# finds a few due and the processes really compete for them.
DUE_SPREAD_SECONDS = 2.0
# Long enough for a busy machine; a lost or stuck message fails the test instead of hanging it.
SETTLE_TIMEOUT = 30.0
# How long a fresh process may take to deliver a killed process's message. Far beyond the 3 s its
# lease lasts (the message's 2 s timeout plus the configured 1 s margin), yet well short of the 32 s
# the default 30 s margin would give: a process that missed the setting fails the test.
TAKEOVER_TIMEOUT = 20.0


def _config(**delivery: float) -> dict[str, Any]:
    # Every process signs with the same keys, as processes of one deployment must.
    return {
        "tokens": [{"id": "ops", "token": "ops-secret", "permissions": EVERYTHING}],
        "destinations": {"allow": ["127.0.0.1"]},
        "signing_keys": {"current": "scale-out-current", "next": "scale-out-next"},
        "delivery": delivery,
    }


def _settled(
    client: sdk.Client, message_id: str, state: str, *, timeout: float = SETTLE_TIMEOUT
) -> sdk.Message:
    deadline = time.monotonic() + timeout
    while True:
        message = client.messages.get(message_id)
        if message.state == state:
            return message
        assert time.monotonic() < deadline, f"still {message!r} after {timeout:g} s"
        time.sleep(0.1)


@pytest.mark.redis
@pytest.mark.parametrize("redis_store", ["redis_store_url", "redis_cluster_store_url"])
def test_two_processes_on_one_redis_deliver_each_message_exactly_once(
    redis_store: str, request: pytest.FixtureRequest, spool_server: Callable[..., ServerProcess]
) -> None:
    """Forty messages falling due while two processes poll one Redis (standalone, then a Redis
    Cluster) each arrive exactly once.
    """
    redis_store_url = str(request.getfixturevalue(redis_store))
    config = _config(poll_interval_seconds=0.05)
    servers = [spool_server(redis_store_url, config=config) for _ in range(2)]
    with ScriptedReceiver(Answer(200)) as receiver:
        start = datetime.now(UTC) + timedelta(seconds=1)
        step = timedelta(seconds=DUE_SPREAD_SECONDS / MESSAGE_COUNT)
        message_ids: list[str] = []
        # Half the messages are published through each process; any process may deliver any.
        for offset, server in enumerate(servers):
            with sdk.Client(server.base_url, server.token) as client:
                receipts = client.messages.batch(
                    [
                        sdk.MessageRequest(
                            f"message {index}",
                            url=receiver.url(f"/orders/{index}"),
                            not_before=start + index * step,
                        )
                        for index in range(offset, MESSAGE_COUNT, len(servers))
                    ]
                )
            message_ids += [receipt.message_id for [receipt] in receipts]

        receiver.wait_for(MESSAGE_COUNT, timeout=SETTLE_TIMEOUT)
        # Any second claim of a message would have arrived by now: the processes poll 20 times a
        # second.
        received = receiver.stays_at(MESSAGE_COUNT, seconds=1.0)

    arrivals = Counter(request.headers["spool-message-id"] for request in received)
    assert sorted(arrivals) == sorted(message_ids)
    assert set(arrivals.values()) == {1}, arrivals
    with sdk.Client(servers[0].base_url, servers[0].token) as client:
        for message_id in message_ids:
            message = _settled(client, message_id, "delivered")
            assert [(attempt.attempt, attempt.status_code) for attempt in message.attempts] == [
                (1, 200)
            ], message


def test_a_message_whose_process_was_killed_mid_delivery_is_delivered_by_another(
    store_url: str, spool_server: Callable[..., ServerProcess]
) -> None:
    """A SIGKILLed process records nothing; after the lease a fresh one delivers the message.

    The fresh service runs two workers, which read the configured 1 s lease margin from the config
    file the supervisor hands them (see TAKEOVER_TIMEOUT).
    """
    config = _config(lease_margin_seconds=1)
    # The first attempt hangs until the receiver closes; its process is killed meanwhile.
    with ScriptedReceiver(Answer(hang=120.0), Answer(200)) as receiver:
        doomed = spool_server(store_url, config=config)
        with sdk.Client(doomed.base_url, doomed.token) as client:
            receipt = client.messages.publish(
                url=receiver.url("/orders"), body="order 7", timeout=2
            )
        [first] = receiver.wait_for(1, timeout=SETTLE_TIMEOUT)
        # Killed long before the 2 s timeout could end the attempt: nothing about it is recorded.
        doomed.kill()

        survivor = spool_server(store_url, config=config, workers=2)
        with sdk.Client(survivor.base_url, survivor.token) as client:
            delivered = _settled(client, receipt.message_id, "delivered", timeout=TAKEOVER_TIMEOUT)
        [_, again] = receiver.wait_for(2, timeout=SETTLE_TIMEOUT)

    assert [(attempt.attempt, attempt.status_code) for attempt in delivered.attempts] == [(1, 200)]
    for request in (first, again):
        assert request.headers["spool-message-id"] == receipt.message_id
        assert (request.path, request.body) == ("/orders", b"order 7")


def test_two_processes_on_one_store_share_a_tokens_rate_limit(
    store_url: str, spool_server: Callable[..., ServerProcess]
) -> None:
    """A burst of publishes split over two processes, all at once: exactly ``burst`` are accepted
    in all (not ``burst`` per process), and every other one is 429 rate_limited with Retry-After.
    """
    burst, per_process = 5, 8
    config = _config()
    # One token a day after the burst: no refill can happen while the test runs.
    config["tokens"][0]["rate_limit"] = {"per_second": 1 / 86400, "burst": burst}
    servers = [spool_server(store_url, config=config) for _ in range(2)]

    async def publish_everywhere() -> list[httpx.Response]:
        clients = [
            httpx.AsyncClient(
                base_url=server.base_url,
                headers={"Authorization": f"Bearer {server.token}"},
                timeout=30,
            )
            for server in servers
        ]
        try:
            return await asyncio.gather(
                *(
                    client.post("/v1/streams/limited/entries", json={"body": n})
                    for n in range(per_process)
                    for client in clients
                )
            )
        finally:
            for client in clients:
                await client.aclose()

    responses = asyncio.run(publish_everywhere())
    statuses = Counter(response.status_code for response in responses)
    assert statuses == {201: burst, 429: 2 * per_process - burst}, statuses
    for response in responses:
        if response.status_code == 429:
            assert response.json()["code"] == "rate_limited"
            assert int(response.headers["retry-after"]) >= 1
    with sdk.Client(servers[0].base_url, servers[0].token, max_retries=0) as client:
        assert client.streams.length("limited") == burst
