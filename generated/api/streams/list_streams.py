from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.stream_list import StreamList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    prefix: str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["prefix"] = prefix

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/streams",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | StreamList | None:
    if response.status_code == 200:
        response_200 = StreamList.from_dict(response.json())

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
) -> Response[Problem | StreamList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    prefix: str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Response[Problem | StreamList]:
    """List streams

     Streams by name, each with its length, first and last ids and how many consumer groups it has, a
    page at a time. Only streams whose names the token has any permission on are listed, so a page may
    hold fewer than `limit` streams (even none) while `next_cursor` is not null: go on until it is.
    Needs some permission on streams (403 without any).

    Args:
        prefix (str | Unset): The start of stream names.
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StreamList]
    """

    kwargs = _get_kwargs(
        prefix=prefix,
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
    prefix: str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Problem | StreamList | None:
    """List streams

     Streams by name, each with its length, first and last ids and how many consumer groups it has, a
    page at a time. Only streams whose names the token has any permission on are listed, so a page may
    hold fewer than `limit` streams (even none) while `next_cursor` is not null: go on until it is.
    Needs some permission on streams (403 without any).

    Args:
        prefix (str | Unset): The start of stream names.
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StreamList
    """

    return sync_detailed(
        client=client,
        prefix=prefix,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    prefix: str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Response[Problem | StreamList]:
    """List streams

     Streams by name, each with its length, first and last ids and how many consumer groups it has, a
    page at a time. Only streams whose names the token has any permission on are listed, so a page may
    hold fewer than `limit` streams (even none) while `next_cursor` is not null: go on until it is.
    Needs some permission on streams (403 without any).

    Args:
        prefix (str | Unset): The start of stream names.
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StreamList]
    """

    kwargs = _get_kwargs(
        prefix=prefix,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    prefix: str | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Problem | StreamList | None:
    """List streams

     Streams by name, each with its length, first and last ids and how many consumer groups it has, a
    page at a time. Only streams whose names the token has any permission on are listed, so a page may
    hold fewer than `limit` streams (even none) while `next_cursor` is not null: go on until it is.
    Needs some permission on streams (403 without any).

    Args:
        prefix (str | Unset): The start of stream names.
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StreamList
    """

    return (
        await asyncio_detailed(
            client=client,
            prefix=prefix,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
