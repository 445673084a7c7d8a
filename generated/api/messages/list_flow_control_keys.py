from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.flow_control_list import FlowControlList
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/flow-control",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> FlowControlList | Problem | None:
    if response.status_code == 200:
        response_200 = FlowControlList.from_dict(response.json())

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
) -> Response[FlowControlList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Response[FlowControlList | Problem]:
    """List flow control keys

     Every flow control key that a message was published with or that was paused, by name, a page at a
    time, each with its state as getFlowControl shows it. A key spans destinations, so no URL glob
    covers it. Needs `consume` on every message (named exactly `*`), or on every kind (resource `*`)
    named `*`.

    Args:
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FlowControlList | Problem]
    """

    kwargs = _get_kwargs(
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
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> FlowControlList | Problem | None:
    """List flow control keys

     Every flow control key that a message was published with or that was paused, by name, a page at a
    time, each with its state as getFlowControl shows it. A key spans destinations, so no URL glob
    covers it. Needs `consume` on every message (named exactly `*`), or on every kind (resource `*`)
    named `*`.

    Args:
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FlowControlList | Problem
    """

    return sync_detailed(
        client=client,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Response[FlowControlList | Problem]:
    """List flow control keys

     Every flow control key that a message was published with or that was paused, by name, a page at a
    time, each with its state as getFlowControl shows it. A key spans destinations, so no URL glob
    covers it. Needs `consume` on every message (named exactly `*`), or on every kind (resource `*`)
    named `*`.

    Args:
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[FlowControlList | Problem]
    """

    kwargs = _get_kwargs(
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> FlowControlList | Problem | None:
    """List flow control keys

     Every flow control key that a message was published with or that was paused, by name, a page at a
    time, each with its state as getFlowControl shows it. A key spans destinations, so no URL glob
    covers it. Needs `consume` on every message (named exactly `*`), or on every kind (resource `*`)
    named `*`.

    Args:
        limit (int | Unset):  Default: 100.
        cursor (str | Unset): A position in a listing, opaque to clients.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        FlowControlList | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
