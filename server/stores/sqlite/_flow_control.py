"""Flow control keys: their limits and state, and the gate the message claims pass through.

A key's row in ``flow_keys`` holds the limits of the latest publish that named it, whether it is
paused, and ``wake_at``: when its parked messages are to be looked at again. The attempts counted
against its ``rate`` are rows of ``flow_starts``; its messages in flight are its ``delivering``
messages whose lease (``next_attempt_at``) has not ended.

A due message that a claim may not take (over a limit, paused, or behind an older message of an
ordered key) is parked: still ``scheduled``, with no ``next_attempt_at``, so the due scan passes it
by and cannot be held up by it. A parked message is given a due time again (``unpark``) when its
key may take more: when one of the key's attempts settles, when it is cancelled, resumed, reset or
published with new limits, or at its ``wake_at`` (the earliest time the rate window or a lease
ends). Every one of those runs in the transaction of the write that caused it, so processes
sharing the file see one state.
"""

from __future__ import annotations

import dataclasses
import math
import sqlite3

from ..base import FlowControlLimits, FlowControlState
from ._core import SQLiteCore

__all__ = ["FlowControlMixin", "FlowGate", "flow_published", "unpark"]

# How many keys one claim wakes, and how many parked messages one key unparks at once when it has
# no limit (a key only ever paused): bounds on what one transaction does.
_WAKE_BATCH = 100
_UNPARK_BATCH = 1000


@dataclasses.dataclass(slots=True)
class _Key:
    """A key's state as one transaction reads and changes it."""

    rate: int | None
    period: int
    parallelism: int | None
    paused: bool
    in_flight: int
    # The start times counted against ``rate``, oldest first.
    starts: list[float]
    # The publish sequence of the key's oldest message not yet delivered, dead or cancelled.
    head: int | None

    @property
    def ordered(self) -> bool:
        return self.parallelism == 1

    def capacity(self) -> float:
        """How many more attempts may start now."""
        if self.paused:
            return 0
        room = math.inf
        if self.parallelism is not None:
            room = min(room, self.parallelism - self.in_flight)
        if self.rate is not None:
            room = min(room, self.rate - len(self.starts))
        return max(0, room)


def _load(connection: sqlite3.Connection, key: str, now: float) -> _Key:
    row = connection.execute(
        "SELECT rate, period, parallelism, paused FROM flow_keys WHERE key = ?", (key,)
    ).fetchone()
    rate, period, parallelism, paused = (
        (None, 1, None, False)
        if row is None
        else (row["rate"], row["period"] or 1, row["parallelism"], bool(row["paused"]))
    )
    connection.execute(
        "DELETE FROM flow_starts WHERE key = ? AND started_at <= ?", (key, now - period)
    )
    starts = [
        float(start["started_at"])
        for start in connection.execute(
            "SELECT started_at FROM flow_starts WHERE key = ? ORDER BY started_at", (key,)
        )
    ]
    in_flight = connection.execute(
        """SELECT COUNT(*) FROM messages WHERE flow_key = ? AND state = 'delivering'
           AND next_attempt_at > ?""",
        (key, now),
    ).fetchone()[0]
    head = connection.execute(
        """SELECT seq FROM messages WHERE flow_key = ? AND state IN ('scheduled', 'delivering')
           ORDER BY seq LIMIT 1""",
        (key,),
    ).fetchone()
    return _Key(
        rate=rate,
        period=period,
        parallelism=parallelism,
        paused=paused,
        in_flight=in_flight,
        starts=starts,
        head=None if head is None else head["seq"],
    )


def _earliest_lease_end(connection: sqlite3.Connection, key: str, now: float) -> float | None:
    row = connection.execute(
        """SELECT MIN(next_attempt_at) FROM messages WHERE flow_key = ? AND state = 'delivering'
           AND next_attempt_at > ?""",
        (key, now),
    ).fetchone()
    return None if row[0] is None else float(row[0])


def _wake_at(connection: sqlite3.Connection, key: str, state: _Key, now: float) -> float | None:
    """When the key may take another attempt, as far as time alone decides: the end of its rate
    window or of a lease; None when only an event (a settle, a resume) can free it.
    """
    if state.paused:
        return None
    times: list[float] = []
    if state.rate is not None and len(state.starts) >= state.rate:
        times.append(state.starts[len(state.starts) - state.rate] + state.period)
    if state.parallelism is not None and state.in_flight >= state.parallelism:
        lease_end = _earliest_lease_end(connection, key, now)
        if lease_end is not None:
            times.append(lease_end)
    return min(times) if times else None


def _set_wake(connection: sqlite3.Connection, key: str, at: float | None) -> None:
    if at is None:
        return
    connection.execute(
        """UPDATE flow_keys SET wake_at = CASE WHEN wake_at IS NULL OR wake_at > ?1 THEN ?1
           ELSE wake_at END WHERE key = ?2""",
        (at, key),
    )


def flow_published(connection: sqlite3.Connection, limits: FlowControlLimits, now: float) -> None:
    """Make ``limits`` the key's own; new limits may let parked messages through, so its parked
    messages are looked at by the next claim.
    """
    connection.execute(
        """INSERT INTO flow_keys (key, rate, period, parallelism, paused, wake_at)
           VALUES (?1, ?2, ?3, ?4, 0, ?5)
           ON CONFLICT (key) DO UPDATE SET rate = ?2, period = ?3, parallelism = ?4,
               wake_at = CASE WHEN rate IS ?2 AND period IS ?3 AND parallelism IS ?4
                   THEN wake_at ELSE ?5 END""",
        (limits.key, limits.rate, limits.period, limits.parallelism, now),
    )


def unpark(connection: sqlite3.Connection, key: str, now: float) -> None:
    """Give as many of the key's parked messages a due time (now) as it may take, oldest first;
    if some stay parked, wake the key when time alone may free it.
    """
    state = _load(connection, key, now)
    capacity = state.capacity()
    parked = connection.execute(
        """SELECT seq, message_id FROM messages WHERE flow_key = ? AND state = 'scheduled'
           AND next_attempt_at IS NULL ORDER BY seq LIMIT ?""",
        (key, _UNPARK_BATCH + 1),
    ).fetchall()
    if not parked:
        return
    if state.ordered:
        # Only the key's oldest open message may go, and only when it is the one parked.
        moved = 1 if capacity >= 1 and parked[0]["seq"] == state.head else 0
        holds = parked[0]["seq"] == state.head
    else:
        moved = min(len(parked), _UNPARK_BATCH if capacity == math.inf else int(capacity))
        holds = True
    connection.executemany(
        "UPDATE messages SET next_attempt_at = ? WHERE message_id = ?",
        [(now, row["message_id"]) for row in parked[:moved]],
    )
    if len(parked) > moved and holds:
        if capacity == math.inf:
            _set_wake(connection, key, now)
            return
        state.starts.extend([now] * moved)
        state.in_flight += moved
        _set_wake(connection, key, _wake_at(connection, key, state, now))


class FlowGate:
    """What one claim knows of the keys of the messages it looks at: whether each may start now,
    and the start of each one it takes.
    """

    def __init__(self, connection: sqlite3.Connection, now: float) -> None:
        self._connection = connection
        self._now = now
        self._keys: dict[str, _Key] = {}

    def wake_due_keys(self) -> None:
        """Unpark the messages of every key whose ``wake_at`` has come."""
        keys = [
            row["key"]
            for row in self._connection.execute(
                "SELECT key FROM flow_keys WHERE wake_at <= ? ORDER BY wake_at LIMIT ?",
                (self._now, _WAKE_BATCH),
            )
        ]
        self._connection.executemany(
            "UPDATE flow_keys SET wake_at = NULL WHERE key = ?", [(key,) for key in keys]
        )
        for key in keys:
            unpark(self._connection, key, self._now)

    def admit(self, message_id: str, key: str, seq: int) -> bool:
        """Whether the due message may be claimed now; counts its start if so, parks it if not."""
        state = self._keys.get(key)
        if state is None:
            state = self._keys[key] = _load(self._connection, key, self._now)
        blocked = state.capacity() < 1 or (state.ordered and state.head != seq)
        if not blocked:
            state.in_flight += 1
            state.starts.append(self._now)
            self._connection.execute(
                "INSERT INTO flow_starts (key, started_at) VALUES (?, ?)", (key, self._now)
            )
            return True
        self._connection.execute(
            """UPDATE messages SET state = 'scheduled', next_attempt_at = NULL, lease_id = NULL
               WHERE message_id = ?""",
            (message_id,),
        )
        if not (state.ordered and state.head != seq):
            _set_wake(self._connection, key, _wake_at(self._connection, key, state, self._now))
        return False


def _state(connection: sqlite3.Connection, key: str, now: float) -> FlowControlState:
    row = connection.execute(
        "SELECT rate, period, parallelism, paused FROM flow_keys WHERE key = ?", (key,)
    ).fetchone()
    state = _load(connection, key, now)
    waiting = connection.execute(
        "SELECT COUNT(*) FROM messages WHERE flow_key = ? AND state = 'scheduled'", (key,)
    ).fetchone()[0]
    return FlowControlState(
        key=key,
        rate=None if row is None else row["rate"],
        period=None if row is None else row["period"],
        parallelism=None if row is None else row["parallelism"],
        paused=state.paused,
        waiting=waiting,
        in_flight=state.in_flight,
        rate_used=len(state.starts),
    )


class FlowControlMixin(SQLiteCore):
    """The SQLite store's flow control keys."""

    async def _list_flow_control_keys(
        self, *, limit: int, cursor: str | None
    ) -> tuple[list[FlowControlState], bool]:
        """Keys by name, one more read than ``limit`` to tell whether more follow."""

        def work(connection: sqlite3.Connection, now: float) -> tuple[list[FlowControlState], bool]:
            rows = connection.execute(
                "SELECT key FROM flow_keys WHERE key > ? ORDER BY key LIMIT ?",
                ("" if cursor is None else cursor, limit + 1),
            ).fetchall()
            states = [_state(connection, row["key"], now) for row in rows[:limit]]
            return states, len(rows) > limit

        # A write: reading a key's state forgets the starts its window has passed.
        return await self.run_transaction(work)

    async def _get_flow_control(self, key: str) -> FlowControlState:
        """The key's state."""

        def work(connection: sqlite3.Connection, now: float) -> FlowControlState:
            return _state(connection, key, now)

        return await self.run_transaction(work)

    async def _pause_flow_control(self, key: str) -> FlowControlState:
        """Mark the key paused, keeping it even before any publish names it."""

        def work(connection: sqlite3.Connection, now: float) -> FlowControlState:
            connection.execute(
                """INSERT INTO flow_keys (key, paused) VALUES (?, 1)
                   ON CONFLICT (key) DO UPDATE SET paused = 1""",
                (key,),
            )
            return _state(connection, key, now)

        return await self.run_transaction(work)

    async def _resume_flow_control(self, key: str) -> FlowControlState:
        """Clear the pause and let the key's parked messages through, within its limits."""

        def work(connection: sqlite3.Connection, now: float) -> FlowControlState:
            connection.execute("UPDATE flow_keys SET paused = 0 WHERE key = ?", (key,))
            unpark(connection, key, now)
            return _state(connection, key, now)

        return await self.run_transaction(work)

    async def _reset_flow_control(self, key: str) -> FlowControlState:
        """Forget the key's counted starts and let its parked messages through."""

        def work(connection: sqlite3.Connection, now: float) -> FlowControlState:
            connection.execute("DELETE FROM flow_starts WHERE key = ?", (key,))
            unpark(connection, key, now)
            return _state(connection, key, now)

        return await self.run_transaction(work)
