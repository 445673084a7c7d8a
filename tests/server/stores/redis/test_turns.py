"""Turns (server/stores/redis/turns.py): a client's commands share a bounded number of connections,
waiting for a free one rather than failing, a free one costs no timer, and a turn's deadline
bounds how long Redis may take, with one timer for all the turns running.
"""

from __future__ import annotations

import asyncio

import pytest
from redis.exceptions import (
    ConnectionError as RedisConnectionError,
    TimeoutError as RedisTimeoutError,
)

from server.stores.redis import RedisStore
from server.stores.redis.turns import Turns, TurnTakingRedis


async def _task_in_a_turn(turns: Turns) -> asyncio.Task[None]:
    """A task that has taken a turn and waits in it (five seconds at most)."""
    entered = asyncio.Event()

    async def wait_in_turn() -> None:
        async with turns.one():
            entered.set()
            await asyncio.sleep(5)

    task = asyncio.create_task(wait_in_turn())
    await entered.wait()
    return task


async def test_a_task_waits_for_a_turn_and_fails_when_none_comes() -> None:
    """With every turn held, another task waits; past ``wait_seconds`` it fails as redis-py's
    blocking pool did, and a turn given back lets the next task in.
    """
    turns = Turns(1, wait_seconds=0.05, deadline_seconds=None)
    holding = asyncio.Event()
    release = asyncio.Event()

    async def hold() -> None:
        async with turns.one():
            holding.set()
            await release.wait()

    holder = asyncio.create_task(hold())
    await holding.wait()
    with pytest.raises(RedisConnectionError, match="No connection available"):
        async with turns.one():
            pass
    release.set()
    await holder
    async with turns.one():
        pass


async def test_a_task_holding_a_turn_takes_no_second_one() -> None:
    """What runs inside a turn on the task's own behalf does not wait for another turn."""
    turns = Turns(1, wait_seconds=0.05, deadline_seconds=None)
    async with turns.one(), turns.one():
        pass
    async with turns.one():
        pass


async def test_a_free_turn_arms_no_timer() -> None:
    """Only a task that has to wait arms the timeout: a free turn schedules nothing."""
    turns = Turns(2, wait_seconds=30.0, deadline_seconds=None)
    loop = asyncio.get_running_loop()
    scheduled = len(loop._scheduled)  # type: ignore[attr-defined]
    async with turns.one():
        assert len(loop._scheduled) == scheduled  # type: ignore[attr-defined]


async def test_a_turn_past_its_deadline_ends_in_a_redis_timeout() -> None:
    """What runs in a turn is cancelled at the deadline, as redis-py's socket timeout would end a
    read, and the turn is free again for the next task.
    """
    turns = Turns(1, wait_seconds=0.05, deadline_seconds=0.05)
    with pytest.raises(RedisTimeoutError, match=r"did not answer within 0\.05 s"):
        async with turns.one():
            await asyncio.sleep(5)
    async with turns.one():
        pass


async def test_turns_running_together_share_one_timer() -> None:
    """However many turns run under a deadline, the client has one timer set, not one each."""
    turns = Turns(8, wait_seconds=0.05, deadline_seconds=30.0)
    loop = asyncio.get_running_loop()
    scheduled = len(loop._scheduled)  # type: ignore[attr-defined]
    inside = asyncio.Barrier(5)
    most = 0

    async def run() -> None:
        nonlocal most
        async with turns.one():
            await inside.wait()
            most = max(most, len(loop._scheduled) - scheduled)  # type: ignore[attr-defined]
            await inside.wait()

    async with asyncio.TaskGroup() as group:
        for _ in range(4):
            group.create_task(run())
        await inside.wait()
        await inside.wait()
    assert most == 1


async def test_a_later_turn_ends_at_its_own_deadline_not_before() -> None:
    """The timer set for an earlier turn's deadline, that turn gone, is set again for the next
    turn's: that one is cancelled at its own deadline, neither sooner nor never.
    """
    turns = Turns(2, wait_seconds=0.05, deadline_seconds=0.4)
    loop = asyncio.get_running_loop()

    async def brief() -> None:
        async with turns.one():
            await asyncio.sleep(0.1)

    first = asyncio.create_task(brief())
    await asyncio.sleep(0.2)
    started = loop.time()
    with pytest.raises(RedisTimeoutError):
        async with turns.one():
            await asyncio.sleep(5)
    assert 0.35 <= loop.time() - started < 1.0
    await first


async def test_a_shorter_deadline_is_kept_although_a_later_one_is_running() -> None:
    """A turn started after ``deadline_seconds`` shrank ends at its own deadline, not at the
    later one of a turn already running.
    """
    turns = Turns(2, wait_seconds=0.05, deadline_seconds=30.0)
    loop = asyncio.get_running_loop()
    running = await _task_in_a_turn(turns)
    turns.deadline_seconds = 0.1
    started = loop.time()
    with pytest.raises(RedisTimeoutError):
        async with turns.one():
            await asyncio.sleep(5)
    assert loop.time() - started < 1.0
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running


async def test_a_cancellation_from_elsewhere_stays_a_cancellation() -> None:
    """Only a turn's own deadline becomes a Redis timeout."""
    turns = Turns(1, wait_seconds=0.05, deadline_seconds=30.0)
    task = await _task_in_a_turn(turns)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    async with turns.one():
        pass


async def test_a_turn_within_a_turn_keeps_the_outer_deadline() -> None:
    """A pipeline's own commands run in its turn: they arm no deadline of their own."""
    turns = Turns(1, wait_seconds=0.05, deadline_seconds=30.0)
    loop = asyncio.get_running_loop()
    async with turns.one():
        scheduled = len(loop._scheduled)  # type: ignore[attr-defined]
        async with turns.one():
            assert len(loop._scheduled) == scheduled  # type: ignore[attr-defined]


@pytest.mark.redis
async def test_connections_have_no_socket_timeout_of_their_own(redis_store_url: str) -> None:
    """The URL's ``socket_timeout`` becomes the turns' deadline; the connections go without, so
    redis-py sends a command without a task of its own (``asyncio.wait_for``).
    """
    store = RedisStore.from_url(f"{redis_store_url}&socket_timeout=2.5")
    await store.open()
    try:
        client = store._redis
        assert isinstance(client, TurnTakingRedis)
        assert client.turns.deadline_seconds == 2.5
        assert client.connection_pool.connection_kwargs["socket_timeout"] is None
        await store.append("s", [1], trim=None, nomkstream=False)
        waiting = store._waiting_redis
        assert isinstance(waiting, TurnTakingRedis)
        assert waiting.turns.deadline_seconds is None
    finally:
        await store.close()


@pytest.mark.redis
async def test_commands_pipelines_and_blocked_reads_beyond_the_connections_wait(
    redis_store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With two connections, 40 concurrent appends, transactions and blocked reads all complete,
    and the pool never opens a third connection.
    """
    monkeypatch.setattr("server.stores.redis.connection.MAX_CONNECTIONS", 2)
    store = RedisStore.from_url(redis_store_url)
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
        client = store._redis
        assert isinstance(client, TurnTakingRedis)
        pool = client.connection_pool
        assert len(pool._available_connections) + len(pool._in_use_connections) <= 2
    finally:
        await store.close()
