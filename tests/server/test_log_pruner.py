"""The pruner of the messages' events (server/log_pruner.py), on both stores."""

from __future__ import annotations

import asyncio
import time

from server.log_pruner import PRUNE_BATCH, LogPruner
from tests._eventually import eventually
from tests.conftest import RunningApp
from tests.server.stores._support import new_message

HOOK = "https://example.com/hooks/signup"


async def _log_states(api: RunningApp) -> list[str]:
    page = (await api.client.get("/v1/logs", params={"limit": 1000})).json()
    return [event["state"] for event in page["events"]]


async def test_events_older_than_the_retention_are_pruned(api: RunningApp) -> None:
    """Events past the retention go, batch after batch, and the younger ones and every message
    stay: a busy service's log holds only its retention's worth.
    """
    now = time.time()
    api.store.clock = lambda: now - 3600
    old = await api.store.publish_messages([new_message()] * (PRUNE_BATCH + 1))
    api.store.clock = lambda: now
    fresh = await api.client.post("/v1/messages", json={"url": HOOK, "body": "fresh"})
    [receipt] = fresh.json()["messages"]
    pruner = LogPruner(api.store, retention_seconds=60, clock=lambda: now)
    assert await pruner.prune() == PRUNE_BATCH + 1
    assert await pruner.prune() == 0
    [event] = (await api.client.get("/v1/logs")).json()["events"]
    assert event["message_id"] == receipt["message_id"]
    assert (await api.store.get_message(old[0].message_id)).state == "scheduled"


async def test_the_running_pruner_prunes_on_its_interval(api: RunningApp) -> None:
    """Started as a service, the pruner prunes at once and then every interval, until stopped."""
    await api.client.post("/v1/messages", json={"url": HOOK, "body": 1})
    clock = [time.time()]
    pruner = LogPruner(
        api.store, retention_seconds=60, interval_seconds=0.01, clock=lambda: clock[0]
    )
    await pruner.start()
    try:
        await asyncio.sleep(0.05)
        assert await _log_states(api) == ["created"]
        clock[0] += 61

        assert await eventually(lambda: _log_states(api), lambda states: states == []) == []
    finally:
        await pruner.stop()
    await pruner.stop()
