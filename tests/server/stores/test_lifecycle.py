"""Opening, pinging and reopening a store, on every backend."""

from __future__ import annotations

from server.stores import store_from_url
from server.stores.base import NewJob, QueueSettings, Store


async def test_ping_answers_true_while_open(store: Store) -> None:
    """An opened store's backend answers."""
    assert await store.ping() is True


async def test_the_store_kind_matches_its_url(store: Store, store_url: str) -> None:
    """``kind`` names the backend the URL chose (``redis`` also on a cluster)."""
    assert store_url.startswith((f"{store.kind}:", f"{store.kind}+cluster:"))


async def test_data_outlives_the_store_instance(store: Store, store_url: str) -> None:
    """What one instance committed is there for a fresh instance on the same URL."""
    await store.append("events", [{"n": 1}], trim=None, nomkstream=False)
    await store.put_queue("work", QueueSettings(max_attempts=3))
    [receipt] = await store.publish_jobs("work", [NewJob(topic="t", payload=[1, 2])])
    fresh = store_from_url(store_url)
    await fresh.open()
    try:
        assert (await fresh.stream_info("events")).length == 1
        assert (await fresh.get_queue("work")).settings.max_attempts == 3
        assert (await fresh.get_job("work", receipt.job_id)).payload == [1, 2]
    finally:
        await fresh.close()
