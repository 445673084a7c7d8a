"""The SQLite store's tables and the upgrades of files that an earlier version made.

The schema is versioned (``SCHEMA_VERSION``): opening a file that an earlier version made upgrades
it in place, in the same transaction that checks the version; a file from a newer version is
refused.
"""

from __future__ import annotations

import sqlite3

__all__ = ["SCHEMA_VERSION", "create_schema"]

SCHEMA_VERSION = 10

# An idempotency record keeps the result of the write that made it, as JSON. Its scope is what
# the write changed (``stream:<name>``, ``queue:<name>`` or ``messages``), as Redis keeps each
# record in the slot of its stream, its queue or the messages.
_IDEMPOTENCY_TABLE = """CREATE TABLE IF NOT EXISTS idempotency (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        result TEXT NOT NULL,
        expires_at REAL NOT NULL,
        PRIMARY KEY (scope, key)
    ) WITHOUT ROWID"""
_IDEMPOTENCY_INDEX = "CREATE INDEX IF NOT EXISTS idempotency_by_expiry ON idempotency (expires_at)"

# listMessages goes newest first through one state or one URL group.
_MESSAGE_LISTING_INDEXES = (
    "CREATE INDEX IF NOT EXISTS messages_by_state ON messages (state, seq)",
    """CREATE INDEX IF NOT EXISTS messages_by_url_group ON messages (url_group, seq)
        WHERE url_group IS NOT NULL""",
)

# A job's last attempts (server/stores/job_history.py): one row per lease, ended by the ack, nack
# or expiry that ended it; rows go with their job.
_JOB_ATTEMPTS = (
    """CREATE TABLE IF NOT EXISTS job_attempts (
        id INTEGER PRIMARY KEY,
        job_id TEXT NOT NULL REFERENCES jobs (job_id) ON DELETE CASCADE,
        lease_id TEXT NOT NULL,
        number INTEGER NOT NULL,
        leased_at REAL NOT NULL,
        consumer TEXT,
        ended_at REAL,
        outcome TEXT,
        error TEXT
    )""",
    "CREATE INDEX IF NOT EXISTS job_attempts_by_job ON job_attempts (job_id, id)",
)

# Flow control (``_flow_control``): a key's limits and pause, and the attempts counted against its
# rate; its messages are found by their ``flow_key``, its open ones in publish order.
_FLOW_CONTROL = (
    """CREATE TABLE IF NOT EXISTS flow_keys (
        key TEXT PRIMARY KEY,
        rate INTEGER,
        period INTEGER,
        parallelism INTEGER,
        paused INTEGER NOT NULL DEFAULT 0,
        wake_at REAL
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS flow_keys_by_wake ON flow_keys (wake_at) WHERE wake_at IS NOT NULL",
    """CREATE TABLE IF NOT EXISTS flow_starts (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL,
        started_at REAL NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS flow_starts_by_key ON flow_starts (key, started_at)",
)
# The messages' event log (``_logs``): listed newest first by sequence, pruned oldest first by time,
# and found by message for the message's own log.
_MESSAGE_EVENTS = (
    """CREATE TABLE IF NOT EXISTS message_events (
        seq INTEGER PRIMARY KEY,
        message_id TEXT NOT NULL REFERENCES messages (message_id) ON DELETE CASCADE,
        state TEXT NOT NULL,
        at REAL NOT NULL,
        attempt INTEGER,
        status_code INTEGER,
        error TEXT
    )""",
    "CREATE INDEX IF NOT EXISTS message_events_by_time ON message_events (at)",
    "CREATE INDEX IF NOT EXISTS message_events_by_message ON message_events (message_id, seq)",
)
# Made after the upgrades, since a file from before version 9 has no flow_key column until then.
_FLOW_KEY_INDEX = """CREATE INDEX IF NOT EXISTS messages_by_flow_key ON messages (flow_key, seq)
        WHERE flow_key IS NOT NULL AND state IN ('scheduled', 'delivering')"""

_SCHEMA: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
    # Streams ---------------------------------------------------------------------------
    """CREATE TABLE IF NOT EXISTS streams (
        name TEXT PRIMARY KEY,
        last_ms INTEGER NOT NULL,
        last_seq INTEGER NOT NULL,
        length INTEGER NOT NULL,
        created_at REAL NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS stream_entries (
        stream TEXT NOT NULL REFERENCES streams (name) ON DELETE CASCADE,
        ms INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        traceparent TEXT,
        PRIMARY KEY (stream, ms, seq)
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS stream_groups (
        stream TEXT NOT NULL REFERENCES streams (name) ON DELETE CASCADE,
        name TEXT NOT NULL,
        last_ms INTEGER NOT NULL,
        last_seq INTEGER NOT NULL,
        max_deliveries INTEGER,
        PRIMARY KEY (stream, name)
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS stream_consumers (
        stream TEXT NOT NULL,
        grp TEXT NOT NULL,
        consumer TEXT NOT NULL,
        PRIMARY KEY (stream, grp, consumer),
        FOREIGN KEY (stream, grp) REFERENCES stream_groups (stream, name) ON DELETE CASCADE
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS stream_pending (
        stream TEXT NOT NULL,
        grp TEXT NOT NULL,
        ms INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        consumer TEXT NOT NULL,
        delivery_count INTEGER NOT NULL,
        delivered_ms INTEGER NOT NULL,
        PRIMARY KEY (stream, grp, ms, seq),
        FOREIGN KEY (stream, grp) REFERENCES stream_groups (stream, name) ON DELETE CASCADE
    ) WITHOUT ROWID""",
    # Queues ----------------------------------------------------------------------------
    """CREATE TABLE IF NOT EXISTS queues (
        name TEXT PRIMARY KEY,
        max_attempts INTEGER NOT NULL,
        lease_seconds INTEGER NOT NULL,
        retention_seconds INTEGER NOT NULL,
        deduplication_window_seconds INTEGER NOT NULL,
        created_at REAL NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS jobs (
        seq INTEGER PRIMARY KEY,
        job_id TEXT NOT NULL UNIQUE,
        queue TEXT NOT NULL REFERENCES queues (name) ON DELETE CASCADE,
        topic TEXT NOT NULL,
        payload TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('ready', 'leased', 'succeeded', 'dead')),
        attempts INTEGER NOT NULL,
        published_at REAL NOT NULL,
        available_at REAL NOT NULL,
        lease_id TEXT,
        lease_expires_at REAL,
        lease_consumer TEXT,
        last_error TEXT,
        deduplication_id TEXT,
        finished_at REAL,
        traceparent TEXT
    )""",
    "CREATE INDEX IF NOT EXISTS jobs_by_queue_state ON jobs (queue, state, seq)",
    """CREATE INDEX IF NOT EXISTS jobs_by_finish ON jobs (queue, finished_at)
        WHERE finished_at IS NOT NULL""",
    """CREATE TABLE IF NOT EXISTS job_deduplication (
        queue TEXT NOT NULL REFERENCES queues (name) ON DELETE CASCADE,
        deduplication_id TEXT NOT NULL,
        job_id TEXT NOT NULL,
        seen_at REAL NOT NULL,
        PRIMARY KEY (queue, deduplication_id)
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS job_deduplication_by_age ON job_deduplication (queue, seen_at)",
    *_JOB_ATTEMPTS,
    # Messages --------------------------------------------------------------------------
    """CREATE TABLE IF NOT EXISTS messages (
        seq INTEGER PRIMARY KEY,
        message_id TEXT NOT NULL UNIQUE,
        url TEXT NOT NULL,
        body BLOB NOT NULL,
        content_type TEXT NOT NULL,
        method TEXT NOT NULL,
        headers TEXT NOT NULL,
        state TEXT NOT NULL
            CHECK (state IN ('scheduled', 'delivering', 'delivered', 'failed', 'cancelled')),
        retries INTEGER NOT NULL,
        timeout INTEGER NOT NULL,
        created_at REAL NOT NULL,
        not_before REAL NOT NULL,
        next_attempt_at REAL,
        url_group TEXT,
        retry_delay TEXT,
        callback TEXT,
        failure_callback TEXT,
        deduplication_id TEXT,
        lease_id TEXT,
        retries_used INTEGER NOT NULL DEFAULT 0,
        traceparent TEXT,
        options TEXT,
        flow_key TEXT
    )""",
    """CREATE INDEX IF NOT EXISTS messages_due ON messages (next_attempt_at, seq)
        WHERE state IN ('scheduled', 'delivering')""",
    *_MESSAGE_LISTING_INDEXES,
    *_FLOW_CONTROL,
    *_MESSAGE_EVENTS,
    """CREATE TABLE IF NOT EXISTS message_attempts (
        message_id TEXT NOT NULL REFERENCES messages (message_id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        attempt INTEGER NOT NULL,
        started_at REAL NOT NULL,
        duration_ms INTEGER NOT NULL,
        status_code INTEGER,
        response_excerpt TEXT,
        error TEXT,
        PRIMARY KEY (message_id, position)
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS message_deduplication (
        dedup_key TEXT PRIMARY KEY,
        message_id TEXT NOT NULL,
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL
    ) WITHOUT ROWID""",
    """CREATE INDEX IF NOT EXISTS message_deduplication_by_expiry
        ON message_deduplication (expires_at)""",
    """CREATE TABLE IF NOT EXISTS dead_letters (
        seq INTEGER PRIMARY KEY,
        message_id TEXT NOT NULL UNIQUE REFERENCES messages (message_id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        failed_at REAL NOT NULL,
        last_error TEXT,
        last_status_code INTEGER
    )""",
    # Pages of dead letters (and the bulk retries and deletes that walk them) go by filing time;
    # without it every page would scan and sort them all. Made on open, in files of any version,
    # since an older Spool reads the table the same with it.
    "CREATE INDEX IF NOT EXISTS dead_letters_by_failure ON dead_letters (failed_at, seq)",
    """CREATE TABLE IF NOT EXISTS url_groups (
        name TEXT PRIMARY KEY,
        endpoints TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    ) WITHOUT ROWID""",
    # Idempotency and quotas ------------------------------------------------------------
    _IDEMPOTENCY_TABLE,
    _IDEMPOTENCY_INDEX,
    """CREATE TABLE IF NOT EXISTS quotas (
        token_id TEXT PRIMARY KEY,
        used INTEGER NOT NULL
    ) WITHOUT ROWID""",
    # Rate limits: a token bucket per key, as it was at ``updated_at``.
    """CREATE TABLE IF NOT EXISTS rate_buckets (
        key TEXT PRIMARY KEY,
        tokens REAL NOT NULL,
        updated_at REAL NOT NULL
    ) WITHOUT ROWID""",
    # Console sessions: ``idle_until`` is when the session ends unless a visit touches it, never
    # past ``expires_at``. A table that earlier versions never read, so adding it needs no new
    # schema version and leaves the file openable by them.
    """CREATE TABLE IF NOT EXISTS console_sessions (
        key TEXT PRIMARY KEY,
        token_id TEXT NOT NULL,
        token_check TEXT NOT NULL,
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL,
        idle_seconds REAL NOT NULL,
        idle_until REAL NOT NULL
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS console_sessions_by_end ON console_sessions (idle_until)",
    # Cron schedules and their recent runs (``_schedules``): tables that earlier versions never
    # read, added as the console's were.
    """CREATE TABLE IF NOT EXISTS schedules (
        name TEXT PRIMARY KEY,
        cron TEXT NOT NULL,
        timezone TEXT NOT NULL,
        catch_up TEXT NOT NULL,
        destination TEXT NOT NULL,
        revision TEXT NOT NULL,
        paused INTEGER NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        next_run_at REAL,
        last_run_at REAL,
        lease_id TEXT,
        lease_until REAL
    ) WITHOUT ROWID""",
    """CREATE INDEX IF NOT EXISTS schedules_due ON schedules (next_run_at)
        WHERE next_run_at IS NOT NULL""",
    """CREATE TABLE IF NOT EXISTS schedule_runs (
        id INTEGER PRIMARY KEY,
        schedule TEXT NOT NULL,
        tick_at REAL NOT NULL,
        fired_at REAL NOT NULL,
        outcome TEXT NOT NULL,
        ids TEXT NOT NULL,
        error_code TEXT,
        error_detail TEXT
    )""",
    "CREATE INDEX IF NOT EXISTS schedule_runs_by_schedule ON schedule_runs (schedule, id)",
)

# What each schema version adds to a file that an earlier version made (``_SCHEMA`` creates only
# what is missing, so a new column of an existing table needs its own statement here).
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: (
        "ALTER TABLE messages ADD COLUMN lease_id TEXT",
        "ALTER TABLE messages ADD COLUMN retries_used INTEGER NOT NULL DEFAULT 0",
        # The delivery engine's rule before the store kept the count: a message fails after exactly
        # retries + 1 attempts, so earlier budgets used whole multiples of that.
        """UPDATE messages SET retries_used = (
               SELECT COUNT(*) FROM message_attempts
               WHERE message_attempts.message_id = messages.message_id
           ) % (retries + 1)""",
    ),
    # Records held HTTP responses, or nothing while their request was in progress; now they hold
    # the write's result, recorded in the write's transaction. The old ones are dropped rather
    # than converted: a repeat of a publish answered before the upgrade runs again.
    3: ("DROP TABLE idempotency", _IDEMPOTENCY_TABLE, _IDEMPOTENCY_INDEX),
    # Groups made before max_deliveries deliver without a limit, as they did.
    4: ("ALTER TABLE stream_groups ADD COLUMN max_deliveries INTEGER",),
    # Items published before trace propagation have no trace to continue.
    5: (
        "ALTER TABLE stream_entries ADD COLUMN traceparent TEXT",
        "ALTER TABLE jobs ADD COLUMN traceparent TEXT",
        "ALTER TABLE messages ADD COLUMN traceparent TEXT",
    ),
    # Listing messages by state or URL group, newest first.
    6: _MESSAGE_LISTING_INDEXES,
    # Messages published before callback headers have no options (server/stores/message_options).
    7: ("ALTER TABLE messages ADD COLUMN options TEXT",),
    # Jobs leased before attempts were kept start their history with their next lease. A new
    # version, not just a new table, so that an older Spool, which would lease without recording,
    # refuses the file.
    8: _JOB_ATTEMPTS,
    # Messages published before flow control have no key. A new version, so that an older Spool,
    # which would claim past every limit, refuses the file.
    9: ("ALTER TABLE messages ADD COLUMN flow_key TEXT",),
    # Messages changed before the log have no events. A new version, so that an older Spool,
    # which would change messages without logging, refuses the file.
    10: _MESSAGE_EVENTS,
}


def create_schema(connection: sqlite3.Connection, *, path: str) -> None:
    """Create what is missing and upgrade an older file, in one transaction; refuse a newer one."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA:
            connection.execute(statement)
        row = connection.execute("SELECT version FROM schema_version").fetchone()
        if row is None:
            connection.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
        elif row["version"] > SCHEMA_VERSION:
            raise RuntimeError(
                f"{path} has schema version {row['version']}, newer than this Spool's "
                f"{SCHEMA_VERSION}; upgrade Spool to open it"
            )
        elif row["version"] < SCHEMA_VERSION:
            for version in range(row["version"] + 1, SCHEMA_VERSION + 1):
                for statement in _MIGRATIONS[version]:
                    connection.execute(statement)
            connection.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
        connection.execute(_FLOW_KEY_INDEX)
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
