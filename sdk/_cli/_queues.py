"""`spool queues` (create, list, inspect, delete) and `spool jobs` (list, get, retry, delete)."""

from __future__ import annotations

import dataclasses
from typing import Any, cast, get_args

import click

import sdk

from ._context import State, common_options, pass_state
from ._output import print_json, print_table, show
from ._parsing import DURATION

__all__ = ["jobs", "queues"]

_JOB_STATES: tuple[str, ...] = get_args(sdk.JobState)


@click.group()
@common_options
def queues() -> None:
    """Create, list, inspect and delete queues.

    \b
    Example:
      spool queues create jobs --max-attempts 5 --lease 30s
      spool queues ls
    """


@queues.command(name="ls")
@common_options
@pass_state
def list_(state: State) -> None:
    """Every queue the API key may see, with its job counts.

    \b
    Example:
      spool queues ls --json
    """
    found = state.client().queues.list()
    if state.as_json:
        print_json(found)
        return
    print_table(
        ("queue", "ready", "delayed", "leased", "dead", "max attempts", "lease"),
        (
            (
                q.name,
                q.stats.ready,
                q.stats.delayed,
                q.stats.leased,
                q.stats.dead,
                q.max_attempts,
                q.lease,
            )
            for q in found
        ),
    )


@queues.command()
@click.argument("queue")
@click.option("--max-attempts", type=click.IntRange(1, 100), help="Attempts before a job is dead.")
@click.option("--lease", type=DURATION, help="How long a worker holds a job: 30s.")
@click.option("--retention", type=DURATION, help="How long finished jobs are kept: 7d.")
@click.option(
    "--deduplication-window", type=DURATION, help="How long a deduplication id holds: 1h."
)
@common_options
@pass_state
def create(state: State, /, queue: str, **settings: Any) -> None:
    """Create a queue, or replace the settings of an existing one.

    A setting left out takes the service's default, on an existing queue too (5 attempts, a 30s
    lease, 7d retention, a 5m deduplication window): to change one, give the others again.

    \b
    Example:
      spool queues create emails --max-attempts 5 --lease 1m --retention 7d
    """
    _show_queue(state, state.client().queues.create(queue, **settings))


@queues.command()
@click.argument("queue")
@common_options
@pass_state
def info(state: State, queue: str) -> None:
    """A queue's settings and job counts.

    \b
    Example:
      spool queues info emails
    """
    _show_queue(state, state.client().queues.get(queue))


@queues.command()
@click.argument("queue")
@click.confirmation_option(prompt="Delete the queue and every job in it?")
@common_options
@pass_state
def delete(state: State, queue: str) -> None:
    """Delete a queue and every job in it (asks first; --yes does not).

    \b
    Example:
      spool queues delete scratch --yes
    """
    state.client().queues.delete(queue)
    if state.as_json:
        print_json({"deleted": queue})
    else:
        click.echo(f"deleted {queue}")


def _show_queue(state: State, info: sdk.QueueInfo) -> None:
    if state.as_json:
        print_json(info)
        return
    row = {
        "name": info.name,
        "max attempts": info.max_attempts,
        "lease": info.lease,
        "retention": info.retention,
        "deduplication window": info.deduplication_window,
        "created at": info.created_at,
        "ready": info.stats.ready,
        "delayed": info.stats.delayed,
        "leased": info.stats.leased,
        "dead": info.stats.dead,
    }
    show(row, as_json=False)


@click.group()
@common_options
def jobs() -> None:
    """List a queue's jobs, read one, retry or delete a dead one.

    \b
    Example:
      spool jobs ls emails --state dead
      spool jobs retry emails job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9
      spool jobs delete emails job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9
    """


@jobs.command(name="ls")
@click.argument("queue")
@click.option(
    "--state", "job_state", type=click.Choice(_JOB_STATES), help="Only jobs in this state."
)
@click.option("-n", "--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@common_options
@pass_state
def list_jobs(state: State, queue: str, job_state: str | None, limit: int) -> None:
    """A queue's jobs, oldest first.

    \b
    Example:
      spool jobs ls emails --state dead -n 20
    """
    chosen = cast("sdk.JobState | None", job_state)  # click.Choice allows only JobStates
    found = state.client().init_queue(queue).jobs(state=chosen, limit=limit)
    if state.as_json:
        print_json(found)
        return
    print_table(
        ("job id", "topic", "state", "attempts", "published", "last error"),
        (
            (
                j.job_id,
                j.topic,
                j.state,
                f"{j.attempts}/{j.max_attempts}",
                j.published_at,
                j.last_error,
            )
            for j in found
        ),
    )


@jobs.command()
@click.argument("queue")
@click.argument("job_id")
@common_options
@pass_state
def get(state: State, queue: str, job_id: str) -> None:
    """One job's payload, state, last error and last attempts.

    \b
    Example:
      spool jobs get emails job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9
    """
    job = state.client().init_queue(queue).job(job_id)
    if state.as_json:
        print_json(job)
        return
    fields = {field.name: getattr(job, field.name) for field in dataclasses.fields(job)}
    del fields["attempt_history"]
    show(fields, as_json=False)
    if job.attempt_history:
        print_table(
            ("attempt", "leased at", "consumer", "ended at", "outcome", "error"),
            (
                (a.number, a.leased_at, a.consumer, a.ended_at, a.outcome or "leased", a.error)
                for a in job.attempt_history
            ),
            title="attempt history",
        )


@jobs.command()
@click.argument("queue")
@click.argument("job_id")
@common_options
@pass_state
def retry(state: State, queue: str, job_id: str) -> None:
    """Make a dead job ready again, with fresh attempts.

    \b
    Example:
      spool jobs retry emails job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9
    """
    show(state.client().init_queue(queue).retry(job_id), as_json=state.as_json)


@jobs.command(name="delete")
@click.argument("queue")
@click.argument("job_id")
@common_options
@pass_state
def delete_job(state: State, queue: str, job_id: str) -> None:
    """Delete a dead job now, before the queue's retention ends.

    A job in any other state is refused (exit 4).

    \b
    Example:
      spool jobs delete emails job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9
    """
    state.client().init_queue(queue).delete_job(job_id)
    if state.as_json:
        print_json({"deleted": job_id})
    else:
        click.echo(f"deleted {job_id}")
