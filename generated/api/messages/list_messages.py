import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.message_list import MessageList
from ...models.message_state import MessageState
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    message_id: list[str] | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    url_query: str | Unset = UNSET,
    url_group: str | Unset = UNSET,
    label: str | Unset = UNSET,
    schedule: str | Unset = UNSET,
    flow_control_key: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_message_id: list[str] | Unset = UNSET
    if not isinstance(message_id, Unset):
        json_message_id = message_id

    params["message_id"] = json_message_id

    json_state: str | Unset = UNSET
    if not isinstance(state, Unset):
        json_state = state

    params["state"] = json_state

    params["url"] = url_query

    params["url_group"] = url_group

    params["label"] = label

    params["schedule"] = schedule

    params["flow_control_key"] = flow_control_key

    json_since: str | Unset = UNSET
    if not isinstance(since, Unset):
        json_since = since.isoformat()
    params["since"] = json_since

    json_until: str | Unset = UNSET
    if not isinstance(until, Unset):
        json_until = until.isoformat()
    params["until"] = json_until

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/messages",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MessageList | Problem | None:
    if response.status_code == 200:
        response_200 = MessageList.from_dict(response.json())

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
) -> Response[MessageList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    message_id: list[str] | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    url_query: str | Unset = UNSET,
    url_group: str | Unset = UNSET,
    label: str | Unset = UNSET,
    schedule: str | Unset = UNSET,
    flow_control_key: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Response[MessageList | Problem]:
    """List recent messages

     Messages newest first, each as `getMessage` shows it, a page at a time, optionally only those that
    pass every filter given: their ids, state, URL, URL group, label, schedule, flow control key and
    when they were published (`since`, `until`). `GET /v1/logs` takes the same filters. A query
    parameter that is none of these is `400 malformed_request`, never ignored. Only messages whose URL
    (or URL group) the token has `consume` on are listed, so a page may hold fewer than `limit` messages
    (even none) while `next_cursor` is not null: go on until it is. Needs `consume` on messages.

    Args:
        message_id (list[str] | Unset):
        state (MessageState | Unset):
        url_query (str | Unset):
        url_group (str | Unset): A stream, queue or URL group name.
        label (str | Unset): A message label.
        schedule (str | Unset): A stream, queue or URL group name.
        flow_control_key (str | Unset): A flow control key, by the rules of URL group names.
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessageList | Problem]
    """

    kwargs = _get_kwargs(
        message_id=message_id,
        state=state,
        url_query=url_query,
        url_group=url_group,
        label=label,
        schedule=schedule,
        flow_control_key=flow_control_key,
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
    message_id: list[str] | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    url_query: str | Unset = UNSET,
    url_group: str | Unset = UNSET,
    label: str | Unset = UNSET,
    schedule: str | Unset = UNSET,
    flow_control_key: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> MessageList | Problem | None:
    """List recent messages

     Messages newest first, each as `getMessage` shows it, a page at a time, optionally only those that
    pass every filter given: their ids, state, URL, URL group, label, schedule, flow control key and
    when they were published (`since`, `until`). `GET /v1/logs` takes the same filters. A query
    parameter that is none of these is `400 malformed_request`, never ignored. Only messages whose URL
    (or URL group) the token has `consume` on are listed, so a page may hold fewer than `limit` messages
    (even none) while `next_cursor` is not null: go on until it is. Needs `consume` on messages.

    Args:
        message_id (list[str] | Unset):
        state (MessageState | Unset):
        url_query (str | Unset):
        url_group (str | Unset): A stream, queue or URL group name.
        label (str | Unset): A message label.
        schedule (str | Unset): A stream, queue or URL group name.
        flow_control_key (str | Unset): A flow control key, by the rules of URL group names.
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessageList | Problem
    """

    return sync_detailed(
        client=client,
        message_id=message_id,
        state=state,
        url_query=url_query,
        url_group=url_group,
        label=label,
        schedule=schedule,
        flow_control_key=flow_control_key,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    message_id: list[str] | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    url_query: str | Unset = UNSET,
    url_group: str | Unset = UNSET,
    label: str | Unset = UNSET,
    schedule: str | Unset = UNSET,
    flow_control_key: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Response[MessageList | Problem]:
    """List recent messages

     Messages newest first, each as `getMessage` shows it, a page at a time, optionally only those that
    pass every filter given: their ids, state, URL, URL group, label, schedule, flow control key and
    when they were published (`since`, `until`). `GET /v1/logs` takes the same filters. A query
    parameter that is none of these is `400 malformed_request`, never ignored. Only messages whose URL
    (or URL group) the token has `consume` on are listed, so a page may hold fewer than `limit` messages
    (even none) while `next_cursor` is not null: go on until it is. Needs `consume` on messages.

    Args:
        message_id (list[str] | Unset):
        state (MessageState | Unset):
        url_query (str | Unset):
        url_group (str | Unset): A stream, queue or URL group name.
        label (str | Unset): A message label.
        schedule (str | Unset): A stream, queue or URL group name.
        flow_control_key (str | Unset): A flow control key, by the rules of URL group names.
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessageList | Problem]
    """

    kwargs = _get_kwargs(
        message_id=message_id,
        state=state,
        url_query=url_query,
        url_group=url_group,
        label=label,
        schedule=schedule,
        flow_control_key=flow_control_key,
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
    message_id: list[str] | Unset = UNSET,
    state: MessageState | Unset = UNSET,
    url_query: str | Unset = UNSET,
    url_group: str | Unset = UNSET,
    label: str | Unset = UNSET,
    schedule: str | Unset = UNSET,
    flow_control_key: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> MessageList | Problem | None:
    """List recent messages

     Messages newest first, each as `getMessage` shows it, a page at a time, optionally only those that
    pass every filter given: their ids, state, URL, URL group, label, schedule, flow control key and
    when they were published (`since`, `until`). `GET /v1/logs` takes the same filters. A query
    parameter that is none of these is `400 malformed_request`, never ignored. Only messages whose URL
    (or URL group) the token has `consume` on are listed, so a page may hold fewer than `limit` messages
    (even none) while `next_cursor` is not null: go on until it is. Needs `consume` on messages.

    Args:
        message_id (list[str] | Unset):
        state (MessageState | Unset):
        url_query (str | Unset):
        url_group (str | Unset): A stream, queue or URL group name.
        label (str | Unset): A message label.
        schedule (str | Unset): A stream, queue or URL group name.
        flow_control_key (str | Unset): A flow control key, by the rules of URL group names.
        since (datetime.datetime | Unset):
        until (datetime.datetime | Unset):
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessageList | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            message_id=message_id,
            state=state,
            url_query=url_query,
            url_group=url_group,
            label=label,
            schedule=schedule,
            flow_control_key=flow_control_key,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
