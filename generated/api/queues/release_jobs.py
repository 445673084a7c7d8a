from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.release_jobs_request import ReleaseJobsRequest
from ...models.release_jobs_result import ReleaseJobsResult
from ...types import Response


def _get_kwargs(
    queue: str,
    *,
    body: ReleaseJobsRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/queues/{queue}/releases".format(
            queue=quote(str(queue), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | ReleaseJobsResult | None:
    if response.status_code == 200:
        response_200 = ReleaseJobsResult.from_dict(response.json())

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
) -> Response[Problem | ReleaseJobsResult]:
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
    body: ReleaseJobsRequest,
) -> Response[Problem | ReleaseJobsResult]:
    """Give many leased jobs back untried in one request

     Releases each job whose `lease_id` is its current, unexpired lease, as `releaseJob`
    does (ready at once, the attempt not counted), and tells per job, in the order given,
    whether it was released: a job whose lease ended (or that was settled already) is
    `lease_expired`, one that does not exist is `job_not_found`; neither stops the others.
    For a worker that stops with many jobs fetched ahead. Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        body (ReleaseJobsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ReleaseJobsResult]
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
    body: ReleaseJobsRequest,
) -> Problem | ReleaseJobsResult | None:
    """Give many leased jobs back untried in one request

     Releases each job whose `lease_id` is its current, unexpired lease, as `releaseJob`
    does (ready at once, the attempt not counted), and tells per job, in the order given,
    whether it was released: a job whose lease ended (or that was settled already) is
    `lease_expired`, one that does not exist is `job_not_found`; neither stops the others.
    For a worker that stops with many jobs fetched ahead. Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        body (ReleaseJobsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ReleaseJobsResult
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
    body: ReleaseJobsRequest,
) -> Response[Problem | ReleaseJobsResult]:
    """Give many leased jobs back untried in one request

     Releases each job whose `lease_id` is its current, unexpired lease, as `releaseJob`
    does (ready at once, the attempt not counted), and tells per job, in the order given,
    whether it was released: a job whose lease ended (or that was settled already) is
    `lease_expired`, one that does not exist is `job_not_found`; neither stops the others.
    For a worker that stops with many jobs fetched ahead. Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        body (ReleaseJobsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ReleaseJobsResult]
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
    body: ReleaseJobsRequest,
) -> Problem | ReleaseJobsResult | None:
    """Give many leased jobs back untried in one request

     Releases each job whose `lease_id` is its current, unexpired lease, as `releaseJob`
    does (ready at once, the attempt not counted), and tells per job, in the order given,
    whether it was released: a job whose lease ended (or that was settled already) is
    `lease_expired`, one that does not exist is `job_not_found`; neither stops the others.
    For a worker that stops with many jobs fetched ahead. Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        body (ReleaseJobsRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ReleaseJobsResult
    """

    return (
        await asyncio_detailed(
            queue=queue,
            client=client,
            body=body,
        )
    ).parsed
