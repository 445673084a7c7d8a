"""The quota and rate-limit checks of ``Store``, before any hook is called."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable

import pytest

from server.stores.base import Store
from tests.server.stores.contract._recording import RecordingStore, assert_refused


@pytest.mark.parametrize(
    ("call", "detail"),
    [
        (
            lambda s: s.consume_quota("t", -1, limit=10),
            "a quota amount must not be negative: -1",
        ),
        (lambda s: s.refund_quota("t", -2), "a quota amount must not be negative: -2"),
        (
            lambda s: s.take_rate_token("k", per_second=0, burst=1),
            "per_second must be a number > 0: 0",
        ),
        (
            lambda s: s.take_rate_token("k", per_second=math.nan, burst=1),
            "per_second must be a number > 0: nan",
        ),
        (
            lambda s: s.take_rate_token("k", per_second=1, burst=0),
            "burst must be at least 1: 0",
        ),
    ],
)
async def test_a_refused_argument_reaches_no_hook(
    call: Callable[[Store], Awaitable[object]], detail: str
) -> None:
    """Every check runs before the hook, in the same words for every backend."""
    recording = RecordingStore()
    await assert_refused(recording, call(recording.store), detail)


async def test_accepted_calls_reach_their_hooks_with_their_arguments() -> None:
    """What passes goes to the hook of the same name unchanged, and its answer comes back."""
    recording = RecordingStore(answer=True)
    store = recording.store
    assert await store.consume_quota("t", 0, limit=0) is True
    await store.refund_quota("t", 3)
    assert await store.take_rate_token("k", per_second=0.5, burst=1) is True
    assert recording.calls == [
        ("_consume_quota", ("t", 0), {"limit": 0}),
        ("_refund_quota", ("t", 3), {}),
        ("_take_rate_token", ("k",), {"per_second": 0.5, "burst": 1}),
    ]
