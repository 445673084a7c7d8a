from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.entry_list import EntryList
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    stream: str,
    *,
    start: str | Unset = UNSET,
    end: str | Unset = UNSET,
    count: int | Unset = 100,
    reverse: bool | Unset = False,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["start"] = start

    params["end"] = end

    params["count"] = count

    params["reverse"] = reverse

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/streams/{stream}/entries".format(
            stream=quote(str(stream), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> EntryList | Problem | None:
    if response.status_code == 200:
        response_200 = EntryList.from_dict(response.json())

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
) -> Response[EntryList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
    start: str | Unset = UNSET,
    end: str | Unset = UNSET,
    count: int | Unset = 100,
    reverse: bool | Unset = False,
) -> Response[EntryList | Problem]:
    """Read entries between two ids

     Reads entries without a consumer group and without changing any state. Needs `consume` on the
    stream.

    Args:
        stream (str): A stream, queue or URL group name.
        start (str | Unset): An entry id, its milliseconds part (see EntryId), or `-` / `+` for
            the first / last entry.
        end (str | Unset): An entry id, its milliseconds part (see EntryId), or `-` / `+` for the
            first / last entry.
        count (int | Unset):  Default: 100.
        reverse (bool | Unset):  Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EntryList | Problem]
    """

    kwargs = _get_kwargs(
        stream=stream,
        start=start,
        end=end,
        count=count,
        reverse=reverse,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
    start: str | Unset = UNSET,
    end: str | Unset = UNSET,
    count: int | Unset = 100,
    reverse: bool | Unset = False,
) -> EntryList | Problem | None:
    """Read entries between two ids

     Reads entries without a consumer group and without changing any state. Needs `consume` on the
    stream.

    Args:
        stream (str): A stream, queue or URL group name.
        start (str | Unset): An entry id, its milliseconds part (see EntryId), or `-` / `+` for
            the first / last entry.
        end (str | Unset): An entry id, its milliseconds part (see EntryId), or `-` / `+` for the
            first / last entry.
        count (int | Unset):  Default: 100.
        reverse (bool | Unset):  Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EntryList | Problem
    """

    return sync_detailed(
        stream=stream,
        client=client,
        start=start,
        end=end,
        count=count,
        reverse=reverse,
    ).parsed


async def asyncio_detailed(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
    start: str | Unset = UNSET,
    end: str | Unset = UNSET,
    count: int | Unset = 100,
    reverse: bool | Unset = False,
) -> Response[EntryList | Problem]:
    """Read entries between two ids

     Reads entries without a consumer group and without changing any state. Needs `consume` on the
    stream.

    Args:
        stream (str): A stream, queue or URL group name.
        start (str | Unset): An entry id, its milliseconds part (see EntryId), or `-` / `+` for
            the first / last entry.
        end (str | Unset): An entry id, its milliseconds part (see EntryId), or `-` / `+` for the
            first / last entry.
        count (int | Unset):  Default: 100.
        reverse (bool | Unset):  Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EntryList | Problem]
    """

    kwargs = _get_kwargs(
        stream=stream,
        start=start,
        end=end,
        count=count,
        reverse=reverse,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
    start: str | Unset = UNSET,
    end: str | Unset = UNSET,
    count: int | Unset = 100,
    reverse: bool | Unset = False,
) -> EntryList | Problem | None:
    """Read entries between two ids

     Reads entries without a consumer group and without changing any state. Needs `consume` on the
    stream.

    Args:
        stream (str): A stream, queue or URL group name.
        start (str | Unset): An entry id, its milliseconds part (see EntryId), or `-` / `+` for
            the first / last entry.
        end (str | Unset): An entry id, its milliseconds part (see EntryId), or `-` / `+` for the
            first / last entry.
        count (int | Unset):  Default: 100.
        reverse (bool | Unset):  Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EntryList | Problem
    """

    return (
        await asyncio_detailed(
            stream=stream,
            client=client,
            start=start,
            end=end,
            count=count,
            reverse=reverse,
        )
    ).parsed
