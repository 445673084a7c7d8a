from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.dead_letter_bulk_result import DeadLetterBulkResult
from ...models.problem import Problem
from ...models.retry_dead_letters_request import RetryDeadLettersRequest
from ...types import Response


def _get_kwargs(
    *,
    body: RetryDeadLettersRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/dead-letters/retry",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DeadLetterBulkResult | Problem | None:
    if response.status_code == 200:
        response_200 = DeadLetterBulkResult.from_dict(response.json())

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
) -> Response[DeadLetterBulkResult | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RetryDeadLettersRequest,
) -> Response[DeadLetterBulkResult | Problem]:
    """Deliver many dead letters again, a bounded batch at a time

     Retries, as `retryDeadLetter` does, the dead letters named by `ids` (each reported in `results`), or
    those `filter` matches, or `all` of them, oldest first, looking at up to `limit` dead letters per
    request; `headers` replace or add forwarded headers of each retried message (by the rules of a
    publish's `headers`). Give exactly one of `ids`, `filter` and `all`; `cursor` and `limit` go with
    `filter` and `all` only. The answer says how many were retried and gives `next_cursor`: send the
    same request with it as `cursor` until it is null. The requests after the first look only at the
    dead letters filed by the time of the first, so a letter retried on the way that fails again is not
    met again. Each dead letter is retried at most once, whatever requests run at the same time: one
    that another request retried or deleted first is passed over. Only dead letters whose URL (or URL
    group) the token has `admin` on are retried; with `filter` or `all` the others are passed over, and
    a named one is reported as `permission_denied`. Needs `admin` on messages.

    Args:
        body (RetryDeadLettersRequest): Give exactly one of `ids`, `filter` and `all` (`all` must
            be true); `cursor` and `limit` go with `filter` or `all`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeadLetterBulkResult | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: RetryDeadLettersRequest,
) -> DeadLetterBulkResult | Problem | None:
    """Deliver many dead letters again, a bounded batch at a time

     Retries, as `retryDeadLetter` does, the dead letters named by `ids` (each reported in `results`), or
    those `filter` matches, or `all` of them, oldest first, looking at up to `limit` dead letters per
    request; `headers` replace or add forwarded headers of each retried message (by the rules of a
    publish's `headers`). Give exactly one of `ids`, `filter` and `all`; `cursor` and `limit` go with
    `filter` and `all` only. The answer says how many were retried and gives `next_cursor`: send the
    same request with it as `cursor` until it is null. The requests after the first look only at the
    dead letters filed by the time of the first, so a letter retried on the way that fails again is not
    met again. Each dead letter is retried at most once, whatever requests run at the same time: one
    that another request retried or deleted first is passed over. Only dead letters whose URL (or URL
    group) the token has `admin` on are retried; with `filter` or `all` the others are passed over, and
    a named one is reported as `permission_denied`. Needs `admin` on messages.

    Args:
        body (RetryDeadLettersRequest): Give exactly one of `ids`, `filter` and `all` (`all` must
            be true); `cursor` and `limit` go with `filter` or `all`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeadLetterBulkResult | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: RetryDeadLettersRequest,
) -> Response[DeadLetterBulkResult | Problem]:
    """Deliver many dead letters again, a bounded batch at a time

     Retries, as `retryDeadLetter` does, the dead letters named by `ids` (each reported in `results`), or
    those `filter` matches, or `all` of them, oldest first, looking at up to `limit` dead letters per
    request; `headers` replace or add forwarded headers of each retried message (by the rules of a
    publish's `headers`). Give exactly one of `ids`, `filter` and `all`; `cursor` and `limit` go with
    `filter` and `all` only. The answer says how many were retried and gives `next_cursor`: send the
    same request with it as `cursor` until it is null. The requests after the first look only at the
    dead letters filed by the time of the first, so a letter retried on the way that fails again is not
    met again. Each dead letter is retried at most once, whatever requests run at the same time: one
    that another request retried or deleted first is passed over. Only dead letters whose URL (or URL
    group) the token has `admin` on are retried; with `filter` or `all` the others are passed over, and
    a named one is reported as `permission_denied`. Needs `admin` on messages.

    Args:
        body (RetryDeadLettersRequest): Give exactly one of `ids`, `filter` and `all` (`all` must
            be true); `cursor` and `limit` go with `filter` or `all`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeadLetterBulkResult | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: RetryDeadLettersRequest,
) -> DeadLetterBulkResult | Problem | None:
    """Deliver many dead letters again, a bounded batch at a time

     Retries, as `retryDeadLetter` does, the dead letters named by `ids` (each reported in `results`), or
    those `filter` matches, or `all` of them, oldest first, looking at up to `limit` dead letters per
    request; `headers` replace or add forwarded headers of each retried message (by the rules of a
    publish's `headers`). Give exactly one of `ids`, `filter` and `all`; `cursor` and `limit` go with
    `filter` and `all` only. The answer says how many were retried and gives `next_cursor`: send the
    same request with it as `cursor` until it is null. The requests after the first look only at the
    dead letters filed by the time of the first, so a letter retried on the way that fails again is not
    met again. Each dead letter is retried at most once, whatever requests run at the same time: one
    that another request retried or deleted first is passed over. Only dead letters whose URL (or URL
    group) the token has `admin` on are retried; with `filter` or `all` the others are passed over, and
    a named one is reported as `permission_denied`. Needs `admin` on messages.

    Args:
        body (RetryDeadLettersRequest): Give exactly one of `ids`, `filter` and `all` (`all` must
            be true); `cursor` and `limit` go with `filter` or `all`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeadLetterBulkResult | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
