from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.schedule import Schedule
from ...models.schedule_settings import ScheduleSettings
from ...types import Response


def _get_kwargs(
    schedule: str,
    *,
    body: ScheduleSettings,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/schedules/{schedule}".format(
            schedule=quote(str(schedule), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | Schedule | None:
    if response.status_code == 200:
        response_200 = Schedule.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = Schedule.from_dict(response.json())

        return response_201

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
    body: ScheduleSettings,
) -> Response[Problem | Schedule]:
    """Create a cron schedule or replace it

     Each tick of `cron` (in `timezone`) publishes `destination` once: an HTTP message, a job on a queue
    or an entry on a stream, exactly as the matching publish operation would, with every option that
    operation takes. Exactly one publish is made per tick, however many service processes share the
    store and whatever restarts they go through. The destination is checked now, as its publish would
    check it: a bad `retry_delay` (400), a forbidden destination (403), a queue, URL group or (with
    `nomkstream`) stream that does not exist (`422 destination_not_found`). The token also needs
    `publish` on the destination (the queue, the stream, or the message's URL or URL group), which each
    tick then publishes to; scheduled publishes do not count against a token's quota. A message's
    `not_before` is refused (its `delay` counts from each tick). Replacing a schedule keeps its creation
    time, whether it is paused and its recent runs, and computes the next tick from now. Needs `admin`
    on the schedule.

    Args:
        schedule (str): A stream, queue or URL group name.
        body (ScheduleSettings):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Schedule]
    """

    kwargs = _get_kwargs(
        schedule=schedule,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    schedule: str,
    *,
    client: AuthenticatedClient | Client,
    body: ScheduleSettings,
) -> Problem | Schedule | None:
    """Create a cron schedule or replace it

     Each tick of `cron` (in `timezone`) publishes `destination` once: an HTTP message, a job on a queue
    or an entry on a stream, exactly as the matching publish operation would, with every option that
    operation takes. Exactly one publish is made per tick, however many service processes share the
    store and whatever restarts they go through. The destination is checked now, as its publish would
    check it: a bad `retry_delay` (400), a forbidden destination (403), a queue, URL group or (with
    `nomkstream`) stream that does not exist (`422 destination_not_found`). The token also needs
    `publish` on the destination (the queue, the stream, or the message's URL or URL group), which each
    tick then publishes to; scheduled publishes do not count against a token's quota. A message's
    `not_before` is refused (its `delay` counts from each tick). Replacing a schedule keeps its creation
    time, whether it is paused and its recent runs, and computes the next tick from now. Needs `admin`
    on the schedule.

    Args:
        schedule (str): A stream, queue or URL group name.
        body (ScheduleSettings):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Schedule
    """

    return sync_detailed(
        schedule=schedule,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    schedule: str,
    *,
    client: AuthenticatedClient | Client,
    body: ScheduleSettings,
) -> Response[Problem | Schedule]:
    """Create a cron schedule or replace it

     Each tick of `cron` (in `timezone`) publishes `destination` once: an HTTP message, a job on a queue
    or an entry on a stream, exactly as the matching publish operation would, with every option that
    operation takes. Exactly one publish is made per tick, however many service processes share the
    store and whatever restarts they go through. The destination is checked now, as its publish would
    check it: a bad `retry_delay` (400), a forbidden destination (403), a queue, URL group or (with
    `nomkstream`) stream that does not exist (`422 destination_not_found`). The token also needs
    `publish` on the destination (the queue, the stream, or the message's URL or URL group), which each
    tick then publishes to; scheduled publishes do not count against a token's quota. A message's
    `not_before` is refused (its `delay` counts from each tick). Replacing a schedule keeps its creation
    time, whether it is paused and its recent runs, and computes the next tick from now. Needs `admin`
    on the schedule.

    Args:
        schedule (str): A stream, queue or URL group name.
        body (ScheduleSettings):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Schedule]
    """

    kwargs = _get_kwargs(
        schedule=schedule,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    schedule: str,
    *,
    client: AuthenticatedClient | Client,
    body: ScheduleSettings,
) -> Problem | Schedule | None:
    """Create a cron schedule or replace it

     Each tick of `cron` (in `timezone`) publishes `destination` once: an HTTP message, a job on a queue
    or an entry on a stream, exactly as the matching publish operation would, with every option that
    operation takes. Exactly one publish is made per tick, however many service processes share the
    store and whatever restarts they go through. The destination is checked now, as its publish would
    check it: a bad `retry_delay` (400), a forbidden destination (403), a queue, URL group or (with
    `nomkstream`) stream that does not exist (`422 destination_not_found`). The token also needs
    `publish` on the destination (the queue, the stream, or the message's URL or URL group), which each
    tick then publishes to; scheduled publishes do not count against a token's quota. A message's
    `not_before` is refused (its `delay` counts from each tick). Replacing a schedule keeps its creation
    time, whether it is paused and its recent runs, and computes the next tick from now. Needs `admin`
    on the schedule.

    Args:
        schedule (str): A stream, queue or URL group name.
        body (ScheduleSettings):

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
            body=body,
        )
    ).parsed
