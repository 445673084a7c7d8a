"""`queue.job()` and `queue.jobs()` (sync and async) give a job's attempts, leased_at and
finished_at typed: JobAttempt tuples and aware datetimes, empty or None when the wire leaves
them out.
"""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import respx

import sdk
from tests.sdk._support import QUEUE, job, resolve


async def test_a_job_gives_its_attempts_typed(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    worked = {
        **job(),
        "attempts": 2,
        "leased_at": "2026-11-29T12:00:35Z",
        "finished_at": "2026-11-29T12:00:36Z",
        "attempt_history": [
            {
                "number": 1,
                "leased_at": "2026-11-29T12:00:00Z",
                "ended_at": "2026-11-29T12:00:30Z",
                "outcome": "failed",
                "error": "SMTP timeout",
                "consumer": "mailer-1",
            },
            {"number": 2, "leased_at": "2026-11-29T12:00:35Z"},
        ],
    }
    api.get("/v1/queues/jobs/jobs/job_1").mock(return_value=httpx.Response(200, json=worked))
    api.get("/v1/queues/jobs/jobs").mock(
        return_value=httpx.Response(200, json={"jobs": [job("job_2")]})
    )
    queue = await resolve(client.init_queue("jobs"))
    got = await resolve(queue.job("job_1"))
    assert got.leased_at == datetime(2026, 11, 29, 12, 0, 35, tzinfo=UTC)
    assert got.finished_at == datetime(2026, 11, 29, 12, 0, 36, tzinfo=UTC)
    assert got.attempt_history == (
        sdk.JobAttempt(
            number=1,
            leased_at=datetime(2026, 11, 29, 12, 0, tzinfo=UTC),
            ended_at=datetime(2026, 11, 29, 12, 0, 30, tzinfo=UTC),
            outcome="failed",
            error="SMTP timeout",
            consumer="mailer-1",
        ),
        sdk.JobAttempt(number=2, leased_at=datetime(2026, 11, 29, 12, 0, 35, tzinfo=UTC)),
    )
    [bare] = await resolve(queue.jobs(state=None, limit=10))
    assert (bare.attempt_history, bare.leased_at, bare.finished_at) == ((), None, None)
