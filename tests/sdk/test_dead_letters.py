"""Dead letters (sdk/_dead_letters.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
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


def _bulk_answer(request: httpx.Request) -> httpx.Response:
    """The service's answer to a bulk request naming ids: each retried (or deleted) but
    ``msg_gone``.
    """
    body = json.loads(request.content)
    done = "retried" if request.url.path.endswith("/retry") else "deleted"
    results = [
        {"message_id": i, "outcome": "not_found" if i == "msg_gone" else done} for i in body["ids"]
    ]
    acted = [r["message_id"] for r in results if r["outcome"] == done]
    return httpx.Response(
        200,
        json={"acted": len(acted), "message_ids": acted, "next_cursor": None, "results": results},
    )


async def test_retry_sends_headers_only_when_given(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A retry without headers has no body; with them, they are its body's ``headers``."""
    retry = api.post("/v1/dead-letters/msg_1/retry").mock(
        return_value=httpx.Response(202, json=RECEIPT)
    )
    await resolve(client.dead_letters.retry("msg_1"))
    assert retry.calls.last.request.content == b""
    await resolve(client.dead_letters.retry("msg_1", headers={"Authorization": "Bearer t"}))
    assert json.loads(retry.calls.last.request.content) == {
        "headers": {"Authorization": "Bearer t"}
    }


async def test_retry_many_and_delete_many_name_up_to_1000_ids_a_request(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Distinct ids in order, 1000 per request, and one result per id."""
    retry = api.post("/v1/dead-letters/retry").mock(side_effect=_bulk_answer)
    delete = api.post("/v1/dead-letters/delete").mock(side_effect=_bulk_answer)
    ids = [f"msg_{n}" for n in range(1500)]
    results = await resolve(
        client.dead_letters.retry_many([*ids, "msg_gone", "msg_0"], headers={"X-Retry": "1"})
    )
    assert [r.message_id for r in results] == [*ids, "msg_gone"]
    assert results[-2:] == [
        sdk.DeadLetterResult("msg_1499", "retried"),
        sdk.DeadLetterResult("msg_gone", "not_found"),
    ]
    sent = [json.loads(call.request.content) for call in retry.calls]
    assert [len(body["ids"]) for body in sent] == [1000, 501]
    assert all(body["headers"] == {"X-Retry": "1"} for body in sent)
    deleted = await resolve(client.dead_letters.delete_many(["msg_1"]))
    assert deleted == [sdk.DeadLetterResult("msg_1", "deleted")]
    assert json.loads(delete.calls.last.request.content) == {"ids": ["msg_1"]}
    assert await resolve(client.dead_letters.delete_many([])) == []
    assert delete.call_count == 1


async def test_retry_all_and_delete_all_follow_the_cursor_and_count(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Each request sends the same filter (or ``all``) and page size with the cursor the last
    answered, until it is null; the counts add up.
    """
    pages = iter(
        [
            {"acted": 2, "message_ids": ["msg_1", "msg_2"], "next_cursor": "ZDoxLjA6MQ"},
            {"acted": 1, "message_ids": ["msg_3"], "next_cursor": None},
        ]
    )
    retry = api.post("/v1/dead-letters/retry").mock(
        side_effect=lambda _: httpx.Response(200, json=next(pages))
    )
    since = datetime(2026, 11, 29, 6, tzinfo=UTC)
    acted = await resolve(
        client.dead_letters.retry_all(
            url_group="partners",
            label="signup",
            schedule="nightly",
            flow_control_key="acme",
            since=since,
            until=since.timestamp() + 3600,
            page_size=2,
        )
    )
    assert acted == 3
    first, second = (json.loads(call.request.content) for call in retry.calls)
    assert first == {
        "filter": {
            "url_group": "partners",
            "label": "signup",
            "schedule": "nightly",
            "flow_control_key": "acme",
            "from": "2026-11-29T06:00:00+00:00",
            "to": "2026-11-29T07:00:00+00:00",
        },
        "limit": 2,
    }
    assert second == {**first, "cursor": "ZDoxLjA6MQ"}
    delete = api.post("/v1/dead-letters/delete").mock(
        return_value=httpx.Response(200, json={"acted": 4, "message_ids": [], "next_cursor": None})
    )
    assert await resolve(client.dead_letters.delete_all()) == 4
    assert json.loads(delete.calls.last.request.content) == {"all": True, "limit": 100}


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda d: d.retry_all(since=datetime(2026, 11, 29)), sdk.InvalidArgumentError),
        (lambda d: d.delete_all(page_size=0), sdk.InvalidArgumentError),
        (lambda d: d.delete_all(page_size=1001), sdk.InvalidArgumentError),
        (lambda d: d.retry_all(url=""), sdk.InvalidArgumentError),
        (lambda d: d.retry_all(url_group="bad name"), sdk.InvalidNameError),
        (lambda d: d.retry_all(label="bad label"), sdk.InvalidArgumentError),
        (lambda d: d.delete_all(label=["signup"]), sdk.InvalidArgumentError),
        (lambda d: d.delete_all(schedule="bad name"), sdk.InvalidNameError),
        (lambda d: d.retry_all(flow_control_key="-x"), sdk.InvalidNameError),
        (lambda d: d.retry_many("msg_1"), sdk.InvalidArgumentError),
        (lambda d: d.delete_many([""]), sdk.InvalidArgumentError),
        (lambda d: d.retry_many(["msg_1"], headers={"X": 1}), sdk.InvalidArgumentError),
    ],
)
async def test_bad_bulk_arguments_are_refused_before_sending(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    call: Callable[[Any], Any],
    error: type[Exception],
) -> None:
    """Nothing is sent for a bad filter, page size, id or header."""
    with pytest.raises(error):
        await resolve(call(client.dead_letters))
    assert not api.calls


async def test_a_misspelled_filter_is_refused_with_a_suggestion(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A typo in a keyword is a TypeError naming the one meant, before anything is sent."""
    with pytest.raises(TypeError, match="did you mean 'url_group'"):
        await resolve(client.dead_letters.retry_all(url_gruop="partners"))  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="did you mean 'until'"):
        await resolve(client.dead_letters.delete_all(untill=0))  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="did you mean 'flow_control_key'"):
        await resolve(client.dead_letters.retry_all(flow_control_kye="acme"))  # type: ignore[call-arg]
    assert not api.calls
