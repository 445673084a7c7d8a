from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.job import Job
from ...models.lease_ref import LeaseRef
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    queue: str,
    job_id: str,
    *,
    body: LeaseRef,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/queues/{queue}/jobs/{job_id}/release".format(
            queue=quote(str(queue), safe=""),
            job_id=quote(str(job_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Job | Problem | None:
    if response.status_code == 200:
        response_200 = Job.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

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
) -> Response[Job | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    queue: str,
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: LeaseRef,
) -> Response[Job | Problem]:
    """Give a leased job back untried

     Ends the lease now, for a job its worker took but never ran (a worker that stops with
    jobs fetched ahead, say). The job is ready again at once and the attempt is not
    counted: `attempts` goes back by one, `last_error` stays as it was, the attempt ends as
    `released` in `attempt_history`, and a job on its last attempt is not moved to the dead
    letters. Use `nackJob` for a job that was tried and failed. Only the holder of the
    current lease can release (`409 lease_expired` otherwise). Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        job_id (str):
        body (LeaseRef):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Job | Problem]
    """

    kwargs = _get_kwargs(
        queue=queue,
        job_id=job_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    queue: str,
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: LeaseRef,
) -> Job | Problem | None:
    """Give a leased job back untried

     Ends the lease now, for a job its worker took but never ran (a worker that stops with
    jobs fetched ahead, say). The job is ready again at once and the attempt is not
    counted: `attempts` goes back by one, `last_error` stays as it was, the attempt ends as
    `released` in `attempt_history`, and a job on its last attempt is not moved to the dead
    letters. Use `nackJob` for a job that was tried and failed. Only the holder of the
    current lease can release (`409 lease_expired` otherwise). Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        job_id (str):
        body (LeaseRef):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Job | Problem
    """

    return sync_detailed(
        queue=queue,
        job_id=job_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    queue: str,
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: LeaseRef,
) -> Response[Job | Problem]:
    """Give a leased job back untried

     Ends the lease now, for a job its worker took but never ran (a worker that stops with
    jobs fetched ahead, say). The job is ready again at once and the attempt is not
    counted: `attempts` goes back by one, `last_error` stays as it was, the attempt ends as
    `released` in `attempt_history`, and a job on its last attempt is not moved to the dead
    letters. Use `nackJob` for a job that was tried and failed. Only the holder of the
    current lease can release (`409 lease_expired` otherwise). Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        job_id (str):
        body (LeaseRef):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Job | Problem]
    """

    kwargs = _get_kwargs(
        queue=queue,
        job_id=job_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    queue: str,
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: LeaseRef,
) -> Job | Problem | None:
    """Give a leased job back untried

     Ends the lease now, for a job its worker took but never ran (a worker that stops with
    jobs fetched ahead, say). The job is ready again at once and the attempt is not
    counted: `attempts` goes back by one, `last_error` stays as it was, the attempt ends as
    `released` in `attempt_history`, and a job on its last attempt is not moved to the dead
    letters. Use `nackJob` for a job that was tried and failed. Only the holder of the
    current lease can release (`409 lease_expired` otherwise). Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        job_id (str):
        body (LeaseRef):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Job | Problem
    """

    return (
        await asyncio_detailed(
            queue=queue,
            job_id=job_id,
            client=client,
            body=body,
        )
    ).parsed
