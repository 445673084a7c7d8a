from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.pending_list import PendingList
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    stream: str,
    group: str,
    *,
    count: int | Unset = 100,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["count"] = count

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/streams/{stream}/groups/{group}/pending".format(
            stream=quote(str(stream), safe=""),
            group=quote(str(group), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> PendingList | Problem | None:
    if response.status_code == 200:
        response_200 = PendingList.from_dict(response.json())

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

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

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
) -> Response[PendingList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    stream: str,
    group: str,
    *,
    client: AuthenticatedClient | Client,
    count: int | Unset = 100,
) -> Response[PendingList | Problem]:
    """List a group's pending entries

     Who holds each pending entry, for how long, and how many times it was delivered. Needs `consume` on
    the stream.

    Args:
        stream (str): A stream, queue or URL group name.
        group (str): A consumer group or consumer name.
        count (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PendingList | Problem]
    """

    kwargs = _get_kwargs(
        stream=stream,
        group=group,
        count=count,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    stream: str,
    group: str,
    *,
    client: AuthenticatedClient | Client,
    count: int | Unset = 100,
) -> PendingList | Problem | None:
    """List a group's pending entries

     Who holds each pending entry, for how long, and how many times it was delivered. Needs `consume` on
    the stream.

    Args:
        stream (str): A stream, queue or URL group name.
        group (str): A consumer group or consumer name.
        count (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PendingList | Problem
    """

    return sync_detailed(
        stream=stream,
        group=group,
        client=client,
        count=count,
    ).parsed


async def asyncio_detailed(
    stream: str,
    group: str,
    *,
    client: AuthenticatedClient | Client,
    count: int | Unset = 100,
) -> Response[PendingList | Problem]:
    """List a group's pending entries

     Who holds each pending entry, for how long, and how many times it was delivered. Needs `consume` on
    the stream.

    Args:
        stream (str): A stream, queue or URL group name.
        group (str): A consumer group or consumer name.
        count (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[PendingList | Problem]
    """

    kwargs = _get_kwargs(
        stream=stream,
        group=group,
        count=count,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    stream: str,
    group: str,
    *,
    client: AuthenticatedClient | Client,
    count: int | Unset = 100,
) -> PendingList | Problem | None:
    """List a group's pending entries

     Who holds each pending entry, for how long, and how many times it was delivered. Needs `consume` on
    the stream.

    Args:
        stream (str): A stream, queue or URL group name.
        group (str): A consumer group or consumer name.
        count (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        PendingList | Problem
    """

    return (
        await asyncio_detailed(
            stream=stream,
            group=group,
            client=client,
            count=count,
        )
    ).parsed
