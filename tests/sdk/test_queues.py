"""Queues: explicit creation, init_queue, publishing jobs with client-side topic checks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import QUEUE, job, leased, problem, resolve, sent_json

RECEIPT = {"job_id": "job_1", "queue": "jobs", "topic": "email-jobs", "deduplicated": False}
LEASED_FIELDS: dict[str, Any] = {
    "queue": "jobs",
    "topic": "email-jobs",
    "payload": None,
    "attempt": 1,
    "lease_expires_at": datetime(2026, 11, 29, 12, 0, 30, tzinfo=UTC),
    "published_at": datetime(2026, 11, 29, 12, 0, tzinfo=UTC),
}


@pytest.fixture
def queue_exists(api: respx.MockRouter) -> respx.Route:
    """getQueue on `jobs` answers with the queue."""
    return api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))


async def test_init_queue_checks_the_queue_exists(
    client: sdk.Client | sdk.AsyncClient, queue_exists: respx.Route
) -> None:
    """init_queue asks the service once and returns a handle."""
    queue = await resolve(client.init_queue("jobs"))
    assert queue.name == "jobs"
    assert queue_exists.call_count == 1
    assert repr(queue) in ("Queue('jobs')", "AsyncQueue('jobs')")


async def test_init_queue_of_a_missing_queue_raises_not_found(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """No implicit creation: a queue never created is a NotFoundError."""
    api.get("/v1/queues/jobs").mock(return_value=problem(404, "queue_not_found"))
    with pytest.raises(sdk.NotFoundError) as raised:
        await resolve(client.init_queue("jobs"))
    assert raised.value.code == "queue_not_found"


async def test_publish_returns_a_receipt(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, queue_exists: respx.Route
) -> None:
    """A 202 is a receipt: the job was accepted, not run."""
    route = api.post("/v1/queues/jobs/jobs").mock(return_value=httpx.Response(202, json=RECEIPT))
    queue = await resolve(client.init_queue("jobs"))
    receipt = await resolve(
        queue.publish("email-jobs", {"userId": "12345", "template": "welcome-email"})
    )
    assert receipt == sdk.JobReceipt(
        job_id="job_1", queue="jobs", topic="email-jobs", deduplicated=False
    )
    assert sent_json(route.calls.last) == {
        "topic": "email-jobs",
        "payload": {"userId": "12345", "template": "welcome-email"},
    }
    assert route.calls.last.request.headers["Idempotency-Key"]


async def test_publish_sends_delay_and_deduplication_id(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, queue_exists: respx.Route
) -> None:
    """Durations become the API's whole seconds."""
    route = api.post("/v1/queues/jobs/jobs").mock(return_value=httpx.Response(202, json=RECEIPT))
    queue = await resolve(client.init_queue("jobs"))
    await resolve(queue.publish("email-jobs", {}, delay="2m", deduplication_id="welcome-1"))
    assert sent_json(route.calls.last) == {
        "topic": "email-jobs",
        "payload": {},
        "delay": 120,
        "deduplication_id": "welcome-1",
    }


@pytest.mark.parametrize(
    ("topic", "cls"),
    [
        ("with space", sdk.InvalidTopicError),
        ("orders.*", sdk.InvalidTopicError),
        ("", sdk.InvalidTopicError),
        ("spool.system", sdk.ReservedTopicError),
    ],
)
async def test_bad_topics_raise_before_any_request(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    queue_exists: respx.Route,
    topic: str,
    cls: type[sdk.InvalidTopicError],
) -> None:
    """Invalid and reserved topics fail at once; only init_queue's request was sent."""
    queue = await resolve(client.init_queue("jobs"))
    with pytest.raises(cls):
        await resolve(queue.publish(topic, {}))
    assert api.calls.call_count == 1


@pytest.mark.parametrize(
    ("status", "code", "cls"),
    [
        (403, "permission_denied", sdk.PermissionDeniedError),
        (429, "quota_exceeded", sdk.QuotaExceededError),
        (404, "queue_not_found", sdk.NotFoundError),
        (400, "reserved_topic", sdk.BadRequestError),
    ],
)
async def test_refusals_raise_publish_error_with_the_typed_cause(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    queue_exists: respx.Route,
    status: int,
    code: str,
    cls: type[sdk.APIStatusError],
) -> None:
    """Permission and quota errors stay typed under the PublishError, and are not retried."""
    route = api.post("/v1/queues/jobs/jobs").mock(return_value=problem(status, code))
    queue = await resolve(client.init_queue("jobs"))
    with pytest.raises(sdk.PublishError, match="could not publish to jobs/email-jobs") as raised:
        await resolve(queue.publish("email-jobs", {}))
    assert type(raised.value.__cause__) is cls
    assert route.call_count == 1


async def test_publish_many_takes_requests_and_pairs(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, queue_exists: respx.Route
) -> None:
    """One batch request; one receipt per job, in order."""
    route = api.post("/v1/queues/jobs/batch").mock(
        return_value=httpx.Response(
            202, json={"receipts": [RECEIPT, {**RECEIPT, "job_id": "job_2", "deduplicated": True}]}
        )
    )
    queue = await resolve(client.init_queue("jobs"))
    receipts = await resolve(
        queue.publish_many(
            [("email-jobs", {"userId": "1"}), sdk.JobRequest("email-jobs", {}, delay=5)]
        )
    )
    assert [r.job_id for r in receipts] == ["job_1", "job_2"]
    assert receipts[1].deduplicated is True
    assert sent_json(route.calls.last) == {
        "jobs": [
            {"topic": "email-jobs", "payload": {"userId": "1"}},
            {"topic": "email-jobs", "payload": {}, "delay": 5},
        ]
    }


async def test_publish_many_checks_every_topic_first(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, queue_exists: respx.Route
) -> None:
    """One reserved topic in a batch stops the whole batch before any request."""
    queue = await resolve(client.init_queue("jobs"))
    with pytest.raises(sdk.ReservedTopicError):
        await resolve(queue.publish_many([("ok", {}), ("spool.x", {})]))
    assert await resolve(queue.publish_many([])) == []
    assert api.calls.call_count == 1


async def test_create_sends_only_the_given_settings(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Unspecified settings are not sent, so they are not reset on an existing queue."""
    route = api.put("/v1/queues/jobs").mock(return_value=httpx.Response(201, json=QUEUE))
    info = await resolve(client.queues.create("jobs", max_attempts=5, lease="1m"))
    assert sent_json(route.calls.last) == {"max_attempts": 5, "lease_seconds": 60}
    assert info == sdk.QueueInfo(
        name="jobs",
        max_attempts=5,
        lease=timedelta(seconds=30),
        retention=timedelta(days=7),
        deduplication_window=timedelta(minutes=5),
        created_at=datetime(2026, 11, 29, 12, tzinfo=UTC),
        stats=sdk.QueueStats(ready=1, delayed=0, leased=0, dead=0),
    )


@pytest.mark.parametrize(
    "settings",
    [
        {"max_attempts": 0},
        {"max_attempts": 101},
        {"lease": "0s"},
        {"lease": "13h"},
        {"retention": "59s"},
        {"deduplication_window": "8d"},
    ],
)
async def test_create_checks_settings_before_any_request(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, settings: dict[str, Any]
) -> None:
    """Out-of-range settings are ValueErrors, not 422s."""
    with pytest.raises(sdk.InvalidArgumentError):
        await resolve(client.queues.create("jobs", **settings))
    assert api.calls.call_count == 0


async def test_admin_get_list_delete(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, queue_exists: respx.Route
) -> None:
    """The other admin calls."""
    api.get("/v1/queues").mock(return_value=httpx.Response(200, json={"queues": [QUEUE]}))
    delete = api.delete("/v1/queues/jobs").mock(return_value=httpx.Response(204))
    assert (await resolve(client.queues.get("jobs"))).name == "jobs"
    assert [q.name for q in await resolve(client.queues.list())] == ["jobs"]
    assert await resolve(client.queues.delete("jobs")) is None
    assert delete.call_count == 1


async def test_job_inspection_and_manual_leasing(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, queue_exists: respx.Route
) -> None:
    """jobs/job/retry and lease/ack/nack/release/extend send the spec's fields."""
    dead = {**job(state="dead"), "last_error": "SMTP timeout"}
    listing = api.get("/v1/queues/jobs/jobs").mock(
        return_value=httpx.Response(200, json={"jobs": [dead]})
    )
    api.get("/v1/queues/jobs/jobs/job_1").mock(return_value=httpx.Response(200, json=dead))
    api.post("/v1/queues/jobs/jobs/job_1/retry").mock(
        return_value=httpx.Response(200, json=job(state="ready"))
    )
    lease = api.post("/v1/queues/jobs/leases").mock(
        return_value=httpx.Response(200, json={"jobs": [leased()]})
    )
    ack = api.post("/v1/queues/jobs/jobs/job_1/ack").mock(
        return_value=httpx.Response(200, json=job())
    )
    nack = api.post("/v1/queues/jobs/jobs/job_1/nack").mock(
        return_value=httpx.Response(200, json=job(state="delayed"))
    )
    release = api.post("/v1/queues/jobs/jobs/job_1/release").mock(
        return_value=httpx.Response(200, json={**job(state="ready"), "attempts": 0})
    )
    extend = api.post("/v1/queues/jobs/jobs/job_1/extend").mock(
        return_value=httpx.Response(200, json=job(state="leased"))
    )
    queue = await resolve(client.init_queue("jobs"))

    jobs = await resolve(queue.jobs(state="dead", limit=10))
    assert jobs[0].state == "dead" and jobs[0].last_error == "SMTP timeout"
    assert jobs[0].lease_expires_at is None
    assert dict(listing.calls.last.request.url.params) == {"state": "dead", "limit": "10"}
    assert (await resolve(queue.job("job_1"))).last_error == "SMTP timeout"
    assert (await resolve(queue.retry("job_1"))).state == "ready"
    deleted = api.delete("/v1/queues/jobs/jobs/job_1").mock(return_value=httpx.Response(204))
    assert await resolve(queue.delete_job("job_1")) is None
    assert deleted.called

    [leased_job] = await resolve(
        queue.lease(consumer="w1", topics=["email-jobs"], max_jobs=2, lease="1m", wait=1)
    )
    assert sent_json(lease.calls.last) == {
        "consumer": "w1",
        "topics": ["email-jobs"],
        "max_jobs": 2,
        "lease_seconds": 60,
        "wait_ms": 1000,
    }
    assert (leased_job.lease_id, leased_job.payload) == ("lease_1", {"userId": "12345"})
    await resolve(queue.ack(leased_job))
    assert sent_json(ack.calls.last) == {"lease_id": "lease_1"}
    await resolve(queue.nack(leased_job, retry_delay="5s", error="x" * 3000))
    assert sent_json(nack.calls.last) == {
        "lease_id": "lease_1",
        "retry_delay": 5,
        "error": "x" * 2000,
    }
    released = await resolve(queue.release(leased_job))
    assert sent_json(release.calls.last) == {"lease_id": "lease_1"}
    assert (released.state, released.attempts) == ("ready", 0)
    await resolve(queue.extend(leased_job, lease=90))
    assert sent_json(extend.calls.last) == {"lease_id": "lease_1", "lease_seconds": 90}


async def test_ack_many_sends_every_lease_and_reads_a_result_for_each(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, queue_exists: respx.Route
) -> None:
    """ack_many is one ackJobs request; each job's result comes back in order."""
    acks = api.post("/v1/queues/jobs/acks").mock(
        return_value=httpx.Response(
            200,
            json={
                "results": [
                    {"job_id": "job_1", "acked": True},
                    {"job_id": "job_2", "acked": False, "code": "lease_expired"},
                ]
            },
        )
    )
    queue = await resolve(client.init_queue("jobs"))
    first = sdk.LeasedJob(**{**LEASED_FIELDS, "job_id": "job_1", "lease_id": "lease_1"})
    second = sdk.LeasedJob(**{**LEASED_FIELDS, "job_id": "job_2", "lease_id": "lease_2"})
    results = await resolve(queue.ack_many([first, second]))
    assert results == [
        sdk.JobAckResult(job_id="job_1", acked=True),
        sdk.JobAckResult(job_id="job_2", acked=False, code="lease_expired"),
    ]
    assert sent_json(acks.calls.last) == {
        "jobs": [
            {"job_id": "job_1", "lease_id": "lease_1"},
            {"job_id": "job_2", "lease_id": "lease_2"},
        ]
    }
    for wrong in ([], [first] * 1001):
        with pytest.raises(sdk.InvalidArgumentError):
            await resolve(queue.ack_many(wrong))
    assert acks.call_count == 1


async def test_release_many_sends_every_lease_and_reads_a_result_for_each(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, queue_exists: respx.Route
) -> None:
    """release_many is one releaseJobs request; each job's result comes back in order."""
    releases = api.post("/v1/queues/jobs/releases").mock(
        return_value=httpx.Response(
            200,
            json={
                "results": [
                    {"job_id": "job_1", "released": True},
                    {"job_id": "job_2", "released": False, "code": "job_not_found"},
                ]
            },
        )
    )
    queue = await resolve(client.init_queue("jobs"))
    first = sdk.LeasedJob(**{**LEASED_FIELDS, "job_id": "job_1", "lease_id": "lease_1"})
    second = sdk.LeasedJob(**{**LEASED_FIELDS, "job_id": "job_2", "lease_id": "lease_2"})
    results = await resolve(queue.release_many(iter([first, second])))
    assert results == [
        sdk.JobReleaseResult(job_id="job_1", released=True),
        sdk.JobReleaseResult(job_id="job_2", released=False, code="job_not_found"),
    ]
    assert sent_json(releases.calls.last) == {
        "jobs": [
            {"job_id": "job_1", "lease_id": "lease_1"},
            {"job_id": "job_2", "lease_id": "lease_2"},
        ]
    }
    for wrong in ([], [first] * 1001):
        with pytest.raises(sdk.InvalidArgumentError):
            await resolve(queue.release_many(wrong))
    assert releases.call_count == 1


async def test_an_invalid_queue_name_raises_before_any_request(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """InvalidNameError at once."""
    with pytest.raises(sdk.InvalidNameError):
        await resolve(client.init_queue("no such/queue"))
    with pytest.raises(sdk.InvalidNameError):
        await resolve(client.queues.create(""))
    assert api.calls.call_count == 0
