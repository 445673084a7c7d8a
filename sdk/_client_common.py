"""What `Client` and `AsyncClient` share: their settings and codec, the stream subscription
decorator, a Publisher's stream, the health and whoami calls and the repr. The two clients are twins, one per
module (sdk/_client.py, sdk/_async_client.py); tests/sdk/test_exported_members.py holds them to
the same surface.
"""

from __future__ import annotations

import builtins
import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import httpx

from . import _endpoints
from ._checks import check_count
from ._codec import Codec, JsonCodec
from ._config import Settings, resolve_settings
from ._durations import Duration, to_millis
from ._exceptions import ConfigurationError
from ._http import Call, make_call, optional
from ._limits import COUNT_MAX, MIN_IDLE_MS_MAX
from ._stream import Stream, as_stream, check_max_deliveries, check_maxlen
from ._subscriptions import StreamSubscription, Subscription, check_handler

if TYPE_CHECKING:
    from generated.models import TokenInfo as GeneratedTokenInfo

    from ._types import Health, TokenInfo

__all__ = [
    "HandlerT",
    "client_codec",
    "client_repr",
    "client_settings",
    "health_call",
    "publisher_stream",
    "read_token_info",
    "stream_subscription",
    "whoami_call",
]

HandlerT = TypeVar("HandlerT", bound=Callable[..., Any])


def client_settings(
    base_url: str | None,
    api_key: str | None,
    timeout: float | httpx.Timeout,
    max_retries: int,
    retry_timeout: Duration | None,
    http_client: httpx.Client | httpx.AsyncClient | None,
) -> Settings:
    http_client_base_url = (
        str(http_client.base_url)
        if isinstance(http_client, httpx.Client | httpx.AsyncClient) and http_client.base_url
        else None
    )
    return resolve_settings(
        base_url=base_url,
        api_key=api_key,
        timeout=timeout,
        max_retries=max_retries,
        retry_timeout=retry_timeout,
        http_client_base_url=http_client_base_url,
    )


def client_codec(codec: Codec | None) -> Codec:
    if codec is None:
        return JsonCodec()
    if not isinstance(codec, Codec):
        raise ConfigurationError(f"codec must have encode() and decode() methods, got {codec!r}")
    return codec


def publisher_stream(stream: str | Stream, maxlen: int | None) -> Stream:
    definition = as_stream(stream)
    if maxlen is None:
        return definition
    return dataclasses.replace(definition, maxlen=check_maxlen(maxlen))


def stream_subscription(
    stream: Stream,
    *,
    group: str | None,
    start_id: str,
    count: int | None,
    redeliver_after: Duration,
    max_deliveries: int | None,
    subscriptions: builtins.list[Subscription],
    asynchronous: bool,
) -> Callable[[HandlerT], HandlerT]:
    if not isinstance(stream, Stream):
        raise ConfigurationError(
            f"subscribe takes a Stream with a group, such as Stream('orders', group='billing'), "
            f"got {stream!r}"
        )
    group_name = group if group is not None else stream.group
    if group_name is None:
        raise ConfigurationError(
            f"subscribing to stream {stream.name!r} needs a consumer group: "
            "Stream(name, group=...) or subscribe(..., group=...)"
        )
    subscription_stream = dataclasses.replace(stream, group=group_name)
    if count is not None:
        check_count(count, name="count", minimum=1, maximum=COUNT_MAX)
    redeliver_after_ms = to_millis(
        redeliver_after, name="redeliver_after", minimum=0, maximum=MIN_IDLE_MS_MAX
    )
    if max_deliveries is not None:
        check_max_deliveries(max_deliveries, stream=stream.name)

    def register(handler: HandlerT) -> HandlerT:
        check_handler(handler, asynchronous=asynchronous)
        subscriptions.append(
            StreamSubscription(
                stream=subscription_stream,
                group=group_name,
                handler=handler,
                start_id=start_id,
                count=count,
                redeliver_after_ms=redeliver_after_ms,
                max_deliveries=max_deliveries,
            )
        )
        return handler

    return register


def health_call() -> Call[Health]:
    from ._types import Health

    return make_call(
        _endpoints.get_health,
        lambda health: Health(status=health.status, store=health.store, version=health.version),
    )


def whoami_call() -> Call[TokenInfo]:
    """One getToken call: the token the client sends, as the service knows it."""
    return make_call(_endpoints.get_token, read_token_info)


def read_token_info(token: GeneratedTokenInfo) -> TokenInfo:
    """The SDK's TokenInfo for the service's."""
    from ._types import TokenInfo, TokenPermission, TokenRateLimit

    rate_limit = optional(token.rate_limit)
    return TokenInfo(
        id=token.id,
        development=token.development,
        permissions=[
            TokenPermission(
                resource=permission.resource,
                name=permission.name,
                actions=list(permission.actions),
            )
            for permission in token.permissions
        ],
        quota=optional(token.quota),
        rate_limit=None
        if rate_limit is None
        else TokenRateLimit(per_second=rate_limit.per_second, burst=rate_limit.burst),
    )


def client_repr(kind: str, settings: Settings) -> str:
    key = ", api_key='***'" if settings.api_key is not None else ""
    return f"{kind}(base_url={settings.display_url!r}{key})"
