from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.http_method import HttpMethod, check_http_method
from ..models.signature_scheme import SignatureScheme, check_signature_scheme
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.flow_control import FlowControl
    from ..models.publish_message_request_callback_headers import (
        PublishMessageRequestCallbackHeaders,
    )
    from ..models.publish_message_request_failure_callback_headers import (
        PublishMessageRequestFailureCallbackHeaders,
    )
    from ..models.publish_message_request_headers import PublishMessageRequestHeaders
    from ..models.redact import Redact


T = TypeVar("T", bound="PublishMessageRequest")


@_attrs_define
class PublishMessageRequest:
    """Give exactly one of `url` and `url_group`, and at most one of `delay` and `not_before`.

    Attributes:
        body (Any): A string is delivered as its UTF-8 bytes; any other JSON value is delivered as JSON.
        url (str | Unset): Deliver to this URL (see Limits for what a URL may be).
        url_group (str | Unset): A stream, queue or URL group name.
        content_type (str | Unset): Defaults to `text/plain; charset=utf-8` for a string body and `application/json`
            otherwise. Sent as the `Content-Type` header, so it must be printable ASCII (tabs
            allowed, no CR or LF).
        method (HttpMethod | Unset):
        headers (PublishMessageRequestHeaders | Unset): Headers forwarded with every delivery. Names are HTTP tokens;
            values are printable
            ASCII (tabs allowed, no CR or LF). Framing and connection headers (`Host`,
            `Content-Length`, `Transfer-Encoding`, `Connection`, …), `Spool-*` and the Standard
            Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) are set by
            the service and refused here.
        delay (int | Unset): Seconds to wait before the first delivery.
        not_before (datetime.datetime | Unset): Do not deliver before this time. A time already past means now; a time
            more than
            604800 seconds (7 days, the most `delay` allows) after the service receives the
            message is refused with `422` at this field.
        retries (int | Unset): Deliveries tried again after the first fails. Default: 3.
        retry_delay (str | Unset): Milliseconds to wait before retry number `retried` (1, 2, …), as an expression over
            `retried` with numbers, `+ - * / %`, parentheses and the functions pow, sqrt, abs, exp,
            floor, ceil, round, min and max, on one line. Default: exponential backoff with jitter.
            Beyond this schema, the expression must compile and give a delay from 0 to 7 days
            (604800000 ms) for every retry the message can have (`retried` from 1 to `retries`);
            otherwise the message is refused with `400 invalid_retry_delay`.
        callback (str | Unset): Called with the outcome after a successful delivery.
        failure_callback (str | Unset): Called with the last error after retries run out.
        callback_headers (PublishMessageRequestCallbackHeaders | Unset): Headers sent with every request to `callback`,
            by the rules of `headers`; the
            service's own `Spool-*` headers (the signature, `Spool-Callback`) are added beside
            them.
        failure_callback_headers (PublishMessageRequestFailureCallbackHeaders | Unset): Headers sent with every request
            to `failure_callback`, by the rules of `headers`.
        timeout (int | Unset): Seconds one delivery attempt may take. Default: 30.
        deduplication_id (str | Unset):
        content_based_deduplication (bool | Unset): Deduplicate on a hash of destination, body, content type, method and
            headers. Default: False.
        redact (Redact | Unset): Parts of a message that are delivered as published but never shown again. Wherever the
            service shows the message (getMessage, listMessages, cancelMessage, the schedule
            operations for a schedule's message, the console and the CLI, which read them), the
            value of each header named in `headers` is `"[redacted]"`, in `headers`,
            `callback_headers` and `failure_callback_headers` alike (names matched
            case-insensitively), and with `body` a schedule's message shows the body as
            `"[redacted]"` (getMessage never shows a body). The message's `redact` says what was
            redacted, so a header whose value really is `"[redacted]"` can be told apart. The
            callbacks of the message are redacted in the same way.
        flow_control (FlowControl | Unset): Limits shared by every message published with the same `key`, across every
            service
            process: at most `rate` delivery attempts start in any `period` (a sliding window), and at
            most `parallelism` attempts are in flight at once. Give at least one of `rate` and
            `parallelism`. A message over a limit waits, scheduled, and is delivered later; none is
            dropped. Retries count like first attempts. The limits of a key are those of the latest
            publish that named it (last writer wins), and apply to all of its waiting messages.
            With `parallelism: 1` the key's messages are delivered one at a time in publish order: a
            message waiting for its delay or its next retry holds back the ones published after it
            (until it is delivered, dead or cancelled).
        signature_scheme (SignatureScheme | Unset): How deliveries of the message are signed. `spool`: a `Spool-
            Signature` JWT binding the
            body's hash, the URL and a short validity window (verified by `sdk.Receiver`).
            `standard_webhooks`: the Standard Webhooks headers instead, `webhook-id` (the message id,
            the same on every retry), `webhook-timestamp` (Unix seconds) and `webhook-signature`
            (`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, one for the current and one for
            the next signing key), so receivers built for other webhook senders, or the
            `standardwebhooks` libraries, accept them with a secret from `getSigningKeys`
            (`standard_webhooks`). Callbacks are always signed `spool`.
        labels (list[str] | Unset): Labels to find the message by (`listMessages` and `GET /v1/logs` filter on `label`),
            each
            given once; a message of a URL group has them on every endpoint's message.
    """

    body: Any
    url: str | Unset = UNSET
    url_group: str | Unset = UNSET
    content_type: str | Unset = UNSET
    method: HttpMethod | Unset = UNSET
    headers: PublishMessageRequestHeaders | Unset = UNSET
    delay: int | Unset = UNSET
    not_before: datetime.datetime | Unset = UNSET
    retries: int | Unset = 3
    retry_delay: str | Unset = UNSET
    callback: str | Unset = UNSET
    failure_callback: str | Unset = UNSET
    callback_headers: PublishMessageRequestCallbackHeaders | Unset = UNSET
    failure_callback_headers: PublishMessageRequestFailureCallbackHeaders | Unset = (
        UNSET
    )
    timeout: int | Unset = 30
    deduplication_id: str | Unset = UNSET
    content_based_deduplication: bool | Unset = False
    redact: Redact | Unset = UNSET
    flow_control: FlowControl | Unset = UNSET
    signature_scheme: SignatureScheme | Unset = UNSET
    labels: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        body = self.body

        url = self.url

        url_group = self.url_group

        content_type = self.content_type

        method: str | Unset = UNSET
        if not isinstance(self.method, Unset):
            method = self.method

        headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers.to_dict()

        delay = self.delay

        not_before: str | Unset = UNSET
        if not isinstance(self.not_before, Unset):
            not_before = self.not_before.isoformat()

        retries = self.retries

        retry_delay = self.retry_delay

        callback = self.callback

        failure_callback = self.failure_callback

        callback_headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.callback_headers, Unset):
            callback_headers = self.callback_headers.to_dict()

        failure_callback_headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.failure_callback_headers, Unset):
            failure_callback_headers = self.failure_callback_headers.to_dict()

        timeout = self.timeout

        deduplication_id = self.deduplication_id

        content_based_deduplication = self.content_based_deduplication

        redact: dict[str, Any] | Unset = UNSET
        if not isinstance(self.redact, Unset):
            redact = self.redact.to_dict()

        flow_control: dict[str, Any] | Unset = UNSET
        if not isinstance(self.flow_control, Unset):
            flow_control = self.flow_control.to_dict()

        signature_scheme: str | Unset = UNSET
        if not isinstance(self.signature_scheme, Unset):
            signature_scheme = self.signature_scheme

        labels: list[str] | Unset = UNSET
        if not isinstance(self.labels, Unset):
            labels = self.labels

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "body": body,
            }
        )
        if url is not UNSET:
            field_dict["url"] = url
        if url_group is not UNSET:
            field_dict["url_group"] = url_group
        if content_type is not UNSET:
            field_dict["content_type"] = content_type
        if method is not UNSET:
            field_dict["method"] = method
        if headers is not UNSET:
            field_dict["headers"] = headers
        if delay is not UNSET:
            field_dict["delay"] = delay
        if not_before is not UNSET:
            field_dict["not_before"] = not_before
        if retries is not UNSET:
            field_dict["retries"] = retries
        if retry_delay is not UNSET:
            field_dict["retry_delay"] = retry_delay
        if callback is not UNSET:
            field_dict["callback"] = callback
        if failure_callback is not UNSET:
            field_dict["failure_callback"] = failure_callback
        if callback_headers is not UNSET:
            field_dict["callback_headers"] = callback_headers
        if failure_callback_headers is not UNSET:
            field_dict["failure_callback_headers"] = failure_callback_headers
        if timeout is not UNSET:
            field_dict["timeout"] = timeout
        if deduplication_id is not UNSET:
            field_dict["deduplication_id"] = deduplication_id
        if content_based_deduplication is not UNSET:
            field_dict["content_based_deduplication"] = content_based_deduplication
        if redact is not UNSET:
            field_dict["redact"] = redact
        if flow_control is not UNSET:
            field_dict["flow_control"] = flow_control
        if signature_scheme is not UNSET:
            field_dict["signature_scheme"] = signature_scheme
        if labels is not UNSET:
            field_dict["labels"] = labels

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.flow_control import FlowControl  # noqa: PLC0415
        from ..models.publish_message_request_callback_headers import (
            PublishMessageRequestCallbackHeaders,  # noqa: PLC0415
        )
        from ..models.publish_message_request_failure_callback_headers import (
            PublishMessageRequestFailureCallbackHeaders,  # noqa: PLC0415
        )
        from ..models.publish_message_request_headers import (
            PublishMessageRequestHeaders,  # noqa: PLC0415
        )
        from ..models.redact import Redact  # noqa: PLC0415

        d = dict(src_dict)
        body = d.pop("body")

        url = d.pop("url", UNSET)

        url_group = d.pop("url_group", UNSET)

        content_type = d.pop("content_type", UNSET)

        _method = d.pop("method", UNSET)
        method: HttpMethod | Unset
        if isinstance(_method, Unset):
            method = UNSET
        else:
            method = check_http_method(_method)

        _headers = d.pop("headers", UNSET)
        headers: PublishMessageRequestHeaders | Unset
        if isinstance(_headers, Unset):
            headers = UNSET
        else:
            headers = PublishMessageRequestHeaders.from_dict(_headers)

        delay = d.pop("delay", UNSET)

        _not_before = d.pop("not_before", UNSET)
        not_before: datetime.datetime | Unset
        if isinstance(_not_before, Unset):
            not_before = UNSET
        else:
            not_before = datetime.datetime.fromisoformat(_not_before)

        retries = d.pop("retries", UNSET)

        retry_delay = d.pop("retry_delay", UNSET)

        callback = d.pop("callback", UNSET)

        failure_callback = d.pop("failure_callback", UNSET)

        _callback_headers = d.pop("callback_headers", UNSET)
        callback_headers: PublishMessageRequestCallbackHeaders | Unset
        if isinstance(_callback_headers, Unset):
            callback_headers = UNSET
        else:
            callback_headers = PublishMessageRequestCallbackHeaders.from_dict(
                _callback_headers
            )

        _failure_callback_headers = d.pop("failure_callback_headers", UNSET)
        failure_callback_headers: PublishMessageRequestFailureCallbackHeaders | Unset
        if isinstance(_failure_callback_headers, Unset):
            failure_callback_headers = UNSET
        else:
            failure_callback_headers = (
                PublishMessageRequestFailureCallbackHeaders.from_dict(
                    _failure_callback_headers
                )
            )

        timeout = d.pop("timeout", UNSET)

        deduplication_id = d.pop("deduplication_id", UNSET)

        content_based_deduplication = d.pop("content_based_deduplication", UNSET)

        _redact = d.pop("redact", UNSET)
        redact: Redact | Unset
        if isinstance(_redact, Unset):
            redact = UNSET
        else:
            redact = Redact.from_dict(_redact)

        _flow_control = d.pop("flow_control", UNSET)
        flow_control: FlowControl | Unset
        if isinstance(_flow_control, Unset):
            flow_control = UNSET
        else:
            flow_control = FlowControl.from_dict(_flow_control)

        _signature_scheme = d.pop("signature_scheme", UNSET)
        signature_scheme: SignatureScheme | Unset
        if isinstance(_signature_scheme, Unset):
            signature_scheme = UNSET
        else:
            signature_scheme = check_signature_scheme(_signature_scheme)

        labels = cast(list[str], d.pop("labels", UNSET))

        publish_message_request = cls(
            body=body,
            url=url,
            url_group=url_group,
            content_type=content_type,
            method=method,
            headers=headers,
            delay=delay,
            not_before=not_before,
            retries=retries,
            retry_delay=retry_delay,
            callback=callback,
            failure_callback=failure_callback,
            callback_headers=callback_headers,
            failure_callback_headers=failure_callback_headers,
            timeout=timeout,
            deduplication_id=deduplication_id,
            content_based_deduplication=content_based_deduplication,
            redact=redact,
            flow_control=flow_control,
            signature_scheme=signature_scheme,
            labels=labels,
        )

        return publish_message_request
