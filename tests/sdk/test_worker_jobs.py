"""run() settling leased jobs (sdk/_worker_jobs.py): ack, nack, give back, ended leases."""

from __future__ import annotations

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import QUEUE, job, leased, problem, resolve, sent_json


async def test_queue_jobs_are_acked_or_nacked(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A returning handler acks its lease; a raising one nacks with the error and delay."""
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    lease = api.post("/v1/queues/jobs/leases").mock(
        return_value=httpx.Response(
            200,
            json={
                "jobs": [
                    leased("job_1", payload={"ok": True}, lease_id="lease_1"),
                    leased("job_2", payload={"ok": False}, lease_id="lease_2"),
                ]
            },
        )
    )
    ack = api.post("/v1/queues/jobs/jobs/job_1/ack").mock(
        return_value=httpx.Response(200, json=job("job_1"))
    )
    nack = api.post("/v1/queues/jobs/jobs/job_2/nack").mock(
        return_value=httpx.Response(200, json=job("job_2", state="delayed"))
    )
    queue: sdk.Queue | sdk.AsyncQueue = await resolve(client.init_queue("jobs"))

    @queue.subscribe("email-jobs", count=2, retry_delay="5s", lease="1m")
    def send(payload: dict[str, bool]) -> None:
        if not payload["ok"]:
            raise ValueError("SMTP timeout")

    await resolve(client.run(consumer="worker-1", max_messages=2))
    assert sent_json(lease.calls.last) == {
        "consumer": "worker-1",
        "topics": ["email-jobs"],
        "max_jobs": 2,
        "lease_seconds": 60,
        "wait_ms": 1000,
    }
    assert sent_json(ack.calls.last) == {"lease_id": "lease_1"}
    assert sent_json(nack.calls.last) == {
        "lease_id": "lease_2",
        "retry_delay": 5,
        "error": "ValueError: SMTP timeout",
    }


async def test_jobs_leased_after_a_stop_are_given_back(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A stop mid-batch nacks the leases not handled yet, so they need not time out."""
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    lease = api.post("/v1/queues/jobs/leases").mock(
        return_value=httpx.Response(
            200, json={"jobs": [leased("job_1"), leased("job_2", lease_id="lease_2")]}
        )
    )
    api.post("/v1/queues/jobs/jobs/job_1/ack").mock(return_value=httpx.Response(200, json=job()))
    nack = api.post("/v1/queues/jobs/jobs/job_2/nack").mock(
        return_value=httpx.Response(200, json=job("job_2", state="ready"))
    )
    queue = await resolve(client.init_queue("jobs"))
    queue.subscribe(count=2)(lambda payload: client.stop())
    await resolve(client.run())
    assert "topics" not in sent_json(lease.calls.last)
    assert sent_json(nack.calls.last) == {
        "lease_id": "lease_2",
        "retry_delay": 0,
        "error": "worker stopped before handling the job",
    }


async def test_a_lease_that_ended_before_the_ack_does_not_stop_the_worker(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """409 lease_expired on ack is logged (the job comes back); other conflicts end the run."""
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    api.post("/v1/queues/jobs/leases").mock(
        return_value=httpx.Response(200, json={"jobs": [leased("job_1")]})
    )
    ack = api.post("/v1/queues/jobs/jobs/job_1/ack").mock(
        return_value=problem(409, "lease_expired")
    )
    queue = await resolve(client.init_queue("jobs"))
    queue.subscribe("email-jobs")(lambda payload: None)
    await resolve(client.run(max_messages=1))
    assert "ended before the handler finished" in caplog.text
    ack.mock(return_value=problem(409, "invalid_state"))
    with pytest.raises(sdk.ConflictError):
        await resolve(client.run(max_messages=1))
