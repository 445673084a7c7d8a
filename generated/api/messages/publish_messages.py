from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.message_batch_result import MessageBatchResult
from ...models.problem import Problem
from ...models.publish_messages_request import PublishMessagesRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PublishMessagesRequest,
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
        "url": "/v1/messages/batch",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MessageBatchResult | Problem | None:
    if response.status_code == 202:
        response_202 = MessageBatchResult.from_dict(response.json())

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
) -> Response[MessageBatchResult | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PublishMessagesRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> Response[MessageBatchResult | Problem]:
    """Publish several HTTP messages, all or none

     Validates every message first, then accepts them all; nothing is written when any message is
    invalid. Needs `publish` on messages.

    Args:
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (PublishMessagesRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessageBatchResult | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
        traceparent=traceparent,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: PublishMessagesRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> MessageBatchResult | Problem | None:
    """Publish several HTTP messages, all or none

     Validates every message first, then accepts them all; nothing is written when any message is
    invalid. Needs `publish` on messages.

    Args:
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (PublishMessagesRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessageBatchResult | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
        traceparent=traceparent,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PublishMessagesRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> Response[MessageBatchResult | Problem]:
    """Publish several HTTP messages, all or none

     Validates every message first, then accepts them all; nothing is written when any message is
    invalid. Needs `publish` on messages.

    Args:
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (PublishMessagesRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessageBatchResult | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
        traceparent=traceparent,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: PublishMessagesRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> MessageBatchResult | Problem | None:
    """Publish several HTTP messages, all or none

     Validates every message first, then accepts them all; nothing is written when any message is
    invalid. Needs `publish` on messages.

    Args:
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (PublishMessagesRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessageBatchResult | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
            traceparent=traceparent,
        )
    ).parsed
