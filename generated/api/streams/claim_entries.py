from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.claim_request import ClaimRequest
from ...models.claim_result import ClaimResult
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    stream: str,
    group: str,
    *,
    body: ClaimRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/streams/{stream}/groups/{group}/claim".format(
            stream=quote(str(stream), safe=""),
            group=quote(str(group), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ClaimResult | Problem | None:
    if response.status_code == 200:
        response_200 = ClaimResult.from_dict(response.json())

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
) -> Response[ClaimResult | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    stream: str,
    group: str,
    *,
    client: AuthenticatedClient | Client,
    body: ClaimRequest,
) -> Response[ClaimResult | Problem]:
    """Take over pending entries idle for longer than min_idle_ms

     Scans the pending list from `start_id` and gives entries idle at least `min_idle_ms` to
    `consumer`, raising their delivery count. Pending ids whose entries were trimmed away are
    removed from the pending list and reported in `deleted_ids`. `next_start_id` is where the
    next scan continues; `0-0` means the scan reached the end. Needs `consume` on the stream.

    Dead letters: in a group with `max_deliveries`, an idle entry already delivered that many
    times is not handed out. In the same atomic step it is removed from the pending list and
    appended to the stream `<stream>.dead` (created when missing; read, trim or replay it with
    the stream operations, which need their permission on that name) as the body
    `{"stream", "id", "group", "delivery_count", "body"}`: where it came from, how often it
    was delivered, and its own body. Its id is reported in `dead_lettered_ids`.

    Args:
        stream (str): A stream, queue or URL group name.
        group (str): A consumer group or consumer name.
        body (ClaimRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ClaimResult | Problem]
    """

    kwargs = _get_kwargs(
        stream=stream,
        group=group,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    stream: str,
    group: str,
    *,
    client: AuthenticatedClient | Client,
    body: ClaimRequest,
) -> ClaimResult | Problem | None:
    """Take over pending entries idle for longer than min_idle_ms

     Scans the pending list from `start_id` and gives entries idle at least `min_idle_ms` to
    `consumer`, raising their delivery count. Pending ids whose entries were trimmed away are
    removed from the pending list and reported in `deleted_ids`. `next_start_id` is where the
    next scan continues; `0-0` means the scan reached the end. Needs `consume` on the stream.

    Dead letters: in a group with `max_deliveries`, an idle entry already delivered that many
    times is not handed out. In the same atomic step it is removed from the pending list and
    appended to the stream `<stream>.dead` (created when missing; read, trim or replay it with
    the stream operations, which need their permission on that name) as the body
    `{"stream", "id", "group", "delivery_count", "body"}`: where it came from, how often it
    was delivered, and its own body. Its id is reported in `dead_lettered_ids`.

    Args:
        stream (str): A stream, queue or URL group name.
        group (str): A consumer group or consumer name.
        body (ClaimRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ClaimResult | Problem
    """

    return sync_detailed(
        stream=stream,
        group=group,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    stream: str,
    group: str,
    *,
    client: AuthenticatedClient | Client,
    body: ClaimRequest,
) -> Response[ClaimResult | Problem]:
    """Take over pending entries idle for longer than min_idle_ms

     Scans the pending list from `start_id` and gives entries idle at least `min_idle_ms` to
    `consumer`, raising their delivery count. Pending ids whose entries were trimmed away are
    removed from the pending list and reported in `deleted_ids`. `next_start_id` is where the
    next scan continues; `0-0` means the scan reached the end. Needs `consume` on the stream.

    Dead letters: in a group with `max_deliveries`, an idle entry already delivered that many
    times is not handed out. In the same atomic step it is removed from the pending list and
    appended to the stream `<stream>.dead` (created when missing; read, trim or replay it with
    the stream operations, which need their permission on that name) as the body
    `{"stream", "id", "group", "delivery_count", "body"}`: where it came from, how often it
    was delivered, and its own body. Its id is reported in `dead_lettered_ids`.

    Args:
        stream (str): A stream, queue or URL group name.
        group (str): A consumer group or consumer name.
        body (ClaimRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ClaimResult | Problem]
    """

    kwargs = _get_kwargs(
        stream=stream,
        group=group,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    stream: str,
    group: str,
    *,
    client: AuthenticatedClient | Client,
    body: ClaimRequest,
) -> ClaimResult | Problem | None:
    """Take over pending entries idle for longer than min_idle_ms

     Scans the pending list from `start_id` and gives entries idle at least `min_idle_ms` to
    `consumer`, raising their delivery count. Pending ids whose entries were trimmed away are
    removed from the pending list and reported in `deleted_ids`. `next_start_id` is where the
    next scan continues; `0-0` means the scan reached the end. Needs `consume` on the stream.

    Dead letters: in a group with `max_deliveries`, an idle entry already delivered that many
    times is not handed out. In the same atomic step it is removed from the pending list and
    appended to the stream `<stream>.dead` (created when missing; read, trim or replay it with
    the stream operations, which need their permission on that name) as the body
    `{"stream", "id", "group", "delivery_count", "body"}`: where it came from, how often it
    was delivered, and its own body. Its id is reported in `dead_lettered_ids`.

    Args:
        stream (str): A stream, queue or URL group name.
        group (str): A consumer group or consumer name.
        body (ClaimRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ClaimResult | Problem
    """

    return (
        await asyncio_detailed(
            stream=stream,
            group=group,
            client=client,
            body=body,
        )
    ).parsed
