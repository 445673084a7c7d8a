"""`Publisher`: a stream destination you can publish to, or stack on a handler as a decorator."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

from ._config import RequestOptions
from ._exceptions import ConfigurationError
from ._keywords import takes_request_options
from ._stream import Stream

if TYPE_CHECKING:
    from ._streams import AsyncStreams, Streams

__all__ = ["AsyncPublisher", "Publisher"]

HandlerT = TypeVar("HandlerT", bound=Callable[..., Any])

PUBLISHERS_ATTRIBUTE = "_sdk_publishers"


class _PublisherBase:
    """What both publishers share: the destination and the decorator."""

    def __init__(self, stream: Stream, *, approximate: bool) -> None:
        self.stream = stream
        self.approximate = approximate

    def __call__(self, handler: HandlerT) -> HandlerT:
        """Publish `handler`'s non-None return values here when it runs as a subscriber.

        The handler is returned unchanged: calling it yourself publishes nothing. Stacked
        publishers are kept on the handler in the order the decorators applied.

        Returns:
            `handler` itself.

        Raises:
            ConfigurationError: `handler` takes no attributes (a bound method, a builtin):
                decorate the function itself.
        """
        publishers = getattr(handler, PUBLISHERS_ATTRIBUTE, None)
        if publishers is None:
            publishers = []
            try:
                setattr(handler, PUBLISHERS_ATTRIBUTE, publishers)
            except AttributeError:
                raise ConfigurationError(
                    f"cannot attach a publisher to {handler!r}: decorate the function itself"
                ) from None
        publishers.append(self)
        return handler

    def __repr__(self) -> str:
        options = f", maxlen={self.stream.maxlen}" if self.stream.maxlen is not None else ""
        return f"{type(self).__name__}({self.stream.name!r}{options})"


class Publisher(_PublisherBase):
    """Publishes to one stream of a `Client`.

    Usage:

    ```python
    audit = client.publisher("audit", maxlen=10_000)
    audit.publish({"type": "login"})

    @client.subscribe(sdk.Stream("orders", group="billing"))
    @client.publisher("invoices")
    def bill(order: dict) -> dict:
        return {"order": order["id"]}
    ```
    """

    def __init__(self, streams: Streams, stream: Stream, *, approximate: bool = True) -> None:
        super().__init__(stream, approximate=approximate)
        self._streams = streams

    @takes_request_options
    def publish(
        self,
        body: Any,
        *,
        maxlen: int | None = None,
        approximate: bool | None = None,
        idempotency_key: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> str:
        """Append `body` to the stream and return the new entry id; see `Client.publish`.

        Returns:
            The new entry's id (`<ms>-<seq>`).

        Raises:
            InvalidArgumentError: `maxlen` or `idempotency_key` is invalid.
            PublishError: the body cannot be encoded, or the request failed; `__cause__` is the
                typed error, as for `Streams.publish`.
        """
        return self._streams.publish(
            self.stream,
            body,
            maxlen=maxlen,
            approximate=self.approximate if approximate is None else approximate,
            idempotency_key=idempotency_key,
            **options,
        )


class AsyncPublisher(_PublisherBase):
    """Publishes to one stream of an `AsyncClient`; the awaitable twin of `Publisher`."""

    def __init__(self, streams: AsyncStreams, stream: Stream, *, approximate: bool = True) -> None:
        super().__init__(stream, approximate=approximate)
        self._streams = streams

    @takes_request_options
    async def publish(
        self,
        body: Any,
        *,
        maxlen: int | None = None,
        approximate: bool | None = None,
        idempotency_key: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> str:
        """Append `body` to the stream and return the new entry id; see `AsyncClient.publish`.

        Returns:
            The new entry's id (`<ms>-<seq>`).

        Raises:
            InvalidArgumentError: `maxlen` or `idempotency_key` is invalid.
            PublishError: the body cannot be encoded, or the request failed; `__cause__` is the
                typed error, as for `Streams.publish`.
        """
        return await self._streams.publish(
            self.stream,
            body,
            maxlen=maxlen,
            approximate=self.approximate if approximate is None else approximate,
            idempotency_key=idempotency_key,
            **options,
        )


def publishers_of(handler: Callable[..., Any]) -> list[Publisher | AsyncPublisher]:
    """The publishers stacked on `handler`, in the order they were applied."""
    publishers: list[Publisher | AsyncPublisher] = getattr(handler, PUBLISHERS_ATTRIBUTE, [])
    return publishers
