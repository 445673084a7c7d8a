"""The store contract: one ``Store`` whose public methods check their arguments once, in the same
words for every backend, and then call the hooks a backend implements.

Each public method validates its arguments (``..checks``) and raises
``StoreError("validation_failed", …)`` before any hook runs, so a refused call never reaches a
backend; it then calls its hook, the method of the same name with a leading underscore
(``append`` calls ``_append``). A backend implements the hooks, the life cycle (``open``,
``close``, ``ping``) and ``from_url``, and keeps only what is its own: its queries or scripts, its
id formats and its storage. The public methods are grouped by resource, one module each:
``_streams`` (streams and consumer groups), ``_queues``, ``_messages`` (with URL groups and dead
letters), ``_limits`` (quotas and rate limits), ``_sessions`` (the console's sign-ins) and
``_schedules`` (cron schedules and the ticks schedulers claim) and ``_flow_control`` (the state of
the keys whose limits ``claim_due_messages`` keeps).
"""

from __future__ import annotations

import abc
from typing import ClassVar, Literal

from ._flow_control import FlowControlContract
from ._limits import LimitsContract
from ._messages import MessagesContract
from ._queues import LeaseDeathListener, QueuesContract
from ._schedules import SchedulesContract
from ._sessions import SessionsContract
from ._streams import StreamsContract

__all__ = ["LeaseDeathListener", "Store"]


class Store(
    StreamsContract,
    QueuesContract,
    MessagesContract,
    LimitsContract,
    SessionsContract,
    SchedulesContract,
    FlowControlContract,
):
    """Everything the service keeps. One instance serves one process; several processes may share
    one backend (Redis), so every state change must be safe against other processes.
    """

    kind: ClassVar[Literal["sqlite", "redis"]]

    @classmethod
    @abc.abstractmethod
    def from_url(cls, url: str) -> Store:
        """Build an unopened store from its URL (query parameters carry backend options)."""

    # Life cycle ----------------------------------------------------------------------------

    @abc.abstractmethod
    async def open(self) -> None:
        """Connect and create what the backend needs (tables, scripts)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release connections; the store is unusable afterwards."""

    @abc.abstractmethod
    async def ping(self) -> bool:
        """True when the backend answers."""
