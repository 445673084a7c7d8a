"""The gate (server/stores/redis/gate.py): at most so many commands at once, the others waiting
for a place rather than failing, up to a limit, and a free place costs no timer; and the store
runs every command of its own in its client's gate.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.resources
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.exceptions import (
    ConnectionError as RedisConnectionError,
    TimeoutError as RedisTimeoutError,
)

from server.stores.redis.gate import Gate

_PACKAGE = Path(str(importlib.resources.files("server.stores.redis")))
# What runs only while the store opens, one command at a time, before it serves anything.
_OPENING = {"indexes.py"}


async def _holding(gate: Gate, release: asyncio.Event) -> asyncio.Task[None]:
    """A task that holds a place of ``gate`` until ``release`` is set."""
    entered = asyncio.Event()

    async def hold() -> None:
        async with gate():
            entered.set()
            await release.wait()

    task = asyncio.create_task(hold())
    await entered.wait()
    return task


async def test_a_task_waits_for_a_place_and_fails_when_none_comes() -> None:
    """With every place held, another task waits; past ``wait_seconds`` it fails as redis-py's
    blocking pool does, and a place given back lets the next task in.
    """
    gate = Gate(1, wait_seconds=0.05, deadline_seconds=None)
    release = asyncio.Event()
    holder = await _holding(gate, release)
    with pytest.raises(RedisConnectionError, match="No connection available"):
        async with gate():
            pass
    release.set()
    await holder
    async with gate():
        pass


async def test_a_waiting_task_gets_the_place_given_back() -> None:
    """A task waiting for a place enters as soon as one is given back, in its turn."""
    gate = Gate(1, wait_seconds=30.0, deadline_seconds=None)
    release = asyncio.Event()
    holder = await _holding(gate, release)
    order: list[str] = []

    async def wait(name: str) -> None:
        async with gate():
            order.append(name)

    waiters = [asyncio.create_task(wait(name)) for name in ("first", "second")]
    await asyncio.sleep(0.01)
    assert order == []
    release.set()
    await asyncio.gather(holder, *waiters)
    assert order == ["first", "second"]


async def test_a_place_is_given_back_when_what_ran_in_it_fails() -> None:
    gate = Gate(1, wait_seconds=0.05, deadline_seconds=None)
    with pytest.raises(ZeroDivisionError):
        async with gate():
            _ = 1 / 0
    async with gate():
        pass


async def test_a_pass_past_its_deadline_ends_in_a_redis_timeout() -> None:
    """What runs in a pass is cancelled at the deadline, as redis-py's socket timeout ends a
    read, and the place is free again for the next task.
    """
    gate = Gate(1, wait_seconds=0.05, deadline_seconds=0.05)
    with pytest.raises(RedisTimeoutError, match=r"did not answer within 0\.05 s"):
        async with gate():
            await asyncio.sleep(5)
    async with gate():
        pass


async def test_only_the_passs_own_deadline_becomes_a_redis_timeout() -> None:
    """A timeout raised by what runs in the pass, or a cancellation from elsewhere, stays as it
    is.
    """
    gate = Gate(1, wait_seconds=0.05, deadline_seconds=30.0)
    with pytest.raises(TimeoutError) as raised:
        async with gate():
            raise TimeoutError("the body's own")
    assert not isinstance(raised.value, RedisTimeoutError)
    release = asyncio.Event()
    task = await _holding(gate, release)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    async with gate():
        pass


async def test_a_free_place_arms_no_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a deadline, only a task that has to wait for a place arms a timeout."""
    gate = Gate(2, wait_seconds=30.0, deadline_seconds=None)

    def unexpected(delay: float | None) -> asyncio.Timeout:
        raise AssertionError(f"a timeout of {delay} s was armed")

    monkeypatch.setattr(asyncio, "timeout", unexpected)
    async with gate(), gate():
        pass


def _gated_awaits(tree: ast.AST) -> Iterator[tuple[ast.Await, bool]]:
    """Each await of a command, a pipeline or a script (not one added to a pipeline), and
    whether it runs inside ``async with self._gate()`` or ``self._waiting_gate()``.
    """
    gates = {"_gate", "_waiting_gate"}

    def visit(node: ast.AST, gated: bool) -> Iterator[tuple[ast.Await, bool]]:
        if isinstance(node, ast.AsyncWith):
            gated = gated or any(
                isinstance(item.context_expr, ast.Call)
                and isinstance(item.context_expr.func, ast.Attribute)
                and item.context_expr.func.attr in gates
                for item in node.items
            )
        if isinstance(node, ast.Await) and isinstance(node.value, ast.Call):
            call = node.value
            func = call.func
            command = (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Attribute)
                and func.value.attr in {"_redis", "_waiting_redis"}
            )
            pipeline = isinstance(func, ast.Attribute) and func.attr == "execute"
            script = isinstance(func, ast.Subscript) and not any(
                keyword.arg == "client" for keyword in call.keywords
            )
            if command or pipeline or script:
                yield node, gated
        for child in ast.iter_child_nodes(node):
            yield from visit(child, gated)

    yield from visit(tree, False)


@pytest.mark.parametrize(
    "module", sorted(path.name for path in _PACKAGE.glob("*.py") if path.name not in _OPENING)
)
def test_every_command_of_the_store_runs_in_its_clients_gate(module: str) -> None:
    """Without its gate a cluster command past a node's connections fails at once, so each
    command, pipeline and script of the store's own methods runs in one.
    """
    tree = ast.parse((_PACKAGE / module).read_text(encoding="utf-8"))
    ungated = [f"{module}:{node.lineno}" for node, gated in _gated_awaits(tree) if not gated]
    assert ungated == [], ungated
