"""The console's message page (server/console/_messages.py) on both stores: recent messages by
state with their attempts, dead letters and URL groups, a scoped token's view, and the actions.

Messages are settled through the store contract (no delivery engine runs in-process), as the
delivery engine would settle them.
"""

from __future__ import annotations

import time

from server.stores.base import Store
from tests.server._console import (
    ADMIN_TOKEN,
    BILLING_TOKEN,
    HOOKS_TOKEN,
    ConsoleApp,
    console_app,
    csrf_of,
    sign_in,
)
from tests.server.stores._support import attempt, new_message

BILLING_URL = "https://billing.example.com/hook"
OTHER_URL = "https://payroll.example.com/hook"


async def _failed(store: Store, url: str) -> str:
    """A message to ``url`` whose only attempt failed, so it is a dead letter; its id."""
    [receipt] = await store.publish_messages([new_message(url=url, retries=0)])
    claimed = await store.claim_due_messages(now=time.time(), limit=10, lease_margin=30)
    [lease] = [message.lease_id for message in claimed if message.message_id == receipt.message_id]
    await store.record_attempt(
        receipt.message_id,
        attempt(1, status_code=500, response_excerpt="<b>oops</b> " + "x" * 300, error="HTTP 500"),
        lease_id=str(lease),
        outcome="failed",
    )
    return receipt.message_id


async def _scheduled(store: Store, url: str) -> str:
    [receipt] = await store.publish_messages([new_message(url=url, not_before=time.time() + 3600)])
    return receipt.message_id


def _store(running: ConsoleApp) -> Store:
    assert isinstance(running.store, Store)
    return running.store


async def test_the_page_shows_attempts_dead_letters_and_url_groups(store_url: str) -> None:
    """Counts by state, each attempt (status, duration, the answer's start, the error), the dead
    letter, and the URL groups.
    """
    async with console_app(store_url) as running:
        store = _store(running)
        failed = await _failed(store, BILLING_URL)
        scheduled = await _scheduled(store, BILLING_URL)
        await running.api.put(
            "/v1/url-groups/billing-hooks", json={"endpoints": [{"url": BILLING_URL}]}
        )
        await sign_in(running.console, ADMIN_TOKEN)
        live = (await running.console.get("/console/live/messages")).json()
        assert live == {
            "scheduled": 1,
            "delivering": 0,
            "delivered": 0,
            "failed": 1,
            "cancelled": 0,
            "dead_letters": 1,
        }
        page = await running.console.get("/console/messages")
        assert failed in page.text and scheduled in page.text
        assert "&lt;b&gt;oops&lt;/b&gt;" in page.text and "x" * 300 not in page.text
        assert "12 ms" in page.text and "HTTP 500" in page.text
        assert f'data-dead-letter="{failed}"' in page.text
        assert "billing-hooks" in page.text
        only_failed = await running.console.get("/console/messages?state=failed")
        assert failed in only_failed.text and f'data-message="{scheduled}"' not in only_failed.text
        assert (await running.console.get("/console/messages?state=lost")).status_code == 422


async def test_redacted_parts_never_reach_the_console(store_url: str) -> None:
    """Neither the messages page, its live counts nor the schedules page show a redacted
    header's value or a redacted body, of a message or of a schedule's message.
    """
    message = {
        "url": BILLING_URL,
        "body": {"card": "4111-secret-body"},
        "headers": {"Authorization": "Bearer secret-header"},
        "callback": BILLING_URL,
        "callback_headers": {"authorization": "Bearer secret-callback"},
        "delay": 3600,
        "redact": {"body": True, "headers": ["Authorization"]},
    }
    async with console_app(store_url) as running:
        published = await running.api.post("/v1/messages", json=message)
        assert published.status_code == 202, published.text
        message_id = published.json()["messages"][0]["message_id"]
        scheduled = await running.api.put(
            "/v1/schedules/redacted",
            json={"cron": "0 0 * * *", "destination": {"kind": "message", "message": message}},
        )
        assert scheduled.status_code in (200, 201), scheduled.text
        await sign_in(running.console, ADMIN_TOKEN)
        pages = [
            await running.console.get(path)
            for path in ("/console/messages", "/console/live/messages", "/console/schedules")
        ]
    assert message_id in pages[0].text and "redacted" in pages[2].text
    for page in pages:
        assert page.status_code == 200
        assert "secret" not in page.text


async def test_a_scoped_token_sees_only_its_messages(store_url: str) -> None:
    """The billing token sees messages and dead letters to its URL only, and may not act on
    another's.
    """
    async with console_app(store_url) as running:
        store = _store(running)
        mine = await _failed(store, BILLING_URL)
        theirs = await _failed(store, OTHER_URL)
        scheduled = await _scheduled(store, OTHER_URL)
        await running.api.put("/v1/url-groups/payroll", json={"endpoints": [{"url": OTHER_URL}]})
        await sign_in(running.console, BILLING_TOKEN)
        page = await running.console.get("/console/messages")
        assert mine in page.text and theirs not in page.text and scheduled not in page.text
        assert OTHER_URL not in page.text and "payroll" not in page.text
        live = (await running.console.get("/console/live/messages")).json()
        assert (live["failed"], live["dead_letters"], live["scheduled"]) == (1, 1, 0)
        csrf = csrf_of(page)
        for path in (
            f"/console/dead-letters/{theirs}/retry",
            f"/console/dead-letters/{theirs}/delete",
            f"/console/messages/{scheduled}/cancel",
        ):
            refused = await running.console.post(path, data={"csrf": csrf})
            assert refused.status_code == 403, path
        assert [
            dead.message_id for dead in (await store.list_dead_letters(limit=10)).dead_letters
        ].count(theirs) == 1
        assert (await store.get_message(scheduled)).state == "scheduled"


async def test_a_token_without_url_groups_still_sees_its_messages(store_url: str) -> None:
    """A token with no URL group permission sees the page, saying it may not see URL groups."""
    async with console_app(store_url) as running:
        mine = await _failed(_store(running), BILLING_URL)
        await sign_in(running.console, HOOKS_TOKEN)
        page = await running.console.get("/console/messages")
        assert page.status_code == 200
        assert mine in page.text and "may not see URL groups" in page.text


async def test_retry_delete_and_cancel(store_url: str) -> None:
    """Retry schedules a dead letter's message again, delete forgets one, cancel stops a
    scheduled message; a second retry is the API's 404.
    """
    async with console_app(store_url) as running:
        store = _store(running)
        retried = await _failed(store, BILLING_URL)
        deleted = await _failed(store, BILLING_URL)
        scheduled = await _scheduled(store, BILLING_URL)
        csrf = await sign_in(running.console, BILLING_TOKEN)
        retry = await running.console.post(
            f"/console/dead-letters/{retried}/retry", data={"csrf": csrf}
        )
        assert retry.status_code == 303 and "scheduled+again" in retry.headers["location"]
        assert (await store.get_message(retried)).state == "scheduled"
        delete = await running.console.post(
            f"/console/dead-letters/{deleted}/delete", data={"csrf": csrf}
        )
        assert delete.status_code == 303
        assert [
            dead.message_id for dead in (await store.list_dead_letters(limit=10)).dead_letters
        ] == []
        assert (await store.get_message(deleted)).state == "failed"
        cancel = await running.console.post(
            f"/console/messages/{scheduled}/cancel", data={"csrf": csrf}
        )
        assert cancel.status_code == 303
        assert (await store.get_message(scheduled)).state == "cancelled"
        again = await running.console.post(
            f"/console/dead-letters/{retried}/retry", data={"csrf": csrf}
        )
        assert again.status_code == 404 and "dead_letter_not_found" in again.text
        missing = await running.console.post(
            "/console/dead-letters/msg_nothing/retry", data={"csrf": csrf}
        )
        assert missing.status_code == 404 and "dead_letter_not_found" in missing.text


async def test_the_filters_narrow_the_list_and_each_message_shows_its_log(store_url: str) -> None:
    """The filter inputs pass a label (and the other filters) to the listing, kept across the
    state tabs; a message's page shows its labels and its events, newest first.
    """
    async with console_app(store_url) as running:
        assert isinstance(running.store, Store)
        [labelled, plain] = await running.store.publish_messages(
            [new_message(labels=("signup",), not_before=time.time() + 3600), new_message()]
        )
        await running.store.cancel_message(labelled.message_id)
        await sign_in(running.console, ADMIN_TOKEN)
        listing = await running.console.get(
            "/console/messages", params={"label": "signup", "url": "", "schedule": " "}
        )
        assert listing.status_code == 200
        assert labelled.message_id in listing.text and plain.message_id not in listing.text
        assert 'id="filter-label" value="signup"' in listing.text
        assert "state=cancelled&amp;label=signup" in listing.text
        bad = await running.console.get("/console/messages", params={"label": "no label"})
        assert bad.status_code == 422
        page = await running.console.get(f"/console/messages/{labelled.message_id}")
        assert 'id="message-labels">signup<' in page.text
        log = page.text[page.text.index('id="message-log"') :]
        assert log.index('data-event="cancelled"') < log.index('data-event="created"')


async def _dead_ids(store: Store) -> list[str]:
    return [dead.message_id for dead in (await store.list_dead_letters(limit=100)).dead_letters]


async def test_the_ticked_dead_letters_are_retried_or_deleted(store_url: str) -> None:
    """Each row has a box for the "selected" form; its retry schedules the ticked letters again
    and its delete forgets them, leaving the others.
    """
    async with console_app(store_url) as running:
        store = _store(running)
        first, second, kept = [await _failed(store, BILLING_URL) for _ in range(3)]
        await sign_in(running.console, BILLING_TOKEN)
        page = await running.console.get("/console/messages")
        assert page.text.count('form="dead-letters-selected"') == 3
        csrf = csrf_of(page)
        retry = await running.console.post(
            "/console/dead-letters/retry", data={"csrf": csrf, "message_id": [first, second]}
        )
        assert retry.status_code == 303, retry.text
        assert "2+dead+letters+retried" in retry.headers["location"]
        assert [(await store.get_message(m)).state for m in (first, second)] == ["scheduled"] * 2
        delete = await running.console.post(
            "/console/dead-letters/delete", data={"csrf": csrf, "message_id": [kept]}
        )
        assert "1+dead+letter+deleted" in delete.headers["location"]
        assert await _dead_ids(store) == []


async def test_all_needs_its_box_ticked_and_keeps_to_the_tokens_letters(store_url: str) -> None:
    """ "Delete all" without its confirming box deletes nothing; with it, every dead letter the
    visitor may act on goes and the others stay. Nothing ticked is refused too.
    """
    async with console_app(store_url) as running:
        store = _store(running)
        mine = [await _failed(store, BILLING_URL) for _ in range(2)]
        theirs = await _failed(store, OTHER_URL)
        await sign_in(running.console, BILLING_TOKEN)
        page = await running.console.get("/console/messages")
        assert "Delete all" in page.text and "Retry all" in page.text
        csrf = csrf_of(page)
        for data in ({"csrf": csrf, "all": "yes"}, {"csrf": csrf}):
            refused = await running.console.post("/console/dead-letters/delete", data=data)
            assert refused.status_code == 422, refused.text
        assert sorted(await _dead_ids(store)) == sorted([*mine, theirs])
        deleted = await running.console.post(
            "/console/dead-letters/delete", data={"csrf": csrf, "all": "yes", "confirm": "yes"}
        )
        assert deleted.status_code == 303, deleted.text
        assert "2+dead+letters+deleted" in deleted.headers["location"]
        assert await _dead_ids(store) == [theirs]
        stale = await running.console.post(
            "/console/dead-letters/retry", data={"csrf": "x", "all": "yes", "confirm": "yes"}
        )
        assert stale.status_code == 403
        assert await _dead_ids(store) == [theirs]
