from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.url_group import UrlGroup
from ...models.url_group_settings import UrlGroupSettings
from ...types import Response


def _get_kwargs(
    url_group: str,
    *,
    body: UrlGroupSettings,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/url-groups/{url_group}".format(
            url_group=quote(str(url_group), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | UrlGroup | None:
    if response.status_code == 200:
        response_200 = UrlGroup.from_dict(response.json())

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
) -> Response[Problem | UrlGroup]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    url_group: str,
    *,
    client: AuthenticatedClient | Client,
    body: UrlGroupSettings,
) -> Response[Problem | UrlGroup]:
    """Create a URL group or replace its endpoints

     Replaces the group's endpoints; messages already published keep their URLs. Needs `admin` on the URL
    group.

    Args:
        url_group (str): A stream, queue or URL group name.
        body (UrlGroupSettings):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UrlGroup]
    """

    kwargs = _get_kwargs(
        url_group=url_group,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    url_group: str,
    *,
    client: AuthenticatedClient | Client,
    body: UrlGroupSettings,
) -> Problem | UrlGroup | None:
    """Create a URL group or replace its endpoints

     Replaces the group's endpoints; messages already published keep their URLs. Needs `admin` on the URL
    group.

    Args:
        url_group (str): A stream, queue or URL group name.
        body (UrlGroupSettings):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UrlGroup
    """

    return sync_detailed(
        url_group=url_group,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    url_group: str,
    *,
    client: AuthenticatedClient | Client,
    body: UrlGroupSettings,
) -> Response[Problem | UrlGroup]:
    """Create a URL group or replace its endpoints

     Replaces the group's endpoints; messages already published keep their URLs. Needs `admin` on the URL
    group.

    Args:
        url_group (str): A stream, queue or URL group name.
        body (UrlGroupSettings):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UrlGroup]
    """

    kwargs = _get_kwargs(
        url_group=url_group,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    url_group: str,
    *,
    client: AuthenticatedClient | Client,
    body: UrlGroupSettings,
) -> Problem | UrlGroup | None:
    """Create a URL group or replace its endpoints

     Replaces the group's endpoints; messages already published keep their URLs. Needs `admin` on the URL
    group.

    Args:
        url_group (str): A stream, queue or URL group name.
        body (UrlGroupSettings):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UrlGroup
    """

    return (
        await asyncio_detailed(
            url_group=url_group,
            client=client,
            body=body,
        )
    ).parsed
