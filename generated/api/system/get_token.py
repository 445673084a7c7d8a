from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.token_info import TokenInfo
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/token",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | TokenInfo | None:
    if response.status_code == 200:
        response_200 = TokenInfo.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | TokenInfo]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | TokenInfo]:
    """Show the token that makes the request

     The token's id (never its secret), its permissions as configured, its quota and rate limit, and
    whether it is the development mode token. Any token may read itself, whatever its permissions; a
    token the service does not know is `401 unauthenticated`, so a client can check its key at startup
    (getHealth needs none).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TokenInfo]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> Problem | TokenInfo | None:
    """Show the token that makes the request

     The token's id (never its secret), its permissions as configured, its quota and rate limit, and
    whether it is the development mode token. Any token may read itself, whatever its permissions; a
    token the service does not know is `401 unauthenticated`, so a client can check its key at startup
    (getHealth needs none).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TokenInfo
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | TokenInfo]:
    """Show the token that makes the request

     The token's id (never its secret), its permissions as configured, its quota and rate limit, and
    whether it is the development mode token. Any token may read itself, whatever its permissions; a
    token the service does not know is `401 unauthenticated`, so a client can check its key at startup
    (getHealth needs none).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TokenInfo]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> Problem | TokenInfo | None:
    """Show the token that makes the request

     The token's id (never its secret), its permissions as configured, its quota and rate limit, and
    whether it is the development mode token. Any token may read itself, whatever its permissions; a
    token the service does not know is `401 unauthenticated`, so a client can check its key at startup
    (getHealth needs none).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TokenInfo
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
