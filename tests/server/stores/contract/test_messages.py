"""The message, URL group and dead-letter checks of ``Store``, before any hook is called."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from server.stores.base import (
    DeadLetterFilter,
    DeadLetterPage,
    DeadLetterPosition,
    LogPage,
    MessageFilter,
    MessageLease,
    MessagePage,
    Store,
    UrlEndpoint,
)
from server.stores.cursors import dead_letter_cursor, log_cursor, message_cursor
from tests.server.stores._support import attempt, new_message
from tests.server.stores.contract._recording import ANSWER, RecordingStore, assert_refused


@pytest.mark.parametrize(
    ("call", "detail"),
    [
        (
            lambda s: s.publish_messages([new_message()], traceparent="00-x"),
            "traceparent '00-x' is not in the W3C format",
        ),
        (
            lambda s: s.publish_messages([new_message(), new_message(headers={"a": {1}})]),
            "message headers is not a JSON value: Object of type set is not JSON serializable",
        ),
        (
            lambda s: s.claim_due_messages(now=0, limit=0, lease_margin=0),
            "limit must be at least 1: 0",
        ),
        (
            lambda s: s.claim_due_messages(now=0, limit=1, lease_margin=-0.5),
            "lease_margin must be a number of seconds >= 0: -0.5",
        ),
        (
            lambda s: s.claim_due_messages(now=0, limit=1, lease_margin=math.nan),
            "lease_margin must be a number of seconds >= 0: nan",
        ),
        (
            lambda s: s.claim_due_messages(now=0, limit=1, lease_margin=math.inf),
            "lease_margin must be a number of seconds >= 0: inf",
        ),
        (
            lambda s: s.record_attempt("m", attempt(1), lease_id="l", outcome="lost"),
            "unknown delivery outcome 'lost'",
        ),
        (
            lambda s: s.record_attempt("m", attempt(1), lease_id="l", outcome="retry"),
            "a retry needs next_attempt_at",
        ),
        (lambda s: s.list_dead_letters(limit=0), "limit must be at least 1: 0"),
        (
            lambda s: s.list_dead_letters(selection=DeadLetterFilter(), limit=0, cursor=None),
            "limit must be at least 1: 0",
        ),
        (
            lambda s: s.list_dead_letters(selection=DeadLetterFilter(), limit=1001, cursor=None),
            "limit must be at most 1000: 1001",
        ),
        (
            lambda s: s.list_dead_letters(
                selection=DeadLetterFilter(filed_to=math.inf), limit=1, cursor=None
            ),
            "a filing time must be finite: inf",
        ),
        (
            lambda s: s.list_dead_letters(selection=DeadLetterFilter(), limit=1, cursor="bTo0Mg"),
            "cursor 'bTo0Mg' is not this listing's",
        ),
        (
            lambda s: s.list_dead_letters(selection=DeadLetterFilter(), limit=1, cursor="ZDp4OjE"),
            "cursor 'ZDp4OjE' names no dead letter position",
        ),
        (
            lambda s: s.retry_dead_letters([f"m{n}" for n in range(1001)]),
            "at most 1000 message ids at a time: 1001",
        ),
        (
            lambda s: s.delete_dead_letters([f"m{n}" for n in range(1001)]),
            "at most 1000 message ids at a time: 1001",
        ),
        (
            lambda s: s.find_dead_letters([f"m{n}" for n in range(1001)]),
            "at most 1000 message ids at a time: 1001",
        ),
        (
            lambda s: s.retry_dead_letter("m", headers={"X-A": {1}}),
            "message headers is not a JSON value: Object of type set is not JSON serializable",
        ),
        (
            lambda s: s.list_messages(where=MessageFilter(state="gone"), limit=1, cursor=None),
            "unknown state 'gone'",
        ),
        (
            lambda s: s.list_messages(limit=0, cursor=None),
            "limit must be at least 1: 0",
        ),
        (
            lambda s: s.list_messages(limit=1, cursor="czpvcmRlcnM"),
            "cursor 'czpvcmRlcnM' is not this listing's",
        ),
        (
            lambda s: s.list_messages(limit=1, cursor="bTp4"),
            "cursor 'bTp4' names no message position",
        ),
        (
            lambda s: s.list_messages(where=MessageFilter(since=math.nan), limit=1, cursor=None),
            "since must be a finite time",
        ),
        (
            lambda s: s.list_messages(
                where=MessageFilter(message_ids=("m",) * 101), limit=1, cursor=None
            ),
            "at most 100 message ids in one filter",
        ),
        (
            lambda s: s.list_logs(where=MessageFilter(state="delivering"), limit=1, cursor=None),
            "unknown state 'delivering'",
        ),
        (lambda s: s.list_logs(limit=0, cursor=None), "limit must be at least 1: 0"),
        (
            lambda s: s.list_logs(limit=1, cursor="bTo0Mg"),
            "cursor 'bTo0Mg' is not this listing's",
        ),
        (lambda s: s.prune_logs(before=0, limit=0), "limit must be at least 1: 0"),
    ],
)
async def test_a_refused_argument_reaches_no_hook(
    call: Callable[[Store], Awaitable[object]], detail: str
) -> None:
    """Every check runs before the hook, in the same words for every backend."""
    recording = RecordingStore()
    await assert_refused(recording, call(recording.store), detail)


async def test_publish_messages_hands_its_hook_the_headers_as_json_text() -> None:
    """Each message's headers reach ``_publish_messages`` written once, in order."""
    recording = RecordingStore()
    messages = [new_message(headers={"X-A": "é"}), new_message(headers={})]
    lease = MessageLease("msg", "lease")
    await recording.store.publish_messages(messages, lease=lease)
    assert recording.calls == [
        (
            "_publish_messages",
            (messages,),
            {
                "headers": ['{"X-A":"\\u00e9"}', "{}"],
                "lease": lease,
                "idempotency": None,
                "traceparent": None,
            },
        )
    ]


async def test_accepted_calls_reach_their_hooks_with_their_arguments() -> None:
    """What passes goes to the hook of the same name unchanged, and its answer comes back."""
    recording = RecordingStore()
    store = recording.store
    tried = attempt(1)
    endpoints = [UrlEndpoint("https://example.com/a")]
    assert await store.get_message("m") is ANSWER
    await store.cancel_message("m")
    await store.claim_due_messages(now=5.0, limit=2, lease_margin=0)
    await store.record_attempt("m", tried, lease_id="l", outcome="delivered")
    await store.record_attempt("m", tried, lease_id="l", outcome="retry", next_attempt_at=9.0)
    assert await store.next_due_at() is ANSWER
    await store.put_url_group("g", endpoints)
    await store.get_url_group("g")
    await store.list_url_groups()
    await store.delete_url_group("g")
    await store.delete_dead_letter("m")
    await store.retry_dead_letter("m")
    await store.retry_dead_letter("m", headers={"X-A": "1"})
    assert await store.retry_dead_letters(["m", "n", "m"], headers={"X-A": "1"}) is ANSWER
    assert await store.delete_dead_letters(["m", "m"]) is ANSWER
    assert await store.find_dead_letters(["n", "m", "n"]) is ANSWER
    settled: dict[str, Any] = {"lease_id": "l", "outcome": "delivered", "next_attempt_at": None}
    assert recording.calls == [
        ("_get_message", ("m",), {}),
        ("_cancel_message", ("m",), {}),
        ("_claim_due_messages", (), {"now": 5.0, "limit": 2, "lease_margin": 0}),
        ("_record_attempt", ("m", tried), settled),
        ("_record_attempt", ("m", tried), {**settled, "outcome": "retry", "next_attempt_at": 9.0}),
        ("_next_due_at", (), {}),
        ("_put_url_group", ("g", endpoints), {}),
        ("_get_url_group", ("g",), {}),
        ("_list_url_groups", (), {}),
        ("_delete_url_group", ("g",), {}),
        ("_delete_dead_letter", ("m",), {}),
        ("_retry_dead_letter", ("m",), {"headers": {}}),
        ("_retry_dead_letter", ("m",), {"headers": {"X-A": "1"}}),
        ("_retry_dead_letters", (["m", "n"],), {"headers": {"X-A": "1"}}),
        ("_delete_dead_letters", (["m"],), {}),
        ("_find_dead_letters", (["n", "m"],), {}),
    ]


async def test_bulk_dead_letter_calls_of_no_ids_reach_no_hook() -> None:
    """Nothing named, nothing to do: the answer is empty without a round trip."""
    recording = RecordingStore()
    store = recording.store
    assert await store.retry_dead_letters([]) == []
    assert await store.delete_dead_letters([]) == []
    assert await store.find_dead_letters([]) == []
    assert recording.calls == []


async def test_list_dead_letters_reads_its_cursor_and_writes_the_next_one() -> None:
    """The hook gets the position a cursor resumes after; the one it answers becomes the next
    cursor, and None the end; no selection is the filter of nothing.
    """
    selection = DeadLetterFilter(url="https://a.test/", filed_from=1.5, filed_to=9.0)
    position = DeadLetterPosition(7.25, 3, 9.5)
    recording = RecordingStore(answer=([ANSWER], position))
    page = await recording.store.list_dead_letters(selection=selection, limit=2, cursor=None)
    assert page == DeadLetterPage(dead_letters=[ANSWER], next_cursor=dead_letter_cursor(position))
    await recording.store.list_dead_letters(selection=selection, limit=2, cursor=page.next_cursor)
    await recording.store.list_dead_letters(limit=5)
    assert recording.calls == [
        ("_list_dead_letters", (), {"selection": selection, "limit": 2, "cursor": None}),
        ("_list_dead_letters", (), {"selection": selection, "limit": 2, "cursor": position}),
        ("_list_dead_letters", (), {"selection": DeadLetterFilter(), "limit": 5, "cursor": None}),
    ]
    recording = RecordingStore(answer=([], None))
    last = await recording.store.list_dead_letters(selection=selection, limit=2, cursor=None)
    assert last == DeadLetterPage(dead_letters=[], next_cursor=None)


async def test_list_messages_reads_its_cursor_and_writes_the_next_one() -> None:
    """The hook gets the sequence a cursor resumes before; the one it answers becomes the next
    cursor, and None the end.
    """
    recording = RecordingStore(answer=([ANSWER], 42))
    where = MessageFilter(state="failed", url_group="g")
    page = await recording.store.list_messages(where=where, limit=1, cursor=None)
    assert page == MessagePage(messages=[ANSWER], next_cursor=message_cursor(42))
    recording.calls.clear()
    await recording.store.list_messages(limit=3, cursor=page.next_cursor)
    assert recording.calls == [
        ("_list_messages", (), {"where": MessageFilter(), "limit": 3, "cursor": 42})
    ]


async def test_list_logs_reads_its_cursor_and_writes_the_next_one() -> None:
    """The hook gets the event sequence a cursor resumes before and the filter as given; the
    sequence it answers becomes the next cursor.
    """
    recording = RecordingStore(answer=([ANSWER], 7))
    where = MessageFilter(state="failed", label="x")
    page = await recording.store.list_logs(where=where, limit=1, cursor=log_cursor(9))
    assert page == LogPage(events=[ANSWER], next_cursor=log_cursor(7))
    assert recording.calls == [("_list_logs", (), {"where": where, "limit": 1, "cursor": 9})]
