"""The listing operations over HTTP, on both stores: listStreams (server/routes/streams.py) and
listMessages (server/routes/messages.py), their pages, filters and what each token sees.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import pytest

from generated.pydantic_models import MessageList, StreamList
from server.config import ALL_ACTIONS, Permission, Settings, TokenConfig
from tests.conftest import TEST_DESTINATIONS, RunningApp, assert_problem

AppFactory = Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]]
HOOK = "https://example.com/hooks/signup"


async def _pages(api: RunningApp, path: str, **params: Any) -> list[dict[str, Any]]:
    """Every page of a listing, following ``next_cursor`` until it is null."""
    pages: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = {**params, **({} if cursor is None else {"cursor": cursor})}
        response = await api.client.get(path, params=query)
        assert response.status_code == 200, response.text
        pages.append(response.json())
        cursor = response.json()["next_cursor"]
        if cursor is None:
            return pages


async def _publish(api: RunningApp, **message: object) -> str:
    response = await api.client.post("/v1/messages", json={"url": HOOK, "body": "x", **message})
    assert response.status_code == 202, response.text
    message_id: str = response.json()["messages"][0]["message_id"]
    return message_id


def _settings(store_url: str, *rules: tuple[str, str]) -> Settings:
    """An admin token (``secret-admin``) and one (``secret-some``) with every action on the
    ``(resource, glob)`` pairs of ``rules``.
    """
    admin = TokenConfig(
        id="admin",
        secret="secret-admin",
        permissions=tuple(
            Permission(resource=kind, name="*", actions=ALL_ACTIONS)
            for kind in ("stream", "queue", "message", "url_group")
        ),
    )
    some = TokenConfig(
        id="some",
        secret="secret-some",
        permissions=tuple(
            Permission(resource=kind, name=glob, actions=ALL_ACTIONS)  # type: ignore[arg-type]
            for kind, glob in rules
        ),
    )
    return Settings(
        tokens=(admin, some), store_url=store_url, allowed_destinations=TEST_DESTINATIONS
    )


SOME = {"Authorization": "Bearer secret-some"}


# listStreams -----------------------------------------------------------------------------------


async def test_list_streams_pages_by_name_with_a_prefix(api: RunningApp) -> None:
    """``prefix`` narrows the streams, ``limit`` sizes each page and ``cursor`` goes on from the
    previous one; each stream shows its length, ends and group count.
    """
    for name in ("orders.eu", "audit", "orders", "orders.us"):
        response = await api.client.post(f"/v1/streams/{name}/entries", json={"body": 1})
        assert response.status_code == 201
    await api.client.post("/v1/streams/orders/groups", json={"group": "billing"})
    pages = await _pages(api, "/v1/streams", prefix="orders", limit=2)
    assert [len(page["streams"]) for page in pages] == [2, 1]
    listed = [StreamList.model_validate(page) for page in pages]
    streams = [summary for page in listed for summary in page.streams]
    assert [s.stream for s in streams] == ["orders", "orders.eu", "orders.us"]
    assert (streams[0].length, streams[0].group_count) == (1, 1)
    assert streams[0].first_id == streams[0].last_id
    assert (await api.client.get("/v1/streams")).json()["next_cursor"] is None
    everything = (await api.client.get("/v1/streams")).json()["streams"]
    assert [s["stream"] for s in everything] == ["audit", "orders", "orders.eu", "orders.us"]


async def test_list_streams_shows_only_the_streams_the_token_may_see(
    app_factory: AppFactory, store_url: str
) -> None:
    """Streams outside the token's permission are left out of each page, which may then be
    short, and the cursor still goes on; a token with no stream permission gets 403.
    """
    settings = _settings(store_url, ("stream", "b*"), ("queue", "*"))
    async with app_factory(settings, token="secret-admin") as running:
        for name in ("a1", "b1", "a2", "b2", "c1"):
            await running.client.post(f"/v1/streams/{name}/entries", json={"body": 1})
        pages = await _pages(running, "/v1/streams", limit=2)
        assert len(pages) == 3
        running.client.headers.update(SOME)
        seen = await _pages(running, "/v1/streams", limit=2)
        assert [[s["stream"] for s in page["streams"]] for page in seen] == [[], ["b1", "b2"], []]
    denied = _settings(store_url, ("queue", "*"))
    async with app_factory(denied, token="secret-some") as running:
        assert_problem(await running.client.get("/v1/streams"), 403, "permission_denied")


@pytest.mark.parametrize(
    ("params", "location"),
    [
        ({"prefix": "a b"}, "query.prefix"),
        ({"limit": "0"}, "query.limit"),
        ({"limit": "1001"}, "query.limit"),
        ({"cursor": "not a cursor"}, "query.cursor"),
    ],
)
async def test_list_streams_refuses_bad_parameters(
    api: RunningApp, params: dict[str, str], location: str
) -> None:
    """A parameter outside its schema is 422 at that parameter."""
    problem = assert_problem(
        await api.client.get("/v1/streams", params=params), 422, "validation_failed"
    )
    assert problem["errors"][0]["location"] == location


async def test_a_cursor_of_another_listing_is_422(api: RunningApp) -> None:
    """A message listing's cursor does not go on with a stream listing, nor the other way: 422
    at ``query.cursor``, before the store is asked.
    """
    for path, cursor in (("/v1/streams", "bTo0Mg"), ("/v1/messages", "czpvcmRlcnM")):
        response = await api.client.get(path, params={"cursor": cursor})
        problem = assert_problem(response, 422, "validation_failed")
        assert [error["location"] for error in problem["errors"]] == ["query.cursor"]
        assert "is not this listing's" in problem["errors"][0]["message"]


# listMessages ----------------------------------------------------------------------------------


async def test_list_messages_pages_newest_first(api: RunningApp) -> None:
    """Every message comes once, newest first, as getMessage shows it; ``limit`` sizes pages."""
    ids = [await _publish(api, body=str(n)) for n in range(3)]
    pages = await _pages(api, "/v1/messages", limit=2)
    assert [len(page["messages"]) for page in pages] == [2, 1]
    listed = [m for page in pages for m in MessageList.model_validate(page).messages]
    assert [m.message_id for m in listed] == ids[::-1]
    shown = (await api.client.get(f"/v1/messages/{ids[0]}")).json()
    assert pages[-1]["messages"][0] == shown


async def test_list_messages_filters_by_state_and_url_group(api: RunningApp) -> None:
    """``state`` lists the messages in that state, ``url_group`` those published to the group."""
    await api.client.put(
        "/v1/url-groups/partners",
        json={"endpoints": [{"url": "https://example.com/a"}, {"url": "https://example.com/b"}]},
    )
    grouped = await api.client.post("/v1/messages", json={"url_group": "partners", "body": 1})
    grouped_ids = [m["message_id"] for m in grouped.json()["messages"]]
    cancelled = await _publish(api, delay=60)
    await api.client.post(f"/v1/messages/{cancelled}/cancel")
    by_group = (await api.client.get("/v1/messages", params={"url_group": "partners"})).json()
    assert sorted(m["message_id"] for m in by_group["messages"]) == sorted(grouped_ids)
    by_state = (await api.client.get("/v1/messages", params={"state": "cancelled"})).json()
    assert [m["message_id"] for m in by_state["messages"]] == [cancelled]
    both = await api.client.get(
        "/v1/messages", params={"state": "cancelled", "url_group": "partners"}
    )
    assert both.json() == {"messages": [], "next_cursor": None}
    bad = await api.client.get("/v1/messages", params={"state": "lost"})
    assert assert_problem(bad, 422, "validation_failed")["errors"][0]["location"] == "query.state"


async def test_list_messages_shows_only_the_messages_the_token_may_see(
    app_factory: AppFactory, store_url: str
) -> None:
    """A message is listed when the token may consume its URL or its URL group, else left out;
    a token without consume on messages gets 403.
    """
    settings = _settings(store_url, ("message", "https://example.com/mine/*"))
    async with app_factory(settings, token="secret-admin") as running:
        mine = await _publish(running, url="https://example.com/mine/1")
        await _publish(running, url="https://example.com/theirs/1")
        running.client.headers.update(SOME)
        seen = await _pages(running, "/v1/messages")
        assert [m["message_id"] for page in seen for m in page["messages"]] == [mine]
    publish_only = Settings(
        tokens=(
            TokenConfig(
                id="some",
                secret="secret-some",
                permissions=(
                    Permission(resource="message", name="*", actions=frozenset({"publish"})),
                ),
            ),
        ),
        store_url=store_url,
    )
    async with app_factory(publish_only, token="secret-some") as running:
        assert_problem(await running.client.get("/v1/messages"), 403, "permission_denied")
