"""Queue and job operations over HTTP (server/routes/queues.py), on both stores."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import pytest

from generated.pydantic_models import (
    AckJobsResult,
    Job,
    JobList,
    JobReceipt,
    JobReceiptList,
    LeasedJobList,
    Queue,
    QueueList,
    ReleaseJobsResult,
)
from tests.conftest import RunningApp, assert_problem
from tests.server.stores._support import FakeClock


async def _create_queue(api: RunningApp, name: str = "jobs", **settings: int) -> None:
    response = await api.client.put(f"/v1/queues/{name}", json=settings)
    assert response.status_code in (200, 201), response.text


async def _lease_one(api: RunningApp, queue: str = "jobs") -> dict[str, object]:
    response = await api.client.post(f"/v1/queues/{queue}/leases", json={"consumer": "w"})
    jobs: list[dict[str, object]] = response.json()["jobs"]
    assert len(jobs) == 1, jobs
    return jobs[0]


async def _publish(api: RunningApp, queue: str = "jobs", **job: object) -> dict[str, object]:
    response = await api.client.post(f"/v1/queues/{queue}/jobs", json={"topic": "t", **job})
    assert response.status_code == 202, response.text
    receipt: dict[str, object] = response.json()
    return receipt


@pytest.fixture
def clock(api: RunningApp, monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """The store's clock, standing still until the test moves it past a window or a retention."""
    fake = FakeClock(time.time())
    monkeypatch.setattr(api.store, "clock", fake)
    return fake


async def test_put_queue_creates_then_updates(api: RunningApp) -> None:
    """putQueue answers 201 on creation and 200 with the new settings afterwards."""
    created = await api.client.put("/v1/queues/jobs", json={})
    assert created.status_code == 201
    queue = Queue.model_validate(created.json())
    assert (queue.max_attempts, queue.lease_seconds) == (5, 30)
    assert created.json()["created_at"].endswith("Z")
    updated = await api.client.put("/v1/queues/jobs", json={"max_attempts": 2})
    assert updated.status_code == 200
    assert updated.json()["max_attempts"] == 2
    assert updated.json()["created_at"] == created.json()["created_at"]


@pytest.mark.parametrize(
    "settings",
    [{"max_attempts": 0}, {"lease_seconds": 43201}, {"retention_seconds": 59}, {"extra": 1}],
)
async def test_put_queue_validates_settings(api: RunningApp, settings: dict[str, int]) -> None:
    """Settings outside the spec's bounds are 422 and create nothing."""
    response = await api.client.put("/v1/queues/jobs", json=settings)
    assert_problem(response, 422, "validation_failed")
    assert_problem(await api.client.get("/v1/queues/jobs"), 404, "queue_not_found")


async def test_get_list_and_delete_queue(api: RunningApp) -> None:
    """getQueue counts jobs by state, listQueues lists by name, deleteQueue removes the queue."""
    await _create_queue(api, "b-queue")
    await _create_queue(api, "a-queue")
    await api.client.post("/v1/queues/a-queue/jobs", json={"topic": "t", "payload": 1})
    await api.client.post("/v1/queues/a-queue/jobs", json={"topic": "t", "payload": 2, "delay": 60})
    queue = Queue.model_validate((await api.client.get("/v1/queues/a-queue")).json())
    assert (queue.stats.ready, queue.stats.delayed) == (1, 1)
    listed = QueueList.model_validate((await api.client.get("/v1/queues")).json())
    assert [item.name for item in listed.queues] == ["a-queue", "b-queue"]
    assert (await api.client.delete("/v1/queues/a-queue")).status_code == 204
    assert_problem(await api.client.get("/v1/queues/a-queue"), 404, "queue_not_found")
    assert_problem(await api.client.delete("/v1/queues/a-queue"), 404, "queue_not_found")


async def test_publishing_never_creates_a_queue(api: RunningApp) -> None:
    """Publishing to a queue that was never created is 404 queue_not_found, and no queue appears."""
    response = await api.client.post("/v1/queues/ghost/jobs", json={"topic": "t", "payload": 1})
    problem = assert_problem(response, 404, "queue_not_found")
    assert "ghost" in problem["detail"]
    assert (await api.client.get("/v1/queues")).json() == {"queues": []}


async def test_publish_job_answers_a_receipt(api: RunningApp) -> None:
    """publishJob answers 202 with the job id, queue, topic and deduplicated=false."""
    await _create_queue(api)
    response = await api.client.post(
        "/v1/queues/jobs/jobs", json={"topic": "email-jobs", "payload": {"userId": "1"}}
    )
    assert response.status_code == 202
    receipt = JobReceipt.model_validate(response.json())
    assert receipt.job_id.startswith("job_")
    assert (receipt.queue, receipt.topic, receipt.deduplicated) == ("jobs", "email-jobs", False)


async def test_reserved_topics_are_refused(api: RunningApp) -> None:
    """A topic under the spec's reserved prefix is 400 reserved_topic and nothing is written."""
    await _create_queue(api)
    response = await api.client.post(
        "/v1/queues/jobs/jobs", json={"topic": "spool.internal", "payload": 1}
    )
    problem = assert_problem(response, 400, "reserved_topic")
    assert "spool." in problem["detail"]
    assert (await api.client.get("/v1/queues/jobs/jobs")).json() == {"jobs": []}


@pytest.mark.parametrize("topic", ["", "with space", "wild.*", "a>b", "x" * 129, ".leading"])
async def test_invalid_topics_are_422(api: RunningApp, topic: str) -> None:
    """Topics that break the spec's pattern (wildcards included) are 422."""
    await _create_queue(api)
    response = await api.client.post("/v1/queues/jobs/jobs", json={"topic": topic, "payload": 1})
    problem = assert_problem(response, 422, "validation_failed")
    assert problem["errors"][0]["location"] == "body.topic"


async def test_deduplication_returns_the_first_job(api: RunningApp) -> None:
    """A deduplication_id repeated within the window answers the first job with deduplicated."""
    await _create_queue(api)
    job = {"topic": "t", "payload": 1, "deduplication_id": "welcome-1"}
    first = (await api.client.post("/v1/queues/jobs/jobs", json=job)).json()
    second = (await api.client.post("/v1/queues/jobs/jobs", json=job)).json()
    assert second["job_id"] == first["job_id"]
    assert (first["deduplicated"], second["deduplicated"]) == (False, True)


async def test_deduplication_lasts_the_queues_window(api: RunningApp, clock: FakeClock) -> None:
    """A deduplication_id repeated after ``deduplication_window_seconds`` makes a new job."""
    await _create_queue(api, deduplication_window_seconds=10)
    first = await _publish(api, payload=1, deduplication_id="welcome-1")
    clock.advance(9)
    within = await _publish(api, payload=1, deduplication_id="welcome-1")
    assert (within["job_id"], within["deduplicated"]) == (first["job_id"], True)
    clock.advance(2)
    after = await _publish(api, payload=1, deduplication_id="welcome-1")
    assert after["job_id"] != first["job_id"]
    assert after["deduplicated"] is False


async def test_publish_jobs_is_all_or_nothing(api: RunningApp) -> None:
    """publishJobs answers a receipt per job; one bad job (even a reserved topic) writes none."""
    await _create_queue(api)
    good = await api.client.post(
        "/v1/queues/jobs/batch",
        json={"jobs": [{"topic": "t", "payload": 1}, {"topic": "u", "payload": 2}]},
    )
    assert good.status_code == 202
    assert [receipt.topic for receipt in JobReceiptList.model_validate(good.json()).receipts] == [
        "t",
        "u",
    ]
    bad = await api.client.post(
        "/v1/queues/jobs/batch",
        json={"jobs": [{"topic": "t", "payload": 3}, {"topic": "spool.x", "payload": 4}]},
    )
    problem = assert_problem(bad, 400, "reserved_topic")
    assert "body.jobs.1.topic" in problem["detail"]
    jobs = (await api.client.get("/v1/queues/jobs/jobs")).json()["jobs"]
    assert [job["payload"] for job in jobs] == [1, 2]


async def test_batch_jobs_take_delay_and_deduplication_id(api: RunningApp) -> None:
    """Each job of publishJobs is delayed and deduplicated as a single publishJob would be."""
    await _create_queue(api)
    batch = {
        "jobs": [
            {"topic": "t", "payload": 1, "delay": 60},
            {"topic": "t", "payload": 2, "deduplication_id": "welcome-1"},
        ]
    }
    first = (await api.client.post("/v1/queues/jobs/batch", json=batch)).json()["receipts"]
    again = (await api.client.post("/v1/queues/jobs/batch", json=batch)).json()["receipts"]
    assert [receipt["deduplicated"] for receipt in again] == [False, True]
    assert again[1]["job_id"] == first[1]["job_id"]
    stats = Queue.model_validate((await api.client.get("/v1/queues/jobs")).json()).stats
    assert (stats.ready, stats.delayed) == (1, 2)


async def test_list_jobs_filters_by_state_up_to_limit(api: RunningApp) -> None:
    """listJobs answers only jobs in ``state``, oldest first, at most ``limit`` of them."""
    await _create_queue(api)
    for payload in (1, 2, 3):
        await _publish(api, payload=payload)
    await _lease_one(api)

    async def payloads(**query: str | int) -> list[object]:
        response = await api.client.get("/v1/queues/jobs/jobs", params=query)
        return [job["payload"] for job in response.json()["jobs"]]

    assert await payloads(state="leased") == [1]
    assert await payloads(state="ready") == [2, 3]
    assert await payloads(state="ready", limit=1) == [2]


async def test_lease_ack_and_job_status(api: RunningApp) -> None:
    """leaseJobs hands a job out under a lease; ackJob marks it succeeded."""
    await _create_queue(api)
    await api.client.post("/v1/queues/jobs/jobs", json={"topic": "t", "payload": {"k": [1, None]}})
    leased = LeasedJobList.model_validate(
        (
            await api.client.post(
                "/v1/queues/jobs/leases", json={"consumer": "w", "topics": ["t"], "max_jobs": 5}
            )
        ).json()
    )
    assert len(leased.jobs) == 1
    lease = leased.jobs[0]
    assert (lease.attempt, lease.payload) == (1, {"k": [1, None]})
    assert lease.lease_expires_at > lease.published_at

    status = Job.model_validate(
        (await api.client.get(f"/v1/queues/jobs/jobs/{lease.job_id}")).json()
    )
    assert (status.state.root, status.leased_by) == ("leased", "w")
    acked = await api.client.post(
        f"/v1/queues/jobs/jobs/{lease.job_id}/ack", json={"lease_id": lease.lease_id}
    )
    assert Job.model_validate(acked.json()).state.root == "succeeded"
    assert "lease_expires_at" not in acked.json()
    assert "leased_by" not in acked.json()
    again = await api.client.post(
        f"/v1/queues/jobs/jobs/{lease.job_id}/ack", json={"lease_id": lease.lease_id}
    )
    assert_problem(again, 409, "lease_expired")


async def test_lease_waits_when_nothing_is_ready(api: RunningApp) -> None:
    """With wait_ms and an empty queue, leaseJobs waits and then answers no jobs."""
    await _create_queue(api)
    response = await api.client.post("/v1/queues/jobs/leases", json={"wait_ms": 50})
    assert response.json() == {"jobs": []}


async def test_a_lease_takes_only_its_topics_up_to_max_jobs(api: RunningApp) -> None:
    """leaseJobs hands out at most ``max_jobs`` jobs, oldest first, of the ``topics`` asked for."""
    await _create_queue(api)
    for topic, payload in (("a", 1), ("b", 2), ("b", 3), ("b", 4)):
        await _publish(api, topic=topic, payload=payload)
    response = await api.client.post(
        "/v1/queues/jobs/leases", json={"topics": ["b"], "max_jobs": 2}
    )
    assert [job["payload"] for job in response.json()["jobs"]] == [2, 3]


async def test_a_lease_lasts_the_queues_lease_seconds_unless_the_lease_asks_otherwise(
    api: RunningApp, clock: FakeClock
) -> None:
    """A lease ends the queue's ``lease_seconds`` after it starts; leaseJobs' own
    ``lease_seconds`` replaces that for its jobs.
    """
    await _create_queue(api, lease_seconds=120)
    for payload in (1, 2):
        await _publish(api, payload=payload)
    now = datetime.fromtimestamp(clock.now, UTC)
    by_queue = await _lease_one(api)
    by_request = (
        await api.client.post("/v1/queues/jobs/leases", json={"lease_seconds": 5})
    ).json()["jobs"][0]
    for lease, seconds in ((by_queue, 120), (by_request, 5)):
        ends = datetime.fromisoformat(str(lease["lease_expires_at"]))
        assert (ends - now).total_seconds() == pytest.approx(seconds, abs=0.01)


async def test_a_waiting_lease_gets_a_job_published_while_it_waits(api: RunningApp) -> None:
    """A leaseJobs with ``wait_ms`` answers as soon as a job arrives within the wait."""
    await _create_queue(api)
    waiting = asyncio.create_task(
        api.client.post("/v1/queues/jobs/leases", json={"wait_ms": 10_000})
    )
    await asyncio.sleep(0.2)
    assert not waiting.done()
    await _publish(api, payload="late")
    response = await asyncio.wait_for(waiting, timeout=10)
    assert [job["payload"] for job in response.json()["jobs"]] == ["late"]


async def test_ack_and_nack_need_the_jobs_current_lease_id(api: RunningApp) -> None:
    """ackJob, nackJob and releaseJob with another ``lease_id`` are 409 lease_expired and leave
    the job leased.
    """
    await _create_queue(api)
    await _publish(api, payload=1)
    lease = await _lease_one(api)
    for action in ("ack", "nack", "release"):
        response = await api.client.post(
            f"/v1/queues/jobs/jobs/{lease['job_id']}/{action}",
            json={"lease_id": "lease_someone_else"},
        )
        assert_problem(response, 409, "lease_expired")
    job = (await api.client.get(f"/v1/queues/jobs/jobs/{lease['job_id']}")).json()
    assert job["state"] == "leased"


async def test_ack_jobs_acknowledges_many_with_a_result_for_each(api: RunningApp) -> None:
    """ackJobs settles every job whose lease is current and says why not for the others, in
    the order asked; the jobs it acked are succeeded, the others as they were.
    """
    await _create_queue(api)
    for payload in range(3):
        await _publish(api, payload=payload)
    leased = (await api.client.post("/v1/queues/jobs/leases", json={"max_jobs": 3})).json()["jobs"]
    unknown = "job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"
    response = await api.client.post(
        "/v1/queues/jobs/acks",
        json={
            "jobs": [
                {"job_id": leased[0]["job_id"], "lease_id": leased[0]["lease_id"]},
                {"job_id": leased[1]["job_id"], "lease_id": "lease_someone_else"},
                {"job_id": unknown, "lease_id": "lease_x"},
                {"job_id": leased[2]["job_id"], "lease_id": leased[2]["lease_id"]},
            ]
        },
    )
    assert response.status_code == 200, response.text
    assert AckJobsResult.model_validate(response.json())
    assert response.json() == {
        "results": [
            {"job_id": leased[0]["job_id"], "acked": True},
            {"job_id": leased[1]["job_id"], "acked": False, "code": "lease_expired"},
            {"job_id": unknown, "acked": False, "code": "job_not_found"},
            {"job_id": leased[2]["job_id"], "acked": True},
        ]
    }
    states = [
        (await api.client.get(f"/v1/queues/jobs/jobs/{job['job_id']}")).json()["state"]
        for job in leased
    ]
    assert states == ["succeeded", "leased", "succeeded"]


async def test_ack_jobs_refuses_a_missing_queue_and_malformed_lists(api: RunningApp) -> None:
    """A missing queue is 404 for the whole request; an empty, oversized or malformed list is
    refused before anything is acknowledged.
    """
    lease = {"job_id": "job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9", "lease_id": "lease_x"}
    missing = await api.client.post("/v1/queues/nope/acks", json={"jobs": [lease]})
    assert_problem(missing, 404, "queue_not_found")
    await _create_queue(api)
    await _publish(api, payload=1)
    held = await _lease_one(api)
    bodies: tuple[dict[str, object], ...] = (
        {"jobs": []},
        {"jobs": [lease] * 1001},
        {"jobs": [{"job_id": "not-a-job", "lease_id": "lease_x"}]},
        {"jobs": [{"job_id": held["job_id"], "lease_id": held["lease_id"]}, {"job_id": "x"}]},
        {"ids": [held["job_id"]]},
    )
    for body in bodies:
        response = await api.client.post("/v1/queues/jobs/acks", json=body)
        assert response.status_code in (400, 422), response.text
    job = (await api.client.get(f"/v1/queues/jobs/jobs/{held['job_id']}")).json()
    assert job["state"] == "leased"


async def test_nack_delays_and_records_the_error(api: RunningApp) -> None:
    """nackJob ends the lease; the job is delayed by retry_delay and keeps the error."""
    await _create_queue(api)
    await api.client.post("/v1/queues/jobs/jobs", json={"topic": "t", "payload": 1})
    lease = await _lease_one(api)
    response = await api.client.post(
        f"/v1/queues/jobs/jobs/{lease['job_id']}/nack",
        json={"lease_id": lease["lease_id"], "retry_delay": 60, "error": "SMTP timeout"},
    )
    job = Job.model_validate(response.json())
    assert (job.state.root, job.last_error) == ("delayed", "SMTP timeout")


async def test_release_gives_a_job_back_untried_even_on_its_last_attempt(
    api: RunningApp,
) -> None:
    """releaseJob ends the lease: the job is ready at once, its attempt uncounted and its last
    error kept, and a job on its only attempt is not dead.
    """
    await _create_queue(api, max_attempts=1)
    await api.client.post("/v1/queues/jobs/jobs", json={"topic": "t", "payload": 1})
    lease = await _lease_one(api)
    response = await api.client.post(
        f"/v1/queues/jobs/jobs/{lease['job_id']}/release", json={"lease_id": lease["lease_id"]}
    )
    assert response.status_code == 200, response.text
    job = Job.model_validate(response.json())
    assert (job.state.root, job.attempts, job.last_error) == ("ready", 0, None)
    assert job.attempt_history is not None
    assert [attempt.outcome and attempt.outcome.root for attempt in job.attempt_history] == [
        "released"
    ]
    again = await _lease_one(api)
    assert (again["job_id"], again["attempt"]) == (lease["job_id"], 1)


async def test_release_jobs_gives_many_back_with_a_result_for_each(api: RunningApp) -> None:
    """releaseJobs releases every job whose lease is current and says why not for the others,
    in the order asked; a missing queue is 404 for the whole request.
    """
    await _create_queue(api, max_attempts=1)
    for payload in range(2):
        await _publish(api, payload=payload)
    leased = (await api.client.post("/v1/queues/jobs/leases", json={"max_jobs": 2})).json()["jobs"]
    unknown = "job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"
    lease = {"job_id": leased[0]["job_id"], "lease_id": leased[0]["lease_id"]}
    response = await api.client.post(
        "/v1/queues/jobs/releases",
        json={
            "jobs": [
                lease,
                lease,
                {"job_id": leased[1]["job_id"], "lease_id": "lease_someone_else"},
                {"job_id": unknown, "lease_id": "lease_x"},
            ]
        },
    )
    assert response.status_code == 200, response.text
    assert ReleaseJobsResult.model_validate(response.json())
    assert response.json() == {
        "results": [
            {"job_id": leased[0]["job_id"], "released": True},
            {"job_id": leased[0]["job_id"], "released": False, "code": "lease_expired"},
            {"job_id": leased[1]["job_id"], "released": False, "code": "lease_expired"},
            {"job_id": unknown, "released": False, "code": "job_not_found"},
        ]
    }
    jobs = [
        (await api.client.get(f"/v1/queues/jobs/jobs/{job['job_id']}")).json() for job in leased
    ]
    assert [(job["state"], job["attempts"]) for job in jobs] == [("ready", 0), ("leased", 1)]
    missing = await api.client.post("/v1/queues/nope/releases", json={"jobs": [lease]})
    assert_problem(missing, 404, "queue_not_found")


async def test_the_last_nack_moves_the_job_to_the_dead_letters(api: RunningApp) -> None:
    """A job that used max_attempts is dead after its nack, listed as dead, and retryable."""
    await _create_queue(api, max_attempts=1)
    await api.client.post("/v1/queues/jobs/jobs", json={"topic": "t", "payload": 1})
    lease = await _lease_one(api)
    nacked = await api.client.post(
        f"/v1/queues/jobs/jobs/{lease['job_id']}/nack", json={"lease_id": lease["lease_id"]}
    )
    assert nacked.json()["state"] == "dead"
    dead = JobList.model_validate(
        (await api.client.get("/v1/queues/jobs/jobs", params={"state": "dead"})).json()
    )
    assert [job.job_id for job in dead.jobs] == [lease["job_id"]]
    retried = await api.client.post(f"/v1/queues/jobs/jobs/{lease['job_id']}/retry")
    assert (retried.json()["state"], retried.json()["attempts"]) == ("ready", 0)


async def test_finished_jobs_go_after_the_queues_retention_seconds(
    api: RunningApp, clock: FakeClock
) -> None:
    """A succeeded job is kept ``retention_seconds``; a write to the queue after that purges it."""
    await _create_queue(api, retention_seconds=60)
    await _publish(api, payload=1)
    lease = await _lease_one(api)
    await api.client.post(
        f"/v1/queues/jobs/jobs/{lease['job_id']}/ack", json={"lease_id": lease["lease_id"]}
    )
    clock.advance(59)
    await _publish(api, payload=2)
    assert (await api.client.get(f"/v1/queues/jobs/jobs/{lease['job_id']}")).status_code == 200
    clock.advance(2)
    await _publish(api, payload=3)
    response = await api.client.get(f"/v1/queues/jobs/jobs/{lease['job_id']}")
    assert_problem(response, 404, "job_not_found")


async def test_retrying_a_job_that_is_not_dead_is_a_conflict(api: RunningApp) -> None:
    """retryJob on a ready job is 409 invalid_state."""
    await _create_queue(api)
    receipt = (
        await api.client.post("/v1/queues/jobs/jobs", json={"topic": "t", "payload": 1})
    ).json()
    response = await api.client.post(f"/v1/queues/jobs/jobs/{receipt['job_id']}/retry")
    assert_problem(response, 409, "invalid_state")


async def test_delete_job_removes_a_dead_job_and_refuses_any_other(api: RunningApp) -> None:
    """deleteJob: 204 for a dead job, which is then 404; 409 invalid_state for a ready one."""
    await _create_queue(api, max_attempts=1)
    await _publish(api, payload=1)
    lease = await _lease_one(api)
    await api.client.post(
        f"/v1/queues/jobs/jobs/{lease['job_id']}/nack", json={"lease_id": lease["lease_id"]}
    )
    ready = await _publish(api, payload=2)
    refused = await api.client.delete(f"/v1/queues/jobs/jobs/{ready['job_id']}")
    assert_problem(refused, 409, "invalid_state")
    deleted = await api.client.delete(f"/v1/queues/jobs/jobs/{lease['job_id']}")
    assert deleted.status_code == 204 and deleted.content == b""
    gone = await api.client.get(f"/v1/queues/jobs/jobs/{lease['job_id']}")
    assert_problem(gone, 404, "job_not_found")
    assert (await api.client.get("/v1/queues/jobs")).json()["stats"]["dead"] == 0


async def test_extend_lease_moves_its_end(api: RunningApp) -> None:
    """extendLease sets the lease to end lease_seconds from now; a wrong lease id is a 409."""
    await _create_queue(api)
    await api.client.post("/v1/queues/jobs/jobs", json={"topic": "t", "payload": 1})
    lease = await _lease_one(api)
    extended = await api.client.post(
        f"/v1/queues/jobs/jobs/{lease['job_id']}/extend",
        json={"lease_id": lease["lease_id"], "lease_seconds": 3600},
    )
    new_end = datetime.fromisoformat(extended.json()["lease_expires_at"])
    assert new_end > datetime.fromisoformat(str(lease["lease_expires_at"]))
    wrong = await api.client.post(
        f"/v1/queues/jobs/jobs/{lease['job_id']}/extend",
        json={"lease_id": "lease_someone_else", "lease_seconds": 10},
    )
    assert_problem(wrong, 409, "lease_expired")


async def test_unknown_jobs_are_404(api: RunningApp) -> None:
    """A well-formed job id the queue does not hold is 404 job_not_found."""
    await _create_queue(api)
    missing = "job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"
    assert_problem(await api.client.get(f"/v1/queues/jobs/jobs/{missing}"), 404, "job_not_found")
    response = await api.client.post(
        f"/v1/queues/jobs/jobs/{missing}/ack", json={"lease_id": "lease_x"}
    )
    assert_problem(response, 404, "job_not_found")


async def test_malformed_job_ids_are_400(api: RunningApp) -> None:
    """A job id that breaks the spec's pattern is 400 invalid_name."""
    await _create_queue(api)
    response = await api.client.get("/v1/queues/jobs/jobs/not-a-job")
    problem = assert_problem(response, 400, "invalid_name")
    assert "job id" in problem["detail"]


@pytest.mark.parametrize(
    ("query", "location"),
    [({"state": "finished"}, "query.state"), ({"limit": "0"}, "query.limit")],
)
async def test_list_jobs_query_is_validated(
    api: RunningApp, query: dict[str, str], location: str
) -> None:
    """listJobs refuses unknown states and out-of-range limits with 422."""
    await _create_queue(api)
    response = await api.client.get("/v1/queues/jobs/jobs", params=query)
    problem = assert_problem(response, 422, "validation_failed")
    assert problem["errors"][0]["location"] == location


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/queues/jobs/leases", {"max_jobs": 0}),
        ("/v1/queues/jobs/leases", {"topics": ["spool..bad space"]}),
        ("/v1/queues/jobs/leases", {"wait_ms": 30001}),
        ("/v1/queues/jobs/jobs/job_1/ack", {}),
        ("/v1/queues/jobs/jobs/job_1/nack", {"lease_id": "l", "retry_delay": -1}),
        ("/v1/queues/jobs/jobs/job_1/extend", {"lease_id": "l"}),
        ("/v1/queues/jobs/jobs", {"topic": "t"}),
        ("/v1/queues/jobs/jobs", {"topic": "t", "payload": 1, "delay": 604801}),
    ],
)
async def test_job_requests_are_validated(
    api: RunningApp, path: str, body: dict[str, object]
) -> None:
    """Bodies that break the schema are 422 and change nothing."""
    await _create_queue(api)
    response = await api.client.post(path, json=body)
    assert_problem(response, 422, "validation_failed")
    assert (await api.client.get("/v1/queues/jobs")).json()["stats"]["ready"] == 0


async def test_lease_on_a_missing_queue_is_404(api: RunningApp) -> None:
    """leaseJobs and listJobs on a queue that does not exist are 404 queue_not_found."""
    assert_problem(await api.client.post("/v1/queues/none/leases", json={}), 404, "queue_not_found")
    assert_problem(await api.client.get("/v1/queues/none/jobs"), 404, "queue_not_found")
