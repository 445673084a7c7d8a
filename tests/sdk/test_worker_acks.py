"""run()'s acknowledgements (sdk/_worker_acks.py): how long a handled message waits for others to
share its request, on the sync sender (a thread) and the async one (a task).
"""

from __future__ import annotations

import asyncio
import threading
import time
import types
from typing import Any, cast

import pytest

from sdk import _worker_acks
from sdk._worker_sources import Delivery

# Long enough that a request sent before it ends was sent for another reason.
NEVER = 60.0


class _Streams:
    """The streams resource of a fake stream source: each ack call is one request."""

    def __init__(self) -> None:
        self.requests: list[list[str]] = []
        self.sent = threading.Event()

    def ack(self, stream: str, group: str, ids: list[str]) -> int:
        assert (stream, group) == ("orders", "billing")
        self.requests.append(list(ids))
        self.sent.set()
        return len(ids)


class _AsyncStreams(_Streams):
    async def ack(self, stream: str, group: str, ids: list[str]) -> int:  # type: ignore[override]
        return super().ack(stream, group, ids)


class _Source:
    """Just what the senders use of a stream source."""

    tracing = None
    subscription = types.SimpleNamespace(stream="orders", group="billing")

    def __init__(self, streams: _Streams) -> None:
        self.streams = streams

    @staticmethod
    def ack_item(delivery: Delivery) -> str:
        return delivery.message_id


def _deliveries(count: int) -> list[Delivery]:
    return [cast(Delivery, types.SimpleNamespace(message_id=f"{n}-0")) for n in range(count)]


def _failed(error: BaseException) -> None:
    raise AssertionError(f"the sender failed: {error!r}")


async def _sent(streams: _Streams) -> None:
    """Until the first request is sent (an error after ten seconds)."""
    deadline = time.monotonic() + 10
    while not streams.sent.is_set():
        assert time.monotonic() < deadline, "no request was sent"
        await asyncio.sleep(0.001)


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_a_full_batch_is_sent_without_waiting_out_the_linger(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ACK_BATCH_TARGET handled messages go at once, however long the linger."""
    monkeypatch.setattr(_worker_acks, "ACK_LINGER_SECONDS", NEVER)
    monkeypatch.setattr(_worker_acks, "ACK_BATCH_TARGET", 3)
    streams, acks = _senders(kind)
    source = cast(Any, _Source(streams))
    for delivery in _deliveries(3):
        acks.add(source, delivery)
    await _sent(streams)
    assert streams.requests == [["0-0", "1-0", "2-0"]]
    await _close(acks)


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_a_lone_ack_is_sent_once_the_linger_ends(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One handled message, and no other: its request goes when the linger ends."""
    monkeypatch.setattr(_worker_acks, "ACK_LINGER_SECONDS", 0.05)
    streams, acks = _senders(kind)
    [delivery] = _deliveries(1)
    acks.add(cast(Any, _Source(streams)), delivery)
    await _sent(streams)
    assert streams.requests == [["0-0"]]
    await _close(acks)


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_the_end_of_the_run_sends_what_lingers_at_once(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Messages handled together share one request, and closing sends it without waiting."""
    monkeypatch.setattr(_worker_acks, "ACK_LINGER_SECONDS", NEVER)
    streams, acks = _senders(kind)
    source = cast(Any, _Source(streams))
    for delivery in _deliveries(5):
        acks.add(source, delivery)
    started = time.monotonic()
    await _close(acks)
    assert time.monotonic() - started < NEVER / 2
    assert streams.requests == [["0-0", "1-0", "2-0", "3-0", "4-0"]]


def _senders(kind: str) -> tuple[_Streams, Any]:
    if kind == "sync":
        return _Streams(), _worker_acks.SyncAcks(_failed)
    return _AsyncStreams(), _worker_acks.AsyncAcks(_failed)


async def _close(acks: Any) -> None:
    if isinstance(acks, _worker_acks.SyncAcks):
        await asyncio.to_thread(acks.close)
    else:
        await acks.close()
