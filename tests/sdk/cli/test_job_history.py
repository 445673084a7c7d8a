"""`spool jobs get` shows a job's attempts (sdk/_cli/_queues.py) against the real service."""

from __future__ import annotations

import sdk
from tests.sdk.cli._support import Spool, parsed


def test_jobs_get_lists_the_attempts(spool: Spool, client: sdk.Client, name: str) -> None:
    """A table of the last attempts after the job's fields; JSON gives them whole."""
    client.queues.create(name, max_attempts=3)
    queue = client.init_queue(name)
    receipt = queue.publish("email", {"to": "a"})
    [leased] = queue.lease(consumer="mailer-1")
    queue.nack(leased, error="SMTP timeout")
    [leased] = queue.lease(consumer="mailer-2")
    queue.ack(leased)
    shown = spool("jobs", "get", name, receipt.job_id)
    assert shown.exit_code == 0, shown.stderr
    fields, attempts = shown.stdout.split("attempt history", 1)
    assert "finished_at" in fields and "attempt_history" not in shown.stdout
    assert "mailer-1" in attempts and "SMTP timeout" in attempts and "succeeded" in attempts
    job = parsed(spool("jobs", "get", name, receipt.job_id, "--json"))
    assert [(a["number"], a["outcome"], a["consumer"]) for a in job["attempt_history"]] == [
        (1, "failed", "mailer-1"),
        (2, "succeeded", "mailer-2"),
    ]
    assert job["finished_at"] == job["attempt_history"][-1]["ended_at"]
