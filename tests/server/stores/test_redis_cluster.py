"""What only the Redis store on Redis Cluster has: its URL, where its keys live on a real cluster
(tests/conftest.py starts one), blocked reads waiting for a connection, and outages. The behaviour
every store shares runs on the cluster too, as the ``redis-cluster`` parameter of ``store``.
"""

from __future__ import annotations

import asyncio
import signal
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit

import pytest
import redis

from server.stores import InvalidStoreURL, store_from_url
from server.stores.base import IdempotencyClaim, NewJob, QueueSettings, StoreUnavailableError
from server.stores.redis import RedisStore
from server.stores.redis.scripts import SCRIPTS
from tests._stores import opened
from tests.conftest import local_redis_cluster
from tests.server.stores._support import connected_with, script_sha

pytestmark = pytest.mark.redis


@pytest.fixture
async def cluster_store(redis_cluster_store_url: str) -> AsyncIterator[RedisStore]:
    """An opened Redis store on the test cluster, with a private prefix."""
    async with opened(RedisStore.from_url(redis_cluster_store_url)) as store:
        yield store


@pytest.fixture
def node_clients(redis_cluster_url: str) -> Iterator[list[redis.Redis]]:
    """A plain client on each master of the test cluster, to see which node holds which key."""
    clients = [
        redis.Redis.from_url(f"redis://{address}/0", decode_responses=True)
        for address in urlsplit(redis_cluster_url).netloc.split(",")
    ]
    try:
        yield clients
    finally:
        for client in clients:
            client.close()


async def test_a_cluster_url_names_its_nodes_and_keeps_the_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every ``host:port`` is a startup node (6379 by default, IPv6 in brackets); ``prefix`` is
    taken out and the other parameters, with the credentials, reach every node's connections.
    """
    store = store_from_url(
        "rediss+cluster://user:secret@a.example:7000,b.example,[::1]:7002/"
        "?prefix=spooltest-c&socket_timeout=3"
    )
    assert isinstance(store, RedisStore)
    assert store.prefix == "spooltest-c"
    url, nodes = await connected_with(store, monkeypatch)
    assert nodes == [("a.example", 7000), ("b.example", 6379), ("::1", 7002)]
    node_url = urlsplit(url)
    assert (node_url.scheme, node_url.username, node_url.password) == ("rediss", "user", "secret")
    assert node_url.query == "socket_timeout=3"
    assert RedisStore.from_url("redis+cluster://127.0.0.1:7000").prefix == "spool"


@pytest.mark.parametrize(
    "url",
    [
        "redis+cluster://127.0.0.1:7000/15",
        "redis+cluster://127.0.0.1:port/",
        "redis+cluster://127.0.0.1:7000,:7001/",
        "redis+cluster://127.0.0.1:7000/?prefix={all}",
        "unix+cluster:///tmp/redis.sock",
    ],
)
def test_malformed_cluster_urls_are_refused(url: str) -> None:
    """A database other than 0, a node that is not ``host:port``, a braced prefix or a scheme no
    store serves is an ``InvalidStoreURL``.
    """
    with pytest.raises(InvalidStoreURL):
        store_from_url(url)


async def test_each_resource_lives_on_one_node_and_resources_spread_over_the_masters(
    cluster_store: RedisStore, node_clients: list[redis.Redis], redis_prefix: str
) -> None:
    """A stream's or a queue's keys (its idempotency records included) share one hash tag, so
    one node holds them all; different streams and queues land on different masters.
    """
    claim = IdempotencyClaim(key="key", request_hash="hash", ttl=60)
    names = [f"r{number}" for number in range(12)]
    for name in names:
        await cluster_store.append(name, [{"n": 1}], trim=None, nomkstream=False, idempotency=claim)
        await cluster_store.put_queue(f"q{name}", QueueSettings())
        await cluster_store.publish_jobs(
            f"q{name}", [NewJob("t", 1, deduplication_id="d")], idempotency=claim
        )
    nodes_by_tag: dict[str, set[int]] = defaultdict(set)
    for index, client in enumerate(node_clients):
        for key in client.scan_iter(match=f"{redis_prefix}*", count=1000):
            if "{" in key:
                nodes_by_tag[key[key.index("{") : key.index("}") + 1]].add(index)
    # The listed stream names are one key of their own tag.
    assert set(nodes_by_tag) == {f"{{{name}}}" for name in names} | {
        f"{{q{name}}}" for name in names
    } | {"{streams}"}
    assert all(len(nodes) == 1 for nodes in nodes_by_tag.values()), nodes_by_tag
    assert len(set.union(*nodes_by_tag.values())) == len(node_clients)
    listed = await cluster_store.list_queues()
    assert [queue.name for queue in listed] == sorted(f"q{name}" for name in names)


async def test_commands_and_blocked_reads_beyond_a_nodes_connections_wait_for_one(
    redis_cluster_store_url: str, node_clients: list[redis.Redis]
) -> None:
    """A cluster node refuses a connection past its limit at once; the store makes commands,
    transactions and blocked reads wait for a free one instead, as its standalone pool does, and
    no node ever has more than the URL's ``max_connections`` of each client.
    """
    name = f"spooltest-{uuid.uuid4().hex[:12]}"
    store = RedisStore.from_url(f"{redis_cluster_store_url}&max_connections=2&client_name={name}")
    await store.open()
    try:
        await store.create_group("events", "billing", start_id="$", mkstream=True)
        reads = [
            store.read_group("events", "billing", consumer=f"c{index}", count=1, wait_ms=200)
            for index in range(5)
        ]
        assert await asyncio.gather(*reads) == [[]] * 5
        appends = [
            store.append(f"s{index % 4}", [index], trim=None, nomkstream=False)
            for index in range(40)
        ]
        await asyncio.gather(*appends)
        infos = await asyncio.gather(*(store.stream_info(f"s{index}") for index in range(4)))
        assert [info.length for info in infos] == [10] * 4
        assert len(await store.range("s0", start="-", end="+", count=100, reverse=False)) == 10
        await store.delete_stream("s0")
        for node in node_clients:
            # A connection whose last command was the cluster's discovery ran no command of the
            # store's; the others are of the commands' client and the blocked reads' client.
            named = [
                client
                for client in node.client_list()
                if client["name"] == name and client["cmd"] != "cluster|slots"
            ]
            assert len(named) <= 4, named
    finally:
        await store.close()


def _script_commands(node: redis.Redis) -> tuple[int, int]:
    """The SCRIPT LOAD and SCRIPT EXISTS calls ``node`` answered since its stats were reset."""
    stats = node.info("commandstats")
    load, exists = (
        stats.get(f"cmdstat_script|{name}", {}).get("calls", 0) for name in ("load", "exists")
    )
    return int(load), int(exists)


async def test_opening_loads_only_the_scripts_the_masters_lack(
    redis_cluster_store_url: str, node_clients: list[redis.Redis]
) -> None:
    """A store opened on masters that hold no script loads every one onto each of them; one
    opened once they hold them asks with a single SCRIPT EXISTS per master and loads nothing.
    (The worker's own cluster, so flushing its script caches disturbs no other test.)
    """
    for node in node_clients:
        node.script_flush()
        node.config_resetstat()
    async with opened(RedisStore.from_url(redis_cluster_store_url)) as store:
        assert [_script_commands(node) for node in node_clients] == [(len(SCRIPTS), 1)] * 3
        for node in node_clients:
            node.config_resetstat()
        async with opened(RedisStore.from_url(redis_cluster_store_url)) as again:
            assert [_script_commands(node) for node in node_clients] == [(0, 1)] * 3
            await again.append("loaded", [1], trim=None, nomkstream=False)
        await store.append("loaded", [2], trim=None, nomkstream=False)
        assert len(await store.range("loaded", start="-", end="+", count=10, reverse=False)) == 2


async def test_a_script_the_masters_forgot_is_loaded_again(
    cluster_store: RedisStore, node_clients: list[redis.Redis]
) -> None:
    """After SCRIPT FLUSH on every master (as after their restart) a write still runs: redis-py's
    script loads itself again where Redis answers NOSCRIPT. (The worker's own cluster.)
    """
    await cluster_store.append("forgotten", [1], trim=None, nomkstream=False)
    for node in node_clients:
        node.script_flush()
    result = await cluster_store.append("forgotten", [2], trim=None, nomkstream=False)
    assert result.length == 2
    sha = script_sha("append")
    assert any(node.script_exists(sha) == [True] for node in node_clients)


async def test_a_cluster_that_cannot_be_reached_is_unavailable_at_open() -> None:
    """Opening a store none of whose startup nodes answers raises ``StoreUnavailableError``."""
    store = RedisStore.from_url("redis+cluster://127.0.0.1:1/?socket_connect_timeout=1")
    with pytest.raises(StoreUnavailableError) as raised:
        await store.open()
    assert (raised.value.code, raised.value.status) == ("unavailable", 503)
    assert "127.0.0.1:1" in raised.value.detail
    await store.close()


@pytest.mark.slow
async def test_a_lost_master_makes_only_what_it_holds_unavailable(redis_prefix: str) -> None:
    """With one master of a private cluster killed, a stream it held raises
    ``StoreUnavailableError`` (503) once redis-py's retries end, while streams on the other masters
    are read and written as before, and the store still answers PING.
    """
    with local_redis_cluster() as cluster:
        store = RedisStore.from_url(f"{cluster.url}?socket_connect_timeout=1&prefix={redis_prefix}")
        await store.open()
        try:
            names = [f"s{number}" for number in range(12)]
            for name in names:
                await store.append(name, [1], trim=None, nomkstream=False)
            doomed = cluster.nodes[-1]
            port = urlsplit(cluster.url).netloc.split(",")[-1].rpartition(":")[2]
            with redis.Redis(port=int(port), decode_responses=True) as node:
                local = set(node.scan_iter(match=f"{redis_prefix}*"))
            held = {name for name in names if f"{redis_prefix}:s:{{{name}}}" in local}
            assert held and held != set(names)
            doomed.kill()
            doomed.wait(timeout=30)

            with pytest.raises(StoreUnavailableError) as raised:
                await store.stream_info(min(held))
            assert raised.value.status == 503
            kept = min(set(names) - held)
            assert (await store.append(kept, [2], trim=None, nomkstream=True)).length == 2
            assert await store.ping()
        finally:
            await store.close()


@pytest.mark.slow
async def test_a_silent_master_is_unavailable_after_one_socket_timeout(redis_prefix: str) -> None:
    """A master that stops answering (SIGSTOP) makes a command on its keys raise
    ``StoreUnavailableError`` once the URL's ``socket_timeout`` has passed, not after each of
    redis-py's retries has waited that long again.
    """
    with local_redis_cluster() as cluster:
        store = RedisStore.from_url(
            f"{cluster.url}?socket_timeout=1&socket_connect_timeout=1&prefix={redis_prefix}"
        )
        await store.open()
        try:
            names = [f"s{number}" for number in range(12)]
            for name in names:
                await store.append(name, [1], trim=None, nomkstream=False)
            silent = cluster.nodes[-1]
            port = urlsplit(cluster.url).netloc.split(",")[-1].rpartition(":")[2]
            with redis.Redis(port=int(port), decode_responses=True) as node:
                local = set(node.scan_iter(match=f"{redis_prefix}*"))
            held = sorted(name for name in names if f"{redis_prefix}:s:{{{name}}}" in local)
            assert held
            silent.send_signal(signal.SIGSTOP)
            try:
                started = time.monotonic()
                with pytest.raises(StoreUnavailableError) as raised:
                    await store.stream_info(held[0])
                assert time.monotonic() - started < 3
                assert "within 1.0 s" in raised.value.detail
            finally:
                silent.send_signal(signal.SIGCONT)
        finally:
            await store.close()
