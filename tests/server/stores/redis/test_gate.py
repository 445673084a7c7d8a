"""The gate (server/stores/redis/gate.py): at most so many commands at once, the others waiting
for a place rather than failing, up to a limit, and a free place costs no timer.
"""

from __future__ import annotations

import asyncio

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from server.stores.redis.gate import Gate


async def _holding(gate: Gate, release: asyncio.Event) -> asyncio.Task[None]:
    """A task that holds a place of ``gate`` until ``release`` is set."""
    entered = asyncio.Event()

    async def hold() -> None:
        async with gate:
            entered.set()
            await release.wait()

    task = asyncio.create_task(hold())
    await entered.wait()
    return task


async def test_a_task_waits_for_a_place_and_fails_when_none_comes() -> None:
    """With every place held, another task waits; past ``wait_seconds`` it fails as redis-py's
    blocking pool does, and a place given back lets the next task in.
    """
    gate = Gate(1, wait_seconds=0.05)
    release = asyncio.Event()
    holder = await _holding(gate, release)
    with pytest.raises(RedisConnectionError, match="No connection available"):
        async with gate:
            pass
    release.set()
    await holder
    async with gate:
        pass


async def test_a_waiting_task_gets_the_place_given_back() -> None:
    """A task waiting for a place enters as soon as one is given back, in its turn."""
    gate = Gate(1, wait_seconds=30.0)
    release = asyncio.Event()
    holder = await _holding(gate, release)
    order: list[str] = []

    async def wait(name: str) -> None:
        async with gate:
            order.append(name)

    waiters = [asyncio.create_task(wait(name)) for name in ("first", "second")]
    await asyncio.sleep(0.01)
    assert order == []
    release.set()
    await asyncio.gather(holder, *waiters)
    assert order == ["first", "second"]


async def test_a_place_is_given_back_when_what_ran_in_it_fails() -> None:
    gate = Gate(1, wait_seconds=0.05)
    with pytest.raises(ZeroDivisionError):
        async with gate:
            _ = 1 / 0
    async with gate:
        pass


async def test_a_free_place_arms_no_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a task that has to wait arms a timeout."""
    gate = Gate(2, wait_seconds=30.0)

    def unexpected(delay: float | None) -> asyncio.Timeout:
        raise AssertionError(f"a timeout of {delay} s was armed")

    monkeypatch.setattr(asyncio, "timeout", unexpected)
    async with gate, gate:
        pass
