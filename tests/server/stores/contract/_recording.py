"""A store with no backend: every hook records its call, so a test sees what reached it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from server.stores.base import Store, StoreError

__all__ = ["ANSWER", "Call", "RecordingStore", "assert_refused"]

Call = tuple[str, tuple[Any, ...], dict[str, Any]]
# What the hooks answer unless told otherwise: typed Any, as it stands for any record.
ANSWER: Any = object()


class RecordingStore:
    """A ``Store`` (``store``) whose hooks append ``(hook, args, kwargs)`` to ``calls`` and answer
    ``answer``; life cycle and ``from_url`` record too, so nothing but the contract's code runs.
    """

    def __init__(self, answer: Any = ANSWER) -> None:
        self.calls: list[Call] = []

        def recorder(name: str) -> Callable[..., Awaitable[Any]]:
            async def hook(_store: Store, *args: Any, **kwargs: Any) -> Any:
                self.calls.append((name, args, kwargs))
                return answer

            return hook

        hooks: dict[str, Any] = {
            name: recorder(name) for name in Store.__abstractmethods__ if name != "from_url"
        }
        hooks["from_url"] = classmethod(lambda cls, _url: cls())
        store_class: type[Store] = type("Recorded", (Store,), hooks)
        self.store = store_class()


async def assert_refused(recording: RecordingStore, call: Awaitable[object], detail: str) -> None:
    """``call`` raises ``validation_failed`` with ``detail``, and no hook was called."""
    with pytest.raises(StoreError) as raised:
        await call
    assert (raised.value.code, raised.value.detail) == ("validation_failed", detail)
    assert recording.calls == []
