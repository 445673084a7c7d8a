from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.http_method import HttpMethod, check_http_method
from ..models.message_state import MessageState, check_message_state
from ..models.signature_scheme import SignatureScheme, check_signature_scheme
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.delivery_attempt import DeliveryAttempt
    from ..models.flow_control_limits import FlowControlLimits
    from ..models.message_callback_headers import MessageCallbackHeaders
    from ..models.message_failure_callback_headers import MessageFailureCallbackHeaders
    from ..models.message_headers import MessageHeaders
    from ..models.redact import Redact


T = TypeVar("T", bound="Message")


@_attrs_define
class Message:
    """
    Attributes:
        message_id (str):
        url (str):
        method (HttpMethod):
        content_type (str):
        headers (MessageHeaders):
        state (MessageState):
        retries (int):
        timeout (int):
        created_at (datetime.datetime):
        not_before (datetime.datetime):
        attempts (list[DeliveryAttempt]):
        url_group (str | Unset):
        retry_delay (str | Unset):
        next_attempt_at (datetime.datetime | Unset):
        callback (str | Unset):
        failure_callback (str | Unset):
        callback_headers (MessageCallbackHeaders | Unset): The headers sent to `callback`, when the message has any.
        failure_callback_headers (MessageFailureCallbackHeaders | Unset): The headers sent to `failure_callback`, when
            the message has any.
        redact (Redact | Unset): Parts of a message that are delivered as published but never shown again. Wherever the
            service shows the message (getMessage, listMessages, cancelMessage, the schedule
            operations for a schedule's message, the console and the CLI, which read them), the
            value of each header named in `headers` is `"[redacted]"`, in `headers`,
            `callback_headers` and `failure_callback_headers` alike (names matched
            case-insensitively), and with `body` a schedule's message shows the body as
            `"[redacted]"` (getMessage never shows a body). The message's `redact` says what was
            redacted, so a header whose value really is `"[redacted]"` can be told apart. The
            callbacks of the message are redacted in the same way.
        flow_control (FlowControlLimits | Unset): A message's flow control as it was published, `period` in seconds.
        signature_scheme (SignatureScheme | Unset): How deliveries of the message are signed. `spool`: a `Spool-
            Signature` JWT binding the
            body's hash, the URL and a short validity window (verified by `sdk.Receiver`).
            `standard_webhooks`: the Standard Webhooks headers instead, `webhook-id` (the message id,
            the same on every retry), `webhook-timestamp` (Unix seconds) and `webhook-signature`
            (`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, one for the current and one for
            the next signing key), so receivers built for other webhook senders, or the
            `standardwebhooks` libraries, accept them with a secret from `getSigningKeys`
            (`standard_webhooks`). Callbacks are always signed `spool`.
        deduplication_id (str | Unset):
        labels (list[str] | Unset): The labels it was published with, in order.
        schedule (str | Unset): The schedule that published it, when one did.
        traceparent (str | Unset): The W3C Trace Context `traceparent` the item was published under, when its publish
            sent
            a valid one: a consumer links its processing to that trace.
             Example: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01.
    """

    message_id: str
    url: str
    method: HttpMethod
    content_type: str
    headers: MessageHeaders
    state: MessageState
    retries: int
    timeout: int
    created_at: datetime.datetime
    not_before: datetime.datetime
    attempts: list[DeliveryAttempt]
    url_group: str | Unset = UNSET
    retry_delay: str | Unset = UNSET
    next_attempt_at: datetime.datetime | Unset = UNSET
    callback: str | Unset = UNSET
    failure_callback: str | Unset = UNSET
    callback_headers: MessageCallbackHeaders | Unset = UNSET
    failure_callback_headers: MessageFailureCallbackHeaders | Unset = UNSET
    redact: Redact | Unset = UNSET
    flow_control: FlowControlLimits | Unset = UNSET
    signature_scheme: SignatureScheme | Unset = UNSET
    deduplication_id: str | Unset = UNSET
    labels: list[str] | Unset = UNSET
    schedule: str | Unset = UNSET
    traceparent: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message_id = self.message_id

        url = self.url

        method: str = self.method

        content_type = self.content_type

        headers = self.headers.to_dict()

        state: str = self.state

        retries = self.retries

        timeout = self.timeout

        created_at = self.created_at.isoformat()

        not_before = self.not_before.isoformat()

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        url_group = self.url_group

        retry_delay = self.retry_delay

        next_attempt_at: str | Unset = UNSET
        if not isinstance(self.next_attempt_at, Unset):
            next_attempt_at = self.next_attempt_at.isoformat()

        callback = self.callback

        failure_callback = self.failure_callback

        callback_headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.callback_headers, Unset):
            callback_headers = self.callback_headers.to_dict()

        failure_callback_headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.failure_callback_headers, Unset):
            failure_callback_headers = self.failure_callback_headers.to_dict()

        redact: dict[str, Any] | Unset = UNSET
        if not isinstance(self.redact, Unset):
            redact = self.redact.to_dict()

        flow_control: dict[str, Any] | Unset = UNSET
        if not isinstance(self.flow_control, Unset):
            flow_control = self.flow_control.to_dict()

        signature_scheme: str | Unset = UNSET
        if not isinstance(self.signature_scheme, Unset):
            signature_scheme = self.signature_scheme

        deduplication_id = self.deduplication_id

        labels: list[str] | Unset = UNSET
        if not isinstance(self.labels, Unset):
            labels = self.labels

        schedule = self.schedule

        traceparent = self.traceparent

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message_id": message_id,
                "url": url,
                "method": method,
                "content_type": content_type,
                "headers": headers,
                "state": state,
                "retries": retries,
                "timeout": timeout,
                "created_at": created_at,
                "not_before": not_before,
                "attempts": attempts,
            }
        )
        if url_group is not UNSET:
            field_dict["url_group"] = url_group
        if retry_delay is not UNSET:
            field_dict["retry_delay"] = retry_delay
        if next_attempt_at is not UNSET:
            field_dict["next_attempt_at"] = next_attempt_at
        if callback is not UNSET:
            field_dict["callback"] = callback
        if failure_callback is not UNSET:
            field_dict["failure_callback"] = failure_callback
        if callback_headers is not UNSET:
            field_dict["callback_headers"] = callback_headers
        if failure_callback_headers is not UNSET:
            field_dict["failure_callback_headers"] = failure_callback_headers
        if redact is not UNSET:
            field_dict["redact"] = redact
        if flow_control is not UNSET:
            field_dict["flow_control"] = flow_control
        if signature_scheme is not UNSET:
            field_dict["signature_scheme"] = signature_scheme
        if deduplication_id is not UNSET:
            field_dict["deduplication_id"] = deduplication_id
        if labels is not UNSET:
            field_dict["labels"] = labels
        if schedule is not UNSET:
            field_dict["schedule"] = schedule
        if traceparent is not UNSET:
            field_dict["traceparent"] = traceparent

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivery_attempt import DeliveryAttempt  # noqa: PLC0415
        from ..models.flow_control_limits import FlowControlLimits  # noqa: PLC0415
        from ..models.message_callback_headers import MessageCallbackHeaders  # noqa: PLC0415
        from ..models.message_failure_callback_headers import (
            MessageFailureCallbackHeaders,  # noqa: PLC0415
        )
        from ..models.message_headers import MessageHeaders  # noqa: PLC0415
        from ..models.redact import Redact  # noqa: PLC0415

        d = dict(src_dict)
        message_id = d.pop("message_id")

        url = d.pop("url")

        method = check_http_method(d.pop("method"))

        content_type = d.pop("content_type")

        headers = MessageHeaders.from_dict(d.pop("headers"))

        state = check_message_state(d.pop("state"))

        retries = d.pop("retries")

        timeout = d.pop("timeout")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        not_before = datetime.datetime.fromisoformat(d.pop("not_before"))

        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = DeliveryAttempt.from_dict(attempts_item_data)

            attempts.append(attempts_item)

        url_group = d.pop("url_group", UNSET)

        retry_delay = d.pop("retry_delay", UNSET)

        _next_attempt_at = d.pop("next_attempt_at", UNSET)
        next_attempt_at: datetime.datetime | Unset
        if isinstance(_next_attempt_at, Unset):
            next_attempt_at = UNSET
        else:
            next_attempt_at = datetime.datetime.fromisoformat(_next_attempt_at)

        callback = d.pop("callback", UNSET)

        failure_callback = d.pop("failure_callback", UNSET)

        _callback_headers = d.pop("callback_headers", UNSET)
        callback_headers: MessageCallbackHeaders | Unset
        if isinstance(_callback_headers, Unset):
            callback_headers = UNSET
        else:
            callback_headers = MessageCallbackHeaders.from_dict(_callback_headers)

        _failure_callback_headers = d.pop("failure_callback_headers", UNSET)
        failure_callback_headers: MessageFailureCallbackHeaders | Unset
        if isinstance(_failure_callback_headers, Unset):
            failure_callback_headers = UNSET
        else:
            failure_callback_headers = MessageFailureCallbackHeaders.from_dict(
                _failure_callback_headers
            )

        _redact = d.pop("redact", UNSET)
        redact: Redact | Unset
        if isinstance(_redact, Unset):
            redact = UNSET
        else:
            redact = Redact.from_dict(_redact)

        _flow_control = d.pop("flow_control", UNSET)
        flow_control: FlowControlLimits | Unset
        if isinstance(_flow_control, Unset):
            flow_control = UNSET
        else:
            flow_control = FlowControlLimits.from_dict(_flow_control)

        _signature_scheme = d.pop("signature_scheme", UNSET)
        signature_scheme: SignatureScheme | Unset
        if isinstance(_signature_scheme, Unset):
            signature_scheme = UNSET
        else:
            signature_scheme = check_signature_scheme(_signature_scheme)

        deduplication_id = d.pop("deduplication_id", UNSET)

        labels = cast(list[str], d.pop("labels", UNSET))

        schedule = d.pop("schedule", UNSET)

        traceparent = d.pop("traceparent", UNSET)

        message = cls(
            message_id=message_id,
            url=url,
            method=method,
            content_type=content_type,
            headers=headers,
            state=state,
            retries=retries,
            timeout=timeout,
            created_at=created_at,
            not_before=not_before,
            attempts=attempts,
            url_group=url_group,
            retry_delay=retry_delay,
            next_attempt_at=next_attempt_at,
            callback=callback,
            failure_callback=failure_callback,
            callback_headers=callback_headers,
            failure_callback_headers=failure_callback_headers,
            redact=redact,
            flow_control=flow_control,
            signature_scheme=signature_scheme,
            deduplication_id=deduplication_id,
            labels=labels,
            schedule=schedule,
            traceparent=traceparent,
        )

        message.additional_properties = d
        return message

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
