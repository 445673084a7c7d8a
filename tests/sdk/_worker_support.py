"""Helpers of the run() tests: the stream they consume and fake answers of its group."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

import sdk

ClientFactory = Callable[..., "sdk.Client | sdk.AsyncClient"]
ORDERS = sdk.Stream("orders", group="billing")
GROUP = "/v1/streams/orders/groups/billing"


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
