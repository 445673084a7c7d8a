"""The embedded store: one SQLite file that several processes may share.

URLs: ``sqlite:///relative/path.db`` (relative to the working directory), ``sqlite:////abs/path.db``
(absolute), or ``sqlite:///:memory:`` (one private in-memory database, for experiments). The parent
directory is created on ``open()``.

Durability: the file runs in WAL mode with ``synchronous=FULL``, so a commit is on disk before the
method returns, and a 2xx built from a store answer survives a crash of the process or the machine.
Every method is one transaction (``BEGIN IMMEDIATE`` for writers, so two processes never interleave
their read-then-write steps, e.g. never lease one job twice); any error rolls it back whole.
Writes that arrive while another is running share the next transaction (group commit): each runs
in a savepoint of its own, so a failing one is undone alone, and each caller returns only after the
``COMMIT`` that made its own write durable. One commit, the cost of a write, then serves many. A
writer waits up to ``busy_timeout`` (30 s by default) for another process's transaction; past that,
or when the file cannot be read, written or opened, the call raises ``StoreUnavailableError``; on
a full disk (SQLITE_FULL) its subclass ``StoreFullError``, with the transaction rolled back.

Time: the store reads the time only through ``clock`` (public, default ``time.time``), inside the
transaction. Tests replace it to step time forwards or backwards; waits (``wait_ms``) use the
monotonic clock instead, so a frozen test clock cannot stretch them.

The store is one class composed of one mixin per resource, all on the connection core
(``_core``): streams (``_streams``), consumer groups (``_groups``), queues and jobs (``_queues``),
HTTP messages (``_messages``), URL groups (``_url_groups``), dead letters (``_dead_letters``),
quotas and rate limits (``_limits``), the console's sessions (``_sessions``) and cron schedules
(``_schedules``); the tables and
their upgrades are in ``_schema``, idempotent writes in ``_idempotency``. Each module's docstring
gives the rules of its resource. The modules implement the hooks (``_append``, ``_range``, …)
that ``Store``'s public methods call once they have checked their arguments
(``server/stores/contract/``), so they check nothing themselves.
"""

from __future__ import annotations

from ._core import POLL_INTERVAL_SECONDS
from ._dead_letters import DeadLettersMixin
from ._flow_control import FlowControlMixin
from ._groups import GroupsMixin
from ._limits import LimitsMixin
from ._logs import LogsMixin
from ._messages import MessagesMixin
from ._queues import QueuesMixin
from ._schedules import SchedulesMixin
from ._schema import SCHEMA_VERSION
from ._sessions import SessionsMixin
from ._streams import (
    APPROXIMATE_TRIM_MAX_SLACK,
    APPROXIMATE_TRIM_MIN_SLACK,
    StreamsMixin,
    approximate_trim_slack,
)
from ._url_groups import UrlGroupsMixin

__all__ = [
    "APPROXIMATE_TRIM_MAX_SLACK",
    "APPROXIMATE_TRIM_MIN_SLACK",
    "POLL_INTERVAL_SECONDS",
    "SCHEMA_VERSION",
    "SQLiteStore",
    "approximate_trim_slack",
]


class SQLiteStore(
    StreamsMixin,
    GroupsMixin,
    QueuesMixin,
    MessagesMixin,
    LogsMixin,
    UrlGroupsMixin,
    DeadLettersMixin,
    LimitsMixin,
    SessionsMixin,
    SchedulesMixin,
    FlowControlMixin,
):
    """The embedded store on one SQLite file."""
