"""The store contract: what every backend must do, in domain terms.

The HTTP layer (``server/app.py``) validates requests, checks tokens and shapes responses; a store
only keeps data and enforces the semantics written on each method of ``Store``
(``server/stores/contract/``). Every backend passes the same behaviour suite
(``tests/server/stores/``), so those docstrings are the specification the suite pins.

``Store``'s public methods check their arguments once (``checks``), in the same words for every
backend, and then call the hooks (``_append``, ``_range``, …) a backend implements. The records a
store takes and answers are in ``records``, its errors in ``errors``; this module names them all,
so ``from server.stores.base import …`` reaches everything.

Times are floats of seconds since the epoch (``time.time()``) unless a name ends in ``_ms``.
Every method is atomic: it either does all it says or raises and changes nothing.

Any method raises ``StoreUnavailableError`` (``unavailable``, status 503) when the backend cannot
be reached or used right now: a refused, lost or timed-out connection, or a lock another process
held for too long. It says nothing about the request itself, which may succeed when repeated later.
Its subclass ``StoreFullError`` (``store_full``, status 503) says the backend has no room left (a
full disk, Redis at ``maxmemory`` under ``noeviction``): the refused call wrote nothing, and the
same call succeeds once room is made.
One caveat to atomicity: when the connection is lost after a write was sent, the write may have
taken effect even though its answer never arrived.
"""

from __future__ import annotations

from .checks import (
    DEAD_LETTER_SUFFIX,
    MAX_ID_PART,
    check_max_deliveries,
    check_queue_settings,
    check_token_bucket,
    dead_letter_stream,
    dump_json,
    entry_id_parts,
)
from .contract import LeaseDeathListener, Store
from .errors import ConflictError, NotFoundError, StoreError, StoreFullError, StoreUnavailableError
from .message_filter import MessageFilter
from .records import (
    JSON,
    AppendResult,
    ClaimResult,
    ConsoleSession,
    DeadLetterFilter,
    DeadLetterPage,
    DeadLetterPosition,
    DeadLetterRecord,
    DeliveredEntry,
    DeliveryAttemptRecord,
    Entry,
    FlowControlLimits,
    FlowControlPage,
    FlowControlState,
    GroupInfo,
    IdempotencyClaim,
    JobAckOutcome,
    JobReceipt,
    JobRecord,
    JobReleaseOutcome,
    JobState,
    LeasedJob,
    LogEventRecord,
    LogPage,
    LogState,
    MessageLease,
    MessagePage,
    MessageReceipt,
    MessageRecord,
    MessageState,
    NewJob,
    NewMessage,
    PendingEntry,
    QueueRecord,
    QueueSettings,
    QueueStats,
    ScheduleCatchUp,
    ScheduleOutcome,
    SchedulePage,
    ScheduleRecord,
    ScheduleRun,
    ScheduleSettings,
    ScheduleTick,
    StreamInfo,
    StreamPage,
    StreamSummary,
    Trim,
    TrimResult,
    UrlEndpoint,
    UrlGroupRecord,
)

__all__ = [
    "DEAD_LETTER_SUFFIX",
    "JSON",
    "MAX_ID_PART",
    "AppendResult",
    "ClaimResult",
    "ConflictError",
    "ConsoleSession",
    "DeadLetterFilter",
    "DeadLetterPage",
    "DeadLetterPosition",
    "DeadLetterRecord",
    "DeliveredEntry",
    "DeliveryAttemptRecord",
    "Entry",
    "FlowControlLimits",
    "FlowControlPage",
    "FlowControlState",
    "GroupInfo",
    "IdempotencyClaim",
    "JobAckOutcome",
    "JobReceipt",
    "JobRecord",
    "JobReleaseOutcome",
    "JobState",
    "LeaseDeathListener",
    "LeasedJob",
    "LogEventRecord",
    "LogPage",
    "LogState",
    "MessageFilter",
    "MessageLease",
    "MessageReceipt",
    "MessagePage",
    "MessageRecord",
    "MessageState",
    "NewJob",
    "NewMessage",
    "NotFoundError",
    "PendingEntry",
    "QueueRecord",
    "QueueSettings",
    "QueueStats",
    "ScheduleCatchUp",
    "ScheduleOutcome",
    "SchedulePage",
    "ScheduleRecord",
    "ScheduleRun",
    "ScheduleSettings",
    "ScheduleTick",
    "Store",
    "StoreError",
    "StoreFullError",
    "StoreUnavailableError",
    "StreamInfo",
    "StreamPage",
    "StreamSummary",
    "Trim",
    "TrimResult",
    "UrlEndpoint",
    "UrlGroupRecord",
    "check_max_deliveries",
    "check_queue_settings",
    "check_token_bucket",
    "dead_letter_stream",
    "dump_json",
    "entry_id_parts",
]
