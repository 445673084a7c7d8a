"""`spool queues` and `spool jobs` against the real service."""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

import sdk
from sdk._cli._app import cli
from sdk._cli._queues import jobs, queues
from tests.sdk.cli._support import Spool, parsed


@pytest.mark.parametrize("group", [queues, jobs], ids=lambda group: str(group.name))
def test_the_group_help_lists_every_subcommand_in_full(group: click.Group) -> None:
    """`spool jobs --help` and `spool queues --help` list every subcommand, `delete` included,
    each with its short help whole rather than cut off with "..." on a common terminal.
    """
    assert group.name is not None
    # Click lays help out 2 columns inside the terminal: this is an 80-column one, where a
    # short help that does not fit is cut.
    result = CliRunner().invoke(
        cli, [group.name, "--help"], env={"SPOOL_BASE_URL": ""}, terminal_width=78
    )
    assert result.exit_code == 0, result.output
    listed = {
        line.split()[0]: line
        for line in result.stdout.split("Commands:", 1)[1].splitlines()
        if line.strip()
    }
    assert set(listed) == set(group.commands)
    assert "delete" in listed
    for line in listed.values():
        assert not line.endswith("..."), line


def test_the_jobs_help_says_what_every_subcommand_does() -> None:
    """The description of `spool jobs` names deleting a dead job beside listing, reading and
    retrying, and shows the two commands that act on a dead job.
    """
    text = CliRunner().invoke(cli, ["jobs", "--help"], env={"SPOOL_BASE_URL": ""}).stdout
    description = text.split("Example", 1)[0]
    assert "List a queue's jobs, read one, retry or delete a dead one." in description
    examples = text.split("Example", 1)[1].split("Options:", 1)[0]
    assert "spool jobs retry " in examples
    assert "spool jobs delete " in examples


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


def test_jobs_ls_never_cuts_a_job_id(spool: Spool, client: sdk.Client, name: str) -> None:
    """In a terminal too narrow for the table, through a pipe and with --wide, the id to act on
    is printed whole; `jobs get` takes it as printed.
    """
    client.queues.create(name)
    receipt = client.init_queue(name).publish("a-rather-long-topic-name", {"to": "a"})
    for result in (
        spool("jobs", "ls", name, TTY_COMPATIBLE="1", COLUMNS="50", NO_COLOR="1"),
        spool("jobs", "ls", name, "--wide", TTY_COMPATIBLE="1", COLUMNS="50"),
        spool("jobs", "ls", name, COLUMNS="50"),
    ):
        assert result.exit_code == 0, result.output
        shown = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
        [job_id] = re.findall(r"job_[0-9A-Z]+", shown)
        assert job_id == receipt.job_id
        assert "…" not in shown
    assert spool("jobs", "get", name, job_id).exit_code == 0
