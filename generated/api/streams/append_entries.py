from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.append_entries_request import AppendEntriesRequest
from ...models.append_entries_result import AppendEntriesResult
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    stream: str,
    *,
    body: AppendEntriesRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    if not isinstance(traceparent, Unset):
        headers["traceparent"] = traceparent

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/streams/{stream}/batch".format(
            stream=quote(str(stream), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AppendEntriesResult | Problem | None:
    if response.status_code == 201:
        response_201 = AppendEntriesResult.from_dict(response.json())

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

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

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
) -> Response[AppendEntriesResult | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
    body: AppendEntriesRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> Response[AppendEntriesResult | Problem]:
    """Append several entries at once, all or none

     Validates every entry first, then appends them in order under consecutive ids; nothing is written
    when any entry is invalid. Needs `publish` on the stream.

    Args:
        stream (str): A stream, queue or URL group name.
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (AppendEntriesRequest): Give at most one of `maxlen` and `minid`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AppendEntriesResult | Problem]
    """

    kwargs = _get_kwargs(
        stream=stream,
        body=body,
        idempotency_key=idempotency_key,
        traceparent=traceparent,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
    body: AppendEntriesRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> AppendEntriesResult | Problem | None:
    """Append several entries at once, all or none

     Validates every entry first, then appends them in order under consecutive ids; nothing is written
    when any entry is invalid. Needs `publish` on the stream.

    Args:
        stream (str): A stream, queue or URL group name.
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (AppendEntriesRequest): Give at most one of `maxlen` and `minid`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AppendEntriesResult | Problem
    """

    return sync_detailed(
        stream=stream,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
        traceparent=traceparent,
    ).parsed


async def asyncio_detailed(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
    body: AppendEntriesRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> Response[AppendEntriesResult | Problem]:
    """Append several entries at once, all or none

     Validates every entry first, then appends them in order under consecutive ids; nothing is written
    when any entry is invalid. Needs `publish` on the stream.

    Args:
        stream (str): A stream, queue or URL group name.
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (AppendEntriesRequest): Give at most one of `maxlen` and `minid`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AppendEntriesResult | Problem]
    """

    kwargs = _get_kwargs(
        stream=stream,
        body=body,
        idempotency_key=idempotency_key,
        traceparent=traceparent,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    stream: str,
    *,
    client: AuthenticatedClient | Client,
    body: AppendEntriesRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> AppendEntriesResult | Problem | None:
    """Append several entries at once, all or none

     Validates every entry first, then appends them in order under consecutive ids; nothing is written
    when any entry is invalid. Needs `publish` on the stream.

    Args:
        stream (str): A stream, queue or URL group name.
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (AppendEntriesRequest): Give at most one of `maxlen` and `minid`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AppendEntriesResult | Problem
    """

    return (
        await asyncio_detailed(
            stream=stream,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
            traceparent=traceparent,
        )
    ).parsed
