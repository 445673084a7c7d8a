"""The bounds of one `run()` (its options) and its progress: messages taken and handled, the
deadline, the stop flag, and where each stream subscription's pending-list scan stands.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from dataclasses import dataclass

from ._checks import check_group_name
from ._durations import Duration, to_millis, to_timedelta
from ._exceptions import ConfigurationError
from ._limits import WAIT_MS_MAX

__all__ = ["Pace", "RunOptions", "RunProgress", "StreamState", "default_consumer_name"]

# How often a worker waiting for work looks at the stop flag, which `stop()` sets from anywhere.
STOP_CHECK_SECONDS = 0.05
# At most this many handlers run at once in one run().
CONCURRENCY_MAX = 1000
# A subscription without a `count` holds what its handlers get through in this share of its
# lease (a stream's redeliver_after), between these bounds; the least until it has measured.
_SHARE_OF_LEASE = 0.25
HELD_MIN = 10
HELD_MAX = 1000
# How much each handler run moves the average of their times.
_PACE_WEIGHT = 0.2
# Keeps a long poll well inside the HTTP timeout, so waiting is never mistaken for a dead service.
_POLL_SHARE_OF_TIMEOUT = 0.5


def default_consumer_name() -> str:
    """`<host>-<pid>`, cut to what the API accepts as a consumer name.

    Returns:
        The name: characters the API refuses become `-`, a `c` goes first unless it starts
        with a letter or digit, and it is cut to 64 characters.
    """
    name = re.sub(r"[^A-Za-z0-9_.:-]", "-", f"{socket.gethostname()}-{os.getpid()}")
    return ("c" + name if not name[:1].isalnum() else name)[:64]


@dataclass(frozen=True, slots=True)
class RunOptions:
    """The bounds of one `run()`."""

    consumer: str
    max_messages: int | None
    stop_after_seconds: float | None
    poll_wait_ms: int
    concurrency: int = 1

    @classmethod
    def build(
        cls,
        *,
        consumer: str | None,
        max_messages: int | None,
        stop_after: Duration | None,
        poll_wait: Duration,
        request_timeout: float | None,
        concurrency: int = 1,
    ) -> RunOptions:
        """Validated options; the long poll is capped below the HTTP read timeout.

        Returns:
            The RunOptions, `consumer` defaulting to `default_consumer_name()`.

        Raises:
            InvalidNameError: `consumer` is not a valid consumer name.
            ConfigurationError: `max_messages` is not an int of at least 1, or `concurrency` is
                not an int from 1 to 1000.
            InvalidDurationError: `stop_after` or `poll_wait` is malformed or negative, or
                `poll_wait` is not whole milliseconds up to 30 s.
        """
        name = check_group_name(consumer or default_consumer_name(), what="consumer")
        if max_messages is not None and (
            isinstance(max_messages, bool) or not isinstance(max_messages, int) or max_messages < 1
        ):
            raise ConfigurationError(f"max_messages must be an int >= 1, got {max_messages!r}")
        if (
            isinstance(concurrency, bool)
            or not isinstance(concurrency, int)
            or not 1 <= concurrency <= CONCURRENCY_MAX
        ):
            raise ConfigurationError(
                f"concurrency must be an int from 1 to {CONCURRENCY_MAX}, got {concurrency!r}"
            )
        wait_ms = to_millis(poll_wait, name="poll_wait", minimum=0, maximum=WAIT_MS_MAX)
        if request_timeout is not None:
            wait_ms = min(wait_ms, int(request_timeout * 1000 * _POLL_SHARE_OF_TIMEOUT))
        return cls(
            consumer=name,
            max_messages=max_messages,
            stop_after_seconds=None
            if stop_after is None
            else to_timedelta(stop_after, name="stop_after").total_seconds(),
            poll_wait_ms=wait_ms,
            concurrency=concurrency,
        )


@dataclass(slots=True)
class RunProgress:
    """The progress of one `run()`: messages taken from the service, messages handled, the
    deadline and the stop flag. The worker's lock guards the counts.
    """

    options: RunOptions
    stop: threading.Event
    taken: int = 0
    handled: int = 0
    deadline: float | None = None

    def __post_init__(self) -> None:
        if self.options.stop_after_seconds is not None:
            self.deadline = time.monotonic() + self.options.stop_after_seconds

    def finished(self) -> bool:
        """Whether the loop must stop before handling anything else.

        Returns:
            True once the stop flag is set, `max_messages` are handled or the deadline passed.
        """
        if self.stop.is_set():
            return True
        if self.options.max_messages is not None and self.handled >= self.options.max_messages:
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline

    def budget(self, count: int) -> int:
        """How many more messages may be taken now, up to `count`: never more than the
        max_messages left once those taken already are handled.

        Returns:
            A count from 0 to `count`.
        """
        if self.options.max_messages is None:
            return count
        return max(0, min(count, self.options.max_messages - self.taken))

    def wait_ms(self) -> int:
        """A long poll's wait: poll_wait, within the deadline.

        Returns:
            Milliseconds, 0 once the deadline has passed.
        """
        wait = self.options.poll_wait_ms
        if self.deadline is not None:
            wait = min(wait, max(0, int((self.deadline - time.monotonic()) * 1000)))
        return wait

    def pause(self) -> float:
        """How long a wait for work may last before the stop flag and deadline are looked at.

        Returns:
            Seconds, 0 once the deadline has passed.
        """
        if self.deadline is None:
            return STOP_CHECK_SECONDS
        return max(0.0, min(STOP_CHECK_SECONDS, self.deadline - time.monotonic()))


@dataclass(slots=True)
class Pace:
    """How many messages a subscription without a `count` holds: as many as its handlers get
    through in a quarter of the time a message may wait before the service hands it out again
    (the lease, or a stream's redeliver_after), from the average time its handlers take.
    """

    budget_seconds: float | None = None
    seconds_per_message: float | None = None

    def record(self, seconds: float) -> None:
        """One handler run took `seconds`."""
        if self.seconds_per_message is None:
            self.seconds_per_message = seconds
        else:
            self.seconds_per_message += _PACE_WEIGHT * (seconds - self.seconds_per_message)

    def capacity(self, concurrency: int) -> int:
        """How many messages to hold with `concurrency` handlers at once.

        Returns:
            What the handlers get through in a quarter of the lease, from 10 to 1000, and never
            fewer than `concurrency`; the least until a handler run has been measured.
        """
        if self.budget_seconds is None or self.seconds_per_message is None:
            return max(HELD_MIN, concurrency)
        held = self.budget_seconds * _SHARE_OF_LEASE * concurrency
        held /= max(self.seconds_per_message, 1e-6)
        return max(HELD_MIN, concurrency, min(HELD_MAX, int(held)))


@dataclass(slots=True)
class StreamState:
    """Whether a stream subscription's group exists, and where its pending-list scan stands."""

    group_ready: bool = False
    cursor: str = "0-0"
    next_at: float = 0.0

    def claim_due(self) -> bool:
        """Whether to scan the pending list for entries idle long enough to deliver again.

        Returns:
            True once the time set by `advance` has come (at once, at first).
        """
        return time.monotonic() >= self.next_at

    def advance(self, next_start_id: str, redeliver_after_ms: int) -> None:
        """Continue the scan at `next_start_id`; at the end, wait `redeliver_after` for the next."""
        self.cursor = next_start_id
        if next_start_id == "0-0":
            # The scan reached the end: look again once anything failing now could be idle enough.
            self.next_at = time.monotonic() + redeliver_after_ms / 1000
