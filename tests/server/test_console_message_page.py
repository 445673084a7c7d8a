"""One message's console page (``message_page`` in server/console/_messages.py) and the words the
message pages use for what happened, on both stores.

Messages are settled through the store contract, as the delivery engine would settle them.
"""

from __future__ import annotations

import time
from typing import Literal

from server.console._messages import outcome
from server.stores.base import MessageRecord, MessageState, Store
from tests.server._console import ADMIN_TOKEN, BILLING_TOKEN, console_app, sign_in
from tests.server.stores._support import attempt, new_message

BILLING_URL = "https://billing.example.com/hook"
OTHER_URL = "https://payroll.example.com/hook"


async def _settled(
    store: Store, url: str, *, outcome_: Literal["delivered", "failed"], retries: int = 3
) -> str:
    """A message to ``url`` whose first attempt ended ``outcome_``; its id."""
    [receipt] = await store.publish_messages(
        [new_message(url=url, retries=retries, headers={"X-Trace": "abc"})]
    )
    claimed = await store.claim_due_messages(now=time.time(), limit=10, lease_margin=30)
    [lease] = [message.lease_id for message in claimed if message.message_id == receipt.message_id]
    status = 200 if outcome_ == "delivered" else 503
    await store.record_attempt(
        receipt.message_id,
        attempt(1, status_code=status, response_excerpt="busy", error=None),
        lease_id=str(lease),
        outcome=outcome_,
    )
    return receipt.message_id


async def test_a_delivered_message_says_which_attempt_delivered_it(store_url: str) -> None:
    """The list and the message's page say "delivered on attempt 1", not the retry budget; the
    page has the attempt, the destination and the headers; the list links to it.
    """
    async with console_app(store_url) as running:
        assert isinstance(running.store, Store)
        message_id = await _settled(running.store, BILLING_URL, outcome_="delivered")
        await sign_in(running.console, ADMIN_TOKEN)
        listing = await running.console.get("/console/messages")
        assert "Delivered on attempt 1" in listing.text and "3 retries" not in listing.text
        assert f'href="/console/messages/{message_id}"' in listing.text
        page = await running.console.get(f"/console/messages/{message_id}")
        assert page.status_code == 200
        assert 'id="message-outcome">Delivered on attempt 1.' in page.text
        assert "attempt 1: 200" in page.text and BILLING_URL in page.text
        assert "X-Trace" in page.text and "abc" in page.text


async def test_a_failed_message_page_offers_the_dead_letter_actions(store_url: str) -> None:
    """A message whose retries ran out: its page says so, with Retry and Delete."""
    async with console_app(store_url) as running:
        assert isinstance(running.store, Store)
        message_id = await _settled(running.store, BILLING_URL, outcome_="failed", retries=0)
        await sign_in(running.console, BILLING_TOKEN)
        page = await running.console.get(f"/console/messages/{message_id}")
        assert "Failed after 1 attempt; its retries ran out." in page.text
        assert f"/console/dead-letters/{message_id}/retry" in page.text
        dead_letters = await running.console.get("/console/messages")
        assert dead_letters.text.count(f'href="/console/messages/{message_id}"') == 2


async def test_another_namespace_message_page_is_refused(store_url: str) -> None:
    """The billing token may not see a payroll message's page (403), nor an unknown one (404)."""
    async with console_app(store_url) as running:
        assert isinstance(running.store, Store)
        theirs = await _settled(running.store, OTHER_URL, outcome_="delivered")
        await sign_in(running.console, BILLING_TOKEN)
        refused = await running.console.get(f"/console/messages/{theirs}")
        assert refused.status_code == 403 and OTHER_URL not in refused.text
        missing = await running.console.get("/console/messages/msg_0000")
        assert missing.status_code == 404


def _message(state: MessageState, *, attempts: int, used: int, retries: int = 3) -> MessageRecord:
    return MessageRecord(
        message_id="msg_1",
        url=BILLING_URL,
        body=b"",
        content_type="application/json",
        method="POST",
        headers={},
        state=state,
        retries=retries,
        timeout=30,
        created_at=0.0,
        not_before=0.0,
        attempts=[attempt(number) for number in range(1, attempts + 1)],
        retries_used=used,
    )


def test_the_words_say_what_happened_not_the_budget() -> None:
    """Each state in words: attempts made and left, never the bare retry count."""
    assert outcome(_message("delivered", attempts=2, used=2)) == "delivered on attempt 2"
    assert outcome(_message("failed", attempts=4, used=4)) == (
        "failed after 4 attempts; its retries ran out"
    )
    assert outcome(_message("cancelled", attempts=0, used=0)) == "cancelled"
    assert outcome(_message("cancelled", attempts=1, used=1)) == "cancelled after 1 attempt"
    assert outcome(_message("delivering", attempts=1, used=1)) == "attempt 2 of 4 under way"
    assert outcome(_message("scheduled", attempts=0, used=0)) == "not tried yet; up to 4 attempts"
    assert (
        outcome(_message("scheduled", attempts=2, used=2)) == "2 of 4 attempts failed; trying again"
    )
    assert outcome(_message("scheduled", attempts=4, used=0)) == (
        "retried after 4 attempts; up to 4 more"
    )
