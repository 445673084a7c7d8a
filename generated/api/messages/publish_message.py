from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.message_receipt_list import MessageReceiptList
from ...models.problem import Problem
from ...models.publish_message_request import PublishMessageRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: PublishMessageRequest,
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
        "url": "/v1/messages",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MessageReceiptList | Problem | None:
    if response.status_code == 202:
        response_202 = MessageReceiptList.from_dict(response.json())

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
) -> Response[MessageReceiptList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PublishMessageRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> Response[MessageReceiptList | Problem]:
    """Publish an HTTP message to a URL or to every endpoint of a URL group

     Give `url` or `url_group`. For a URL group there is one message, with its own id, per endpoint.
    Options are validated now, so a bad `retry_delay` (400) or a forbidden destination (403) is refused
    here and never a delivery-time surprise; a host name that does not resolve yet (or not within 2
    seconds) is accepted, and its attempts fail (and are retried) until it does; every connection is
    vetted when it is made. Counts against the token's quota. Needs `publish` on messages.

    Args:
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (PublishMessageRequest): Give exactly one of `url` and `url_group`, and at most one
            of `delay` and `not_before`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessageReceiptList | Problem]
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
    body: PublishMessageRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> MessageReceiptList | Problem | None:
    """Publish an HTTP message to a URL or to every endpoint of a URL group

     Give `url` or `url_group`. For a URL group there is one message, with its own id, per endpoint.
    Options are validated now, so a bad `retry_delay` (400) or a forbidden destination (403) is refused
    here and never a delivery-time surprise; a host name that does not resolve yet (or not within 2
    seconds) is accepted, and its attempts fail (and are retried) until it does; every connection is
    vetted when it is made. Counts against the token's quota. Needs `publish` on messages.

    Args:
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (PublishMessageRequest): Give exactly one of `url` and `url_group`, and at most one
            of `delay` and `not_before`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessageReceiptList | Problem
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
    body: PublishMessageRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> Response[MessageReceiptList | Problem]:
    """Publish an HTTP message to a URL or to every endpoint of a URL group

     Give `url` or `url_group`. For a URL group there is one message, with its own id, per endpoint.
    Options are validated now, so a bad `retry_delay` (400) or a forbidden destination (403) is refused
    here and never a delivery-time surprise; a host name that does not resolve yet (or not within 2
    seconds) is accepted, and its attempts fail (and are retried) until it does; every connection is
    vetted when it is made. Counts against the token's quota. Needs `publish` on messages.

    Args:
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (PublishMessageRequest): Give exactly one of `url` and `url_group`, and at most one
            of `delay` and `not_before`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessageReceiptList | Problem]
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
    body: PublishMessageRequest,
    idempotency_key: str | Unset = UNSET,
    traceparent: str | Unset = UNSET,
) -> MessageReceiptList | Problem | None:
    """Publish an HTTP message to a URL or to every endpoint of a URL group

     Give `url` or `url_group`. For a URL group there is one message, with its own id, per endpoint.
    Options are validated now, so a bad `retry_delay` (400) or a forbidden destination (403) is refused
    here and never a delivery-time surprise; a host name that does not resolve yet (or not within 2
    seconds) is accepted, and its attempts fail (and are retried) until it does; every connection is
    vetted when it is made. Counts against the token's quota. Needs `publish` on messages.

    Args:
        idempotency_key (str | Unset):
        traceparent (str | Unset):
        body (PublishMessageRequest): Give exactly one of `url` and `url_group`, and at most one
            of `delay` and `not_before`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessageReceiptList | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
            traceparent=traceparent,
        )
    ).parsed
