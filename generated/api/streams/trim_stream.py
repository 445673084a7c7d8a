from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.trim_request import TrimRequest
from ...models.trim_result import TrimResult
from ...types import Response


def _get_kwargs(
    stream: str,
    *,
    body: TrimRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/streams/{stream}/trim".format(
            stream=quote(str(stream), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | TrimResult | None:
    if response.status_code == 200:
        response_200 = TrimResult.from_dict(response.json())

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

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

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
) -> Response[Problem | TrimResult]:
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
    body: TrimRequest,
) -> Response[Problem | TrimResult]:
    """Trim a stream by length or by minimum id

     Trims by `maxlen` (keep the newest entries) or `minid` (drop ids below it). Needs `admin` on the
    stream.

    Args:
        stream (str): A stream, queue or URL group name.
        body (TrimRequest): Give exactly one of `maxlen` and `minid`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TrimResult]
    """

    kwargs = _get_kwargs(
        stream=stream,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
    body: TrimRequest,
) -> Problem | TrimResult | None:
    """Trim a stream by length or by minimum id

     Trims by `maxlen` (keep the newest entries) or `minid` (drop ids below it). Needs `admin` on the
    stream.

    Args:
        stream (str): A stream, queue or URL group name.
        body (TrimRequest): Give exactly one of `maxlen` and `minid`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TrimResult
    """

    return sync_detailed(
        stream=stream,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
    body: TrimRequest,
) -> Response[Problem | TrimResult]:
    """Trim a stream by length or by minimum id

     Trims by `maxlen` (keep the newest entries) or `minid` (drop ids below it). Needs `admin` on the
    stream.

    Args:
        stream (str): A stream, queue or URL group name.
        body (TrimRequest): Give exactly one of `maxlen` and `minid`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TrimResult]
    """

    kwargs = _get_kwargs(
        stream=stream,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
    body: TrimRequest,
) -> Problem | TrimResult | None:
    """Trim a stream by length or by minimum id

     Trims by `maxlen` (keep the newest entries) or `minid` (drop ids below it). Needs `admin` on the
    stream.

    Args:
        stream (str): A stream, queue or URL group name.
        body (TrimRequest): Give exactly one of `maxlen` and `minid`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TrimResult
    """

    return (
        await asyncio_detailed(
            stream=stream,
            client=client,
            body=body,
        )
    ).parsed
