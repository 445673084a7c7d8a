from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.flow_control_state import FlowControlState
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    key: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/flow-control/{key}".format(
            key=quote(str(key), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> FlowControlState | Problem | None:
    if response.status_code == 200:
        response_200 = FlowControlState.from_dict(response.json())

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
) -> Response[FlowControlState | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    key: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[FlowControlState | Problem]:
    """Show a flow control key's state

     The key's limits (from the latest publish that named it), whether it is paused, how many of its
    messages wait, how many are in flight (attempts under a live lease) and how many attempts started in
    the last `period`. A key nothing was published with reads as idle, with no limits. Needs `consume`
    on every message (named exactly `*`).

    Args:
        key (str): A flow control key, by the rules of URL group names.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FlowControlState | Problem]
    """

    kwargs = _get_kwargs(
        key=key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    key: str,
    *,
    client: AuthenticatedClient | Client,
) -> FlowControlState | Problem | None:
    """Show a flow control key's state

     The key's limits (from the latest publish that named it), whether it is paused, how many of its
    messages wait, how many are in flight (attempts under a live lease) and how many attempts started in
    the last `period`. A key nothing was published with reads as idle, with no limits. Needs `consume`
    on every message (named exactly `*`).

    Args:
        key (str): A flow control key, by the rules of URL group names.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FlowControlState | Problem
    """

    return sync_detailed(
        key=key,
        client=client,
    ).parsed


async def asyncio_detailed(
    key: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[FlowControlState | Problem]:
    """Show a flow control key's state

     The key's limits (from the latest publish that named it), whether it is paused, how many of its
    messages wait, how many are in flight (attempts under a live lease) and how many attempts started in
    the last `period`. A key nothing was published with reads as idle, with no limits. Needs `consume`
    on every message (named exactly `*`).

    Args:
        key (str): A flow control key, by the rules of URL group names.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FlowControlState | Problem]
    """

    kwargs = _get_kwargs(
        key=key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    key: str,
    *,
    client: AuthenticatedClient | Client,
) -> FlowControlState | Problem | None:
    """Show a flow control key's state

     The key's limits (from the latest publish that named it), whether it is paused, how many of its
    messages wait, how many are in flight (attempts under a live lease) and how many attempts started in
    the last `period`. A key nothing was published with reads as idle, with no limits. Needs `consume`
    on every message (named exactly `*`).

    Args:
        key (str): A flow control key, by the rules of URL group names.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FlowControlState | Problem
    """

    return (
        await asyncio_detailed(
            key=key,
            client=client,
        )
    ).parsed
