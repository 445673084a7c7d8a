"""Stream operations over HTTP (server/routes/streams.py), on both stores."""

from __future__ import annotations

import asyncio
import re

import pytest

from generated.pydantic_models import (
    AckResult,
    AppendEntriesResult,
    AppendEntryResult,
    ClaimResult,
    DeliveredEntryList,
    EntryList,
    GroupInfo,
    PendingList,
    StreamInfo,
    TrimResult,
)
from tests.conftest import RunningApp, assert_problem, schema_allows

ENTRY_ID = re.compile(r"[0-9]+-[0-9]+")


async def _append(api: RunningApp, stream: str, *bodies: object) -> list[str]:
    response = await api.client.post(
        f"/v1/streams/{stream}/batch", json={"entries": [{"body": body} for body in bodies]}
    )
    assert response.status_code == 201, response.text
    ids: list[str] = response.json()["ids"]
    return ids


async def test_append_entry_creates_the_stream_and_answers_201(api: RunningApp) -> None:
    """appendEntry returns the new id, the stream's length and how many entries it trimmed."""
    response = await api.client.post("/v1/streams/events/entries", json={"body": {"user": 42}})
    assert response.status_code == 201
    result = AppendEntryResult.model_validate(response.json())
    assert ENTRY_ID.fullmatch(result.id.root)
    assert (result.stream, result.length, result.trimmed) == ("events", 1, 0)


async def test_an_appended_entry_reads_back_with_its_body(api: RunningApp) -> None:
    """appendEntry stores its ``body`` as the entry's JSON value."""
    response = await api.client.post("/v1/streams/events/entries", json={"body": {"user": 42}})
    entries = (await api.client.get("/v1/streams/events/entries")).json()["entries"]
    assert entries == [{"id": response.json()["id"], "body": {"user": 42}}]


async def test_append_entry_trims_exactly_with_maxlen(api: RunningApp) -> None:
    """``maxlen`` with ``approximate=false`` keeps exactly that many entries."""
    await _append(api, "events", 1, 2, 3, 4)
    response = await api.client.post(
        "/v1/streams/events/entries", json={"body": 5, "maxlen": 2, "approximate": False}
    )
    result = AppendEntryResult.model_validate(response.json())
    assert (result.length, result.trimmed) == (2, 3)


async def test_append_entry_with_minid_drops_older_ids(api: RunningApp) -> None:
    """``minid`` trims every entry below it on that append."""
    ids = await _append(api, "events", 1, 2, 3)
    response = await api.client.post(
        "/v1/streams/events/entries", json={"body": 4, "minid": ids[2], "approximate": False}
    )
    assert response.json()["length"] == 2


async def test_nomkstream_refuses_a_missing_stream(api: RunningApp) -> None:
    """``nomkstream`` on a missing stream is 404 stream_not_found and creates nothing."""
    response = await api.client.post(
        "/v1/streams/events/entries", json={"body": 1, "nomkstream": True}
    )
    assert_problem(response, 404, "stream_not_found")
    assert_problem(await api.client.get("/v1/streams/events"), 404, "stream_not_found")


async def test_append_entries_is_all_or_nothing(api: RunningApp) -> None:
    """appendEntries gives consecutive ids; one invalid entry rejects the whole batch."""
    ids = await _append(api, "events", "a", "b", "c")
    assert ids == sorted(ids, key=lambda entry_id: tuple(map(int, entry_id.split("-"))))
    response = await api.client.post(
        "/v1/streams/events/batch", json={"entries": [{"body": 1}, {"bod": 2}]}
    )
    problem = assert_problem(response, 422, "validation_failed")
    assert problem["errors"][0]["location"].startswith("body.entries.1")
    info = StreamInfo.model_validate((await api.client.get("/v1/streams/events")).json())
    assert info.length == 3


async def test_append_entries_result_matches_the_schema(api: RunningApp) -> None:
    """The batch answer has the stream, one id per entry, the length and the trimmed count."""
    response = await api.client.post(
        "/v1/streams/events/batch",
        json={"entries": [{"body": 1}, {"body": 2}], "maxlen": 1, "approximate": False},
    )
    result = AppendEntriesResult.model_validate(response.json())
    assert len(result.ids) == 2
    assert (result.length, result.trimmed) == (1, 1)


async def test_append_entries_takes_minid_and_nomkstream_like_append_entry(
    api: RunningApp,
) -> None:
    """appendEntries refuses a missing stream with ``nomkstream`` and trims below ``minid``."""
    refused = await api.client.post(
        "/v1/streams/events/batch", json={"entries": [{"body": 1}], "nomkstream": True}
    )
    assert_problem(refused, 404, "stream_not_found")
    ids = await _append(api, "events", 1, 2, 3)
    response = await api.client.post(
        "/v1/streams/events/batch",
        json={"entries": [{"body": 4}], "minid": ids[2], "approximate": False},
    )
    assert (response.json()["length"], response.json()["trimmed"]) == (2, 2)


@pytest.mark.parametrize(
    ("path", "body"),
    [("entries", {"body": 5}), ("batch", {"entries": [{"body": 5}]}), ("trim", {})],
    ids=["appendEntry", "appendEntries", "trimStream"],
)
async def test_approximate_trimming_may_keep_a_small_stream_whole(
    api: RunningApp, path: str, body: dict[str, object]
) -> None:
    """With ``approximate`` (the default) a store may keep more than ``maxlen`` entries, and each
    store keeps a stream this small whole; ``approximate=false`` cuts it to exactly ``maxlen``.
    """
    await _append(api, "events", 1, 2, 3, 4)
    loose = await api.client.post(f"/v1/streams/events/{path}", json={**body, "maxlen": 2})
    assert loose.json()["trimmed"] == 0
    exact = await api.client.post(
        f"/v1/streams/events/{path}", json={**body, "maxlen": 2, "approximate": False}
    )
    assert exact.json()["length"] == 2


async def test_an_empty_batch_is_422(api: RunningApp) -> None:
    """A batch needs at least one entry."""
    response = await api.client.post("/v1/streams/events/batch", json={"entries": []})
    assert_problem(response, 422, "validation_failed")


async def test_range_reads_between_ids_in_either_order(api: RunningApp) -> None:
    """rangeEntries honours start, end, count and reverse, and bodies come back as JSON values."""
    ids = await _append(api, "events", {"n": 1}, [2], "three", None)
    everything = EntryList.model_validate(
        (await api.client.get("/v1/streams/events/entries")).json()
    )
    assert [entry.body for entry in everything.entries] == [{"n": 1}, [2], "three", None]
    window = await api.client.get(
        "/v1/streams/events/entries",
        params={"start": ids[1], "end": ids[2], "count": 10},
    )
    assert [entry["id"] for entry in window.json()["entries"]] == ids[1:3]
    newest = await api.client.get(
        "/v1/streams/events/entries", params={"reverse": "true", "count": 1}
    )
    assert [entry["id"] for entry in newest.json()["entries"]] == [ids[3]]


@pytest.mark.parametrize(
    ("query", "location"),
    [
        ({"count": "0"}, "query.count"),
        ({"count": "1001"}, "query.count"),
        ({"count": "ten"}, "query.count"),
        ({"reverse": "yes"}, "query.reverse"),
        ({"start": "abc"}, "query.start"),
        ({"end": "1-2-3"}, "query.end"),
    ],
)
async def test_range_query_parameters_are_validated(
    api: RunningApp, query: dict[str, str], location: str
) -> None:
    """Out-of-range or malformed query parameters are 422 with a ``query.<name>`` location."""
    await _append(api, "events", 1)
    response = await api.client.get("/v1/streams/events/entries", params=query)
    problem = assert_problem(response, 422, "validation_failed")
    assert problem["errors"][0]["location"] == location


LARGEST = str(2**64 - 1)
TOO_LARGE = str(2**64)


@pytest.mark.parametrize(
    ("path", "schema", "field", "value", "location"),
    [
        ("groups", "CreateGroupRequest", "start_id", f"{LARGEST}-{LARGEST}", None),
        ("groups", "CreateGroupRequest", "start_id", f"{TOO_LARGE}-0", "body.start_id"),
        ("groups", "CreateGroupRequest", "start_id", f"0-{TOO_LARGE}", "body.start_id"),
        ("entries", "AppendEntryRequest", "minid", LARGEST, None),
        ("entries", "AppendEntryRequest", "minid", TOO_LARGE, "body.minid"),
        ("trim", "TrimRequest", "minid", f"{LARGEST}-{LARGEST}", None),
        ("trim", "TrimRequest", "minid", f"1-{TOO_LARGE}", "body.minid"),
        ("groups/g/claim", "ClaimRequest", "start_id", LARGEST, None),
        ("groups/g/claim", "ClaimRequest", "start_id", TOO_LARGE, "body.start_id"),
        ("groups/g/ack", "AckRequest", "ids", [f"{LARGEST}-{LARGEST}"], None),
        ("groups/g/ack", "AckRequest", "ids", ["1-0", f"{TOO_LARGE}-0"], "body.ids.1"),
    ],
)
async def test_id_parts_run_to_the_largest_redis_takes_and_no_further(
    api: RunningApp,
    path: str,
    schema: str,
    field: str,
    value: object,
    location: str | None,
) -> None:
    """An id part up to 2**64 - 1 is taken as that number on either store; one above it breaks
    openapi.yaml's id pattern and is 422 at the field, the stream left as it was.
    """
    await _append(api, "events", 1, 2)
    await api.client.post("/v1/streams/events/groups", json={"group": "g", "start_id": "0"})
    bodies: dict[str, dict[str, object]] = {
        "groups": {"group": "h"},
        "entries": {"body": 3},
        "trim": {},
        "groups/g/claim": {"consumer": "c", "min_idle_ms": 0},
        "groups/g/ack": {},
    }
    document = bodies[path] | {field: value}
    assert schema_allows(schema, document) is (location is None)
    response = await api.client.post(f"/v1/streams/events/{path}", json=document)
    if location is None:
        assert response.status_code in (200, 201), response.text
        if path == "groups":
            assert response.json()["last_delivered_id"] == value
        return
    problem = assert_problem(response, 422, "validation_failed")
    assert [error["location"] for error in problem["errors"]] == [location]
    info = (await api.client.get("/v1/streams/events")).json()
    assert (info["length"], [group["group"] for group in info["groups"]]) == (2, ["g"])


@pytest.mark.parametrize(("bound", "value"), [("start", TOO_LARGE), ("end", f"1-{TOO_LARGE}")])
async def test_a_range_bound_above_the_largest_id_is_422(
    api: RunningApp, bound: str, value: str
) -> None:
    """rangeEntries' start and end take id parts up to 2**64 - 1 (RangeBound), not beyond."""
    await _append(api, "events", 1)
    taken = await api.client.get("/v1/streams/events/entries", params={bound: LARGEST})
    assert taken.status_code == 200, taken.text
    assert not schema_allows("RangeBound", value)
    response = await api.client.get("/v1/streams/events/entries", params={bound: value})
    problem = assert_problem(response, 422, "validation_failed")
    assert [error["location"] for error in problem["errors"]] == [f"query.{bound}"]


async def test_range_on_a_missing_stream_is_404(api: RunningApp) -> None:
    """Reading a stream that does not exist is 404 stream_not_found."""
    response = await api.client.get("/v1/streams/nothing/entries")
    assert_problem(response, 404, "stream_not_found")


async def test_get_stream_describes_its_ends_and_groups(api: RunningApp) -> None:
    """getStream gives the length, first and last ids and each group."""
    ids = await _append(api, "events", 1, 2)
    await api.client.post("/v1/streams/events/groups", json={"group": "billing", "start_id": "0"})
    info = StreamInfo.model_validate((await api.client.get("/v1/streams/events")).json())
    assert info.first_id is not None and info.last_id is not None
    assert (info.length, info.first_id.root, info.last_id.root) == (2, ids[0], ids[1])
    assert [group.group for group in info.groups] == ["billing"]


async def test_an_empty_stream_omits_its_ends(api: RunningApp) -> None:
    """A stream with no entries has no first_id/last_id fields at all (never null)."""
    await api.client.post("/v1/streams/events/groups", json={"group": "billing", "mkstream": True})
    body = (await api.client.get("/v1/streams/events")).json()
    assert body["length"] == 0
    assert "first_id" not in body
    assert "last_id" not in body


async def test_trim_by_length_and_by_id(api: RunningApp) -> None:
    """trimStream trims by maxlen or by minid and reports what it removed."""
    ids = await _append(api, "events", 1, 2, 3, 4, 5)
    by_length = await api.client.post(
        "/v1/streams/events/trim", json={"maxlen": 3, "approximate": False}
    )
    assert TrimResult.model_validate(by_length.json()).trimmed == 2
    by_id = await api.client.post(
        "/v1/streams/events/trim", json={"minid": ids[4], "approximate": False}
    )
    assert by_id.json() == {"stream": "events", "length": 1, "trimmed": 2}


BOTH = {"maxlen": 5, "minid": "1-0"}


@pytest.mark.parametrize(
    ("path", "schema", "body", "location"),
    [
        ("entries", "AppendEntryRequest", {"body": 1}, None),
        ("entries", "AppendEntryRequest", {"body": 1, "maxlen": 5}, None),
        ("entries", "AppendEntryRequest", {"body": 1, "minid": "1-0"}, None),
        ("entries", "AppendEntryRequest", {"body": 1, **BOTH}, "body.minid"),
        ("batch", "AppendEntriesRequest", {"entries": [{"body": 1}], "maxlen": 5}, None),
        ("batch", "AppendEntriesRequest", {"entries": [{"body": 1}], "minid": "1-0"}, None),
        ("batch", "AppendEntriesRequest", {"entries": [{"body": 1}], **BOTH}, "body.minid"),
        ("trim", "TrimRequest", {"maxlen": 5}, None),
        ("trim", "TrimRequest", {"minid": "1-0"}, None),
        ("trim", "TrimRequest", BOTH, "body.minid"),
        ("trim", "TrimRequest", {}, "body"),
        ("trim", "TrimRequest", {"approximate": False}, "body"),
    ],
)
async def test_the_schema_states_which_of_maxlen_and_minid_go_together(
    api: RunningApp, path: str, schema: str, body: dict[str, object], location: str | None
) -> None:
    """Appends take at most one of ``maxlen`` and ``minid``, a trim exactly one: a body
    openapi.yaml allows is accepted, and one it refuses is 422 at ``location`` and changes nothing.
    """
    await _append(api, "events", 1, 2)
    assert schema_allows(schema, body) is (location is None)
    response = await api.client.post(f"/v1/streams/events/{path}", json=body)
    if location is None:
        assert response.status_code in (200, 201), response.text
        return
    problem = assert_problem(response, 422, "validation_failed")
    assert [error["location"] for error in problem["errors"]] == [location]
    assert (await api.client.get("/v1/streams/events")).json()["length"] == 2


async def test_trim_a_missing_stream_is_404(api: RunningApp) -> None:
    """Trimming a stream that does not exist is 404 stream_not_found."""
    response = await api.client.post("/v1/streams/nothing/trim", json={"maxlen": 1})
    assert_problem(response, 404, "stream_not_found")


async def test_delete_stream(api: RunningApp) -> None:
    """deleteStream answers 204 and the stream is gone; deleting it again is 404."""
    await _append(api, "events", 1)
    response = await api.client.delete("/v1/streams/events")
    assert response.status_code == 204
    assert response.content == b""
    assert_problem(await api.client.delete("/v1/streams/events"), 404, "stream_not_found")


async def test_consumer_group_life_cycle(api: RunningApp) -> None:
    """Create a group, read, list pending, ack, claim and delete it, each as the spec says."""
    ids = await _append(api, "orders", {"id": 1}, {"id": 2})
    created = await api.client.post(
        "/v1/streams/orders/groups", json={"group": "billing", "start_id": "0"}
    )
    assert created.status_code == 201
    assert GroupInfo.model_validate(created.json()).last_delivered_id.root == "0-0"

    read = await api.client.post(
        "/v1/streams/orders/groups/billing/read", json={"consumer": "worker-1", "count": 10}
    )
    delivered = DeliveredEntryList.model_validate(read.json())
    assert [entry.id.root for entry in delivered.entries] == ids
    assert all(entry.delivery_count == 1 for entry in delivered.entries)

    pending = PendingList.model_validate(
        (await api.client.get("/v1/streams/orders/groups/billing/pending")).json()
    )
    assert [(item.id.root, item.consumer) for item in pending.pending] == [
        (ids[0], "worker-1"),
        (ids[1], "worker-1"),
    ]

    acked = await api.client.post(
        "/v1/streams/orders/groups/billing/ack", json={"ids": [ids[0], "1-1"]}
    )
    assert AckResult.model_validate(acked.json()).acked == 1

    claimed = await api.client.post(
        "/v1/streams/orders/groups/billing/claim",
        json={"consumer": "worker-2", "min_idle_ms": 0},
    )
    claim = ClaimResult.model_validate(claimed.json())
    assert [(entry.id.root, entry.delivery_count) for entry in claim.entries] == [(ids[1], 2)]
    assert claim.next_start_id.root == "0-0"
    assert claim.deleted_ids == []

    deleted = await api.client.delete("/v1/streams/orders/groups/billing")
    assert deleted.status_code == 204
    assert_problem(
        await api.client.delete("/v1/streams/orders/groups/billing"), 404, "group_not_found"
    )


async def test_count_caps_what_read_group_and_list_pending_answer(api: RunningApp) -> None:
    """readGroup delivers at most ``count`` entries and listPending lists at most ``count``."""
    ids = await _append(api, "orders", 1, 2, 3)
    await api.client.post("/v1/streams/orders/groups", json={"group": "g", "start_id": "0"})
    read = await api.client.post(
        "/v1/streams/orders/groups/g/read", json={"consumer": "c", "count": 2}
    )
    assert [entry["id"] for entry in read.json()["entries"]] == ids[:2]
    pending = await api.client.get("/v1/streams/orders/groups/g/pending", params={"count": 1})
    assert [item["id"] for item in pending.json()["pending"]] == ids[:1]


async def test_claim_takes_idle_entries_from_start_id_up_to_count(api: RunningApp) -> None:
    """claimEntries skips entries idle for less than ``min_idle_ms``, scans from ``start_id``,
    takes at most ``count`` and gives them to ``consumer``.
    """
    ids = await _append(api, "orders", 1, 2, 3)
    await api.client.post("/v1/streams/orders/groups", json={"group": "g", "start_id": "0"})
    await api.client.post("/v1/streams/orders/groups/g/read", json={"consumer": "c"})
    claim = "/v1/streams/orders/groups/g/claim"
    too_fresh = await api.client.post(claim, json={"consumer": "d", "min_idle_ms": 60_000})
    assert too_fresh.json()["entries"] == []
    first = await api.client.post(claim, json={"consumer": "d", "min_idle_ms": 0, "count": 1})
    assert [entry["id"] for entry in first.json()["entries"]] == ids[:1]
    last = await api.client.post(
        claim, json={"consumer": "d", "min_idle_ms": 0, "start_id": ids[2]}
    )
    assert [entry["id"] for entry in last.json()["entries"]] == ids[2:]
    pending = (await api.client.get("/v1/streams/orders/groups/g/pending")).json()["pending"]
    assert [item["consumer"] for item in pending] == ["d", "c", "d"]


async def test_claim_reports_trimmed_pending_entries(api: RunningApp) -> None:
    """A pending entry trimmed away is reported in deleted_ids and leaves the pending list."""
    ids = await _append(api, "orders", 1, 2)
    await api.client.post("/v1/streams/orders/groups", json={"group": "g", "start_id": "0"})
    await api.client.post("/v1/streams/orders/groups/g/read", json={"consumer": "c"})
    await api.client.post("/v1/streams/orders/trim", json={"minid": ids[1], "approximate": False})
    claimed = await api.client.post(
        "/v1/streams/orders/groups/g/claim",
        json={"consumer": "d", "min_idle_ms": 0, "start_id": "0-0"},
    )
    assert claimed.json()["deleted_ids"] == [ids[0]]


async def test_claim_dead_letters_entries_past_the_groups_max_deliveries(api: RunningApp) -> None:
    """A group created with max_deliveries shows it; once an entry was delivered that often, a
    claim reports it in dead_lettered_ids and it is readable in ``<stream>.dead``.
    """
    ids = await _append(api, "orders", {"id": 1})
    created = await api.client.post(
        "/v1/streams/orders/groups", json={"group": "g", "start_id": "0", "max_deliveries": 2}
    )
    assert GroupInfo.model_validate(created.json()).max_deliveries is not None
    assert created.json()["max_deliveries"] == 2
    await api.client.post("/v1/streams/orders/groups/g/read", json={"consumer": "c"})
    claim = {"consumer": "d", "min_idle_ms": 0}
    first = ClaimResult.model_validate(
        (await api.client.post("/v1/streams/orders/groups/g/claim", json=claim)).json()
    )
    assert ([entry.delivery_count for entry in first.entries], first.dead_lettered_ids) == ([2], [])
    second = ClaimResult.model_validate(
        (await api.client.post("/v1/streams/orders/groups/g/claim", json=claim)).json()
    )
    assert second.dead_lettered_ids is not None
    assert (second.entries, [entry_id.root for entry_id in second.dead_lettered_ids]) == ([], ids)
    dead = (await api.client.get("/v1/streams/orders.dead/entries")).json()["entries"]
    assert [entry["body"] for entry in dead] == [
        {"stream": "orders", "id": ids[0], "group": "g", "delivery_count": 2, "body": {"id": 1}}
    ]
    [group] = StreamInfo.model_validate((await api.client.get("/v1/streams/orders")).json()).groups
    assert group.pending == 0


async def test_a_group_without_max_deliveries_shows_none(api: RunningApp) -> None:
    """Unlimited is the field's absence."""
    created = await api.client.post(
        "/v1/streams/orders/groups", json={"group": "g", "mkstream": True}
    )
    assert "max_deliveries" not in created.json()


async def test_max_deliveries_needs_room_for_the_dead_letter_streams_name(api: RunningApp) -> None:
    """A stream name too long to add ``.dead`` to is 422 validation_failed with max_deliveries:
    openapi.yaml's limit of 123 characters, exactly.
    """
    longest = await api.client.post(
        f"/v1/streams/{'s' * 123}/groups",
        json={"group": "g", "mkstream": True, "max_deliveries": 1},
    )
    assert longest.status_code == 201
    response = await api.client.post(
        f"/v1/streams/{'s' * 124}/groups",
        json={"group": "g", "mkstream": True, "max_deliveries": 1},
    )
    problem = assert_problem(response, 422, "validation_failed")
    assert ".dead" in problem["detail"]
    assert "at most 123 characters" in (await api.client.get("/openapi.yaml")).text


async def test_creating_a_group_twice_is_a_conflict(api: RunningApp) -> None:
    """A second group of the same name is 409 group_exists."""
    await _append(api, "orders", 1)
    await api.client.post("/v1/streams/orders/groups", json={"group": "g"})
    response = await api.client.post("/v1/streams/orders/groups", json={"group": "g"})
    assert_problem(response, 409, "group_exists")


async def test_group_on_a_missing_stream_needs_mkstream(api: RunningApp) -> None:
    """Without mkstream a group on a missing stream is 404; with it the stream is created."""
    response = await api.client.post("/v1/streams/orders/groups", json={"group": "g"})
    assert_problem(response, 404, "stream_not_found")
    created = await api.client.post(
        "/v1/streams/orders/groups", json={"group": "g", "mkstream": True}
    )
    assert created.status_code == 201


async def test_reading_a_missing_group_is_404(api: RunningApp) -> None:
    """readGroup, ackEntries, claimEntries and listPending on a missing group are 404."""
    await _append(api, "orders", 1)
    calls = [
        api.client.post("/v1/streams/orders/groups/none/read", json={"consumer": "c"}),
        api.client.post("/v1/streams/orders/groups/none/ack", json={"ids": ["1-0"]}),
        api.client.post(
            "/v1/streams/orders/groups/none/claim", json={"consumer": "c", "min_idle_ms": 0}
        ),
        api.client.get("/v1/streams/orders/groups/none/pending"),
    ]
    for call in calls:
        assert_problem(await call, 404, "group_not_found")


async def test_read_group_waits_for_an_entry(api: RunningApp) -> None:
    """With wait_ms and nothing new, readGroup waits and then answers an empty list."""
    await api.client.post("/v1/streams/orders/groups", json={"group": "g", "mkstream": True})
    response = await api.client.post(
        "/v1/streams/orders/groups/g/read", json={"consumer": "c", "wait_ms": 50}
    )
    assert response.json() == {"stream": "orders", "group": "g", "entries": []}


async def test_a_waiting_read_gets_an_entry_appended_while_it_waits(api: RunningApp) -> None:
    """A readGroup with ``wait_ms`` answers as soon as an entry arrives within the wait."""
    await api.client.post("/v1/streams/orders/groups", json={"group": "g", "mkstream": True})
    waiting = asyncio.create_task(
        api.client.post(
            "/v1/streams/orders/groups/g/read", json={"consumer": "c", "wait_ms": 10_000}
        )
    )
    await asyncio.sleep(0.2)
    assert not waiting.done()
    [entry_id] = await _append(api, "orders", "late")
    response = await asyncio.wait_for(waiting, timeout=10)
    assert [entry["id"] for entry in response.json()["entries"]] == [entry_id]


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/v1/streams/-leading-dash", "stream name"),
        ("/v1/streams/" + "x" * 129, "stream name"),
        ("/v1/streams/a%2Fb", "stream name"),
        ("/v1/streams/ok/groups/bad*group", "consumer group name"),
    ],
)
async def test_invalid_names_are_400(api: RunningApp, path: str, name: str) -> None:
    """Names that break the spec's patterns are 400 invalid_name, whatever the operation."""
    response = await api.client.delete(path)
    if response.status_code == 404:
        # A slash inside a name splits the path: no route serves it.
        assert_problem(response, 404, "not_found")
        return
    problem = assert_problem(response, 400, "invalid_name")
    assert name in problem["detail"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/streams/o/groups", {"group": "g", "start_id": "latest"}),
        ("/v1/streams/o/groups/g/read", {"consumer": "c", "count": 0}),
        ("/v1/streams/o/groups/g/read", {"consumer": "c", "wait_ms": 30001}),
        ("/v1/streams/o/groups/g/ack", {"ids": []}),
        ("/v1/streams/o/groups/g/ack", {"ids": ["not-an-id"]}),
        ("/v1/streams/o/groups/g/claim", {"consumer": "c"}),
        ("/v1/streams/o/groups/g/claim", {"consumer": "c", "min_idle_ms": -1}),
        ("/v1/streams/o/groups", {"group": "g", "max_deliveries": 0}),
        ("/v1/streams/o/groups", {"group": "g", "max_deliveries": "3"}),
    ],
)
async def test_group_requests_are_validated(
    api: RunningApp, path: str, body: dict[str, object]
) -> None:
    """Bodies that break the schema are 422 before the store is asked anything."""
    response = await api.client.post(path, json=body)
    assert_problem(response, 422, "validation_failed")


async def test_list_pending_count_is_bounded(api: RunningApp) -> None:
    """listPending's count must be 1..1000."""
    response = await api.client.get("/v1/streams/o/groups/g/pending", params={"count": "0"})
    assert_problem(response, 422, "validation_failed")


async def test_range_ends_mean_the_extreme_ids_anywhere(api: RunningApp) -> None:
    """As in Redis, start ``+`` and end ``-`` name the largest and smallest ids: empty ranges."""
    ids = await _append(api, "events", 1, 2)
    for query in ({"start": "+"}, {"end": "-"}, {"start": "+", "end": "-"}):
        response = await api.client.get("/v1/streams/events/entries", params=query)
        assert response.json() == {"stream": "events", "entries": []}, query
    last = await api.client.get("/v1/streams/events/entries", params={"start": ids[1], "end": "+"})
    assert [entry["id"] for entry in last.json()["entries"]] == [ids[1]]
