"""The standalone client's pool (server/stores/redis/connection.py): a connection it hands out is
connected, whatever state it was given back in.
"""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from server.stores.redis.connection import new_client

pytestmark = pytest.mark.redis


async def test_a_connection_given_back_closed_is_connected_again(redis_url: str) -> None:
    client = new_client(redis_url, cluster_nodes=None)
    assert isinstance(client, aioredis.Redis)
    try:
        pool = client.connection_pool
        # redis-py leaves the pool's methods unannotated.
        connection = await pool.get_connection()  # type: ignore[no-untyped-call]
        await connection.disconnect()
        await pool.release(connection)
        again = await pool.get_connection()  # type: ignore[no-untyped-call]
        assert again is connection and again.is_connected
        await pool.release(again)
        assert await client.ping()
    finally:
        await client.aclose()
