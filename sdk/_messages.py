"""HTTP messages: publish to a URL or a URL group, inspect and cancel (URL groups and dead letters
have modules of their own). What each call sends and reads is built in sdk/_message_calls.py."""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, Unpack, overload

from ._arguments import MessageRequest, MessageState
from ._codec import Codec
from ._http import AsyncTransport, SyncTransport
from ._message_calls import MessageCalls
from ._message_listing import message_page
from ._message_options import MessageOptions, lists_options
from ._pages import aiterate_pages, iterate_pages

if TYPE_CHECKING:
    from ._types import Message, MessageReceipt, SigningKeys

__all__ = ["AsyncMessages", "Messages"]


class Messages:
    """HTTP messages of a `Client` (`client.messages`).

    Usage:

    ```python
    receipt = client.messages.publish_json(
        url="https://example.com/hooks/signup", body={"hello": "world"}, delay="3s", retries=3
    )
    receipts = client.messages.publish_json(url_group="partners", body={"hello": "world"})
    html = "<h1>Hi</h1>"
    client.messages.publish(url="https://example.com/page", body=html, content_type="text/html")
    ```
    """

    def __init__(self, transport: SyncTransport, *, codec: Codec) -> None:
        self._transport = transport
        self._calls = MessageCalls(codec)

    @overload
    def publish(
        self, *, url: str, body: str | bytes, **options: Unpack[MessageOptions]
    ) -> MessageReceipt: ...

    @overload
    def publish(
        self, *, url_group: str, body: str | bytes, **options: Unpack[MessageOptions]
    ) -> builtins.list[MessageReceipt]: ...

    @lists_options
    def publish(
        self,
        *,
        url: str | None = None,
        url_group: str | None = None,
        body: str | bytes,
        **options: Unpack[MessageOptions],
    ) -> MessageReceipt | builtins.list[MessageReceipt]:
        """Publish a text body as is to `url` (one receipt) or `url_group` (one per URL)."""
        return self._transport.send(
            self._calls.publish(
                url=url, url_group=url_group, body=body, as_json=False, options=options
            )
        )

    @overload
    def publish_json(
        self, *, url: str, body: Any, **options: Unpack[MessageOptions]
    ) -> MessageReceipt: ...

    @overload
    def publish_json(
        self, *, url_group: str, body: Any, **options: Unpack[MessageOptions]
    ) -> builtins.list[MessageReceipt]: ...

    @lists_options
    def publish_json(
        self,
        *,
        url: str | None = None,
        url_group: str | None = None,
        body: Any,
        **options: Unpack[MessageOptions],
    ) -> MessageReceipt | builtins.list[MessageReceipt]:
        """Publish `body` as JSON (encoded by the client's codec) to `url` or `url_group`.

        Delivery happens later: the receipt confirms the service accepted the message. Failures
        to publish raise PublishError with the typed cause; bad options raise ValueErrors first.
        """
        return self._transport.send(
            self._calls.publish(
                url=url, url_group=url_group, body=body, as_json=True, options=options
            )
        )

    def batch(
        self, messages: Iterable[MessageRequest], *, idempotency_key: str | None = None
    ) -> builtins.list[builtins.list[MessageReceipt]]:
        """Publish several messages all or none; one list of receipts per message, in order."""
        call = self._calls.batch(messages, idempotency_key=idempotency_key)
        return [] if call is None else self._transport.send(call)

    def get(self, message_id: str) -> Message:
        """A message's state and every delivery attempt."""
        return self._transport.send(self._calls.get(message_id))

    def list(
        self,
        *,
        state: MessageState | None = None,
        url_group: str | None = None,
        limit: int = 100,
    ) -> Iterator[Message]:
        """Every message the token may see, newest first (only those in `state`, or published to
        `url_group`, when given). Pages of up to `limit` are fetched as the iterator reaches them;
        bad arguments raise here, before any request.
        """
        page = partial(message_page, state, url_group, limit)
        return iterate_pages(self._transport.send, page)

    def cancel(self, message_id: str) -> Message:
        """Cancel a message not delivered yet; ConflictError once it is delivered or failed."""
        return self._transport.send(self._calls.cancel(message_id))

    def signing_keys(self) -> SigningKeys:
        """The current and next keys that sign deliveries (needs admin on messages)."""
        return self._transport.send(self._calls.signing_keys())


class AsyncMessages:
    """HTTP messages of an `AsyncClient` (`aclient.messages`); see `Messages`."""

    def __init__(self, transport: AsyncTransport, *, codec: Codec) -> None:
        self._transport = transport
        self._calls = MessageCalls(codec)

    @overload
    async def publish(
        self, *, url: str, body: str | bytes, **options: Unpack[MessageOptions]
    ) -> MessageReceipt: ...

    @overload
    async def publish(
        self, *, url_group: str, body: str | bytes, **options: Unpack[MessageOptions]
    ) -> builtins.list[MessageReceipt]: ...

    @lists_options
    async def publish(
        self,
        *,
        url: str | None = None,
        url_group: str | None = None,
        body: str | bytes,
        **options: Unpack[MessageOptions],
    ) -> MessageReceipt | builtins.list[MessageReceipt]:
        """Publish a text body as is to `url` (one receipt) or `url_group` (one per URL)."""
        return await self._transport.send(
            self._calls.publish(
                url=url, url_group=url_group, body=body, as_json=False, options=options
            )
        )

    @overload
    async def publish_json(
        self, *, url: str, body: Any, **options: Unpack[MessageOptions]
    ) -> MessageReceipt: ...

    @overload
    async def publish_json(
        self, *, url_group: str, body: Any, **options: Unpack[MessageOptions]
    ) -> builtins.list[MessageReceipt]: ...

    @lists_options
    async def publish_json(
        self,
        *,
        url: str | None = None,
        url_group: str | None = None,
        body: Any,
        **options: Unpack[MessageOptions],
    ) -> MessageReceipt | builtins.list[MessageReceipt]:
        """Publish `body` as JSON (encoded by the client's codec) to `url` or `url_group`."""
        return await self._transport.send(
            self._calls.publish(
                url=url, url_group=url_group, body=body, as_json=True, options=options
            )
        )

    async def batch(
        self, messages: Iterable[MessageRequest], *, idempotency_key: str | None = None
    ) -> builtins.list[builtins.list[MessageReceipt]]:
        """Publish several messages all or none; one list of receipts per message, in order."""
        call = self._calls.batch(messages, idempotency_key=idempotency_key)
        return [] if call is None else await self._transport.send(call)

    async def get(self, message_id: str) -> Message:
        """A message's state and every delivery attempt."""
        return await self._transport.send(self._calls.get(message_id))

    def list(
        self,
        *,
        state: MessageState | None = None,
        url_group: str | None = None,
        limit: int = 100,
    ) -> AsyncIterator[Message]:
        """Every message the token may see, newest first, for `async for`; see `Messages.list`."""
        page = partial(message_page, state, url_group, limit)
        return aiterate_pages(self._transport.send, page)

    async def cancel(self, message_id: str) -> Message:
        """Cancel a message not delivered yet; ConflictError once it is delivered or failed."""
        return await self._transport.send(self._calls.cancel(message_id))

    async def signing_keys(self) -> SigningKeys:
        """The current and next keys that sign deliveries (needs admin on messages)."""
        return await self._transport.send(self._calls.signing_keys())
