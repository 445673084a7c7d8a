"""`spool_async_client`, registered by the pytest plugin only when pytest-asyncio is installed."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from ._async_client import AsyncClient
from ._pytest_service import SpoolService

__all__ = ["spool_async_client"]


@pytest_asyncio.fixture
async def spool_async_client(spool_service: SpoolService) -> AsyncIterator[AsyncClient]:
    """An `sdk.AsyncClient` of the session's service, closed after the test.

    Yields:
        The client; the streams it touched and the messages it published are swept after the test.
    """
    async with spool_service.async_client() as client:
        yield client
