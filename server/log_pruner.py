"""Prunes the messages' events (``GET /v1/logs``) once they are older than the retention, so the
store of a busy service does not grow without bound.

Every process of the service runs one; pruning is idempotent (each removes what is older than the
cut, a batch at a time), so two processes pruning at once only share the work.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from .stores.base import Store, StoreUnavailableError

__all__ = ["PRUNE_BATCH", "PRUNE_INTERVAL_SECONDS", "LogPruner"]

# How many events one prune call removes at most, so no one write holds the store for long.
PRUNE_BATCH = 1000
# How often each process prunes; events outlive their retention by at most about this long.
PRUNE_INTERVAL_SECONDS = 60.0

logger = logging.getLogger("spool.logs")


class LogPruner:
    """Removes from ``store`` the events older than ``retention_seconds``, every
    ``interval_seconds``; ``clock`` is its time.
    """

    def __init__(
        self,
        store: Store,
        *,
        retention_seconds: float,
        interval_seconds: float = PRUNE_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._retention = retention_seconds
        self._interval = interval_seconds
        self._clock = clock
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Begin pruning in the background."""
        self._stopping.clear()
        self._task = asyncio.create_task(self._loop(), name="spool-log-pruner")

    async def stop(self) -> None:
        """Stop; a prune under way is abandoned, having removed whole batches or nothing."""
        task, self._task = self._task, None
        if task is None:
            return
        # The loop also watches the event: redis-py may swallow a cancellation that lands in one
        # of its calls (as the scheduler's stop says), and the loop would go on.
        self._stopping.set()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def prune(self) -> int:
        """Remove every event older than the retention now, batch after batch; answers how many
        went.
        """
        before = self._clock() - self._retention
        removed = 0
        while True:
            batch = await self._store.prune_logs(before=before, limit=PRUNE_BATCH)
            removed += batch
            if batch < PRUNE_BATCH:
                return removed

    async def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.prune()
            except StoreUnavailableError as error:
                logger.warning("logs: the store does not answer: %s", error)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), timeout=self._interval)
