"""Flow control across processes: two ``python -m server`` processes sharing one store (a SQLite
file, Redis, a Redis Cluster) keep one key's rate and its publish order together, as only the
store's shared per-key state can (tests/server/stores/test_flow_control.py pins the rules).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

import sdk
from tests.conftest import ServerProcess
from tests.e2e._receivers import Answer, ScriptedReceiver

pytestmark = pytest.mark.slow

EVERYTHING = [{"resource": "*", "name": "*", "actions": ["publish", "consume", "admin"]}]
RATE = 4
PERIOD_SECONDS = 1
RATED = 16
ORDERED = 8
# Long enough for a busy machine; a lost or stuck message fails the test instead of hanging it.
SETTLE_TIMEOUT = 60.0


def _config() -> dict[str, Any]:
    return {
        "tokens": [{"id": "ops", "token": "ops-secret", "permissions": EVERYTHING}],
        "destinations": {"allow": ["127.0.0.1"]},
        "signing_keys": {"current": "flow-current", "next": "flow-next"},
        "delivery": {"poll_interval_seconds": 0.05},
    }


def _delivered(client: sdk.Client, message_id: str) -> sdk.Message:
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while True:
        message = client.messages.get(message_id)
        if message.state == "delivered":
            return message
        assert time.monotonic() < deadline, f"still {message!r} after {SETTLE_TIMEOUT:g} s"
        time.sleep(0.1)


@pytest.mark.parametrize(
    "store",
    [
        "sqlite_store_url",
        pytest.param("redis_store_url", marks=pytest.mark.redis),
        pytest.param("redis_cluster_store_url", marks=pytest.mark.redis),
    ],
)
def test_two_processes_keep_one_keys_rate_and_order(
    store: str, request: pytest.FixtureRequest, spool_server: Callable[..., ServerProcess]
) -> None:
    """Messages of a rated key published through both processes are all delivered, and by any
    time no more attempts have started than the rate allows since the publish: each start comes
    after its claim, so a loaded machine only makes the bound looser. An ordered key's messages
    arrive in publish order.
    """
    store_url = str(request.getfixturevalue(store))
    servers = [spool_server(store_url, config=_config()) for _ in range(2)]
    rated = sdk.FlowControl("rated", rate=RATE, period=PERIOD_SECONDS)
    ordered = sdk.FlowControl("ordered", parallelism=1)
    with ScriptedReceiver(Answer(200)) as receiver:
        published_at = time.time()
        rated_ids: list[str] = []
        for offset, server in enumerate(servers):
            with sdk.Client(server.base_url, server.token) as client:
                receipts = client.messages.batch(
                    [
                        sdk.MessageRequest(
                            f"rated {index}", url=receiver.url("/rated"), flow_control=rated
                        )
                        for index in range(offset, RATED, len(servers))
                    ]
                )
            rated_ids += [receipt.message_id for [receipt] in receipts]
        with sdk.Client(servers[0].base_url, servers[0].token) as client:
            ordered_ids = [
                client.messages.publish(
                    url=receiver.url("/ordered"), body=str(index), flow_control=ordered
                ).message_id
                for index in range(ORDERED)
            ]
        received = receiver.wait_for(RATED + ORDERED, timeout=SETTLE_TIMEOUT)

    in_order = [r.headers["spool-message-id"] for r in received if r.path == "/ordered"]
    assert in_order == ordered_ids
    with sdk.Client(servers[1].base_url, servers[1].token) as client:
        starts = sorted(
            _delivered(client, message_id).attempts[0].started_at.timestamp()
            for message_id in rated_ids
        )
        state = client.flow_control.get("rated")
    for count, started in enumerate(starts, start=1):
        windows = int((started - published_at) // PERIOD_SECONDS) + 1
        assert count <= RATE * windows, (count, started - published_at, starts)
    assert (state.waiting, state.in_flight, state.rate) == (0, 0, RATE)
    assert state.period == timedelta(seconds=PERIOD_SECONDS)
