"""The console-session checks of ``Store``, before any hook is called."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable

import pytest

from server.stores.base import Store
from tests.server.stores.contract._recording import RecordingStore, assert_refused

KEY = "k" * 43
_KEY_RULE = "a console session key must be 16 to 128 letters, digits, - or _"


def _create(
    key: str = KEY, *, token_id: str = "admin", lifetime: float = 60, idle: float = 60
) -> Callable[[Store], Awaitable[object]]:
    return lambda store: store.create_console_session(
        key, token_id=token_id, token_check="c", lifetime=lifetime, idle=idle
    )


@pytest.mark.parametrize(
    ("call", "detail"),
    [
        (_create("short"), f"{_KEY_RULE}: 'short'"),
        (_create("k" * 129), f"{_KEY_RULE}: {'k' * 129!r}"),
        (_create("k" * 40 + "/.."), f"{_KEY_RULE}: {'k' * 40 + '/..'!r}"),
        (_create(token_id=""), "a console session needs a token id"),
        (_create(lifetime=0), "lifetime must be a number > 0: 0"),
        (_create(lifetime=math.inf), "lifetime must be a number > 0: inf"),
        (_create(idle=-1), "idle must be a number > 0: -1"),
        (_create(idle=math.nan), "idle must be a number > 0: nan"),
        (
            lambda s: s.get_console_session("k" * 43 + " ", touch=True),
            f"{_KEY_RULE}: {'k' * 43 + ' '!r}",
        ),
        (lambda s: s.delete_console_session(""), f"{_KEY_RULE}: ''"),
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
    recording = RecordingStore(answer=None)
    store = recording.store
    await store.create_console_session(KEY, token_id="t", token_check="c", lifetime=9, idle=3)
    assert await store.get_console_session(KEY, touch=False) is None
    await store.delete_console_session(KEY)
    assert recording.calls == [
        (
            "_create_console_session",
            (KEY,),
            {"token_id": "t", "token_check": "c", "lifetime": 9, "idle": 3},
        ),
        ("_get_console_session", (KEY,), {"touch": False}),
        ("_delete_console_session", (KEY,), {}),
    ]
