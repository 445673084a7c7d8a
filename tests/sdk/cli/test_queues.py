"""`spool queues` and `spool jobs` against the real service."""

from __future__ import annotations

import sdk
from tests.sdk.cli._support import Spool, parsed


def test_create_ls_info_delete(spool: Spool, client: sdk.Client, name: str) -> None:
    """A queue created with settings is listed and described, and deleted after confirming."""
    created = parsed(
        spool("queues", "create", name, "--max-attempts", "4", "--lease", "45s", "--json")
    )
    assert (created["name"], created["max_attempts"], created["lease"]) == (name, 4, 45.0)
    listed = parsed(spool("queues", "ls", "--json"))
    assert name in [queue["name"] for queue in listed]
    assert name in spool("queues", "ls").stdout
    info = parsed(spool("queues", "info", name, "--json"))
    assert info["stats"] == {"ready": 0, "delayed": 0, "leased": 0, "dead": 0}
    assert "max attempts" in spool("queues", "info", name).stdout
    refused = spool("queues", "delete", name, input="n\n")
    assert refused.exit_code == 1  # click's "Aborted!"
    assert client.queues.get(name).name == name
    deleted = spool("queues", "delete", name, "--yes", "--json")
    assert parsed(deleted) == {"deleted": name}
    missing = spool("queues", "info", name)
    assert missing.exit_code == 3
    assert "queue_not_found" in missing.stderr


def test_jobs_ls_get_retry_and_delete(spool: Spool, client: sdk.Client, name: str) -> None:
    """Jobs are listed by state, read one by one, and a dead one is made ready again, or deleted
    (only when dead).
    """
    client.queues.create(name, max_attempts=1)
    queue = client.init_queue(name)
    receipt = queue.publish("email", {"to": "a"})
    ready = parsed(spool("jobs", "ls", name, "--state", "ready", "--json"))
    assert [job["job_id"] for job in ready] == [receipt.job_id]
    assert receipt.job_id in spool("jobs", "ls", name).stdout
    job = parsed(spool("jobs", "get", name, receipt.job_id, "--json"))
    assert (job["payload"], job["state"]) == ({"to": "a"}, "ready")
    [leased] = queue.lease(consumer="test")
    queue.nack(leased, error="boom")
    dead = parsed(spool("jobs", "ls", name, "--state", "dead", "--json"))
    assert [(job["job_id"], job["last_error"]) for job in dead] == [(receipt.job_id, "boom")]
    retried = parsed(spool("jobs", "retry", name, receipt.job_id, "--json"))
    assert retried["state"] == "ready"
    refused = spool("jobs", "delete", name, receipt.job_id)
    assert refused.exit_code == 4 and "invalid_state" in refused.stderr
    [leased_again] = queue.lease(consumer="test")
    queue.nack(leased_again, error="boom again")
    assert parsed(spool("jobs", "delete", name, receipt.job_id, "--json")) == {
        "deleted": receipt.job_id
    }
    assert spool("jobs", "get", name, receipt.job_id).exit_code == 3
    assert spool("jobs", "ls", name, "--state", "nonsense").exit_code == 2
