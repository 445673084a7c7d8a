"""The standalone client's pool (server/stores/redis/connection.py): a connection it hands out is
connected, whatever state it was given back in, and names redis-py to the server.
"""

from __future__ import annotations

import pytest
import redis
import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection

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


async def test_every_new_connection_names_redis_py_and_its_version(redis_url: str) -> None:
    """What CLIENT SETINFO sends (Redis 7.2 and later keep it): one driver description for all
    the connections of the process, with redis-py's name and installed version.
    """
    clients = [new_client(redis_url, cluster_nodes=None) for _ in range(2)]
    try:
        connections: list[AbstractConnection] = []
        for client in clients:
            assert isinstance(client, aioredis.Redis) and await client.ping()
            connections += client.connection_pool._available_connections
        described = {id(connection.driver_info) for connection in connections}
        assert len(connections) == 2 and len(described) == 1
        driver = connections[0].driver_info
        assert driver is not None
        assert (driver.formatted_name, driver.lib_version) == ("redis-py", redis.__version__)
    finally:
        for client in clients:
            await client.aclose()
