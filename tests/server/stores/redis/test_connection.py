"""The clients (server/stores/redis/connection.py): redis-py's own, standalone on a blocking pool
or cluster behind a gate, with Spool's defaults for the options a URL does not set, no socket
timeout for blocked reads, and one driver description for every connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from urllib.parse import urlsplit

import pytest
import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from server.stores.redis import RedisStore
from server.stores.redis.connection import connect
from server.stores.redis.gate import Gate

pytestmark = pytest.mark.redis


def _pool(client: object) -> aioredis.BlockingConnectionPool:
    assert isinstance(client, aioredis.Redis)
    pool = client.connection_pool
    assert isinstance(pool, aioredis.BlockingConnectionPool)
    return pool


async def test_a_standalone_client_waits_on_a_blocking_pool_with_spools_defaults(
    redis_url: str,
) -> None:
    """35 s for a free one of 100 connections, 5 s to connect, 5 s for an answer; the standalone
    pool waits by itself, so its commands pass no gate.
    """
    connections = connect(redis_url, cluster_nodes=None)
    try:
        pool = _pool(connections.client)
        assert (pool.max_connections, pool.timeout) == (100, 35.0)
        options = pool.connection_kwargs
        assert (options["socket_connect_timeout"], options["socket_timeout"]) == (5.0, 5.0)
        assert connections.gate is contextlib.nullcontext
        assert await connections.client.ping()
    finally:
        await connections.client.aclose()


async def test_the_urls_own_options_win(redis_url: str) -> None:
    url = f"{redis_url}?socket_timeout=2.5&socket_connect_timeout=1.5&max_connections=7&timeout=3"
    connections = connect(url, cluster_nodes=None)
    try:
        pool = _pool(connections.client)
        assert (pool.max_connections, pool.timeout) == (7, 3.0)
        options = pool.connection_kwargs
        assert (options["socket_connect_timeout"], options["socket_timeout"]) == (1.5, 2.5)
    finally:
        await connections.client.aclose()


async def test_blocked_reads_have_no_socket_timeout_whatever_the_url_says(redis_url: str) -> None:
    connections = connect(f"{redis_url}?socket_timeout=2.5", cluster_nodes=None, blocked_reads=True)
    try:
        options = _pool(connections.client).connection_kwargs
        assert (options["socket_connect_timeout"], options["socket_timeout"]) == (5.0, None)
    finally:
        await connections.client.aclose()


async def test_a_cluster_client_takes_the_same_options_and_a_gate_of_its_size(
    redis_cluster_url: str,
) -> None:
    """redis-py's cluster client fails at once when a node has ``max_connections`` in use, so
    its commands wait in a gate of that size, for the URL's ``timeout``; and it retries a command
    that timed out, so the gate ends each at the socket timeout.
    """
    first = urlsplit(redis_cluster_url).netloc.split(",")[0]
    host, _, port = first.rpartition(":")
    node_url = f"redis://{first}?socket_timeout=2.5&max_connections=7&timeout=3"
    for blocked_reads, socket_timeout in ((False, 2.5), (True, None)):
        connections = connect(
            node_url, cluster_nodes=[(host, int(port))], blocked_reads=blocked_reads
        )
        client = connections.client
        assert isinstance(client, RedisCluster)
        try:
            await client.initialize()
            for node in client.get_nodes():
                assert node.max_connections == 7
                options = node.connection_kwargs
                assert (options["socket_connect_timeout"], options["socket_timeout"]) == (
                    5.0,
                    socket_timeout,
                )
            gate = connections.gate
            assert isinstance(gate, Gate)
            assert (gate.count, gate.wait_seconds, gate.deadline_seconds) == (
                7,
                3.0,
                socket_timeout,
            )
        finally:
            await client.aclose()


async def test_every_new_connection_names_redis_py_and_its_version(redis_url: str) -> None:
    """What CLIENT SETINFO sends (Redis 7.2 and later keep it): one driver description for all
    the connections of the process, with redis-py's name and installed version.
    """
    clients = [connect(redis_url, cluster_nodes=None).client for _ in range(2)]
    try:
        described = set()
        for client in clients:
            pool = _pool(client)
            # redis-py leaves the pool's methods unannotated.
            connection = await pool.get_connection()  # type: ignore[no-untyped-call]
            try:
                driver = connection.driver_info
                assert driver is not None
                assert (driver.formatted_name, driver.lib_version) == (
                    "redis-py",
                    redis.__version__,
                )
                described.add(id(driver))
            finally:
                await pool.release(connection)
        assert len(described) == 1
    finally:
        for client in clients:
            await client.aclose()


async def test_commands_pipelines_and_blocked_reads_beyond_the_connections_wait(
    redis_store_url: str, redis_url: str
) -> None:
    """With two connections a pool, 40 concurrent appends, transactions and blocked reads all
    complete, and neither pool opens a third connection.
    """
    name = f"spooltest-{uuid.uuid4().hex[:12]}"
    store = RedisStore.from_url(f"{redis_store_url}&max_connections=2&client_name={name}")
    await store.open()
    try:
        await store.create_group("events", "billing", start_id="$", mkstream=True)
        reads = [
            store.read_group("events", "billing", consumer=f"c{index}", count=1, wait_ms=100)
            for index in range(5)
        ]
        appends = [
            store.append(f"s{index % 4}", [index], trim=None, nomkstream=False)
            for index in range(40)
        ]
        infos = [store.stream_info(f"s{index}") for index in range(4)]
        await asyncio.gather(*reads, *appends, *infos)
        lengths = [(await store.stream_info(f"s{index}")).length for index in range(4)]
        assert lengths == [10] * 4
        with redis.Redis.from_url(redis_url) as raw:
            named = [client for client in raw.client_list() if client["name"] == name]
        # Both pools, the commands' and the blocked reads', had to wait.
        assert len(named) == 4
    finally:
        await store.close()
