"""Helpers of the run() tests: the stream they consume and fake answers of its group."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import respx

import sdk

ClientFactory = Callable[..., "sdk.Client | sdk.AsyncClient"]
ORDERS = sdk.Stream("orders", group="billing")
GROUP = "/v1/streams/orders/groups/billing"


def acked_ids(route: respx.Route) -> list[str]:
    """Every id the ackEntries calls of `route` sent, in order: run() batches them as it likes."""
    return [
        entry_id for call in route.calls for entry_id in json.loads(call.request.content)["ids"]
    ]


def acks_answer(request: httpx.Request) -> httpx.Response:
    """ackJobs's answer: every job acknowledged."""
    jobs = json.loads(request.content)["jobs"]
    return httpx.Response(
        200, json={"results": [{"job_id": job["job_id"], "acked": True} for job in jobs]}
    )


def entry(entry_id: str, body: Any, delivery_count: int = 1) -> dict[str, Any]:
    """A delivered entry."""
    return {"id": entry_id, "body": body, "delivery_count": delivery_count}


def read_answer(*entries: dict[str, Any]) -> httpx.Response:
    """readGroup's answer."""
    return httpx.Response(
        200, json={"stream": "orders", "group": "billing", "entries": list(entries)}
    )


def claim_answer(
    *entries: dict[str, Any], deleted: tuple[str, ...] = (), next_start_id: str = "0-0"
) -> httpx.Response:
    """claimEntries's answer."""
    return httpx.Response(
        200,
        json={
            "stream": "orders",
            "group": "billing",
            "next_start_id": next_start_id,
            "entries": list(entries),
            "deleted_ids": list(deleted),
        },
    )
