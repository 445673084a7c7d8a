"""The flow control checks of ``Store``, before any hook is called."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from server.stores.base import Store
from server.stores.cursors import flow_control_cursor, message_cursor
from tests.server.stores.contract._recording import RecordingStore, assert_refused


@pytest.mark.parametrize(
    ("call", "detail"),
    [
        (lambda s: s.get_flow_control(""), "invalid flow control key ''"),
        (lambda s: s.pause_flow_control("a b"), "invalid flow control key 'a b'"),
        (lambda s: s.resume_flow_control("-a"), "invalid flow control key '-a'"),
        (lambda s: s.reset_flow_control("k" * 129), f"invalid flow control key {'k' * 129!r}"),
        (lambda s: s.list_flow_control_keys(limit=0, cursor=None), "limit must be at least 1: 0"),
        (
            lambda s: s.list_flow_control_keys(limit=1, cursor=message_cursor(3)),
            f"cursor {message_cursor(3)!r} is not this listing's",
        ),
    ],
)
async def test_bad_arguments_never_reach_a_hook(
    call: Callable[[Store], Awaitable[object]], detail: str
) -> None:
    recording = RecordingStore()
    await assert_refused(recording, call(recording.store), detail)


async def test_a_listing_hook_gets_the_key_its_cursor_resumes_after() -> None:
    recording = RecordingStore(answer=([], False))
    page = await recording.store.list_flow_control_keys(limit=5, cursor=flow_control_cursor("b"))
    assert (page.keys, page.next_cursor) == ([], None)
    assert recording.calls == [("_list_flow_control_keys", (), {"limit": 5, "cursor": "b"})]
