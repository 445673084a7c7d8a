from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.append_entry_request import AppendEntryRequest
from ...models.append_entry_result import AppendEntryResult
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    stream: str,
    *,
    body: AppendEntryRequest,
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
        "url": "/v1/streams/{stream}/entries".format(
            stream=quote(str(stream), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AppendEntryResult | Problem | None:
    if response.status_code == 201:
        response_201 = AppendEntryResult.from_dict(response.json())

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
) -> Response[AppendEntryResult | Problem]:
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
    body: AppendEntryRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> Response[AppendEntryResult | Problem]:
    """Append one entry, creating the stream unless nomkstream is set

     Appends `body` with a new id greater than every earlier id of the stream, then trims the stream if
    `maxlen` or `minid` is given. Needs `publish` on the stream.

    Args:
        stream (str): A stream, queue or URL group name.
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (AppendEntryRequest): Give at most one of `maxlen` and `minid`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AppendEntryResult | Problem]
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
    body: AppendEntryRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> AppendEntryResult | Problem | None:
    """Append one entry, creating the stream unless nomkstream is set

     Appends `body` with a new id greater than every earlier id of the stream, then trims the stream if
    `maxlen` or `minid` is given. Needs `publish` on the stream.

    Args:
        stream (str): A stream, queue or URL group name.
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (AppendEntryRequest): Give at most one of `maxlen` and `minid`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AppendEntryResult | Problem
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
    body: AppendEntryRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> Response[AppendEntryResult | Problem]:
    """Append one entry, creating the stream unless nomkstream is set

     Appends `body` with a new id greater than every earlier id of the stream, then trims the stream if
    `maxlen` or `minid` is given. Needs `publish` on the stream.

    Args:
        stream (str): A stream, queue or URL group name.
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (AppendEntryRequest): Give at most one of `maxlen` and `minid`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AppendEntryResult | Problem]
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
    body: AppendEntryRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> AppendEntryResult | Problem | None:
    """Append one entry, creating the stream unless nomkstream is set

     Appends `body` with a new id greater than every earlier id of the stream, then trims the stream if
    `maxlen` or `minid` is given. Needs `publish` on the stream.

    Args:
        stream (str): A stream, queue or URL group name.
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (AppendEntryRequest): Give at most one of `maxlen` and `minid`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AppendEntryResult | Problem
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
