from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.message_receipt import MessageReceipt
from ...models.problem import Problem
from ...models.retry_dead_letter_request import RetryDeadLetterRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    message_id: str,
    *,
    body: RetryDeadLetterRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/dead-letters/{message_id}/retry".format(
            message_id=quote(str(message_id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MessageReceipt | Problem | None:
    if response.status_code == 202:
        response_202 = MessageReceipt.from_dict(response.json())

        return response_202

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
) -> Response[MessageReceipt | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    message_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RetryDeadLetterRequest | Unset = UNSET,
) -> Response[MessageReceipt | Problem]:
    """Deliver a dead letter again with fresh retries

     Schedules the message again now, with its retries counted from zero. A body is optional: its
    `headers` replace or add forwarded headers of the message, by the rules of a publish's `headers`.
    Needs `admin` on messages.

    Args:
        message_id (str):
        body (RetryDeadLetterRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessageReceipt | Problem]
    """

    kwargs = _get_kwargs(
        message_id=message_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    message_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RetryDeadLetterRequest | Unset = UNSET,
) -> MessageReceipt | Problem | None:
    """Deliver a dead letter again with fresh retries

     Schedules the message again now, with its retries counted from zero. A body is optional: its
    `headers` replace or add forwarded headers of the message, by the rules of a publish's `headers`.
    Needs `admin` on messages.

    Args:
        message_id (str):
        body (RetryDeadLetterRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessageReceipt | Problem
    """

    return sync_detailed(
        message_id=message_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    message_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RetryDeadLetterRequest | Unset = UNSET,
) -> Response[MessageReceipt | Problem]:
    """Deliver a dead letter again with fresh retries

     Schedules the message again now, with its retries counted from zero. A body is optional: its
    `headers` replace or add forwarded headers of the message, by the rules of a publish's `headers`.
    Needs `admin` on messages.

    Args:
        message_id (str):
        body (RetryDeadLetterRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessageReceipt | Problem]
    """

    kwargs = _get_kwargs(
        message_id=message_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    message_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RetryDeadLetterRequest | Unset = UNSET,
) -> MessageReceipt | Problem | None:
    """Deliver a dead letter again with fresh retries

     Schedules the message again now, with its retries counted from zero. A body is optional: its
    `headers` replace or add forwarded headers of the message, by the rules of a publish's `headers`.
    Needs `admin` on messages.

    Args:
        message_id (str):
        body (RetryDeadLetterRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessageReceipt | Problem
    """

    return (
        await asyncio_detailed(
            message_id=message_id,
            client=client,
            body=body,
        )
    ).parsed
