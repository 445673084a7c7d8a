"""The Redis store's key names and its key prefix (the key scheme is in the package docstring)."""

from __future__ import annotations

import dataclasses
from urllib.parse import parse_qsl

from .. import InvalidStoreURL
from ..base import DEAD_LETTER_SUFFIX

__all__ = [
    "DEFAULT_PREFIX",
    "MessageKeys",
    "QueueKeys",
    "ScheduleKeys",
    "StoreKeys",
    "split_prefix",
    "valid_prefix",
]

DEFAULT_PREFIX = "spool"


def valid_prefix(prefix: str) -> bool:
    """True for a prefix that is non-empty and brace-free."""
    # A brace would start a hash tag in the prefix and put every key in one cluster slot.
    return bool(prefix) and "{" not in prefix and "}" not in prefix


def split_prefix(url: str, query_text: str) -> tuple[str, list[tuple[str, str]]]:
    """A store URL's ``prefix`` (ours) and the query parameters left for redis-py."""
    query = parse_qsl(query_text, keep_blank_values=True)
    prefixes = [value for name, value in query if name == "prefix"]
    if len(prefixes) > 1:
        raise InvalidStoreURL(f"{url!r} gives prefix more than once")
    prefix = prefixes[0] if prefixes else DEFAULT_PREFIX
    if not valid_prefix(prefix):
        raise InvalidStoreURL(f"{url!r}: the prefix must be non-empty and brace-free")
    return prefix, [(name, value) for name, value in query if name != "prefix"]


@dataclasses.dataclass(frozen=True, slots=True)
class QueueKeys:
    """The keys of one queue, all in the slot of the hash tag ``{<queue>}``."""

    base: str

    @property
    def meta(self) -> str:
        """The hash of the queue's settings, creation time and job sequence."""
        return f"{self.base}:meta"

    @property
    def job_prefix(self) -> str:
        """What a job's hash key is, before the job id."""
        return f"{self.base}:job:"

    @property
    def doorbell(self) -> str:
        """The stream a publish rings and a lease long poll blocks on (``ring()`` in
        ``lua/lib/queue.lua``).
        """
        return f"{self.base}:bell"

    def declared(self) -> list[str]:
        """The keys every queue script declares, in the order ``lua/lib/queue.lua`` unpacks them."""
        names = (
            "meta", "all", "avail", "delayed", "leased", "dead", "done", "dedup", "dedup_exp", "bell"
        )  # fmt: skip
        return [f"{self.base}:{name}" for name in names]


@dataclasses.dataclass(frozen=True, slots=True)
class MessageKeys:
    """The keys of every message, all in the slot of the hash tag ``{messages}``."""

    base: str

    @property
    def message_prefix(self) -> str:
        """What a message's hash key is, before the message id."""
        return f"{self.base}:msg:"

    @property
    def due(self) -> str:
        """The set of scheduled and delivering messages, by next try."""
        return f"{self.base}:due"

    @property
    def listed(self) -> str:
        """The set of every message id, by publish sequence, for listing."""
        return f"{self.base}:all"

    @property
    def flow_wake(self) -> str:
        """The set of flow control keys by when their held-back messages are looked at again
        (lua/lib/flow.lua names it and the other flow control keys after ``message_prefix``).
        """
        return f"{self.message_prefix}fc:~wake"

    def declared(self) -> list[str]:
        """The keys every message script declares, in the order ``lua/lib/messages.lua`` unpacks
        them.
        """
        return [
            f"{self.base}:{name}" for name in ("due", "dead", "dedup", "dedup_exp", "seq", "events")
        ]


@dataclasses.dataclass(frozen=True, slots=True)
class ScheduleKeys:
    """The keys of every schedule, all in the slot of the hash tag ``{schedules}``."""

    base: str

    @property
    def schedule_prefix(self) -> str:
        """What a schedule's hash key is, before its name."""
        return f"{self.base}:s:"

    @property
    def runs_prefix(self) -> str:
        """What the key of a schedule's list of recent runs is, before its name."""
        return f"{self.base}:runs:"

    @property
    def names(self) -> str:
        """The set of schedule names (all scored 0, so ordered by name), for listing."""
        return f"{self.base}:names"

    @property
    def due(self) -> str:
        """The set of unpaused schedules, by when a tick of each may next be claimed."""
        return f"{self.base}:due"

    def schedule(self, name: str) -> str:
        """The schedule's hash."""
        return f"{self.schedule_prefix}{name}"

    def runs(self, name: str) -> str:
        """The list of the schedule's recent runs, newest first."""
        return f"{self.runs_prefix}{name}"


@dataclasses.dataclass(frozen=True, slots=True)
class StoreKeys:
    """Every key of one store, named from its prefix."""

    prefix: str

    def stream(self, stream: str) -> str:
        """The stream's own key."""
        # A dead-letter stream (``<stream>.dead``, also of a dead-letter stream) shares its
        # stream's hash tag, so the claim that moves an entry there stays in one cluster slot.
        tag = stream
        while tag.endswith(DEAD_LETTER_SUFFIX):
            tag = tag[: -len(DEAD_LETTER_SUFFIX)]
        return f"{self.prefix}:s:{{{tag}}}{stream[len(tag) :]}"

    def groups(self, stream: str) -> str:
        """The hash of the stream's groups' settings."""
        return f"{self.stream(stream)}:groups"

    def queue(self, queue: str) -> QueueKeys:
        """The keys of one queue."""
        return QueueKeys(f"{self.prefix}:q:{{{queue}}}")

    @property
    def queues(self) -> str:
        """The set of queue names, for listing."""
        return f"{self.prefix}:queues"

    @property
    def stream_names(self) -> str:
        """The set of stream names (all scored 0, so ordered by name), for listing."""
        return f"{self.prefix}:{{streams}}:names"

    @property
    def listing_indexed(self) -> str:
        """Set once the stream names and message ids kept before the listing indexes are in them."""
        return f"{self.prefix}:listing-indexed"

    @property
    def messages(self) -> MessageKeys:
        """The keys of every message."""
        return MessageKeys(f"{self.prefix}:m:{{messages}}")

    @property
    def url_groups(self) -> list[str]:
        """The URL groups' hash of endpoints and hash of creation times."""
        base = f"{self.prefix}:u:{{url_groups}}"
        return [f"{base}:groups", f"{base}:created"]

    @property
    def schedules(self) -> ScheduleKeys:
        """The keys of every schedule."""
        return ScheduleKeys(f"{self.prefix}:sc:{{schedules}}")

    def quota(self, token_id: str) -> str:
        """A token's message count."""
        return f"{self.prefix}:quota:{token_id}"

    def rate(self, key: str) -> str:
        """A rate-limit bucket."""
        return f"{self.prefix}:rate:{key}"

    def console_session(self, key: str) -> str:
        """A console session's hash."""
        return f"{self.prefix}:console:{key}"
