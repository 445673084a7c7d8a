"""HTTP messages: publish to a URL or a URL group, inspect and cancel (URL groups and dead letters
have modules of their own). What each call sends and reads is built in sdk/_message_calls.py."""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, Unpack, overload

from ._arguments import MessageRequest, MessageState
from ._codec import Codec
from ._config import RequestOptions
from ._durations import Timestamp
from ._http import AsyncTransport, SyncTransport
from ._keywords import suggests_option_keywords, takes_request_options
from ._message_calls import MessageCalls
from ._message_filter import filter_arguments
from ._message_listing import MESSAGE_STATES, message_page
from ._message_options import OPTION_NAMES, MessageOptions, lists_options, request_options
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

    Every method that sends a request also takes the per-call `timeout=`, `max_retries=` and
    `extra_headers=` (`RequestOptions`), which apply to its requests alone; a bad one is a
    ConfigurationError, raised before anything is sent. The publishes take `request_timeout=`
    for `timeout=`, which is their messages' delivery timeout.

    Each method names its own errors below. Invalid arguments raise InvalidArgumentError (or its
    subclasses InvalidNameError and InvalidDurationError) before any request is sent. Any request
    may also fail with AuthenticationError (401), PermissionDeniedError (403) and, once the
    client's retries are used up, RateLimitError (429), InternalServerError (5xx) or
    APIConnectionError (APITimeoutError among them); APIResponseValidationError when an answer
    cannot be read. The publishes raise each of these as a PublishError whose `__cause__` is the
    typed error.
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

    @suggests_option_keywords(OPTION_NAMES)
    @lists_options
    def publish(
        self,
        *,
        url: str | None = None,
        url_group: str | None = None,
        body: str | bytes,
        **options: Unpack[MessageOptions],
    ) -> MessageReceipt | builtins.list[MessageReceipt]:
        """Publish a text body as is to `url` (one receipt) or `url_group` (one per URL).

        Delivery happens later: the receipt says the service accepted the message.

        Returns:
            A MessageReceipt for `url`; for `url_group`, a list of them, one per endpoint.

        Raises:
            TypeError: a keyword that is not one of the options above.
            InvalidArgumentError: not exactly one of `url` and `url_group`, a body that is not
                str or bytes, or an invalid option (a URL that is not http(s), both `delay` and
                `not_before`, a naive datetime, ...).
            InvalidNameError: `url_group` is not a valid URL group name.
            InvalidDurationError: `delay` or `timeout` is malformed or out of range.
            PublishError: bytes that are not UTF-8, or the request failed; `__cause__` is
                the typed error, such as NotFoundError (no such URL group), BadRequestError (a
                `retry_delay` expression the service refuses), PermissionDeniedError (a
                destination the service does not allow), ConflictError (`idempotency_key`
                reused for another request), PayloadTooLargeError (a request over 1 MiB),
                UnprocessableEntityError (`not_before` more than 7 days ahead) or
                QuotaExceededError (the token's quota is used up).
        """
        return self._transport.send(
            self._calls.publish(
                url=url, url_group=url_group, body=body, as_json=False, options=options
            ),
            request_options(options),
        )

    @overload
    def publish_json(
        self, *, url: str, body: Any, **options: Unpack[MessageOptions]
    ) -> MessageReceipt: ...

    @overload
    def publish_json(
        self, *, url_group: str, body: Any, **options: Unpack[MessageOptions]
    ) -> builtins.list[MessageReceipt]: ...

    @suggests_option_keywords(OPTION_NAMES)
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

        Delivery happens later: the receipt says the service accepted the message.

        Returns:
            A MessageReceipt for `url`; for `url_group`, a list of them, one per endpoint.

        Raises:
            TypeError: a keyword that is not one of the options above.
            InvalidArgumentError: not exactly one of `url` and `url_group`, or an
                invalid option (a URL that is not http(s), both `delay` and `not_before`, a
                naive datetime, ...).
            InvalidNameError: `url_group` is not a valid URL group name.
            InvalidDurationError: `delay` or `timeout` is malformed or out of range.
            PublishError: the body cannot be encoded, or the request failed; `__cause__` is
                the typed error, such as NotFoundError (no such URL group), BadRequestError (a
                `retry_delay` expression the service refuses), PermissionDeniedError (a
                destination the service does not allow), ConflictError (`idempotency_key`
                reused for another request), PayloadTooLargeError (a request over 1 MiB),
                UnprocessableEntityError (`not_before` more than 7 days ahead) or
                QuotaExceededError (the token's quota is used up).
        """
        return self._transport.send(
            self._calls.publish(
                url=url, url_group=url_group, body=body, as_json=True, options=options
            ),
            request_options(options),
        )

    @takes_request_options
    def batch(
        self,
        messages: Iterable[MessageRequest],
        *,
        idempotency_key: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[builtins.list[MessageReceipt]]:
        """Publish several messages all or none; one list of receipts per message, in order.

        A message whose body is a str or bytes is sent as text (as `publish` does), any other
        as JSON (as `publish_json` does).

        Returns:
            For each message, in order, its receipts (one per URL); `[]`, sending nothing, for
            no messages.

        Raises:
            InvalidArgumentError: more than 1000 messages, an item that is not a MessageRequest,
                an invalid item (as for `publish_json`) or an invalid `idempotency_key`.
            PublishError: as for `publish_json`; nothing was published.
        """
        call = self._calls.batch(messages, idempotency_key=idempotency_key)
        return [] if call is None else self._transport.send(call, options)

    @takes_request_options
    def get(self, message_id: str, **options: Unpack[RequestOptions]) -> Message:
        """A message's state and every delivery attempt.

        Returns:
            The Message.

        Raises:
            BadRequestError: `message_id` is not a message id (`msg_...`).
            NotFoundError: no message has that id.
        """
        return self._transport.send(self._calls.get(message_id), options)

    @takes_request_options
    def list(
        self,
        *,
        state: MessageState | None = None,
        url_group: str | None = None,
        message_ids: Iterable[str] | None = None,
        url: str | None = None,
        label: str | None = None,
        schedule: str | None = None,
        flow_control_key: str | None = None,
        since: Timestamp | None = None,
        until: Timestamp | None = None,
        limit: int = 100,
        **options: Unpack[RequestOptions],
    ) -> Iterator[Message]:
        """Every message the token may see, newest first, that passes every filter given.

        The filters: `message_ids` (any of these), `state`, `url` (exactly), `url_group`,
        `label`, `schedule` (published by it), `flow_control_key`, and `since` (inclusive) and
        `until` (exclusive), aware datetimes or Unix seconds bounding when it was published.
        `client.logs()` takes the same. Pages of up to `limit` messages are fetched as the
        iterator reaches them.

        Returns:
            An iterator of Message.

        Raises:
            InvalidArgumentError: a filter or `limit` (1 to 1000) is invalid; raised by this
                call, before any request.
            InvalidNameError: `url_group`, `schedule` or `flow_control_key` is not a valid
                name; raised by this call.
            PermissionDeniedError: while iterating, when the token may not consume messages.
                Each page's request may fail as the class docstring says.
        """
        filters = filter_arguments(
            states=MESSAGE_STATES,
            message_ids=message_ids,
            state=state,
            url=url,
            url_group=url_group,
            label=label,
            schedule=schedule,
            flow_control_key=flow_control_key,
            since=since,
            until=until,
        )
        page = partial(message_page, filters, limit)
        return iterate_pages(partial(self._transport.send, options=options), page)

    @takes_request_options
    def cancel(self, message_id: str, **options: Unpack[RequestOptions]) -> Message:
        """Cancel a message not delivered yet; it stays readable, in state `cancelled`.

        Returns:
            The Message, now cancelled.

        Raises:
            BadRequestError: `message_id` is not a message id (`msg_...`).
            NotFoundError: no message has that id.
            ConflictError: the message is no longer scheduled: being delivered, delivered,
                failed or cancelled already (`invalid_state`).
        """
        return self._transport.send(self._calls.cancel(message_id), options)

    @takes_request_options
    def signing_keys(self, **options: Unpack[RequestOptions]) -> SigningKeys:
        """The current and next keys that sign deliveries, for a `Receiver`.

        Returns:
            The SigningKeys (`current`, `next`).

        Raises:
            PermissionDeniedError: the token lacks `admin` on every message (messages named
                `*`); no URL glob is enough.
        """
        return self._transport.send(self._calls.signing_keys(), options)


class AsyncMessages:
    """HTTP messages of an `AsyncClient` (`aclient.messages`), to be awaited; see `Messages`.

    Every method that sends a request also takes the per-call `timeout=`, `max_retries=` and
    `extra_headers=` (`RequestOptions`), which apply to its requests alone; a bad one is a
    ConfigurationError, raised before anything is sent. The publishes take `request_timeout=`
    for `timeout=`, which is their messages' delivery timeout.

    Each method names its own errors below. Invalid arguments raise InvalidArgumentError (or its
    subclasses InvalidNameError and InvalidDurationError) before any request is sent. Any request
    may also fail with AuthenticationError (401), PermissionDeniedError (403) and, once the
    client's retries are used up, RateLimitError (429), InternalServerError (5xx) or
    APIConnectionError (APITimeoutError among them); APIResponseValidationError when an answer
    cannot be read. The publishes raise each of these as a PublishError whose `__cause__` is the
    typed error.
    """

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

    @suggests_option_keywords(OPTION_NAMES)
    @lists_options
    async def publish(
        self,
        *,
        url: str | None = None,
        url_group: str | None = None,
        body: str | bytes,
        **options: Unpack[MessageOptions],
    ) -> MessageReceipt | builtins.list[MessageReceipt]:
        """Publish a text body as is to `url` (one receipt) or `url_group` (one per URL).

        Delivery happens later: the receipt says the service accepted the message.

        Returns:
            A MessageReceipt for `url`; for `url_group`, a list of them, one per endpoint.

        Raises:
            TypeError: a keyword that is not one of the options above.
            InvalidArgumentError: not exactly one of `url` and `url_group`, a body that is not
                str or bytes, or an invalid option (a URL that is not http(s), both `delay` and
                `not_before`, a naive datetime, ...).
            InvalidNameError: `url_group` is not a valid URL group name.
            InvalidDurationError: `delay` or `timeout` is malformed or out of range.
            PublishError: bytes that are not UTF-8, or the request failed; `__cause__` is
                the typed error, such as NotFoundError (no such URL group), BadRequestError (a
                `retry_delay` expression the service refuses), PermissionDeniedError (a
                destination the service does not allow), ConflictError (`idempotency_key`
                reused for another request), PayloadTooLargeError (a request over 1 MiB),
                UnprocessableEntityError (`not_before` more than 7 days ahead) or
                QuotaExceededError (the token's quota is used up).
        """
        return await self._transport.send(
            self._calls.publish(
                url=url, url_group=url_group, body=body, as_json=False, options=options
            ),
            request_options(options),
        )

    @overload
    async def publish_json(
        self, *, url: str, body: Any, **options: Unpack[MessageOptions]
    ) -> MessageReceipt: ...

    @overload
    async def publish_json(
        self, *, url_group: str, body: Any, **options: Unpack[MessageOptions]
    ) -> builtins.list[MessageReceipt]: ...

    @suggests_option_keywords(OPTION_NAMES)
    @lists_options
    async def publish_json(
        self,
        *,
        url: str | None = None,
        url_group: str | None = None,
        body: Any,
        **options: Unpack[MessageOptions],
    ) -> MessageReceipt | builtins.list[MessageReceipt]:
        """Publish `body` as JSON (encoded by the client's codec) to `url` or `url_group`.

        Delivery happens later: the receipt says the service accepted the message.

        Returns:
            A MessageReceipt for `url`; for `url_group`, a list of them, one per endpoint.

        Raises:
            TypeError: a keyword that is not one of the options above.
            InvalidArgumentError: not exactly one of `url` and `url_group`, or an
                invalid option (a URL that is not http(s), both `delay` and `not_before`, a
                naive datetime, ...).
            InvalidNameError: `url_group` is not a valid URL group name.
            InvalidDurationError: `delay` or `timeout` is malformed or out of range.
            PublishError: the body cannot be encoded, or the request failed; `__cause__` is
                the typed error, such as NotFoundError (no such URL group), BadRequestError (a
                `retry_delay` expression the service refuses), PermissionDeniedError (a
                destination the service does not allow), ConflictError (`idempotency_key`
                reused for another request), PayloadTooLargeError (a request over 1 MiB),
                UnprocessableEntityError (`not_before` more than 7 days ahead) or
                QuotaExceededError (the token's quota is used up).
        """
        return await self._transport.send(
            self._calls.publish(
                url=url, url_group=url_group, body=body, as_json=True, options=options
            ),
            request_options(options),
        )

    @takes_request_options
    async def batch(
        self,
        messages: Iterable[MessageRequest],
        *,
        idempotency_key: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[builtins.list[MessageReceipt]]:
        """Publish several messages all or none; one list of receipts per message, in order.

        A message whose body is a str or bytes is sent as text (as `publish` does), any other
        as JSON (as `publish_json` does).

        Returns:
            For each message, in order, its receipts (one per URL); `[]`, sending nothing, for
            no messages.

        Raises:
            InvalidArgumentError: more than 1000 messages, an item that is not a MessageRequest,
                an invalid item (as for `publish_json`) or an invalid `idempotency_key`.
            PublishError: as for `publish_json`; nothing was published.
        """
        call = self._calls.batch(messages, idempotency_key=idempotency_key)
        return [] if call is None else await self._transport.send(call, options)

    @takes_request_options
    async def get(self, message_id: str, **options: Unpack[RequestOptions]) -> Message:
        """A message's state and every delivery attempt.

        Returns:
            The Message.

        Raises:
            BadRequestError: `message_id` is not a message id (`msg_...`).
            NotFoundError: no message has that id.
        """
        return await self._transport.send(self._calls.get(message_id), options)

    @takes_request_options
    def list(
        self,
        *,
        state: MessageState | None = None,
        url_group: str | None = None,
        message_ids: Iterable[str] | None = None,
        url: str | None = None,
        label: str | None = None,
        schedule: str | None = None,
        flow_control_key: str | None = None,
        since: Timestamp | None = None,
        until: Timestamp | None = None,
        limit: int = 100,
        **options: Unpack[RequestOptions],
    ) -> AsyncIterator[Message]:
        """Every message the token may see, newest first, that passes every filter given.

        For `async for`; the filters are `Messages.list`'s, and `aclient.logs()` takes the same.
        Pages of up to `limit` messages are fetched as the iteration reaches them.

        Returns:
            An async iterator of Message.

        Raises:
            InvalidArgumentError: a filter or `limit` (1 to 1000) is invalid; raised by this
                call, before any request.
            InvalidNameError: `url_group`, `schedule` or `flow_control_key` is not a valid
                name; raised by this call.
            PermissionDeniedError: while iterating, when the token may not consume messages.
                Each page's request may fail as the class docstring says.
        """
        filters = filter_arguments(
            states=MESSAGE_STATES,
            message_ids=message_ids,
            state=state,
            url=url,
            url_group=url_group,
            label=label,
            schedule=schedule,
            flow_control_key=flow_control_key,
            since=since,
            until=until,
        )
        page = partial(message_page, filters, limit)
        return aiterate_pages(partial(self._transport.send, options=options), page)

    @takes_request_options
    async def cancel(self, message_id: str, **options: Unpack[RequestOptions]) -> Message:
        """Cancel a message not delivered yet; it stays readable, in state `cancelled`.

        Returns:
            The Message, now cancelled.

        Raises:
            BadRequestError: `message_id` is not a message id (`msg_...`).
            NotFoundError: no message has that id.
            ConflictError: the message is no longer scheduled: being delivered, delivered,
                failed or cancelled already (`invalid_state`).
        """
        return await self._transport.send(self._calls.cancel(message_id), options)

    @takes_request_options
    async def signing_keys(self, **options: Unpack[RequestOptions]) -> SigningKeys:
        """The current and next keys that sign deliveries, for a `Receiver`.

        Returns:
            The SigningKeys (`current`, `next`).

        Raises:
            PermissionDeniedError: the token lacks `admin` on every message (messages named
                `*`); no URL glob is enough.
        """
        return await self._transport.send(self._calls.signing_keys(), options)
