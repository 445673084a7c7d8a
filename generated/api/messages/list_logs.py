from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.log_event_list import LogEventList
from ...models.message_state import MessageState
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    message_id: str | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    destination: str | Unset = UNSET,
    url_group: str | Unset = UNSET,
    label: str | Unset = UNSET,
    schedule: str | Unset = UNSET,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["message_id"] = message_id

    json_state: str | Unset = UNSET
    if not isinstance(state, Unset):
        json_state = state

    params["state"] = json_state

    params["destination"] = destination

    params["url_group"] = url_group

    params["label"] = label

    params["schedule"] = schedule

    params["since"] = since

    params["until"] = until

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/logs",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> LogEventList | Problem | None:
    if response.status_code == 200:
        response_200 = LogEventList.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[LogEventList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    message_id: str | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    destination: str | Unset = UNSET,
    url_group: str | Unset = UNSET,
    label: str | Unset = UNSET,
    schedule: str | Unset = UNSET,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Response[LogEventList | Problem]:
    """List the events of messages' lives, newest first

     One event per change of a message's state, newest first, a page at a time: `created` (published, now
    `scheduled`), `retry` (an attempt failed and another is scheduled), `delivered` (an attempt
    succeeded), `failed` (the last attempt failed), `dead_letter` (filed as a dead letter, right after
    `failed`), `scheduled` (a dead letter retried, scheduled again with fresh retries) and `cancelled`.
    A message's `delivering` claims make no events. Attempt events (`retry`, `delivered`, `failed`)
    carry the attempt number and its status code or error. Events never carry a message's body or
    headers, so nothing `redact` hides shows here. Events are kept for the service's
    `logs.retention_seconds` (7 days unless configured) and then pruned. The filters are those of
    `listMessages` (`message_id` may name several messages, `since` and `until` bound the event's time);
    a query parameter this operation does not take is `400 malformed_request`. Only events of messages
    whose URL (or URL group) the token has `consume` on are listed, so a page may hold fewer than
    `limit` events (even none) while `next_cursor` is not null: go on until it is. Needs `consume` on
    messages.

    Args:
        message_id (str | Unset):
        state (MessageState | Unset):
        destination (str | Unset):
        url_group (str | Unset): A stream, queue or URL group name.
        label (str | Unset): A label of a message, to find it and its events by. Names follow the
            rules of topics, without wildcards.
        schedule (str | Unset): A stream, queue or URL group name.
        since (str | Unset): An RFC 3339 date-time with its offset, such as
            `2026-11-29T12:00:00Z`, as a query parameter.
        until (str | Unset): An RFC 3339 date-time with its offset, such as
            `2026-11-29T12:00:00Z`, as a query parameter.
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[LogEventList | Problem]
    """

    kwargs = _get_kwargs(
        message_id=message_id,
        state=state,
        destination=destination,
        url_group=url_group,
        label=label,
        schedule=schedule,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    message_id: str | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    destination: str | Unset = UNSET,
    url_group: str | Unset = UNSET,
    label: str | Unset = UNSET,
    schedule: str | Unset = UNSET,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> LogEventList | Problem | None:
    """List the events of messages' lives, newest first

     One event per change of a message's state, newest first, a page at a time: `created` (published, now
    `scheduled`), `retry` (an attempt failed and another is scheduled), `delivered` (an attempt
    succeeded), `failed` (the last attempt failed), `dead_letter` (filed as a dead letter, right after
    `failed`), `scheduled` (a dead letter retried, scheduled again with fresh retries) and `cancelled`.
    A message's `delivering` claims make no events. Attempt events (`retry`, `delivered`, `failed`)
    carry the attempt number and its status code or error. Events never carry a message's body or
    headers, so nothing `redact` hides shows here. Events are kept for the service's
    `logs.retention_seconds` (7 days unless configured) and then pruned. The filters are those of
    `listMessages` (`message_id` may name several messages, `since` and `until` bound the event's time);
    a query parameter this operation does not take is `400 malformed_request`. Only events of messages
    whose URL (or URL group) the token has `consume` on are listed, so a page may hold fewer than
    `limit` events (even none) while `next_cursor` is not null: go on until it is. Needs `consume` on
    messages.

    Args:
        message_id (str | Unset):
        state (MessageState | Unset):
        destination (str | Unset):
        url_group (str | Unset): A stream, queue or URL group name.
        label (str | Unset): A label of a message, to find it and its events by. Names follow the
            rules of topics, without wildcards.
        schedule (str | Unset): A stream, queue or URL group name.
        since (str | Unset): An RFC 3339 date-time with its offset, such as
            `2026-11-29T12:00:00Z`, as a query parameter.
        until (str | Unset): An RFC 3339 date-time with its offset, such as
            `2026-11-29T12:00:00Z`, as a query parameter.
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        LogEventList | Problem
    """

    return sync_detailed(
        client=client,
        message_id=message_id,
        state=state,
        destination=destination,
        url_group=url_group,
        label=label,
        schedule=schedule,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    message_id: str | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    destination: str | Unset = UNSET,
    url_group: str | Unset = UNSET,
    label: str | Unset = UNSET,
    schedule: str | Unset = UNSET,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Response[LogEventList | Problem]:
    """List the events of messages' lives, newest first

     One event per change of a message's state, newest first, a page at a time: `created` (published, now
    `scheduled`), `retry` (an attempt failed and another is scheduled), `delivered` (an attempt
    succeeded), `failed` (the last attempt failed), `dead_letter` (filed as a dead letter, right after
    `failed`), `scheduled` (a dead letter retried, scheduled again with fresh retries) and `cancelled`.
    A message's `delivering` claims make no events. Attempt events (`retry`, `delivered`, `failed`)
    carry the attempt number and its status code or error. Events never carry a message's body or
    headers, so nothing `redact` hides shows here. Events are kept for the service's
    `logs.retention_seconds` (7 days unless configured) and then pruned. The filters are those of
    `listMessages` (`message_id` may name several messages, `since` and `until` bound the event's time);
    a query parameter this operation does not take is `400 malformed_request`. Only events of messages
    whose URL (or URL group) the token has `consume` on are listed, so a page may hold fewer than
    `limit` events (even none) while `next_cursor` is not null: go on until it is. Needs `consume` on
    messages.

    Args:
        message_id (str | Unset):
        state (MessageState | Unset):
        destination (str | Unset):
        url_group (str | Unset): A stream, queue or URL group name.
        label (str | Unset): A label of a message, to find it and its events by. Names follow the
            rules of topics, without wildcards.
        schedule (str | Unset): A stream, queue or URL group name.
        since (str | Unset): An RFC 3339 date-time with its offset, such as
            `2026-11-29T12:00:00Z`, as a query parameter.
        until (str | Unset): An RFC 3339 date-time with its offset, such as
            `2026-11-29T12:00:00Z`, as a query parameter.
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[LogEventList | Problem]
    """

    kwargs = _get_kwargs(
        message_id=message_id,
        state=state,
        destination=destination,
        url_group=url_group,
        label=label,
        schedule=schedule,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    message_id: str | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    destination: str | Unset = UNSET,
    url_group: str | Unset = UNSET,
    label: str | Unset = UNSET,
    schedule: str | Unset = UNSET,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> LogEventList | Problem | None:
    """List the events of messages' lives, newest first

     One event per change of a message's state, newest first, a page at a time: `created` (published, now
    `scheduled`), `retry` (an attempt failed and another is scheduled), `delivered` (an attempt
    succeeded), `failed` (the last attempt failed), `dead_letter` (filed as a dead letter, right after
    `failed`), `scheduled` (a dead letter retried, scheduled again with fresh retries) and `cancelled`.
    A message's `delivering` claims make no events. Attempt events (`retry`, `delivered`, `failed`)
    carry the attempt number and its status code or error. Events never carry a message's body or
    headers, so nothing `redact` hides shows here. Events are kept for the service's
    `logs.retention_seconds` (7 days unless configured) and then pruned. The filters are those of
    `listMessages` (`message_id` may name several messages, `since` and `until` bound the event's time);
    a query parameter this operation does not take is `400 malformed_request`. Only events of messages
    whose URL (or URL group) the token has `consume` on are listed, so a page may hold fewer than
    `limit` events (even none) while `next_cursor` is not null: go on until it is. Needs `consume` on
    messages.

    Args:
        message_id (str | Unset):
        state (MessageState | Unset):
        destination (str | Unset):
        url_group (str | Unset): A stream, queue or URL group name.
        label (str | Unset): A label of a message, to find it and its events by. Names follow the
            rules of topics, without wildcards.
        schedule (str | Unset): A stream, queue or URL group name.
        since (str | Unset): An RFC 3339 date-time with its offset, such as
            `2026-11-29T12:00:00Z`, as a query parameter.
        until (str | Unset): An RFC 3339 date-time with its offset, such as
            `2026-11-29T12:00:00Z`, as a query parameter.
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        LogEventList | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            message_id=message_id,
            state=state,
            destination=destination,
            url_group=url_group,
            label=label,
            schedule=schedule,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
