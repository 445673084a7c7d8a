"""`AioHttpClient`: an `httpx.AsyncClient` that sends over aiohttp, for `AsyncClient(http_client=)`.

The `spool[aiohttp]` extra installs httpx-aiohttp, whose client is httpx's own with aiohttp's
connection pool and HTTP/1.1 parser under it: the SDK's calls, errors, retries and mocks stay
httpx's, and a busy event loop spends less of its CPU per request. The user picks it; the SDK's
own async client stays on httpx's default transport.
"""

from __future__ import annotations

from typing import Any

import httpx

from ._exceptions import ConfigurationError
from ._http import ASYNC_LIMITS, tls_context

__all__ = ["AioHttpClient"]


def AioHttpClient(**options: Any) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` on httpx-aiohttp's transport, for `sdk.AsyncClient(http_client=)`.

    Usage:

    ```python
    async with sdk.AioHttpClient() as http, sdk.AsyncClient(http_client=http) as client:
        await client.publish("events", {"type": "signup"})
    ```

    `options` are `httpx.AsyncClient`'s own (`proxy`, `limits`, `event_hooks`, ...); by default
    the SDK's TLS context and as many idle connections kept as may be in flight. The proxies
    the environment names apply as they do for httpx. Like any `http_client`, it is yours to
    close. Without the extra (`pip install 'spool[aiohttp]'`) it raises ConfigurationError.
    """
    try:
        from httpx_aiohttp import HttpxAiohttpClient
    except ImportError as error:
        raise ConfigurationError(
            "sdk.AioHttpClient needs the aiohttp extra: pip install 'spool[aiohttp]'"
        ) from error
    options.setdefault("verify", tls_context())
    options.setdefault("limits", ASYNC_LIMITS)
    return HttpxAiohttpClient(**options)
