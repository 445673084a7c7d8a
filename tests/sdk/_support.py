"""Helpers for the SDK's respx tests: fake answers in the service's shapes."""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

import sdk

BASE_URL = "http://spool.test"
API_KEY = "sk_test_0123456789_secret"


async def resolve(value: Any) -> Any:
    """`value`, awaited first when it is awaitable: one test body drives both clients."""
    return await value if inspect.isawaitable(value) else value


async def collect(items: Any) -> list[Any]:
    """Every item of an iterator or, for the async client, an async iterator."""
    if hasattr(items, "__aiter__"):
        return [item async for item in items]
    return list(items)


def problem(
    status: int,
    code: str,
    detail: str = "something went wrong",
    *,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> httpx.Response:
    """An RFC 9457 answer as the service sends it."""
    body = {
        "type": f"https://spool.dev/problems/{code}",
        "title": code.replace("_", " ").capitalize(),
        "status": status,
        "code": code,
        "detail": detail,
        **extra,
    }
    return httpx.Response(
        status,
        content=json.dumps(body).encode(),
        headers={"Content-Type": "application/problem+json", **(headers or {})},
    )


def appended(entry_id: str = "1793095014218-0", stream: str = "events") -> httpx.Response:
    """The 201 answer to appendEntry."""
    return httpx.Response(201, json={"id": entry_id, "stream": stream, "length": 1, "trimmed": 0})


def sent_json(call: Any) -> Any:
    """The JSON body of a recorded respx call."""
    return json.loads(call.request.content)


QUEUE = {
    "name": "jobs",
    "max_attempts": 5,
    "lease_seconds": 30,
    "retention_seconds": 604800,
    "deduplication_window_seconds": 300,
    "created_at": "2026-11-29T12:00:00Z",
    "stats": {"ready": 1, "delayed": 0, "leased": 0, "dead": 0},
}


def job(job_id: str = "job_1", *, state: str = "succeeded", payload: Any = None) -> dict[str, Any]:
    """A Job document."""
    return {
        "job_id": job_id,
        "queue": "jobs",
        "topic": "email-jobs",
        "payload": payload if payload is not None else {"userId": "12345"},
        "state": state,
        "attempts": 1,
        "max_attempts": 5,
        "published_at": "2026-11-29T12:00:00Z",
        "available_at": "2026-11-29T12:00:00Z",
    }


def leased(
    job_id: str = "job_1", *, payload: Any = None, lease_id: str = "lease_1"
) -> dict[str, Any]:
    """A LeasedJob document."""
    return {
        "job_id": job_id,
        "queue": "jobs",
        "topic": "email-jobs",
        "payload": payload if payload is not None else {"userId": "12345"},
        "attempt": 1,
        "lease_id": lease_id,
        "lease_expires_at": "2026-11-29T12:00:30Z",
        "published_at": "2026-11-29T12:00:00Z",
    }


RECEIPT = {"message_id": "msg_1", "url": "https://my-api.test/hook", "deduplicated": False}
MESSAGE = {
    "message_id": "msg_1",
    "url": "https://my-api.test/hook",
    "method": "POST",
    "content_type": "application/json",
    "headers": {"X-Tenant": "acme"},
    "state": "delivered",
    "retries": 3,
    "timeout": 30,
    "created_at": "2026-11-29T12:00:00Z",
    "not_before": "2026-11-29T12:00:03Z",
    "attempts": [
        {
            "attempt": 1,
            "started_at": "2026-11-29T12:00:03Z",
            "duration_ms": 41,
            "status_code": 200,
            "response_excerpt": "ok",
        }
    ],
}


# Each synchronous class and its asyncio twin. Their methods are written twice on purpose (each
# sends a call built once, in shared code), so these tests catch a change made to one twin only.
TWINS = [
    (sdk.Client, sdk.AsyncClient),
    (sdk.Streams, sdk.AsyncStreams),
    (sdk.Queues, sdk.AsyncQueues),
    (sdk.Queue, sdk.AsyncQueue),
    (sdk.Messages, sdk.AsyncMessages),
    (sdk.UrlGroups, sdk.AsyncUrlGroups),
    (sdk.DeadLetters, sdk.AsyncDeadLetters),
    (sdk.Schedules, sdk.AsyncSchedules),
    (sdk.FlowControlKeys, sdk.AsyncFlowControlKeys),
    (sdk.Publisher, sdk.AsyncPublisher),
]


@dataclasses.dataclass(frozen=True, slots=True)
class MadeClient:
    """An httpx client made while `record_http_clients` was on, and the options it was made with."""

    http: httpx.Client | httpx.AsyncClient
    options: dict[str, Any]


def record_http_clients(monkeypatch: pytest.MonkeyPatch) -> list[MadeClient]:
    """Each `httpx.Client` and `httpx.AsyncClient` made from now on, as the SDK makes its own,
    with the options it was made with: their constructors are wrapped, not changed, so every
    client is httpx's as shipped.
    """
    made: list[MadeClient] = []

    def recording(init: Callable[..., None]) -> Callable[..., None]:
        def record(self: httpx.Client | httpx.AsyncClient, *args: Any, **options: Any) -> None:
            init(self, *args, **options)
            made.append(MadeClient(self, options))

        return record

    monkeypatch.setattr(httpx.Client, "__init__", recording(httpx.Client.__init__))
    monkeypatch.setattr(httpx.AsyncClient, "__init__", recording(httpx.AsyncClient.__init__))
    return made
