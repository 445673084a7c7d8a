from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.lease_request import LeaseRequest
from ...models.leased_job_list import LeasedJobList
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    queue: str,
    *,
    body: LeaseRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/queues/{queue}/leases".format(
            queue=quote(str(queue), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> LeasedJobList | Problem | None:
    if response.status_code == 200:
        response_200 = LeasedJobList.from_dict(response.json())

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
) -> Response[LeasedJobList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: LeaseRequest,
) -> Response[LeasedJobList | Problem]:
    """Lease ready jobs for a worker

     Hands out up to `max_jobs` ready jobs (optionally only of the given topics), oldest first.
    Each is leased for `lease_seconds`; a job not acknowledged before its lease ends is handed
    out again. Each lease counts as an attempt; a job leased `max_attempts` times and never
    acknowledged moves to the dead letters. With `wait_ms` the call waits for a job to appear.
    Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        body (LeaseRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[LeasedJobList | Problem]
    """

    kwargs = _get_kwargs(
        queue=queue,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: LeaseRequest,
) -> LeasedJobList | Problem | None:
    """Lease ready jobs for a worker

     Hands out up to `max_jobs` ready jobs (optionally only of the given topics), oldest first.
    Each is leased for `lease_seconds`; a job not acknowledged before its lease ends is handed
    out again. Each lease counts as an attempt; a job leased `max_attempts` times and never
    acknowledged moves to the dead letters. With `wait_ms` the call waits for a job to appear.
    Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        body (LeaseRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        LeasedJobList | Problem
    """

    return sync_detailed(
        queue=queue,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: LeaseRequest,
) -> Response[LeasedJobList | Problem]:
    """Lease ready jobs for a worker

     Hands out up to `max_jobs` ready jobs (optionally only of the given topics), oldest first.
    Each is leased for `lease_seconds`; a job not acknowledged before its lease ends is handed
    out again. Each lease counts as an attempt; a job leased `max_attempts` times and never
    acknowledged moves to the dead letters. With `wait_ms` the call waits for a job to appear.
    Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        body (LeaseRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[LeasedJobList | Problem]
    """

    kwargs = _get_kwargs(
        queue=queue,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    body: LeaseRequest,
) -> LeasedJobList | Problem | None:
    """Lease ready jobs for a worker

     Hands out up to `max_jobs` ready jobs (optionally only of the given topics), oldest first.
    Each is leased for `lease_seconds`; a job not acknowledged before its lease ends is handed
    out again. Each lease counts as an attempt; a job leased `max_attempts` times and never
    acknowledged moves to the dead letters. With `wait_ms` the call waits for a job to appear.
    Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        body (LeaseRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        LeasedJobList | Problem
    """

    return (
        await asyncio_detailed(
            queue=queue,
            client=client,
            body=body,
        )
    ).parsed
