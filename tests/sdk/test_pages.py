"""Listings iterated page by page (sdk/_pages.py): `streams.list()` and `messages.list()`, on
both clients.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import collect

_SUMMARY = {"length": 2, "first_id": "1-0", "last_id": "2-0", "group_count": 1}
_MESSAGE = {
    "url": "https://example.com/hooks/signup",
    "method": "POST",
    "content_type": "application/json",
    "headers": {},
    "state": "failed",
    "retries": 0,
    "timeout": 30,
    "created_at": "2026-11-29T12:00:00Z",
    "not_before": "2026-11-29T12:00:00Z",
    "attempts": [],
}


async def test_streams_list_follows_the_cursor_until_it_is_null(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Each page asks from the cursor the one before answered; the items come in order."""
    route = api.get("/v1/streams").mock(
        side_effect=[
            httpx.Response(
                200,
                json={"streams": [{"stream": "a", **_SUMMARY}], "next_cursor": "czph"},
            ),
            httpx.Response(200, json={"streams": [], "next_cursor": "czpi"}),
            httpx.Response(
                200,
                json={
                    "streams": [{"stream": "c", "length": 0, "group_count": 0}],
                    "next_cursor": None,
                },
            ),
        ]
    )
    streams = await collect(client.streams.list(prefix="a", limit=1))
    assert streams == [
        sdk.StreamSummary(name="a", length=2, first_id="1-0", last_id="2-0", group_count=1),
        sdk.StreamSummary(name="c", length=0, first_id=None, last_id=None, group_count=0),
    ]
    assert [dict(call.request.url.params) for call in route.calls] == [
        {"prefix": "a", "limit": "1"},
        {"prefix": "a", "limit": "1", "cursor": "czph"},
        {"prefix": "a", "limit": "1", "cursor": "czpi"},
    ]


async def test_a_listing_sends_nothing_until_it_is_read(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """The first page is asked for when the iterator is first read, not when it is made."""
    route = api.get("/v1/streams").mock(
        return_value=httpx.Response(200, json={"streams": [], "next_cursor": None})
    )
    listing = client.streams.list()
    assert not route.called
    assert await collect(listing) == []
    assert dict(route.calls.last.request.url.params) == {"limit": "100"}


async def test_messages_list_filters_and_reads_each_message(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """`state` and `url_group` are sent with each page; each item is a `Message`."""
    route = api.get("/v1/messages").mock(
        side_effect=[
            httpx.Response(
                200, json={"messages": [{"message_id": "msg_2", **_MESSAGE}], "next_cursor": "bTo1"}
            ),
            httpx.Response(
                200, json={"messages": [{"message_id": "msg_1", **_MESSAGE}], "next_cursor": None}
            ),
        ]
    )
    messages = await collect(client.messages.list(state="failed", url_group="partners", limit=1))
    assert [message.message_id for message in messages] == ["msg_2", "msg_1"]
    assert messages[0].created_at == datetime(2026, 11, 29, 12, tzinfo=UTC)
    assert dict(route.calls[1].request.url.params) == {
        "state": "failed",
        "url_group": "partners",
        "limit": "1",
        "cursor": "bTo1",
    }


@pytest.mark.parametrize(
    ("listing", "error"),
    [
        (lambda c: c.streams.list(prefix="a b"), sdk.InvalidArgumentError),
        (lambda c: c.streams.list(limit=0), sdk.InvalidArgumentError),
        (lambda c: c.messages.list(state="lost"), sdk.InvalidArgumentError),
        (lambda c: c.messages.list(url_group="no/pe"), sdk.InvalidNameError),
        (lambda c: c.messages.list(limit=1001), sdk.InvalidArgumentError),
    ],
)
async def test_bad_arguments_raise_before_any_request(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    listing: Callable[[Any], object],
    error: type[Exception],
) -> None:
    """A listing checks its arguments when it is made, and sends nothing."""
    with pytest.raises(error):
        listing(client)
    assert not api.calls
