"""`spool work`: shell commands as queue workers, against the real service."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import sdk
from tests._eventually import eventually
from tests.sdk.cli._support import Spool, json_lines, spool_process

_STOP_TIMEOUT = 20.0


def test_a_command_that_succeeds_acknowledges_its_job(
    spool: Spool, client: sdk.Client, name: str, tmp_path: Path
) -> None:
    """The payload arrives on stdin and the job in the environment; exit 0 acks."""
    client.queues.create(name)
    receipt = client.init_queue(name).publish("email", {"to": "a"})
    seen = tmp_path / "seen"
    script = (
        f'cat > {seen}; echo "$SPOOL_JOB_ID $SPOOL_QUEUE $SPOOL_TOPIC $SPOOL_ATTEMPT" >> {seen}'
    )
    result = spool("work", name, "--burst", "--json", "--", "sh", "-c", script)
    assert result.exit_code == 0, result.output
    [outcome] = json_lines(result)
    assert (outcome["job_id"], outcome["outcome"], outcome["exit_code"]) == (
        receipt.job_id,
        "acked",
        0,
    )
    payload, environment = seen.read_text().split("\n", 1)
    assert json.loads(payload) == {"to": "a"}
    assert environment.split() == [receipt.job_id, name, "email", "1"]
    assert client.init_queue(name).job(receipt.job_id).state == "succeeded"


def test_a_command_that_fails_gives_its_job_back_with_its_stderr(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """A non-zero exit nacks the job: ready again, with the end of stderr as its error."""
    client.queues.create(name, max_attempts=3)
    receipt = client.init_queue(name).publish("email", {"to": "b"})
    result = spool(
        "work", name, "--max-jobs", "1", "--", "sh", "-c", "echo 'smtp down' >&2; exit 3"
    )
    assert result.exit_code == 0, result.output
    assert "smtp down" in result.stderr
    assert "nacked" in result.stderr
    job = client.init_queue(name).job(receipt.job_id)
    assert (job.state, job.attempts) == ("ready", 1)
    assert job.last_error == "exit status 3: smtp down"


def test_topics_concurrency_and_a_missing_command(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """Only the topics asked for are worked on, several at a time; a command that does not
    exist fails its jobs, which are given back: on their last attempt, dead.
    """
    client.queues.create(name, max_attempts=1)
    queue = client.init_queue(name)
    wanted = queue.publish_many([("a", {"n": n}) for n in range(4)])
    other = queue.publish("b", {"n": 9})
    done = spool("work", name, "--topic", "a", "-c", "3", "--burst", "--json", "--", "true")
    assert sorted(line["job_id"] for line in json_lines(done)) == sorted(r.job_id for r in wanted)
    assert queue.job(other.job_id).state == "ready"
    missing = spool("work", name, "--burst", "--json", "--", "/nonexistent/command")
    [outcome] = json_lines(missing)
    assert outcome["outcome"] == "dead" and "could not run" in outcome["error"]
    assert queue.job(other.job_id).state == "dead"


def test_a_failed_last_attempt_says_the_job_is_dead(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """Given back while attempts are left, a job is "nacked"; on its last one, "dead after N
    attempts", as the service moved it to the dead jobs.
    """
    client.queues.create(name, max_attempts=2)
    receipt = client.init_queue(name).publish("email", {"to": "c"})
    result = spool("work", name, "--burst", "--", "sh", "-c", "exit 1")
    assert result.exit_code == 0, result.output
    first, last = [line for line in result.stderr.splitlines() if receipt.job_id in line]
    assert "attempt 1: nacked" in first
    assert "attempt 2: dead after 2 attempts" in last
    assert client.init_queue(name).job(receipt.job_id).state == "dead"


def test_a_missing_queue_exits_not_found(spool: Spool, name: str) -> None:
    """The queue is checked before anything runs."""
    result = spool("work", name, "--", "true")
    assert result.exit_code == 3
    assert "queue_not_found" in result.stderr


async def test_sigterm_lets_the_running_command_finish(
    client: sdk.Client, environment: dict[str, str], name: str, tmp_path: Path
) -> None:
    """The first SIGTERM stops leasing; the job that is running finishes and is acked."""
    client.queues.create(name)
    queue = client.init_queue(name)
    receipt = queue.publish("slow", {})
    started = tmp_path / "started"
    command = ["sh", "-c", f"touch {started}; exec sleep 1"]
    process = spool_process("work", name, "--", *command, environment=environment)
    try:
        # Running, not only leased: a job whose lease answer is still on its way is not counted.
        await eventually(started.exists, timeout=_STOP_TIMEOUT)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=_STOP_TIMEOUT) == 0
    finally:
        process.kill()
        _, stderr = process.communicate()
    assert "finishing 1 running job" in stderr
    assert queue.job(receipt.job_id).state == "succeeded"


async def test_ctrl_c_lets_the_running_command_finish_and_exits_130(
    client: sdk.Client, environment: dict[str, str], name: str, tmp_path: Path
) -> None:
    """Ctrl-C stops as SIGTERM does, the running job acked, but the status says interrupted."""
    client.queues.create(name)
    queue = client.init_queue(name)
    receipt = queue.publish("slow", {})
    started = tmp_path / "started"
    command = ["sh", "-c", f"touch {started}; exec sleep 1"]
    process = spool_process("work", name, "--", *command, environment=environment)
    try:
        await eventually(started.exists, timeout=_STOP_TIMEOUT)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=_STOP_TIMEOUT) == 130
    finally:
        process.kill()
        _, stderr = process.communicate()
    assert "finishing 1 running job" in stderr and "interrupted" in stderr
    assert queue.job(receipt.job_id).state == "succeeded"


async def test_a_second_signal_gives_the_running_job_back(
    client: sdk.Client, environment: dict[str, str], name: str, tmp_path: Path
) -> None:
    """Ctrl-C twice terminates the command and nacks its job at once; the status is 130."""
    client.queues.create(name)
    queue = client.init_queue(name)
    receipt = queue.publish("slow", {})
    started = tmp_path / "started"
    command = ["sh", "-c", f"touch {started}; exec sleep 30"]
    process = spool_process("work", name, "--", *command, environment=environment)
    try:
        await eventually(started.exists, timeout=_STOP_TIMEOUT)
        process.send_signal(signal.SIGINT)
        time.sleep(0.2)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=_STOP_TIMEOUT) == 130
    finally:
        process.kill()
        process.communicate()
    job = queue.job(receipt.job_id)
    assert (job.state, job.last_error) == ("ready", "stopped by spool work")


def test_a_command_longer_than_its_lease_keeps_its_job(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """The lease is extended while the command runs, so the ack still holds at the end."""
    client.queues.create(name)
    receipt = client.init_queue(name).publish("slow", {})
    result = spool("work", name, "--lease", "1s", "--burst", "--json", "--", "sleep", "1.5")
    [outcome] = json_lines(result)
    assert (outcome["job_id"], outcome["outcome"]) == (receipt.job_id, "acked")
    assert client.init_queue(name).job(receipt.job_id).state == "succeeded"
