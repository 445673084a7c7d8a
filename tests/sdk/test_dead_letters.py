"""Dead letters (sdk/_dead_letters.py)."""

from __future__ import annotations

import httpx
import respx

import sdk
from tests.sdk._support import resolve

RECEIPT = {"message_id": "msg_1", "url": "https://my-api.test/hook", "deduplicated": False}


async def test_dead_letters(client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter) -> None:
    """list, retry and delete dead letters."""
    letter = {
        "message_id": "msg_1",
        "url": "https://my-api.test/hook",
        "attempts": 4,
        "last_error": "HTTP 503",
        "last_status_code": 503,
        "failed_at": "2026-11-29T12:10:00Z",
    }
    listing = api.get("/v1/dead-letters").mock(
        return_value=httpx.Response(200, json={"dead_letters": [letter]})
    )
    api.post("/v1/dead-letters/msg_1/retry").mock(return_value=httpx.Response(202, json=RECEIPT))
    delete = api.delete("/v1/dead-letters/msg_1").mock(return_value=httpx.Response(204))
    [dead] = await resolve(client.dead_letters.list(limit=5))
    assert (dead.last_status_code, dead.last_error) == (503, "HTTP 503")
    assert listing.calls.last.request.url.params["limit"] == "5"
    assert (await resolve(client.dead_letters.retry("msg_1"))).message_id == "msg_1"
    await resolve(client.dead_letters.delete("msg_1"))
    assert delete.call_count == 1
