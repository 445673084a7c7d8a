"""Helpers shared by the store behaviour suite (no fixtures: those live in conftest.py)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from server.stores.base import DeliveryAttemptRecord, NewMessage, QueueSettings, Store

__all__ = [
    "ENTRY_ID",
    "FakeClock",
    "JOB_ID",
    "LEASE_ID",
    "MESSAGE_ID",
    "TRACEPARENT",
    "attempt",
    "entry_key",
    "make_queue",
    "new_message",
]

ENTRY_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
_ULID = "[0-9A-HJKMNP-TV-Z]{26}"
JOB_ID = re.compile(f"job_{_ULID}")
LEASE_ID = re.compile(f"lease_{_ULID}")
MESSAGE_ID = re.compile(f"msg_{_ULID}")
# A W3C traceparent, as a publisher sends it.
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


class FakeClock:
    """A clock that stands still until a test moves it; installed as a store's ``clock``."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forwards (or, with a negative number, back)."""
        self.now += seconds


def entry_key(entry_id: str) -> tuple[int, int]:
    """An entry id as a tuple that sorts the way ids do."""
    milliseconds, sequence = entry_id.split("-")
    return int(milliseconds), int(sequence)


async def make_queue(store: Store, name: str = "work", **settings: Any) -> str:
    """Create a queue with the given settings (openapi.yaml defaults otherwise); return its name."""
    await store.put_queue(name, QueueSettings(**settings))
    return name


def new_message(**fields: Any) -> NewMessage:
    """A message to https://example.com/hook with every required field; ``fields`` override."""
    base = NewMessage(
        url="https://example.com/hook",
        body=b'{"hello":"world"}',
        content_type="application/json",
        method="POST",
        headers={"X-Trace": "1"},
        not_before=0.0,
        retries=3,
        timeout=30,
    )
    return dataclasses.replace(base, **fields)


def attempt(number: int, **fields: Any) -> DeliveryAttemptRecord:
    """A delivery attempt record; ``fields`` override the defaults."""
    base = DeliveryAttemptRecord(attempt=number, started_at=1_800_000_000.0, duration_ms=12)
    return dataclasses.replace(base, **fields)
