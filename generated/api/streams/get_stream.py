from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.stream_info import StreamInfo
from ...types import Response


def _get_kwargs(
    stream: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/streams/{stream}".format(
            stream=quote(str(stream), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | StreamInfo | None:
    if response.status_code == 200:
        response_200 = StreamInfo.from_dict(response.json())

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
) -> Response[Problem | StreamInfo]:
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
) -> Response[Problem | StreamInfo]:
    """Describe a stream, its ends and its consumer groups

     Length, first and last ids, and each consumer group with its pending count. Needs `consume` on the
    stream.

    Args:
        stream (str): A stream, queue or URL group name.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StreamInfo]
    """

    kwargs = _get_kwargs(
        stream=stream,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
) -> Problem | StreamInfo | None:
    """Describe a stream, its ends and its consumer groups

     Length, first and last ids, and each consumer group with its pending count. Needs `consume` on the
    stream.

    Args:
        stream (str): A stream, queue or URL group name.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StreamInfo
    """

    return sync_detailed(
        stream=stream,
        client=client,
    ).parsed


async def asyncio_detailed(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | StreamInfo]:
    """Describe a stream, its ends and its consumer groups

     Length, first and last ids, and each consumer group with its pending count. Needs `consume` on the
    stream.

    Args:
        stream (str): A stream, queue or URL group name.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | StreamInfo]
    """

    kwargs = _get_kwargs(
        stream=stream,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
) -> Problem | StreamInfo | None:
    """Describe a stream, its ends and its consumer groups

     Length, first and last ids, and each consumer group with its pending count. Needs `consume` on the
    stream.

    Args:
        stream (str): A stream, queue or URL group name.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | StreamInfo
    """

    return (
        await asyncio_detailed(
            stream=stream,
            client=client,
        )
    ).parsed
