"""The console's stream pages (server/console/_streams.py) on both stores: what they show, what a
scoped token may see of them, the live numbers, and trimming.
"""

from __future__ import annotations

import httpx

from server.console._streams import LAG_LIMIT, _after
from server.stores.base import MAX_ID_PART
from tests.server._console import ADMIN_TOKEN, BILLING_TOKEN, console_app, csrf_of, sign_in


async def _seed(api: httpx.AsyncClient) -> None:
    for stream in ("billing-events", "orders"):
        bodies = [{"body": {"n": n}} for n in range(4)]
        await api.post(f"/v1/streams/{stream}/batch", json={"entries": bodies})
        await api.post(f"/v1/streams/{stream}/groups", json={"group": "g", "start_id": "0"})
        await api.post(f"/v1/streams/{stream}/groups/g/read", json={"consumer": "c", "count": 1})


async def test_a_scoped_token_sees_only_its_streams(store_url: str) -> None:
    """The billing token lists billing-* only; another stream's page and numbers are 403."""
    async with console_app(store_url) as running:
        await _seed(running.api)
        await sign_in(running.console, BILLING_TOKEN)
        listing = await running.console.get("/console/streams")
        assert "billing-events" in listing.text and "orders" not in listing.text
        live = (await running.console.get("/console/live/streams")).json()
        assert live == {"length/billing-events": 4}
        refused = await running.console.get("/console/streams/orders")
        assert refused.status_code == 403 and "permission_denied" in refused.text
        assert '"n"' not in refused.text
        assert (await running.console.get("/console/live/streams/orders")).status_code == 403
        csrf = csrf_of(listing)
        trim = await running.console.post(
            "/console/streams/orders/trim", data={"maxlen": "0", "csrf": csrf}
        )
        assert trim.status_code == 403
        assert (await running.api.get("/v1/streams/orders")).json()["length"] == 4


async def test_the_stream_page_shows_ends_groups_lag_and_entries(store_url: str) -> None:
    """Length, first and last id, the group's pending count and lag, and the entries as JSON."""
    async with console_app(store_url) as running:
        await _seed(running.api)
        info = (await running.api.get("/v1/streams/orders")).json()
        await sign_in(running.console, ADMIN_TOKEN)
        page = await running.console.get("/console/streams/orders")
        assert page.status_code == 200
        assert info["first_id"] in page.text and info["last_id"] in page.text
        live = (await running.console.get("/console/live/streams/orders")).json()
        assert live == {
            "length": 4,
            "first_id": info["first_id"],
            "last_id": info["last_id"],
            "pending/g": 1,
            "lag/g": "3",
        }
        assert page.text.count('class="entry"') == 4
        assert "&#34;n&#34;: 3" in page.text


async def test_trim_keeps_the_newest_entries(store_url: str) -> None:
    """Trim to maxlen, then back to the page saying how many went; a bad maxlen is 422."""
    async with console_app(store_url) as running:
        await _seed(running.api)
        csrf = await sign_in(running.console, ADMIN_TOKEN)
        bad = await running.console.post(
            "/console/streams/orders/trim", data={"maxlen": "-1", "csrf": csrf}
        )
        assert bad.status_code == 422
        done = await running.console.post(
            "/console/streams/orders/trim", data={"maxlen": "1", "csrf": csrf}
        )
        assert done.status_code == 303
        assert done.headers["location"].startswith("/console/streams/orders?notice=trimmed+3")
        assert (await running.api.get("/v1/streams/orders")).json()["length"] == 1


async def test_unknown_and_invalid_streams_are_error_pages(store_url: str) -> None:
    """A missing stream is the API's 404, an invalid name its 400, both as console pages."""
    async with console_app(store_url) as running:
        await sign_in(running.console, ADMIN_TOKEN)
        missing = await running.console.get("/console/streams/nothing-here")
        assert missing.status_code == 404 and "stream_not_found" in missing.text
        invalid = await running.console.get("/console/streams/-bad")
        assert invalid.status_code == 400 and "invalid_name" in invalid.text
        assert (await running.console.get("/console/live/streams/nothing-here")).json() == {
            "error": "stream_not_found"
        }


async def test_lag_is_counted_up_to_its_limit(sqlite_store_url: str) -> None:
    """A group further behind than LAG_LIMIT entries shows the limit and a plus."""
    async with console_app(sqlite_store_url) as running:
        for _ in range(3):
            bodies = [{"body": n} for n in range(LAG_LIMIT // 2)]
            await running.api.post("/v1/streams/long/batch", json={"entries": bodies})
        await running.api.post("/v1/streams/long/groups", json={"group": "g", "start_id": "0"})
        await sign_in(running.console, ADMIN_TOKEN)
        live = (await running.console.get("/console/live/streams/long")).json()
        assert live["lag/g"] == f"{LAG_LIMIT}+"


def test_the_id_after_another_carries_into_the_milliseconds() -> None:
    """Lag is read from the id after the group's last delivered one, whatever its parts."""
    assert _after("5-7") == "5-8"
    assert _after(f"5-{MAX_ID_PART}") == "6-0"
    assert _after(f"{MAX_ID_PART}-{MAX_ID_PART}") is None


async def test_an_entry_has_a_page_that_ids_link_to(store_url: str) -> None:
    """Entry ids on the stream pages link to the entry's page: its body, its time, and which
    groups have been given it; another namespace's entry is 403, an unknown one 404.
    """
    async with console_app(store_url) as running:
        await _seed(running.api)
        await sign_in(running.console, BILLING_TOKEN)
        info = (await running.api.get("/v1/streams/billing-events")).json()
        first, last = info["first_id"], info["last_id"]
        stream_page = await running.console.get("/console/streams/billing-events")
        listing = await running.console.get("/console/streams")
        for page in (stream_page, listing):
            assert f'href="/console/streams/billing-events/entries/{last}"' in page.text
        entry = await running.console.get(f"/console/streams/billing-events/entries/{first}")
        assert entry.status_code == 200
        assert "&#34;n&#34;: 0" in entry.text and "UTC" in entry.text
        assert "given to the group" in entry.text
        later = await running.console.get(f"/console/streams/billing-events/entries/{last}")
        assert "not given to the group yet" in later.text
        gone = await running.console.get("/console/streams/billing-events/entries/1-0")
        assert gone.status_code == 404 and "has no entry" in gone.text
        bad = await running.console.get("/console/streams/billing-events/entries/nope")
        assert bad.status_code == 422
        other = (await running.api.get("/v1/streams/orders")).json()["first_id"]
        refused = await running.console.get(f"/console/streams/orders/entries/{other}")
        assert refused.status_code == 403
