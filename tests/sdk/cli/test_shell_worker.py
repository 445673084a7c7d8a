"""The engine of `spool work` (sdk/_cli/_shell_worker.py) where a stop meets a lease."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, cast

import sdk
from sdk._cli._shell_worker import Outcome, ShellWorker


class _StopArrivesDuringTheLease:
    """A queue whose lease answers just as the worker is told to stop, as a Ctrl-C pressed
    while a lease request is on its way would.
    """

    def __init__(self, queue: sdk.Queue) -> None:
        self.queue = queue
        self.worker: ShellWorker | None = None

    def lease(self, **arguments: Any) -> list[sdk.LeasedJob]:
        jobs = self.queue.lease(**arguments)
        assert self.worker is not None
        self.worker.stop()
        return jobs

    def release(self, job: sdk.LeasedJob) -> sdk.Job:
        return self.queue.release(job)


def test_a_job_leased_as_the_worker_stops_is_released_untried(
    client: sdk.Client, name: str
) -> None:
    """The command never runs; the job, on its only attempt, is ready again and not dead."""
    client.queues.create(name, max_attempts=1)
    queue = client.init_queue(name)
    receipt = queue.publish("email", {"to": "a"})
    stopping = _StopArrivesDuringTheLease(queue)
    outcomes: list[Outcome] = []
    worker = ShellWorker(
        cast("sdk.Queue", stopping),
        ["false"],
        topics=[],
        concurrency=1,
        lease=timedelta(seconds=30),
        retry_delay=0,
        consumer="cli-test",
        burst=True,
        max_jobs=None,
        command_stdout=None,
        report=outcomes.append,
    )
    stopping.worker = worker
    worker.run()
    assert [(outcome.job_id, outcome.outcome) for outcome in outcomes] == [
        (receipt.job_id, "released")
    ]
    job = queue.job(receipt.job_id)
    assert (job.state, job.attempts, job.last_error) == ("ready", 0, None)
    assert [attempt.outcome for attempt in job.attempt_history] == ["released"]
