"""Fixtures the service's tests share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.server._loopback import LoopbackReceiver, ReceiverFactory


@pytest.fixture
async def loopback_receiver() -> AsyncIterator[ReceiverFactory]:
    """Start loopback receivers (``LoopbackReceiver``'s arguments); all close after the test."""
    started: list[LoopbackReceiver] = []

    async def start(*args: Any, **options: Any) -> LoopbackReceiver:
        receiver = LoopbackReceiver(*args, **options)
        await receiver.start()
        started.append(receiver)
        return receiver

    yield start
    for receiver in started:
        await receiver.close()
