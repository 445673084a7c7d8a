"""The listing indexes' catch-up on open (``server/stores/redis/indexes.py``), on standalone Redis
and on Redis Cluster.
"""

from __future__ import annotations

import pytest

from server.stores.redis import RedisStore
from server.stores.redis.indexes import stream_name_of_key
from server.stores.redis.keys import StoreKeys
from tests.server.stores._support import new_message, redis_client_of

pytestmark = pytest.mark.redis


@pytest.fixture(params=["redis_store_url", "redis_cluster_store_url"])
def redis_url_of_either(request: pytest.FixtureRequest) -> str:
    """A Redis store URL with a private prefix: standalone, then on the local cluster."""
    return str(request.getfixturevalue(request.param))


async def _written_before_the_indexes(url: str, *, keep_marker: bool) -> list[str]:
    """Write streams and messages, then remove what the indexes hold (and, unless
    ``keep_marker``, the marker), as a database written by an earlier version is. Answers the
    message ids, oldest first.
    """
    store = RedisStore.from_url(url)
    await store.open()
    try:
        for name in ("orders", "audit", "orders.dead"):
            await store.append(name, [1], trim=None, nomkstream=False)
        await store.create_group("empty", "g", start_id="$", mkstream=True)
        receipts = await store.publish_messages([new_message() for _ in range(3)])
        keys = StoreKeys(store.prefix)
        with redis_client_of(url) as client:
            client.delete(keys.stream_names)
            client.delete(keys.messages.listed)
            if not keep_marker:
                client.delete(keys.listing_indexed)
        return [receipt.message_id for receipt in receipts]
    finally:
        await store.close()


async def test_opening_indexes_the_streams_and_messages_written_before(
    redis_url_of_either: str,
) -> None:
    """Every stream (empty, dead-letter ones included) and every message, in publish order, is
    listed after the store is opened again; its other keys (groups, idempotency) are not streams.
    """
    message_ids = await _written_before_the_indexes(redis_url_of_either, keep_marker=False)
    store = RedisStore.from_url(redis_url_of_either)
    await store.open()
    try:
        streams = await store.list_streams(prefix="", limit=10, cursor=None)
        assert [s.stream for s in streams.streams] == ["audit", "empty", "orders", "orders.dead"]
        messages = await store.list_messages(limit=10, cursor=None)
        assert [m.message_id for m in messages.messages] == message_ids[::-1]
    finally:
        await store.close()


async def test_the_catch_up_runs_once(redis_url_of_either: str) -> None:
    """Once the marker is set, opening reads it and walks nothing: what the indexes lack then
    stays unlisted (which only a database written by an earlier version has).
    """
    await _written_before_the_indexes(redis_url_of_either, keep_marker=True)
    store = RedisStore.from_url(redis_url_of_either)
    await store.open()
    try:
        assert (await store.list_streams(prefix="", limit=10, cursor=None)).streams == []
    finally:
        await store.close()


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("p:s:{orders}", "orders"),
        ("p:s:{orders}.dead", "orders.dead"),
        ("p:s:{a:b}", "a:b"),
        ("p:s:{}", None),
        ("p:s:orders", None),
        ("q:s:{orders}", None),
        ("p:s:{orders", None),
    ],
)
def test_a_stream_key_names_its_stream(key: str, name: str | None) -> None:
    """The stream a key holds is its hash tag and what follows it; other keys name none."""
    assert stream_name_of_key("p", key) == name
