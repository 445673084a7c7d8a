"""HTTP messages: publish to a URL or a URL group, inspect and cancel (URL groups and dead letters
have modules of their own)."""

from __future__ import annotations

import builtins
import difflib
import json
import re
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from datetime import timedelta
from functools import cache, partial
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack, get_args, overload

from . import _endpoints
from ._arguments import HttpMethod, MessageRequest, MessageState
from ._checks import check_count, check_resource_name
from ._codec import Codec, JsonCodec, encode_body, json_value
from ._config import redact_url
from ._durations import (
    Duration,
    Timestamp,
    parse_duration_text,
    to_datetime,
    to_millis,
    to_seconds,
)
from ._exceptions import InvalidArgumentError, PublishError, PublishTarget, describe_target
from ._http import (
    AsyncTransport,
    Call,
    SyncTransport,
    make_call,
    make_publish_call,
    optional,
    resolve_idempotency_key,
)
from ._limits import (
    BATCH_MAX,
    DELAY_MAX_SECONDS,
    MESSAGE_TIMEOUT_MAX_SECONDS,
    MESSAGE_TIMEOUT_MIN_SECONDS,
    RETRIES_MAX,
    URL_PATTERN,
)
from ._message_listing import message_page
from ._pages import aiterate_pages, iterate_pages

if TYPE_CHECKING:
    from generated.models import (
        Message as GeneratedMessage,
        MessageReceipt as GeneratedMessageReceipt,
        MessageReceiptList as GeneratedMessageReceiptList,
        PublishMessageRequest,
        PublishMessageRequestHeaders,
    )

    from ._types import Message, MessageReceipt, SigningKeys

__all__ = ["AsyncMessages", "MessageOptions", "Messages"]

# Bodies that encode to JSON objects, arrays, numbers, booleans or null whatever they hold.
_JSON_CONTAINERS = (dict, list, tuple, int, float)
_METHODS: dict[str, HttpMethod] = {method: method for method in get_args(HttpMethod)}


class MessageOptions(TypedDict, total=False):
    """Options of `messages.publish` and `messages.publish_json`; None means "not given".

    `delay` and `timeout` take durations (`"3s"`, `30`, a timedelta); `not_before` an aware
    datetime or Unix seconds, at most 7 days ahead by the service's clock, as far as `delay` goes
    (later: a `PublishError` caused by `UnprocessableEntityError`). `retry_delay` is a duration (a
    fixed wait) or the API's expression in milliseconds over `retried`, such as
    `"1000 * pow(2, retried)"`. `idempotency_key` makes the publish safe to repeat; one is
    generated per call when it is not given.
    """

    content_type: str | None
    method: HttpMethod | None
    headers: Mapping[str, str] | None
    delay: Duration | None
    not_before: Timestamp | None
    retries: int | None
    retry_delay: str | timedelta | None
    callback: str | None
    failure_callback: str | None
    timeout: Duration | None
    deduplication_id: str | None
    content_based_deduplication: bool
    idempotency_key: str | None


_OPTION_NAMES = frozenset(MessageOptions.__annotations__)
_OPTIONS_HELP = """

        Options, all keyword-only and optional (see `MessageOptions`): `content_type`, `method`,
        `headers`, `delay`, `not_before`, `retries`, `retry_delay`, `callback`,
        `failure_callback`, `timeout`, `deduplication_id`, `content_based_deduplication`,
        `idempotency_key`. Any other keyword is a TypeError, as for every other publish.
"""
PublishT = TypeVar("PublishT", bound=Callable[..., Any])


def _lists_options(method: PublishT) -> PublishT:
    """`method` with the message options in its docstring, which `**options` hides from help()."""
    method.__doc__ = (method.__doc__ or "").rstrip() + _OPTIONS_HELP
    return method


def _check_option_names(options: Mapping[str, Any], method: str) -> None:
    # `**options: Unpack[MessageOptions]` is checked by type checkers only; at run time a typo
    # such as `dealy=` would be dropped in silence and the message sent with the defaults.
    for name in options:
        if name not in _OPTION_NAMES:
            close = difflib.get_close_matches(name, _OPTION_NAMES, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise TypeError(
                f"messages.{method}() got an unexpected keyword argument {name!r}{hint}"
            )


class _MessageCalls:
    """Builds every message call; shared by the sync and async resources."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec

    def publish(
        self,
        *,
        url: str | None,
        url_group: str | None,
        body: Any,
        as_json: bool,
        options: MessageOptions,
    ) -> Call[MessageReceipt | builtins.list[MessageReceipt]]:
        """One publishMessage: its one receipt for a `url`, a list for a `url_group`."""
        _check_option_names(options, "publish_json" if as_json else "publish")
        target = _target(url, url_group)
        request = self._request(
            body, url=url, url_group=url_group, options=options, as_json=as_json, target=target
        )
        read: Callable[
            [GeneratedMessageReceiptList], MessageReceipt | builtins.list[MessageReceipt]
        ]
        read = _receipts if url is None else _one_receipt
        return make_publish_call(
            _endpoints.publish_message,
            read,
            target,
            self.codec,
            body=request,
            idempotency_key=resolve_idempotency_key(options.get("idempotency_key")),
        )

    def batch(
        self, messages: Iterable[MessageRequest], *, idempotency_key: str | None
    ) -> Call[builtins.list[builtins.list[MessageReceipt]]] | None:
        from generated.models import PublishMessagesRequest

        key = resolve_idempotency_key(idempotency_key)
        items = list(messages)
        if not items:
            return None
        check_count(len(items), name="number of messages", minimum=1, maximum=BATCH_MAX)
        target = f"a batch of {len(items)} messages"
        requests = []
        for item in items:
            if not isinstance(item, MessageRequest):
                raise InvalidArgumentError(f"batch items must be MessageRequest, got {item!r}")
            requests.append(
                self._request(
                    item.body,
                    url=item.url,
                    url_group=item.url_group,
                    options=MessageOptions(
                        content_type=item.content_type,
                        method=item.method,
                        headers=item.headers,
                        delay=item.delay,
                        not_before=item.not_before,
                        retries=item.retries,
                        retry_delay=item.retry_delay,
                        callback=item.callback,
                        failure_callback=item.failure_callback,
                        timeout=item.timeout,
                        deduplication_id=item.deduplication_id,
                        content_based_deduplication=item.content_based_deduplication,
                    ),
                    as_json=not isinstance(item.body, str | bytes),
                    target=_target(item.url, item.url_group),
                )
            )
        return make_publish_call(
            _endpoints.publish_messages,
            lambda result: [_receipts(receipts) for receipts in result.results],
            target,
            self.codec,
            body=PublishMessagesRequest(messages=requests),
            idempotency_key=key,
        )

    def _request(
        self,
        body: Any,
        *,
        url: str | None,
        url_group: str | None,
        options: MessageOptions,
        as_json: bool,
        target: PublishTarget,
    ) -> PublishMessageRequest:
        """The generated request for one message."""
        from generated.models import PublishMessageRequest
        from generated.types import UNSET

        if (url is None) == (url_group is None):
            raise InvalidArgumentError("give exactly one of url and url_group")
        delay, not_before = options.get("delay"), options.get("not_before")
        if delay is not None and not_before is not None:
            raise InvalidArgumentError("give at most one of delay and not_before")
        body, content_type = self._body(body, options.get("content_type"), as_json, target)
        method, headers = options.get("method"), options.get("headers")
        retries, retry_delay = options.get("retries"), options.get("retry_delay")
        callback, failure_callback = options.get("callback"), options.get("failure_callback")
        timeout, deduplication_id = options.get("timeout"), options.get("deduplication_id")
        return PublishMessageRequest(
            body=body,
            url=UNSET if url is None else _check_url(url, name="url"),
            url_group=UNSET
            if url_group is None
            else check_resource_name(url_group, what="URL group"),
            content_type=UNSET if content_type is None else content_type,
            method=UNSET if method is None else _check_method(method),
            headers=UNSET if headers is None else _headers(headers),
            delay=UNSET
            if delay is None
            else to_seconds(delay, name="delay", minimum=0, maximum=DELAY_MAX_SECONDS),
            not_before=UNSET if not_before is None else to_datetime(not_before, name="not_before"),
            retries=UNSET
            if retries is None
            else check_count(retries, name="retries", minimum=0, maximum=RETRIES_MAX),
            retry_delay=UNSET if retry_delay is None else _retry_delay(retry_delay),
            callback=UNSET if callback is None else _check_url(callback, name="callback"),
            failure_callback=UNSET
            if failure_callback is None
            else _check_url(failure_callback, name="failure_callback"),
            timeout=UNSET
            if timeout is None
            else to_seconds(
                timeout,
                name="timeout",
                minimum=MESSAGE_TIMEOUT_MIN_SECONDS,
                maximum=MESSAGE_TIMEOUT_MAX_SECONDS,
            ),
            deduplication_id=UNSET if deduplication_id is None else deduplication_id,
            content_based_deduplication=options.get("content_based_deduplication") or UNSET,
        )

    def _body(
        self, body: Any, content_type: str | None, as_json: bool, target: PublishTarget
    ) -> tuple[Any, str | None]:
        if not as_json:
            if isinstance(body, bytes):
                try:
                    return body.decode("utf-8"), content_type
                except UnicodeDecodeError as error:
                    raise PublishError(
                        describe_target(target),
                        f"body could not be encoded: bytes must be UTF-8 ({error})",
                    ) from error
            if not isinstance(body, str):
                raise InvalidArgumentError(
                    f"publish takes a str or bytes body, got {type(body).__name__}: "
                    "use publish_json for other values"
                )
            return body, content_type
        if type(self.codec) is JsonCodec and (body is None or isinstance(body, _JSON_CONTAINERS)):
            # Never a JSON string, so it can go into the request as it is and be encoded once,
            # with the request.
            return encode_body(self.codec, body, target=target), content_type
        encoded = json_value(self.codec, body, target=target)
        if isinstance(encoded, str):
            # The API delivers a string body as raw text; a JSON string must go pre-encoded.
            return json.dumps(encoded), content_type or "application/json"
        return encoded, content_type

    @staticmethod
    def get(message_id: str) -> Call[Message]:
        return make_call(_endpoints.get_message, _message, message_id)

    @staticmethod
    def cancel(message_id: str) -> Call[Message]:
        return make_call(_endpoints.cancel_message, _message, message_id)

    @staticmethod
    def signing_keys() -> Call[SigningKeys]:
        from ._types import SigningKeys

        return make_call(
            _endpoints.get_signing_keys,
            lambda keys: SigningKeys(current=keys.current, next=keys.next_),
        )


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
        self._calls = _MessageCalls(codec)

    @overload
    def publish(
        self, *, url: str, body: str | bytes, **options: Unpack[MessageOptions]
    ) -> MessageReceipt: ...

    @overload
    def publish(
        self, *, url_group: str, body: str | bytes, **options: Unpack[MessageOptions]
    ) -> builtins.list[MessageReceipt]: ...

    @_lists_options
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

    @_lists_options
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
        self._calls = _MessageCalls(codec)

    @overload
    async def publish(
        self, *, url: str, body: str | bytes, **options: Unpack[MessageOptions]
    ) -> MessageReceipt: ...

    @overload
    async def publish(
        self, *, url_group: str, body: str | bytes, **options: Unpack[MessageOptions]
    ) -> builtins.list[MessageReceipt]: ...

    @_lists_options
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

    @_lists_options
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


def _target(url: str | None, url_group: str | None) -> PublishTarget:
    if url_group is not None and url is None:
        return f"URL group {url_group}"
    return partial(_describe_url, url)


def _describe_url(url: object) -> str:
    return redact_url(url) if isinstance(url, str) else repr(url)


# What a refused URL's message leaves out: user info, which may hold a password.
_USER_INFO = re.compile(r"(?<=://)[^/?#@]*@")


@cache
def _url_rule() -> re.Pattern[str]:
    # Compiled on first use rather than at import: the URL rule is a long pattern.
    return re.compile(URL_PATTERN)


def _check_url(url: str, *, name: str) -> str:
    # fullmatch: the pattern's `$` would let re.match take a trailing newline, which the service
    # (reading it as JSON Schema does) refuses.
    if not isinstance(url, str) or not _url_rule().fullmatch(url):
        shown = _USER_INFO.sub("<user info>@", url) if isinstance(url, str) else url
        raise InvalidArgumentError(
            f"{name} must be an http:// or https:// URL with a host and no user info (see the "
            f"limits in openapi.yaml), got {shown!r}"
        )
    return url


def _check_method(method: str) -> HttpMethod:
    if method not in _METHODS:
        raise InvalidArgumentError(f"method must be one of {sorted(_METHODS)}, got {method!r}")
    return _METHODS[method]


def _headers(headers: Mapping[str, str]) -> PublishMessageRequestHeaders:
    from generated.models import PublishMessageRequestHeaders

    if not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise InvalidArgumentError("headers must map str names to str values")
    return PublishMessageRequestHeaders.from_dict(dict(headers))


def _retry_delay(value: str | timedelta) -> str:
    # A duration is a fixed wait; any other string is the API's own expression, which the
    # service validates (400 invalid_retry_delay) at publish time.
    if isinstance(value, timedelta):
        duration: timedelta | None = value
    elif isinstance(value, str):
        duration = parse_duration_text(value)
    else:
        raise InvalidArgumentError(
            f"retry_delay must be a duration or an expression string, got {value!r}"
        )
    if duration is None:
        return str(value)
    return str(to_millis(duration, name="retry_delay", minimum=0, maximum=sys.maxsize))


def _receipt(receipt: GeneratedMessageReceipt) -> MessageReceipt:
    from ._types import MessageReceipt

    return MessageReceipt(
        message_id=receipt.message_id, url=receipt.url, deduplicated=receipt.deduplicated
    )


def _receipts(result: GeneratedMessageReceiptList) -> builtins.list[MessageReceipt]:
    return [_receipt(receipt) for receipt in result.messages]


def _one_receipt(result: GeneratedMessageReceiptList) -> MessageReceipt:
    receipts = _receipts(result)
    if len(receipts) != 1:
        raise ValueError(f"a message to one URL got {len(receipts)} receipts")
    return receipts[0]


def _message(message: GeneratedMessage) -> Message:
    from ._types import DeliveryAttempt, Message

    return Message(
        message_id=message.message_id,
        url=message.url,
        url_group=optional(message.url_group),
        method=message.method,
        content_type=message.content_type,
        headers=dict(message.headers.additional_properties),
        state=message.state,
        retries=message.retries,
        retry_delay=optional(message.retry_delay),
        timeout=timedelta(seconds=message.timeout),
        created_at=message.created_at,
        not_before=message.not_before,
        next_attempt_at=optional(message.next_attempt_at),
        callback=optional(message.callback),
        failure_callback=optional(message.failure_callback),
        deduplication_id=optional(message.deduplication_id),
        attempts=[
            DeliveryAttempt(
                attempt=attempt.attempt,
                started_at=attempt.started_at,
                duration=timedelta(milliseconds=attempt.duration_ms),
                status_code=optional(attempt.status_code),
                response_excerpt=optional(attempt.response_excerpt),
                error=optional(attempt.error),
            )
            for attempt in message.attempts
        ],
        traceparent=optional(message.traceparent),
    )
