"""The stream and consumer-group checks of ``Store``, before any hook is called."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from server.stores.base import Store, StreamPage, StreamSummary, Trim
from server.stores.cursors import stream_cursor
from tests.server.stores.contract._recording import ANSWER, RecordingStore, assert_refused

TOO_LARGE = str(2**64)
TOO_LARGE_DETAIL = f"entry id {TOO_LARGE!r} has a part above {2**64 - 1}, the largest"
NOT_AN_ID_DETAIL = "'x' is not an entry id like 1700000000000-0"


@pytest.mark.parametrize(
    ("call", "detail"),
    [
        (
            lambda s: s.append("s", [float("nan")], trim=None, nomkstream=False),
            "an entry body is not a JSON value: Out of range float values are not JSON compliant",
        ),
        (
            lambda s: s.append("s", [1, {1j}], trim=None, nomkstream=False),
            "an entry body is not a JSON value: Object of type set is not JSON serializable",
        ),
        (
            lambda s: s.append("s", [1], trim=Trim(maxlen=-1), nomkstream=False),
            "maxlen must not be negative: -1",
        ),
        (
            lambda s: s.append("s", [1], trim=Trim(minid="x"), nomkstream=False),
            NOT_AN_ID_DETAIL,
        ),
        (
            lambda s: s.append("s", [1], trim=None, nomkstream=False, traceparent="00-x"),
            "traceparent '00-x' is not in the W3C format",
        ),
        (lambda s: s.trim("s", Trim()), "a trim needs maxlen or minid"),
        (lambda s: s.trim("s", Trim(maxlen=-5)), "maxlen must not be negative: -5"),
        (lambda s: s.trim("s", Trim(minid=TOO_LARGE)), TOO_LARGE_DETAIL),
        (
            lambda s: s.range("s", start="x", end="+", count=1, reverse=False),
            NOT_AN_ID_DETAIL,
        ),
        (
            lambda s: s.range("s", start="-", end=TOO_LARGE, count=1, reverse=False),
            TOO_LARGE_DETAIL,
        ),
        (
            lambda s: s.range("s", start="+", end="-", count=1, reverse=False),
            "'+' is not an entry id like 1700000000000-0",
        ),
        (
            lambda s: s.range("s", start="-", end="+", count=0, reverse=False),
            "count must be at least 1: 0",
        ),
        (
            lambda s: s.create_group("s", "g", start_id="x", mkstream=True),
            NOT_AN_ID_DETAIL,
        ),
        (
            lambda s: s.create_group("s", "g", start_id="0", mkstream=True, max_deliveries=0),
            "max_deliveries must be at least 1: 0",
        ),
        (
            lambda s: s.create_group("e" * 124, "g", start_id="$", mkstream=True, max_deliveries=1),
            f"max_deliveries needs a dead-letter stream {'e' * 124 + '.dead'!r}, longer than 128 "
            "characters: use a stream name of at most 123",
        ),
        (
            lambda s: s.read_group("s", "g", consumer="c", count=0, wait_ms=0),
            "count must be at least 1: 0",
        ),
        (lambda s: s.ack("s", "g", ["1-0", "x"]), NOT_AN_ID_DETAIL),
        (
            lambda s: s.claim("s", "g", consumer="c", min_idle_ms=0, count=1, start_id="x"),
            NOT_AN_ID_DETAIL,
        ),
        (
            lambda s: s.claim("s", "g", consumer="c", min_idle_ms=0, count=0, start_id="0"),
            "count must be at least 1: 0",
        ),
        (lambda s: s.pending("s", "g", count=-1), "count must be at least 1: -1"),
        (lambda s: s.list_streams(prefix="", limit=0, cursor=None), "limit must be at least 1: 0"),
        (
            lambda s: s.list_streams(prefix="", limit=1, cursor="bTo0Mg"),
            "cursor 'bTo0Mg' is not this listing's",
        ),
        (
            lambda s: s.list_streams(prefix="", limit=1, cursor="czo"),
            "cursor 'czo' names no stream",
        ),
    ],
)
async def test_a_refused_argument_reaches_no_hook(
    call: Callable[[Store], Awaitable[object]], detail: str
) -> None:
    """Every check runs before the hook, in the same words for every backend."""
    recording = RecordingStore()
    await assert_refused(recording, call(recording.store), detail)


async def test_append_hands_its_hook_the_bodies_as_json_text() -> None:
    """Bodies reach ``_append`` written once, compact and ASCII (a lone surrogate escaped)."""
    recording = RecordingStore()
    trim = Trim(maxlen=0, minid="5")
    await recording.store.append(
        "s", [{"a": [1, 2.5]}, "\ud800é", None], trim=trim, nomkstream=True
    )
    assert recording.calls == [
        (
            "_append",
            ("s", ['{"a":[1,2.5]}', '"\\ud800\\u00e9"', "null"]),
            {"trim": trim, "nomkstream": True, "idempotency": None, "traceparent": None},
        )
    ]


async def test_the_special_ids_pass_where_each_method_takes_them() -> None:
    """``-``/``+`` bound a range and ``$`` starts a group; checked ids reach the hooks as given."""
    recording = RecordingStore()
    store = recording.store
    await store.range("s", start="-", end="+", count=1, reverse=True)
    await store.range("s", start="5", end="6-1", count=2, reverse=False)
    await store.create_group("s", "g", start_id="$", mkstream=False)
    await store.ack("s", "g", ["1-0", "2"])
    await store.claim("s", "g", consumer="c", min_idle_ms=5, count=3, start_id="0-0")
    await store.trim("s", Trim(minid="7-1", approximate=False))
    assert [(name, args) for name, args, _ in recording.calls] == [
        ("_range", ("s",)),
        ("_range", ("s",)),
        ("_create_group", ("s", "g")),
        ("_ack", ("s", "g", ["1-0", "2"])),
        ("_claim", ("s", "g")),
        ("_trim", ("s", Trim(minid="7-1", approximate=False))),
    ]
    assert recording.calls[1][2] == {"start": "5", "end": "6-1", "count": 2, "reverse": False}
    assert recording.calls[2][2] == {"start_id": "$", "mkstream": False, "max_deliveries": None}
    assert recording.calls[4][2] == {
        "consumer": "c",
        "min_idle_ms": 5,
        "count": 3,
        "start_id": "0-0",
    }


async def test_calls_without_checks_go_straight_to_their_hooks() -> None:
    """Reads and deletes check nothing and answer what their hook answers."""
    recording = RecordingStore()
    store = recording.store
    assert await store.stream_info("s") is ANSWER
    await store.delete_stream("s")
    await store.delete_group("s", "g")
    assert await store.read_group("s", "g", consumer="c", count=1, wait_ms=-1) is ANSWER
    assert await store.pending("s", "g", count=1) is ANSWER
    assert [name for name, _, _ in recording.calls] == [
        "_stream_info",
        "_delete_stream",
        "_delete_group",
        "_read_group",
        "_pending",
    ]


async def test_list_streams_reads_its_cursor_and_writes_the_next_one() -> None:
    """The hook gets the name a cursor resumes after; the name it answers becomes the next cursor,
    and None the end.
    """
    summary = StreamSummary("b", length=1, first_id="1-0", last_id="1-0", group_count=0)
    recording = RecordingStore(answer=([summary], "b"))
    page = await recording.store.list_streams(prefix="", limit=1, cursor=None)
    assert page == StreamPage(streams=[summary], next_cursor=stream_cursor("b"))
    recording.calls.clear()
    await recording.store.list_streams(prefix="o", limit=2, cursor=page.next_cursor)
    assert recording.calls == [("_list_streams", (), {"prefix": "o", "limit": 2, "cursor": "b"})]
    last = RecordingStore(answer=([], None))
    assert (await last.store.list_streams(prefix="", limit=1, cursor=None)).next_cursor is None
