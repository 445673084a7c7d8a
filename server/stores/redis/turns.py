"""Turns: at most ``count`` commands or pipelines of one client at a time, the others waiting up to
``wait_seconds`` for one to end, as redis-py's ``BlockingConnectionPool`` waits for a connection;
and each turn's deadline, which bounds how long Redis may take to answer.

Both the standalone and the cluster client take a turn per command, over a connection pool that
never needs more connections than there are turns. A free turn is taken without a timer: the
blocking pool armed and cancelled a timeout and took a lock on every command, which was most of
what a single publish spent in the Redis client beyond the command itself (cProfile, 2,000
appendEntry calls in one process).

The deadline replaces redis-py's socket timeout, which its connections then go without: with one,
redis-py sends every command through ``asyncio.wait_for``, a task of its own per command (py-spy
on a server under single publishes: ``create_task`` under ``send_packed_command`` alone was 4.5 %
of its samples), and arms a second timer for the answer. A turn arms no timer either: the client
keeps one, set for the earliest deadline of the turns running, which cancels each turn past its
own deadline and is set again for the next (py-spy put an ``asyncio.timeout`` per turn at 2 % of
a single publish's samples; callgrind counted 0.6 % fewer instructions without it). When a turn
is cancelled, redis-py drops the connection the command was on, as it does on a socket timeout.
"""

from __future__ import annotations

import asyncio
import contextvars
from types import TracebackType
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.exceptions import (
    ConnectionError as RedisConnectionError,
    TimeoutError as RedisTimeoutError,
)

__all__ = ["TurnTakingRedis", "Turns"]


class Turns:
    """``count`` turns, waited for up to ``wait_seconds``, each ending in a ``RedisTimeoutError``
    once it has lasted ``deadline_seconds`` (``None``: as long as Redis takes); a task holding one
    takes no other.
    """

    def __init__(self, count: int, *, wait_seconds: float, deadline_seconds: float | None) -> None:
        self._free = asyncio.Semaphore(count)
        self._wait_seconds = wait_seconds
        self.deadline_seconds = deadline_seconds
        self._held: contextvars.ContextVar[bool] = contextvars.ContextVar("turn", default=False)
        # The turns running under a deadline, with its loop time, and the one timer that ends
        # those past theirs: set for the earliest, on the loop it was set on.
        self._deadlines: dict[_Turn, float] = {}
        self._watch: asyncio.TimerHandle | None = None
        self._watch_loop: asyncio.AbstractEventLoop | None = None

    def one(self) -> _Turn:
        """Hold a turn (the one this task holds already, if any) for the ``async with`` block."""
        return _Turn(self)

    async def _take(self) -> contextvars.Token[bool] | None:
        if self._held.get():
            return None
        if self._free.locked():
            try:
                await asyncio.wait_for(self._free.acquire(), timeout=self._wait_seconds)
            except TimeoutError as exc:
                # What redis-py's blocking pool raises when it waited in vain.
                raise RedisConnectionError("No connection available.") from exc
        else:
            await self._free.acquire()
        return self._held.set(True)

    def _give_back(self, held: contextvars.Token[bool] | None) -> None:
        if held is not None:
            self._held.reset(held)
            self._free.release()

    def _start_deadline(self, turn: _Turn, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        self._deadlines[turn] = deadline
        watch = self._watch
        # Turns start in deadline order while deadline_seconds stays as it is, so the timer is
        # set again only when none is, or it is on another loop, or deadline_seconds shrank.
        if watch is None or self._watch_loop is not loop or deadline < watch.when():
            if watch is not None:
                watch.cancel()
            self._watch = loop.call_at(deadline, self._end_late_turns)
            self._watch_loop = loop

    def _end_deadline(self, turn: _Turn) -> None:
        self._deadlines.pop(turn, None)

    def _end_late_turns(self) -> None:
        assert self._watch_loop is not None
        self._watch = None
        now = self._watch_loop.time()
        for turn, deadline in list(self._deadlines.items()):
            if deadline <= now:
                del self._deadlines[turn]
                turn.expire()
        if self._deadlines:
            earliest = min(self._deadlines.values())
            self._watch = self._watch_loop.call_at(earliest, self._end_late_turns)


class _Turn:
    """One ``async with turns.one()`` block."""

    __slots__ = ("_cancelling", "_expired", "_held", "_task", "_turns")

    def __init__(self, turns: Turns) -> None:
        self._turns = turns
        self._held: contextvars.Token[bool] | None = None
        self._task: asyncio.Task[Any] | None = None
        self._cancelling = 0
        self._expired = False

    async def __aenter__(self) -> None:
        self._held = await self._turns._take()
        seconds = self._turns.deadline_seconds
        # A turn within a turn (a pipeline's own commands) runs under the outer one's deadline.
        if self._held is not None and seconds is not None:
            self._task = asyncio.current_task()
            assert self._task is not None
            self._cancelling = self._task.cancelling()
            self._turns._start_deadline(self, seconds)

    def expire(self) -> None:
        """Cancel what runs in the turn: its deadline has passed."""
        assert self._task is not None
        self._expired = True
        self._task.cancel()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if self._task is not None:
                self._turns._end_deadline(self)
                # As asyncio.timeout does: only this turn's own cancellation becomes a timeout;
                # one the task was also given from elsewhere stays a cancellation.
                if (
                    self._expired
                    and self._task.uncancel() <= self._cancelling
                    and exc_type is asyncio.CancelledError
                ):
                    # What redis-py raises when its socket timeout expires: callers see one outage.
                    raise RedisTimeoutError(
                        f"Redis did not answer within {self._turns.deadline_seconds} s"
                    ) from exc
        finally:
            self._turns._give_back(self._held)


class TurnTakingRedis(aioredis.Redis):
    """A standalone client whose commands and pipelines each run in one of ``turns``."""

    turns: Turns

    @classmethod
    def owning(cls, pool: aioredis.ConnectionPool, *, turns: Turns) -> TurnTakingRedis:
        """A client of ``pool`` that closes it when it is closed, as ``Redis.from_pool``'s do."""
        client = cls(connection_pool=pool)
        client.auto_close_connection_pool = True
        client.turns = turns
        return client

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """Run the command in a turn."""
        async with self.turns.one():
            # redis-py leaves execute_command unannotated.
            return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> Pipeline:
        """A pipeline (or MULTI/EXEC) that runs in one turn."""
        return _TurnTakingPipeline(
            self.connection_pool, self.response_callbacks, transaction, shard_hint, self.turns
        )


class _TurnTakingPipeline(Pipeline):
    """A standalone pipeline that runs in one turn of its client."""

    def __init__(
        self,
        connection_pool: aioredis.ConnectionPool,
        response_callbacks: Any,
        transaction: bool,
        shard_hint: str | None,
        turns: Turns,
    ) -> None:
        super().__init__(connection_pool, response_callbacks, transaction, shard_hint)
        self.turns = turns

    async def execute(self, raise_on_error: bool = True) -> list[Any]:
        """Run the pipeline in a turn."""
        async with self.turns.one():
            return await super().execute(raise_on_error)
