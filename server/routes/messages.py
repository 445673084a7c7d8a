"""Messages: publish to a URL or a URL group, status and cancel, URL groups, dead letters, signing
keys.

Everything a delivery will need is checked when the message is published (URLs by openapi.yaml's
pattern, the destination against the SSRF policy, ``retry_delay`` by compiling it, forwarded
headers by their syntax), so a bad option is a 4xx now and never a surprise at delivery time.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable, Iterable

from starlette.convertors import StringConvertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import Response

from generated.pydantic_models import (
    DeleteDeadLettersRequest,
    ForwardedHeaders,
    LogState,
    MessageState,
    PublishMessageRequest,
    PublishMessagesRequest,
    RetryDeadLetterRequest,
    RetryDeadLettersRequest,
    UrlGroupSettings,
)

from ..delivery.retry_delay import RetryDelayError, compile_retry_delay
from ..destinations import DestinationNotAllowed
from ..flow_control import FlowControlError, flow_control_limits
from ..problems import ProblemError
from ..signing import STANDARD_WEBHOOKS_HEADERS
from ..stores.base import (
    LogEventRecord,
    MessageRecord,
    NewMessage,
    NotFoundError,
    UrlEndpoint,
)
from ..stores.cursors import (
    dead_letter_cursor_position,
    log_cursor_position,
    message_cursor_position,
)
from ..stores.errors import StoreError
from . import _documents as documents
from ._body import (
    ensure_finite,
    invalid,
    may_hold_non_finite,
    read_json,
    read_optional_json,
)
from ._context import AppContext, context_of
from ._dead_letters import (
    DeadLetterBulk,
    DeadLetterSelection,
    act_on_dead_letters,
    dead_letter_filter,
    may_act_on,
)
from ._operations import Access, operations
from ._publish import Publishing, check_rate
from ._query import (
    query_cursor,
    query_int,
    query_message_filter,
)
from ._responses import json_response

__all__ = ["check_message", "dead_letter_message", "may_see_message", "plan_message", "routes"]

TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"
JSON_CONTENT_TYPE = "application/json"

# Framing and connection headers belong to each delivery's own request, and ``Spool-*`` headers
# (the signature, the message id) and the Standard Webhooks ones to the service: a caller may not
# set them, or a receiver could be handed a signature of the caller's making.
_RESERVED_HEADERS = frozenset(
    {
        "connection",
        "content-length",
        "host",
        "keep-alive",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        *STANDARD_WEBHOOKS_HEADERS,
    }
)
_SERVICE_HEADER_PREFIX = "spool-"
_BATCH_SEGMENT = "batch"
_BULK_SEGMENTS = ("retry", "delete")


async def _check_destinations(context: AppContext, urls: Iterable[str | None]) -> None:
    # A URL group may list a hundred endpoints on a few hosts: each distinct URL is checked once,
    # and all at the same time, so one slow name server answer is waited for once, not per URL.
    distinct = list(dict.fromkeys(url for url in urls if url is not None))
    try:
        if len(distinct) == 1:
            # Most publishes name one URL: checked in place, with no task to gather.
            await context.destinations.check(distinct[0])
        else:
            checked = asyncio.gather(
                *(context.destinations.check(url) for url in distinct), return_exceptions=True
            )
            for outcome in await checked:
                if isinstance(outcome, BaseException):
                    raise outcome
    except DestinationNotAllowed as error:
        raise ProblemError(403, "destination_not_allowed", str(error)) from None


def _check_headers(headers: dict[str, str], location: str) -> None:
    # Their syntax (tokens for names, printable ASCII for values) is the schema's, checked with
    # the body; what is left is who may set them.
    for name in headers:
        if name.lower() in _RESERVED_HEADERS or name.lower().startswith(_SERVICE_HEADER_PREFIX):
            raise invalid(f"{location}.{name}", "this header is set by the service")


def _encode_body(item: PublishMessageRequest) -> tuple[bytes, str]:
    if isinstance(item.body, str):
        return item.body.encode(), item.content_type or TEXT_CONTENT_TYPE
    encoded = json.dumps(item.body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return encoded.encode(), item.content_type or JSON_CONTENT_TYPE


def _digest(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        # Length prefixes keep ("ab", "c") and ("a", "bc") apart.
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def _dedup_key(
    item: PublishMessageRequest,
    *,
    url: str,
    body: bytes,
    content_type: str,
    headers: dict[str, str],
) -> str | None:
    if item.deduplication_id is not None:
        return "id:" + _digest(url, item.deduplication_id)
    if item.content_based_deduplication:
        header_parts = [
            f"{name.lower()}:{value}" for name, value in sorted(headers.items(), key=lambda h: h[0])
        ]
        return "content:" + _digest(url, item.method.root, content_type, *header_parts, body)
    return None


async def plan_message(
    context: AppContext,
    check: Callable[[str], None],
    item: PublishMessageRequest,
    location: str,
    *,
    index: int = 0,
    check_finite: bool,
) -> list[NewMessage]:
    """The messages publish item number ``index`` becomes (one per URL), after every check it
    needs; ``check`` refuses a destination (its URL or URL group) the caller may not publish to.
    A schedule plans its message with it at each tick, as a publish does.
    """
    if item.url is not None and item.url_group is not None:
        raise invalid(f"{location}.url_group", "give exactly one of url and url_group, not both")
    if item.url is not None:
        target = item.url
    elif item.url_group is not None:
        target = item.url_group.root
    else:
        raise invalid(f"{location}.url", "give exactly one of url and url_group")
    if item.delay is not None and item.not_before is not None:
        raise invalid(f"{location}.not_before", "give at most one of delay and not_before")
    if check_finite:
        ensure_finite(item.body, f"{location}.body")
    headers = dict(item.headers or {})
    _check_headers(headers, f"{location}.headers")
    callback_headers = dict(item.callback_headers or {})
    _check_headers(callback_headers, f"{location}.callback_headers")
    failure_callback_headers = dict(item.failure_callback_headers or {})
    _check_headers(failure_callback_headers, f"{location}.failure_callback_headers")
    now = time.time()
    not_before = now
    if item.delay is not None:
        not_before = now + item.delay
    elif item.not_before is not None:
        # timestamp() of an aware time cannot overflow, where converting it to UTC first could
        # (year 1 at +01:00 is in year 0 in UTC).
        requested = item.not_before.timestamp()
        horizon = context.spec.schedule_horizon_seconds
        if requested - now > horizon:
            raise invalid(
                f"{location}.not_before",
                f"must be at most {horizon} seconds from now, as far as delay goes",
            )
        # A time already past means "now"; keeping it would make the schedule lie.
        not_before = max(now, requested)

    flow_control = None
    if item.flow_control is not None:
        try:
            flow_control = flow_control_limits(item.flow_control)
        except FlowControlError as error:
            raise invalid(f"{location}.flow_control", str(error)) from None

    check(target)
    if item.retry_delay is not None:
        try:
            compile_retry_delay(item.retry_delay, max_retried=max(1, item.retries))
        except RetryDelayError as error:
            raise ProblemError(
                400, "invalid_retry_delay", f"{location}.retry_delay: {error}"
            ) from None

    if item.url is not None:
        urls = [item.url]
        group_name = None
    else:
        group = await context.store.get_url_group(target)
        urls = [endpoint.url for endpoint in group.endpoints]
        group_name = group.name
    await _check_destinations(context, (*urls, item.callback, item.failure_callback))

    body, content_type = _encode_body(item)
    window = context.settings.message_dedup_window_seconds
    redact_body = item.redact is not None and item.redact.body
    # Each name once, as first given: the reads match them in any letter case.
    first_given: dict[str, str] = {}
    for name in [] if item.redact is None else item.redact.headers or []:
        first_given.setdefault(name.root.lower(), name.root)
    redact_names = tuple(first_given.values())
    # Each label once, in the order first given.
    labels = tuple(dict.fromkeys(label.root for label in item.labels.root)) if item.labels else ()
    return [
        NewMessage(
            url=url,
            body=body,
            content_type=content_type,
            method=item.method.root,
            headers=headers,
            not_before=not_before,
            retries=item.retries,
            timeout=item.timeout,
            url_group=group_name,
            retry_delay=item.retry_delay,
            callback=item.callback,
            failure_callback=item.failure_callback,
            deduplication_id=item.deduplication_id,
            dedup_key=_dedup_key(
                item, url=url, body=body, content_type=content_type, headers=headers
            ),
            dedup_window=window,
            item=index,
            callback_headers=callback_headers,
            failure_callback_headers=failure_callback_headers,
            redact_body=redact_body,
            redact_headers=redact_names,
            flow_control=flow_control,
            signature_scheme="spool"
            if item.signature_scheme is None
            else item.signature_scheme.root,
            labels=labels,
        )
        for url in urls
    ]


def may_see_message(access: Access, message: MessageRecord | LogEventRecord) -> bool:
    """Whether the stated permission holds on the message's URL or its URL group (for an
    event, its message's).
    """
    names = [message.url] if message.url_group is None else [message.url, message.url_group]
    return any(access.covers(name) for name in names)


def check_message(access: Access, message: MessageRecord) -> None:
    """403 ``permission_denied`` unless the stated permission holds on the message's URL or its
    URL group.
    """
    if not may_see_message(access, message):
        raise access.refusal(f"{access.permission.resource} {message.message_id!r}")


async def publish_message(request: Request, access: Access) -> Response:
    """publishMessage: one message, or one per endpoint of a URL group."""
    await check_rate(request, access.principal)
    body, raw = await read_json(request, PublishMessageRequest)
    context = context_of(request)
    planned = await plan_message(
        context, access.check, body, "body", check_finite=may_hold_non_finite(raw)
    )
    async with Publishing(
        request, access.principal, operation="publishMessage", raw_body=raw, items=len(planned)
    ) as publishing:
        receipts = await context.store.publish_messages(
            planned, idempotency=publishing.claim, traceparent=publishing.traceparent
        )
    context.notify_message_scheduled()
    document = documents.message_receipt_list(receipts)
    return await publishing.answer(
        document, replayed=any(receipt.replayed for receipt in receipts), status=202
    )


async def publish_messages(request: Request, access: Access) -> Response:
    """publishMessages: several messages, all or none."""
    await check_rate(request, access.principal)
    body, raw = await read_json(request, PublishMessagesRequest)
    check_finite = may_hold_non_finite(raw)
    context = context_of(request)
    plans = [
        await plan_message(
            context,
            access.check,
            item,
            f"body.messages.{index}",
            index=index,
            check_finite=check_finite,
        )
        for index, item in enumerate(body.messages)
    ]
    flat = [message for plan in plans for message in plan]
    async with Publishing(
        request, access.principal, operation="publishMessages", raw_body=raw, items=len(flat)
    ) as publishing:
        receipts = await context.store.publish_messages(
            flat, idempotency=publishing.claim, traceparent=publishing.traceparent
        )
    context.notify_message_scheduled()
    document = documents.message_batch_result(len(body.messages), receipts)
    return await publishing.answer(
        document, replayed=any(receipt.replayed for receipt in receipts), status=202
    )


class _MessageIdSegment(StringConvertor):
    """A message id in /v1/messages/{message_id}: any segment but ``batch``. /v1/messages/batch
    only takes POST; its other methods must not reach the {message_id} operations, which would
    ask for a token and call "batch" an invalid id instead of answering 405.
    """

    regex = f"(?!{_BATCH_SEGMENT}$)[^/]+"


register_url_convertor("message_id", _MessageIdSegment())


class _DeadLetterIdSegment(StringConvertor):
    """A message id in /v1/dead-letters/{message_id}: any segment but those of the bulk
    operations, whose other methods must answer 405 rather than reach deleteDeadLetter.
    """

    regex = f"(?!(?:{'|'.join(_BULK_SEGMENTS)})$)[^/]+"


register_url_convertor("dead_letter_id", _DeadLetterIdSegment())


async def get_message(request: Request, access: Access) -> Response:
    """getMessage: state, schedule and attempts."""
    message = await context_of(request).store.get_message(access.names["message_id"])
    check_message(access, message)
    return json_response(documents.message(message))


async def list_messages(request: Request, access: Access) -> Response:
    """listMessages: a page of messages, newest first, those the token's permission covers."""
    where = query_message_filter(request, MessageState)
    limit = query_int(request, "limit", default=100, minimum=1, maximum=1000)
    cursor = query_cursor(request, message_cursor_position)
    page = await context_of(request).store.list_messages(where=where, limit=limit, cursor=cursor)
    visible = [message for message in page.messages if may_see_message(access, message)]
    return json_response(documents.message_list(visible, page.next_cursor))


async def list_logs(request: Request, access: Access) -> Response:
    """listLogs: a page of message events, newest first, those the token's permission covers."""
    where = query_message_filter(request, LogState)
    limit = query_int(request, "limit", default=100, minimum=1, maximum=1000)
    cursor = query_cursor(request, log_cursor_position)
    page = await context_of(request).store.list_logs(where=where, limit=limit, cursor=cursor)
    visible = [event for event in page.events if may_see_message(access, event)]
    return json_response(documents.log_list(visible, page.next_cursor))


async def cancel_message(request: Request, access: Access) -> Response:
    """cancelMessage: a scheduled message will not be delivered."""
    message_id = access.names["message_id"]
    store = context_of(request).store
    check_message(access, await store.get_message(message_id))
    cancelled = await store.cancel_message(message_id)
    return json_response(documents.message(cancelled))


async def list_url_groups(request: Request, access: Access) -> Response:
    """listUrlGroups: the groups the token's permission covers."""
    groups = await context_of(request).store.list_url_groups()
    visible = [group for group in groups if access.covers(group.name)]
    return json_response(documents.url_group_list(visible))


async def put_url_group(request: Request, access: Access) -> Response:
    """putUrlGroup: create a group or replace its endpoints."""
    name = access.names["url_group"]
    body, _ = await read_json(request, UrlGroupSettings)
    context = context_of(request)
    await _check_destinations(context, (endpoint.url for endpoint in body.endpoints))
    group = await context.store.put_url_group(
        name, [UrlEndpoint(url=endpoint.url, name=endpoint.name) for endpoint in body.endpoints]
    )
    return json_response(documents.url_group(group))


async def get_url_group(request: Request, access: Access) -> Response:
    """getUrlGroup: the group's endpoints."""
    name = access.names["url_group"]
    group = await context_of(request).store.get_url_group(name)
    return json_response(documents.url_group(group))


async def delete_url_group(request: Request, access: Access) -> Response:
    """deleteUrlGroup: publishing to it is a 404 afterwards."""
    name = access.names["url_group"]
    await context_of(request).store.delete_url_group(name)
    return Response(status_code=204)


async def list_dead_letters(request: Request, access: Access) -> Response:
    """listDeadLetters: messages whose retries ran out, those the token's permission covers."""
    limit = query_int(request, "limit", default=100, minimum=1, maximum=1000)
    page = await context_of(request).store.list_dead_letters(limit=limit)
    visible = [dead for dead in page.dead_letters if may_act_on(access, dead)]
    return json_response(documents.dead_letter_list(visible))


async def dead_letter_message(request: Request, access: Access) -> MessageRecord:
    """The message of the dead letter named in the path, if the token may see it (404
    ``dead_letter_not_found`` when there is no such message, 403 when the token may not).
    """
    message_id = access.names["message_id"]
    try:
        message = await context_of(request).store.get_message(message_id)
    except NotFoundError:
        raise ProblemError(
            404, "dead_letter_not_found", f"there is no dead letter {message_id!r}"
        ) from None
    check_message(access, message)
    return message


async def delete_dead_letter(request: Request, access: Access) -> Response:
    """deleteDeadLetter: forget it; the message stays readable."""
    message = await dead_letter_message(request, access)
    await context_of(request).store.delete_dead_letter(message.message_id)
    return Response(status_code=204)


async def retry_dead_letter(request: Request, access: Access) -> Response:
    """retryDeadLetter: schedule it again with fresh retries, and the headers of the body (which
    may be left out) set on it.
    """
    body = await read_optional_json(request, RetryDeadLetterRequest)
    headers = _retry_headers(None if body is None else body.headers)
    message = await dead_letter_message(request, access)
    context = context_of(request)
    retried = await context.store.retry_dead_letter(message.message_id, headers=headers)
    context.notify_message_scheduled()
    document = documents.message_receipt(retried.message_id, retried.url, deduplicated=False)
    return json_response(document, 202)


def _retry_headers(headers: ForwardedHeaders | None) -> dict[str, str]:
    """A retry's forwarded headers, by the rules of a publish's."""
    checked = {} if headers is None else dict(headers.root)
    _check_headers(checked, "body.headers")
    return checked


def _bulk_selection(
    body: RetryDeadLettersRequest | DeleteDeadLettersRequest,
) -> DeadLetterSelection:
    """What the body selects, once checked: exactly one of ``ids``, ``filter`` and ``all`` (which
    must be true), and ``cursor`` and ``limit`` only beside ``filter`` or ``all``.
    """
    given = [name for name in ("ids", "filter", "all") if getattr(body, name) is not None]
    if len(given) != 1:
        where = given[1] if len(given) > 1 else "ids"
        raise invalid(f"body.{where}", "give exactly one of ids, filter and all")
    if body.all is False:
        raise invalid("body.all", "must be true; to act on some dead letters give ids or filter")
    if body.ids is not None:
        for name in ("cursor", "limit"):
            if name in body.model_fields_set:
                raise invalid(f"body.{name}", "goes with filter or all, not with ids")
        return DeadLetterSelection(ids=[item.root for item in body.ids.root])
    cursor = None if body.cursor is None else body.cursor.root
    if cursor is not None:
        try:
            dead_letter_cursor_position(cursor)
        except StoreError as error:
            raise invalid("body.cursor", error.detail) from None
    return DeadLetterSelection(
        matching=dead_letter_filter(body.filter),
        limit=100 if body.limit is None else body.limit.root,
        cursor=cursor,
    )


def _bulk_answer(bulk: DeadLetterBulk) -> Response:
    return json_response(
        documents.dead_letter_bulk_result(bulk.acted, bulk.next_cursor, bulk.results)
    )


async def retry_dead_letters(request: Request, access: Access) -> Response:
    """retryDeadLetters: retry the named, matching or all dead letters, a bounded page a time."""
    body, _ = await read_json(request, RetryDeadLettersRequest)
    chosen = _bulk_selection(body)
    headers = _retry_headers(body.headers)
    context = context_of(request)
    bulk = await act_on_dead_letters(context.store, access, "retry", chosen, headers=headers)
    if bulk.acted:
        context.notify_message_scheduled()
    return _bulk_answer(bulk)


async def delete_dead_letters(request: Request, access: Access) -> Response:
    """deleteDeadLetters: forget the named, matching or all dead letters, a bounded page a time."""
    body, _ = await read_json(request, DeleteDeadLettersRequest)
    chosen = _bulk_selection(body)
    bulk = await act_on_dead_letters(context_of(request).store, access, "delete", chosen)
    return _bulk_answer(bulk)


async def get_signing_keys(request: Request, _access: Access) -> Response:
    """getSigningKeys: the current and next key."""
    return json_response(documents.signing_keys(context_of(request).settings.signing_keys))


routes = [
    operations("/v1/messages", POST=publish_message, GET=list_messages),
    operations(f"/v1/messages/{_BATCH_SEGMENT}", POST=publish_messages),
    operations("/v1/messages/{message_id:message_id}", GET=get_message),
    operations("/v1/messages/{message_id}/cancel", POST=cancel_message),
    operations("/v1/logs", GET=list_logs),
    operations("/v1/url-groups", GET=list_url_groups),
    operations(
        "/v1/url-groups/{url_group}", PUT=put_url_group, GET=get_url_group, DELETE=delete_url_group
    ),
    operations("/v1/dead-letters", GET=list_dead_letters),
    operations("/v1/dead-letters/retry", POST=retry_dead_letters),
    operations("/v1/dead-letters/delete", POST=delete_dead_letters),
    operations("/v1/dead-letters/{message_id:dead_letter_id}", DELETE=delete_dead_letter),
    operations("/v1/dead-letters/{message_id}/retry", POST=retry_dead_letter),
    operations("/v1/signing-keys", GET=get_signing_keys, purpose="to read the signing keys"),
]
