from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.job_list import JobList
from ...models.job_state import JobState
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    queue: str,
    *,
    state: JobState | Unset = UNSET,
    limit: int | Unset = 100,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_state: str | Unset = UNSET
    if not isinstance(state, Unset):
        json_state = state

    params["state"] = json_state

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/queues/{queue}/jobs".format(
            queue=quote(str(queue), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> JobList | Problem | None:
    if response.status_code == 200:
        response_200 = JobList.from_dict(response.json())

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
) -> Response[JobList | Problem]:
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
    state: JobState | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[JobList | Problem]:
    """List a queue's jobs in one state

     Jobs of one state, for inspection and for dead-letter handling. Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        state (JobState | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobList | Problem]
    """

    kwargs = _get_kwargs(
        queue=queue,
        state=state,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    state: JobState | Unset = UNSET,
    limit: int | Unset = 100,
) -> JobList | Problem | None:
    """List a queue's jobs in one state

     Jobs of one state, for inspection and for dead-letter handling. Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        state (JobState | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobList | Problem
    """

    return sync_detailed(
        queue=queue,
        client=client,
        state=state,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    state: JobState | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[JobList | Problem]:
    """List a queue's jobs in one state

     Jobs of one state, for inspection and for dead-letter handling. Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        state (JobState | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobList | Problem]
    """

    kwargs = _get_kwargs(
        queue=queue,
        state=state,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    queue: str,
    *,
    client: AuthenticatedClient | Client,
    state: JobState | Unset = UNSET,
    limit: int | Unset = 100,
) -> JobList | Problem | None:
    """List a queue's jobs in one state

     Jobs of one state, for inspection and for dead-letter handling. Needs `consume` on the queue.

    Args:
        queue (str): A stream, queue or URL group name.
        state (JobState | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobList | Problem
    """

    return (
        await asyncio_detailed(
            queue=queue,
            client=client,
            state=state,
            limit=limit,
        )
    ).parsed
