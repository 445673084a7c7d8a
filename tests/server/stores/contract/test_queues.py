"""The queue and job checks of ``Store``, before any hook is called."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from server.stores.base import NewJob, QueueSettings, Store
from tests.server.stores.contract._recording import ANSWER, RecordingStore, assert_refused


@pytest.mark.parametrize(
    ("call", "detail"),
    [
        (
            lambda s: s.put_queue("q", QueueSettings(max_attempts=0)),
            "max_attempts must be at least 1: 0",
        ),
        (
            lambda s: s.put_queue("q", QueueSettings(lease_seconds=0)),
            "lease_seconds must be at least 1: 0",
        ),
        (
            lambda s: s.put_queue("q", QueueSettings(retention_seconds=-1)),
            "retention_seconds must be at least 0: -1",
        ),
        (
            lambda s: s.put_queue("q", QueueSettings(deduplication_window_seconds=-1)),
            "deduplication_window_seconds must be at least 0: -1",
        ),
        (
            lambda s: s.publish_jobs("q", [NewJob("t", 1)], traceparent="00-x"),
            "traceparent '00-x' is not in the W3C format",
        ),
        (
            lambda s: s.publish_jobs("q", [NewJob("t", 1), NewJob("t", 1, delay=-1)]),
            "delay must not be negative: -1",
        ),
        (
            lambda s: s.publish_jobs("q", [NewJob("t", float("inf"))]),
            "a job payload is not a JSON value: Out of range float values are not JSON compliant",
        ),
        # The first job that is wrong is the one reported, its delay before its payload.
        (
            lambda s: s.publish_jobs(
                "q", [NewJob("t", float("nan"), delay=-2), NewJob("t", 1, delay=-3)]
            ),
            "delay must not be negative: -2",
        ),
        (
            lambda s: s.publish_jobs("q", [NewJob("t", float("nan")), NewJob("t", 1, delay=-3)]),
            "a job payload is not a JSON value: Out of range float values are not JSON compliant",
        ),
        (
            lambda s: s.lease_jobs(
                "q", consumer=None, topics=None, max_jobs=0, lease_seconds=None, wait_ms=0
            ),
            "max_jobs must be at least 1: 0",
        ),
        (
            lambda s: s.lease_jobs(
                "q", consumer=None, topics=None, max_jobs=1, lease_seconds=0, wait_ms=0
            ),
            "lease_seconds must be at least 1: 0",
        ),
        (
            lambda s: s.nack_job("q", "j", "l", retry_delay=-1, error=None),
            "retry_delay must not be negative: -1",
        ),
        (
            lambda s: s.extend_lease("q", "j", "l", lease_seconds=0),
            "lease_seconds must be at least 1: 0",
        ),
        (lambda s: s.list_jobs("q", state=None, limit=0), "limit must be at least 1: 0"),
    ],
)
async def test_a_refused_argument_reaches_no_hook(
    call: Callable[[Store], Awaitable[object]], detail: str
) -> None:
    """Every check runs before the hook, in the same words for every backend."""
    recording = RecordingStore()
    await assert_refused(recording, call(recording.store), detail)


async def test_publish_jobs_hands_its_hook_the_payloads_as_json_text() -> None:
    """Each payload reaches ``_publish_jobs`` written once, in the jobs' order."""
    recording = RecordingStore()
    jobs = [NewJob("t", {"n": 1}), NewJob("u", "\ud800", delay=5)]
    await recording.store.publish_jobs("q", jobs)
    assert recording.calls == [
        (
            "_publish_jobs",
            ("q", jobs),
            {"payloads": ['{"n":1}', '"\\ud800"'], "idempotency": None, "traceparent": None},
        )
    ]


async def test_accepted_calls_reach_their_hooks_with_their_arguments() -> None:
    """What passes goes to the hook of the same name unchanged, and its answer comes back."""
    recording = RecordingStore()
    store = recording.store
    settings = QueueSettings(retention_seconds=0, deduplication_window_seconds=0)
    assert await store.put_queue("q", settings) is ANSWER
    assert await store.get_queue("q") is ANSWER
    assert await store.list_queues() is ANSWER
    await store.delete_queue("q")
    assert (
        await store.lease_jobs(
            "q", consumer="c", topics=["t"], max_jobs=1, lease_seconds=None, wait_ms=-1
        )
        is ANSWER
    )
    await store.ack_job("q", "j", "l")
    await store.nack_job("q", "j", "l", retry_delay=0, error="e")
    await store.release_job("q", "j", "l")
    await store.release_jobs("q", [("j", "l")])
    await store.extend_lease("q", "j", "l", lease_seconds=1)
    await store.get_job("q", "j")
    await store.list_jobs("q", state="dead", limit=1)
    await store.retry_job("q", "j")
    await store.delete_job("q", "j")
    assert recording.calls == [
        ("_put_queue", ("q", settings), {}),
        ("_get_queue", ("q",), {}),
        ("_list_queues", (), {}),
        ("_delete_queue", ("q",), {}),
        (
            "_lease_jobs",
            ("q",),
            {
                "consumer": "c",
                "topics": ["t"],
                "max_jobs": 1,
                "lease_seconds": None,
                "wait_ms": -1,
            },
        ),
        ("_ack_job", ("q", "j", "l"), {}),
        ("_nack_job", ("q", "j", "l"), {"retry_delay": 0, "error": "e"}),
        ("_release_job", ("q", "j", "l"), {}),
        ("_release_jobs", ("q", [("j", "l")]), {}),
        ("_extend_lease", ("q", "j", "l"), {"lease_seconds": 1}),
        ("_get_job", ("q", "j"), {}),
        ("_list_jobs", ("q",), {"state": "dead", "limit": 1}),
        ("_retry_job", ("q", "j"), {}),
        ("_delete_job", ("q", "j"), {}),
    ]
