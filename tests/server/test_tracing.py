"""The ``traceparent`` header of every publish (server/routes/_publish.py), on both stores: a
well-formed one is kept with each entry, job and message and answered with it wherever it is
read; a malformed one is ignored.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests._tracing import TRACEPARENT
from tests.conftest import RunningApp

TRACED = {"traceparent": TRACEPARENT}


async def _post(api: RunningApp, path: str, document: Any, headers: dict[str, str]) -> Any:
    response = await api.client.post(path, json=document, headers=headers)
    assert response.status_code in (200, 201, 202), response.text
    return response.json()


async def _get(api: RunningApp, path: str, **params: Any) -> Any:
    response = await api.client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def test_appended_entries_keep_the_traceparent_for_range_read_group_and_claim(
    api: RunningApp,
) -> None:
    """appendEntry and appendEntries keep the header with every entry they make."""
    await _post(api, "/v1/streams/events/entries", {"body": 1}, TRACED)
    await _post(api, "/v1/streams/events/batch", {"entries": [{"body": 2}, {"body": 3}]}, TRACED)
    await _post(api, "/v1/streams/events/entries", {"body": 4}, {})
    ranged = (await _get(api, "/v1/streams/events/entries"))["entries"]
    assert [entry.get("traceparent") for entry in ranged] == [TRACEPARENT] * 3 + [None]
    await _post(api, "/v1/streams/events/groups", {"group": "g", "start_id": "0"}, {})
    read = await _post(api, "/v1/streams/events/groups/g/read", {"consumer": "a", "count": 10}, {})
    assert [entry.get("traceparent") for entry in read["entries"]] == [TRACEPARENT] * 3 + [None]
    claimed = await _post(
        api,
        "/v1/streams/events/groups/g/claim",
        {"consumer": "b", "min_idle_ms": 0, "count": 10},
        {},
    )
    assert [entry.get("traceparent") for entry in claimed["entries"]] == [TRACEPARENT] * 3 + [None]


async def test_published_jobs_keep_the_traceparent_for_get_list_and_lease(
    api: RunningApp,
) -> None:
    """publishJob and publishJobs keep the header with every job they make."""
    response = await api.client.put("/v1/queues/work", json={})
    assert response.status_code == 201, response.text
    one = await _post(api, "/v1/queues/work/jobs", {"topic": "t", "payload": 1}, TRACED)
    await _post(api, "/v1/queues/work/batch", {"jobs": [{"topic": "t", "payload": 2}]}, TRACED)
    await _post(api, "/v1/queues/work/jobs", {"topic": "t", "payload": 3}, {})
    job = await _get(api, f"/v1/queues/work/jobs/{one['job_id']}")
    assert job["traceparent"] == TRACEPARENT
    listed = (await _get(api, "/v1/queues/work/jobs"))["jobs"]
    assert [item.get("traceparent") for item in listed] == [TRACEPARENT, TRACEPARENT, None]
    leased = await _post(api, "/v1/queues/work/leases", {"max_jobs": 10}, {})
    assert [item.get("traceparent") for item in leased["jobs"]] == [TRACEPARENT, TRACEPARENT, None]


async def test_published_messages_keep_the_traceparent(api: RunningApp) -> None:
    """publishMessage and publishMessages keep the header with every message they make."""
    one = await _post(
        api, "/v1/messages", {"url": "https://example.com/a", "body": {"n": 1}}, TRACED
    )
    batch = await _post(
        api,
        "/v1/messages/batch",
        {"messages": [{"url": "https://example.com/b", "body": {"n": 2}}]},
        TRACED,
    )
    plain = await _post(api, "/v1/messages", {"url": "https://example.com/c", "body": 3}, {})
    ids = [
        one["messages"][0]["message_id"],
        batch["results"][0]["messages"][0]["message_id"],
        plain["messages"][0]["message_id"],
    ]
    found = [(await _get(api, f"/v1/messages/{i}")).get("traceparent") for i in ids]
    assert found == [TRACEPARENT, TRACEPARENT, None]


@pytest.mark.parametrize(
    "malformed",
    [
        "garbage",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
        TRACEPARENT + "-extra",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
        "",
    ],
)
async def test_a_malformed_traceparent_is_ignored_never_refused(
    api: RunningApp, malformed: str
) -> None:
    """The publish succeeds as if the header were absent."""
    await _post(api, "/v1/streams/events/entries", {"body": 1}, {"traceparent": malformed})
    [entry] = (await _get(api, "/v1/streams/events/entries"))["entries"]
    assert "traceparent" not in entry
