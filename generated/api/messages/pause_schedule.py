from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.schedule import Schedule
from ...types import Response


def _get_kwargs(
    schedule: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/schedules/{schedule}/pause".format(
            schedule=quote(str(schedule), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | Schedule | None:
    if response.status_code == 200:
        response_200 = Schedule.from_dict(response.json())

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
) -> Response[Problem | Schedule]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    schedule: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | Schedule]:
    """Stop a cron schedule from firing until it is resumed

     A paused schedule makes no runs, and its `next_run_at` is null; pausing a paused schedule changes
    nothing. A tick that had already begun firing finishes. Needs `admin` on the schedule.

    Args:
        schedule (str): A stream, queue or URL group name.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Schedule]
    """

    kwargs = _get_kwargs(
        schedule=schedule,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    schedule: str,
    *,
    client: AuthenticatedClient | Client,
) -> Problem | Schedule | None:
    """Stop a cron schedule from firing until it is resumed

     A paused schedule makes no runs, and its `next_run_at` is null; pausing a paused schedule changes
    nothing. A tick that had already begun firing finishes. Needs `admin` on the schedule.

    Args:
        schedule (str): A stream, queue or URL group name.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Schedule
    """

    return sync_detailed(
        schedule=schedule,
        client=client,
    ).parsed


async def asyncio_detailed(
    schedule: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | Schedule]:
    """Stop a cron schedule from firing until it is resumed

     A paused schedule makes no runs, and its `next_run_at` is null; pausing a paused schedule changes
    nothing. A tick that had already begun firing finishes. Needs `admin` on the schedule.

    Args:
        schedule (str): A stream, queue or URL group name.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Schedule]
    """

    kwargs = _get_kwargs(
        schedule=schedule,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    schedule: str,
    *,
    client: AuthenticatedClient | Client,
) -> Problem | Schedule | None:
    """Stop a cron schedule from firing until it is resumed

     A paused schedule makes no runs, and its `next_run_at` is null; pausing a paused schedule changes
    nothing. A tick that had already begun firing finishes. Needs `admin` on the schedule.

    Args:
        schedule (str): A stream, queue or URL group name.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Schedule
    """

    return (
        await asyncio_detailed(
            schedule=schedule,
            client=client,
        )
    ).parsed
