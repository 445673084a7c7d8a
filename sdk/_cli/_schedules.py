"""`spool schedules`: put, list, read, pause, resume and delete cron schedules."""

from __future__ import annotations

from typing import Any

import click

import sdk

from ._context import State, common_options, pass_state
from ._errors import CliError, ExitCode
from ._output import print_json, print_table, show
from ._parsing import DURATION, json_body, parse_headers, read_body

__all__ = ["schedules"]


@click.group()
@common_options
def schedules() -> None:
    """Publish a message, a job or a stream entry on a cron timetable.

    \b
    Example:
      spool schedules set nightly --cron '0 3 * * *' --timezone Europe/Berlin \\
          --queue reports --topic reports.nightly '{"report": "sales"}'
      spool schedules ls
      spool schedules pause nightly
    """


def _describe(
    destination: sdk.MessageDestination | sdk.JobDestination | sdk.StreamDestination,
) -> str:
    if isinstance(destination, sdk.JobDestination):
        return f"job {destination.topic} on queue {destination.queue}"
    if isinstance(destination, sdk.StreamDestination):
        return f"entry on stream {destination.stream}"
    if destination.url_group is not None:
        return f"message to URL group {destination.url_group}"
    return f"message to {destination.url}"


def _last_outcome(schedule: sdk.Schedule) -> str | None:
    if not schedule.recent_runs:
        return None
    run = schedule.recent_runs[0]
    return run.outcome if run.error is None else f"{run.outcome}: {run.error.code}"


@schedules.command(name="ls")
@common_options
@pass_state
def list_(state: State) -> None:
    """Every schedule the API key may see, by name, with its next tick and last outcome.

    \b
    Example:
      spool schedules ls --json
    """
    found = list(state.client().schedules.list())
    if state.as_json:
        print_json(found)
        return
    print_table(
        (
            "schedule",
            "cron",
            "timezone",
            "publishes",
            "paused",
            "last run",
            "next run",
            "last outcome",
        ),
        (
            (
                s.name,
                s.cron,
                s.timezone,
                _describe(s.destination),
                s.paused,
                s.last_run_at,
                s.next_run_at,
                _last_outcome(s),
            )
            for s in found
        ),
    )


@schedules.command(name="set")
@click.argument("name")
@click.argument("body")
@click.option("--cron", required=True, help="Five fields: '*/5 * * * *'.")
@click.option("--timezone", help="IANA time zone the cron is read in (default UTC).")
@click.option(
    "--catch-up",
    type=click.Choice(["once", "skip"]),
    help="Ticks missed while down: publish once (default) or skip.",
)
@click.option("--url", help="Publish an HTTP message to this URL.")
@click.option("--url-group", help="Publish an HTTP message to every URL of this group.")
@click.option("--queue", help="Publish a job to this queue (with --topic).")
@click.option("--topic", help="The job's topic.")
@click.option("--stream", help="Append an entry to this stream.")
@click.option("--maxlen", type=click.IntRange(0), help="Trim the stream to this many entries.")
@click.option("--delay", type=DURATION, help="Hold each message or job back: 30s.")
@click.option("--retries", type=click.IntRange(0, 20), help="Message deliveries tried again.")
@click.option("-H", "--header", "headers", multiple=True, help="'Name: value' for each delivery.")
@common_options
@pass_state
def set_(state: State, /, name: str, body: str, **options: Any) -> None:
    """Create or replace a schedule publishing BODY (JSON, or - for stdin) on each tick, as an
    HTTP message (--url or --url-group), a job (--queue and --topic) or a stream entry (--stream).

    \b
    Example:
      spool schedules set ticks --cron '*/5 * * * *' --stream ticks '{"tick": true}'
      spool schedules set ping --cron '0 * * * *' --url https://example.com/ping '"ping"'
    """
    value = json_body(read_body(body))
    destination = _destination(value, options)
    extra: sdk.ScheduleOptions = {}
    if options["timezone"] is not None:
        extra["timezone"] = options["timezone"]
    if options["catch_up"] is not None:
        extra["catch_up"] = options["catch_up"]
    schedule = state.client().schedules.set(
        name, cron=options["cron"], destination=destination, **extra
    )
    _show(state, schedule)


def _destination(
    value: Any, options: dict[str, Any]
) -> sdk.MessageDestination | sdk.JobDestination | sdk.StreamDestination:
    chosen = [flag for flag in ("url", "url_group", "queue", "stream") if options[flag] is not None]
    if len(chosen) != 1:
        raise CliError(
            "give exactly one of --url, --url-group, --queue and --stream", code=ExitCode.USAGE
        )
    if options["queue"] is not None:
        if options["topic"] is None:
            raise CliError("a job needs --topic", code=ExitCode.USAGE)
        return sdk.JobDestination(options["queue"], options["topic"], value, delay=options["delay"])
    if options["stream"] is not None:
        return sdk.StreamDestination(options["stream"], value, maxlen=options["maxlen"])
    return sdk.MessageDestination(
        value,
        url=options["url"],
        url_group=options["url_group"],
        delay=options["delay"],
        retries=options["retries"],
        headers=parse_headers(options["headers"]),
    )


@schedules.command()
@click.argument("name")
@common_options
@pass_state
def get(state: State, name: str) -> None:
    """A schedule's timetable, destination, next tick and recent runs.

    \b
    Example:
      spool schedules get nightly
    """
    _show(state, state.client().schedules.get(name))


@schedules.command()
@click.argument("name")
@common_options
@pass_state
def pause(state: State, name: str) -> None:
    """Stop a schedule firing until it is resumed.

    \b
    Example:
      spool schedules pause nightly
    """
    _show(state, state.client().schedules.pause(name))


@schedules.command()
@click.argument("name")
@common_options
@pass_state
def resume(state: State, name: str) -> None:
    """Let a paused schedule fire again, from its next tick after now.

    \b
    Example:
      spool schedules resume nightly
    """
    _show(state, state.client().schedules.resume(name))


@schedules.command(name="rm")
@click.argument("name")
@common_options
@pass_state
def remove(state: State, name: str) -> None:
    """Delete a schedule; what it published stays.

    \b
    Example:
      spool schedules rm nightly
    """
    state.client().schedules.delete(name)
    if state.as_json:
        print_json({"deleted": name})
    else:
        click.echo(f"deleted {name}")


def _show(state: State, schedule: sdk.Schedule) -> None:
    if state.as_json:
        print_json(schedule)
        return
    show(
        {
            "name": schedule.name,
            "cron": schedule.cron,
            "timezone": schedule.timezone,
            "catch up": schedule.catch_up,
            "publishes": _describe(schedule.destination),
            "paused": schedule.paused,
            "last run": schedule.last_run_at,
            "next run": schedule.next_run_at,
            "last outcome": _last_outcome(schedule),
        },
        as_json=False,
    )
