"""`spool schedules` against the real service."""

from __future__ import annotations

import sdk
from tests.sdk.cli._support import Spool, parsed


def test_set_ls_get_pause_resume_rm(spool: Spool, client: sdk.Client, name: str) -> None:
    """A schedule set from the command line is listed, read, paused, resumed and removed."""
    created = parsed(
        spool(
            "schedules",
            "set",
            name,
            "--cron",
            "*/5 * * * *",
            "--timezone",
            "Europe/Berlin",
            "--catch-up",
            "skip",
            "--stream",
            name,
            "--maxlen",
            "10",
            '{"tick": true}',
            "--json",
        )
    )
    assert (created["name"], created["cron"], created["timezone"]) == (
        name,
        "*/5 * * * *",
        "Europe/Berlin",
    )
    assert created["catch_up"] == "skip"
    assert client.schedules.get(name).destination == sdk.StreamDestination(
        name, {"tick": True}, maxlen=10
    )
    assert name in [s["name"] for s in parsed(spool("schedules", "ls", "--json"))]
    table = spool("schedules", "ls").stdout
    assert f"entry on stream {name}" in table
    assert "Europe/Berlin" in spool("schedules", "get", name).stdout
    paused = parsed(spool("schedules", "pause", name, "--json"))
    assert (paused["paused"], paused["next_run_at"]) == (True, None)
    resumed = parsed(spool("schedules", "resume", name, "--json"))
    assert resumed["paused"] is False and resumed["next_run_at"] is not None
    assert parsed(spool("schedules", "rm", name, "--json")) == {"deleted": name}
    assert spool("schedules", "get", name).exit_code == 3


def test_set_makes_jobs_and_messages(spool: Spool, client: sdk.Client, name: str) -> None:
    """--queue with --topic schedules a job, --url a message with its options."""
    client.queues.create(name)
    job = spool(
        "schedules", "set", name, "--cron", "0 * * * *", "--queue", name, "--topic", "t", "1"
    )
    assert job.exit_code == 0, job.output
    assert client.schedules.get(name).destination == sdk.JobDestination(name, "t", 1)
    message = spool(
        "schedules",
        "set",
        name,
        "--cron",
        "0 * * * *",
        "--url",
        "http://127.0.0.1:9/hook",
        "--retries",
        "2",
        "-H",
        "X-Tenant: acme",
        '"ping"',
    )
    assert message.exit_code == 0, message.output
    destination = client.schedules.get(name).destination
    assert isinstance(destination, sdk.MessageDestination)
    assert (destination.url, destination.retries, destination.headers) == (
        "http://127.0.0.1:9/hook",
        2,
        {"X-Tenant": "acme"},
    )
    client.schedules.delete(name)


def test_set_refuses_what_cannot_fire(spool: Spool, name: str) -> None:
    """No destination, two of them, a job without a topic or a bad cron is a usage error."""
    for args in (
        ("--cron", "* * * * *", "1"),
        ("--cron", "* * * * *", "--stream", "s", "--queue", "q", "1"),
        ("--cron", "* * * * *", "--queue", "q", "1"),
        ("--cron", "61 * * * *", "--stream", "s", "1"),
    ):
        result = spool("schedules", "set", name, *args)
        assert result.exit_code == 2, (args, result.output)
