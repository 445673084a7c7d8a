"""What every message call sends and how its answer is read, built once for the sync and async
resources of sdk/_messages.py.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from . import _endpoints
from ._arguments import MessageRequest
from ._checks import check_count, check_resource_name
from ._codec import Codec, JsonCodec, encode_body, json_value
from ._config import redact_url
from ._durations import to_datetime, to_seconds
from ._exceptions import InvalidArgumentError, PublishError, PublishTarget, describe_target
from ._http import Call, make_call, make_publish_call, resolve_idempotency_key
from ._limits import (
    BATCH_MAX,
    DELAY_MAX_SECONDS,
    MESSAGE_TIMEOUT_MAX_SECONDS,
    MESSAGE_TIMEOUT_MIN_SECONDS,
    RETRIES_MAX,
)
from ._message_options import (
    MessageOptions,
    callback_request_headers,
    check_labels,
    check_method,
    check_option_names,
    check_signature_scheme,
    check_url,
    failure_callback_request_headers,
    flow_control_request,
    redact_request,
    request_headers,
    retry_delay_text,
)
from ._message_reading import read_message, read_one_receipt, read_receipts

if TYPE_CHECKING:
    from generated.models import (
        MessageReceiptList as GeneratedMessageReceiptList,
        PublishMessageRequest,
    )

    from ._types import Message, MessageReceipt, SigningKeys

__all__ = ["MessageCalls"]

# Bodies that encode to JSON objects, arrays, numbers, booleans or null whatever they hold.
_JSON_CONTAINERS = (dict, list, tuple, int, float)


class MessageCalls:
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
        """One publishMessage: its one receipt for a `url`, a list for a `url_group`.

        Raises:
            TypeError: `options` holds a name that is not a message option.
            InvalidArgumentError: not exactly one of `url` and `url_group`, a text body that is
                not str or bytes, or an invalid option.
            InvalidNameError: `url_group` is not a valid URL group name.
            InvalidDurationError: `delay` or `timeout` is malformed or out of range.
            PublishError: the body cannot be encoded (or, as text, is bytes but not UTF-8).
        """
        check_option_names(options, "publish_json" if as_json else "publish")
        target = _target(url, url_group)
        request = self.request(
            body, url=url, url_group=url_group, options=options, as_json=as_json, target=target
        )
        read: Callable[
            [GeneratedMessageReceiptList], MessageReceipt | builtins.list[MessageReceipt]
        ]
        read = read_receipts if url is None else read_one_receipt
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
        """One publishMessages of every message, or None when there is none.

        Raises:
            InvalidArgumentError: more than 1000 messages, an item that is not a MessageRequest,
                an invalid item or an invalid `idempotency_key`.
            InvalidNameError: an item's `url_group` is not a valid URL group name.
            InvalidDurationError: an item's `delay` or `timeout` is malformed or out of range.
            PublishError: a body cannot be encoded.
        """
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
                self.request(
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
                        callback_headers=item.callback_headers,
                        failure_callback=item.failure_callback,
                        failure_callback_headers=item.failure_callback_headers,
                        timeout=item.timeout,
                        deduplication_id=item.deduplication_id,
                        content_based_deduplication=item.content_based_deduplication,
                        redact=item.redact,
                        flow_control=item.flow_control,
                        signature_scheme=item.signature_scheme,
                        labels=item.labels,
                    ),
                    as_json=not isinstance(item.body, str | bytes),
                    target=_target(item.url, item.url_group),
                )
            )
        return make_publish_call(
            _endpoints.publish_messages,
            lambda result: [read_receipts(receipts) for receipts in result.results],
            target,
            self.codec,
            body=PublishMessagesRequest(messages=requests),
            idempotency_key=key,
        )

    def request(
        self,
        body: Any,
        *,
        url: str | None,
        url_group: str | None,
        options: MessageOptions,
        as_json: bool,
        target: PublishTarget,
    ) -> PublishMessageRequest:
        """The generated request for one message: a publish's, a batch item's or a schedule's."""
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
        callback_headers = options.get("callback_headers")
        failure_callback_headers = options.get("failure_callback_headers")
        redact = options.get("redact")
        flow_control = options.get("flow_control")
        signature_scheme = options.get("signature_scheme")
        labels = options.get("labels")
        return PublishMessageRequest(
            body=body,
            url=UNSET if url is None else check_url(url, name="url"),
            url_group=UNSET
            if url_group is None
            else check_resource_name(url_group, what="URL group"),
            content_type=UNSET if content_type is None else content_type,
            method=UNSET if method is None else check_method(method),
            headers=UNSET if headers is None else request_headers(headers),
            delay=UNSET
            if delay is None
            else to_seconds(delay, name="delay", minimum=0, maximum=DELAY_MAX_SECONDS),
            not_before=UNSET if not_before is None else to_datetime(not_before, name="not_before"),
            retries=UNSET
            if retries is None
            else check_count(retries, name="retries", minimum=0, maximum=RETRIES_MAX),
            retry_delay=UNSET if retry_delay is None else retry_delay_text(retry_delay),
            callback=UNSET if callback is None else check_url(callback, name="callback"),
            failure_callback=UNSET
            if failure_callback is None
            else check_url(failure_callback, name="failure_callback"),
            callback_headers=UNSET
            if callback_headers is None
            else callback_request_headers(callback_headers),
            failure_callback_headers=UNSET
            if failure_callback_headers is None
            else failure_callback_request_headers(failure_callback_headers),
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
            redact=UNSET if redact is None else redact_request(redact),
            flow_control=UNSET if flow_control is None else flow_control_request(flow_control),
            signature_scheme=UNSET
            if signature_scheme is None
            else check_signature_scheme(signature_scheme),
            labels=UNSET if labels is None else check_labels(labels),
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
        """One getMessage call; the service checks the id."""
        return make_call(_endpoints.get_message, read_message, message_id)

    @staticmethod
    def cancel(message_id: str) -> Call[Message]:
        """One cancelMessage call; the service checks the id."""
        return make_call(_endpoints.cancel_message, read_message, message_id)

    @staticmethod
    def signing_keys() -> Call[SigningKeys]:
        """One getSigningKeys call."""
        from ._types import SigningKeys, StandardWebhooksSecrets

        return make_call(
            _endpoints.get_signing_keys,
            lambda keys: SigningKeys(
                current=keys.current,
                next=keys.next_,
                standard_webhooks=StandardWebhooksSecrets(
                    current=keys.standard_webhooks.current, next=keys.standard_webhooks.next_
                ),
            ),
        )


def _target(url: str | None, url_group: str | None) -> PublishTarget:
    if url_group is not None and url is None:
        return f"URL group {url_group}"
    return partial(_describe_url, url)


def _describe_url(url: object) -> str:
    return redact_url(url) if isinstance(url, str) else repr(url)
