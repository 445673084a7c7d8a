"""run() settling leased jobs (sdk/_worker_sources.py, sdk/_worker_acks.py): batched acks, nacks,
giving back, ended leases."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import QUEUE, job, leased, problem, resolve, sent_json
from tests.sdk._worker_support import ClientFactory, acks_answer


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
    ack = api.post("/v1/queues/jobs/acks").mock(side_effect=acks_answer)
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
    assert sent_json(ack.calls.last) == {"jobs": [{"job_id": "job_1", "lease_id": "lease_1"}]}
    assert sent_json(nack.calls.last) == {
        "lease_id": "lease_2",
        "retry_delay": 5,
        "error": "ValueError: SMTP timeout",
    }


async def test_jobs_leased_after_a_stop_are_given_back(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A stop mid-batch releases the leases not handled yet in one request, so they need not
    time out and their attempts do not count; a failed release does not fail the stop.
    """
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    lease = api.post("/v1/queues/jobs/leases").mock(
        return_value=httpx.Response(
            200,
            json={
                "jobs": [
                    leased("job_1"),
                    leased("job_2", lease_id="lease_2"),
                    leased("job_3", lease_id="lease_3"),
                ]
            },
        )
    )
    api.post("/v1/queues/jobs/acks").mock(side_effect=acks_answer)
    release = api.post("/v1/queues/jobs/releases").mock(
        return_value=httpx.Response(
            200,
            json={
                "results": [
                    {"job_id": "job_2", "released": True},
                    {"job_id": "job_3", "released": False, "code": "lease_expired"},
                ]
            },
        )
    )
    queue = await resolve(client.init_queue("jobs"))
    queue.subscribe(count=3)(lambda payload: client.stop())
    await resolve(client.run())
    assert "topics" not in sent_json(lease.calls.last)
    assert release.call_count == 1
    assert sent_json(release.calls.last) == {
        "jobs": [
            {"job_id": "job_2", "lease_id": "lease_2"},
            {"job_id": "job_3", "lease_id": "lease_3"},
        ]
    }
    release.mock(return_value=problem(404, "queue_not_found"))
    await resolve(client.run())
    assert release.call_count == 2


async def test_a_lease_that_ended_before_the_ack_does_not_stop_the_worker(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """A job ackJobs did not acknowledge is logged (the job comes back); an error no wait cures
    ends the run with it.
    """
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    api.post("/v1/queues/jobs/leases").mock(
        return_value=httpx.Response(200, json={"jobs": [leased("job_1")]})
    )
    ack = api.post("/v1/queues/jobs/acks").mock(
        return_value=httpx.Response(
            200, json={"results": [{"job_id": "job_1", "acked": False, "code": "lease_expired"}]}
        )
    )
    queue = await resolve(client.init_queue("jobs"))
    queue.subscribe("email-jobs")(lambda payload: None)
    await resolve(client.run(max_messages=1))
    assert "job job_1 of queue 'jobs' (email-jobs) was not acknowledged (lease_expired)" in (
        caplog.text
    )
    ack.mock(return_value=problem(404, "queue_not_found"))
    with pytest.raises(sdk.NotFoundError):
        await resolve(client.run(max_messages=1))
    assert "could not acknowledge 1 messages" in caplog.text


async def test_a_nack_after_the_lease_ended_does_not_stop_the_worker(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """409 lease_expired on a failed job's nack is logged; other conflicts end the run."""
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    api.post("/v1/queues/jobs/leases").mock(
        return_value=httpx.Response(200, json={"jobs": [leased("job_1")]})
    )
    nack = api.post("/v1/queues/jobs/jobs/job_1/nack").mock(
        return_value=problem(409, "lease_expired")
    )
    queue: sdk.Queue | sdk.AsyncQueue = await resolve(client.init_queue("jobs"))

    def fail(payload: object) -> None:
        raise RuntimeError("boom")

    queue.subscribe()(fail)

    await resolve(client.run(max_messages=1))
    assert "ended before the handler finished" in caplog.text
    nack.mock(return_value=problem(409, "invalid_state"))
    with pytest.raises(sdk.ConflictError):
        await resolve(client.run(max_messages=1))


async def test_acks_of_jobs_handled_meanwhile_share_a_request(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Many jobs handled while an ack is on its way go in one ackJobs request; each is acked
    once, and only after its handler returned.
    """
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    numbers = iter(range(40))

    def lease_answer(request: httpx.Request) -> httpx.Response:
        count = json.loads(request.content)["max_jobs"]
        return httpx.Response(
            200, json={"jobs": [leased(f"job_{next(numbers)}") for _ in range(count)]}
        )

    api.post("/v1/queues/jobs/leases").mock(side_effect=lease_answer)
    handled: list[str] = []
    acked: list[str] = []

    def ack_answer(request: httpx.Request) -> httpx.Response:
        jobs = [job["job_id"] for job in json.loads(request.content)["jobs"]]
        assert set(jobs) <= set(handled)
        acked.extend(jobs)
        return acks_answer(request)

    ack = api.post("/v1/queues/jobs/acks").mock(side_effect=ack_answer)
    queue = await resolve(client.init_queue("jobs"))
    queue.subscribe(count=10)(lambda payload: handled.append(f"job_{len(handled)}"))
    await resolve(client.run(max_messages=40))
    assert sorted(acked) == sorted(handled) == sorted(f"job_{n}" for n in range(40))
    assert ack.call_count < 40


async def test_an_ack_that_fails_for_a_while_is_sent_again(
    make_client: ClientFactory,
    api: respx.MockRouter,
    sleeps: list[float],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A 503 on ackJobs is waited out and the same jobs are sent again."""
    client = make_client(max_retries=0)
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    api.post("/v1/queues/jobs/leases").mock(
        return_value=httpx.Response(200, json={"jobs": [leased("job_1")]})
    )
    answers = iter([problem(503, "unavailable")])
    ack = api.post("/v1/queues/jobs/acks").mock(
        side_effect=lambda request: next(answers, None) or acks_answer(request)
    )
    queue = await resolve(client.init_queue("jobs"))
    queue.subscribe()(lambda payload: None)
    await resolve(client.run(max_messages=1))
    assert [sent_json(call) for call in ack.calls] == [
        {"jobs": [{"job_id": "job_1", "lease_id": "lease_1"}]}
    ] * 2
    assert "acknowledging failed, trying again" in caplog.text
    assert len(sleeps) == 1
