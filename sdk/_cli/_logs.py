"""`spool logs`: the events of messages, newest first, or followed as they happen (`-f`); and the
message filters it shares with `spool messages ls`.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar, get_args

import click

import sdk

from ._context import State, common_options, pass_state
from ._errors import ExitCode
from ._output import cell, print_json
from ._parsing import MOMENT

__all__ = ["filter_options", "logs"]

# How often -f asks for new events.
_POLL_SECONDS = 1.0
_PAGE = 1000
CommandT = TypeVar("CommandT", bound=Callable[..., Any])


def filter_options(states: tuple[str, ...], what: str) -> Callable[[CommandT], CommandT]:
    """The message filter options of a listing, `--state` one of `states` (of `what`); the
    command gets them as one `filters` keyword, for `messages.list` or `client.logs`.
    """

    def decorate(command: CommandT) -> CommandT:
        @functools.wraps(command)
        def with_filters(
            *args: Any,
            message_ids: tuple[str, ...],
            filter_state: str | None,
            url: str | None,
            url_group: str | None,
            label: str | None,
            schedule: str | None,
            flow_control_key: str | None,
            since: datetime | None,
            until: datetime | None,
            **kwargs: Any,
        ) -> Any:
            filters = {
                "message_ids": message_ids or None,
                "state": filter_state,
                "url": url,
                "url_group": url_group,
                "label": label,
                "schedule": schedule,
                "flow_control_key": flow_control_key,
                "since": since,
                "until": until,
            }
            return command(*args, filters=filters, **kwargs)

        options = [
            click.option(
                "--id",
                "message_ids",
                multiple=True,
                metavar="MSG",
                help="Only this message (repeat for several).",
            ),
            click.option(
                "--state",
                "filter_state",
                type=click.Choice(states),
                help=f"Only {what} in this state.",
            ),
            click.option("--url", metavar="URL", help="Only messages to exactly this URL."),
            click.option(
                "--url-group", metavar="G", help="Only messages published to URL group G."
            ),
            click.option("--label", metavar="L", help="Only messages with label L."),
            click.option("--schedule", metavar="S", help="Only messages schedule S published."),
            click.option(
                "--flow-control-key", metavar="K", help="Only messages under flow control key K."
            ),
            click.option(
                "--since",
                type=MOMENT,
                help="Only from this time on: RFC 3339, or a duration ago (15m, 2h).",
            ),
            click.option("--until", type=MOMENT, help="Only before this time (as --since)."),
        ]
        decorated: Any = with_filters
        for option in reversed(options):
            decorated = option(decorated)
        return decorated  # type: ignore[no-any-return]

    return decorate


def _key(event: sdk.LogEvent) -> tuple[Any, ...]:
    return (event.message_id, event.state, event.at, event.attempt)


@click.command()
@filter_options(get_args(sdk.LogState), "events")
@click.option(
    "-n",
    "--lines",
    "count",
    type=click.IntRange(1, 1000),
    default=20,
    show_default=True,
    help="How many of the latest events to print first.",
)
@click.option("-f", "--follow", is_flag=True, help="Keep printing new events until Ctrl-C.")
@common_options
@pass_state
def logs(state: State, filters: dict[str, Any], count: int, follow: bool) -> None:
    """Print the latest events of messages, oldest first; -f follows them.

    An event is one change of a message's state: created, scheduled, retry, delivered,
    failed, dead_lettered or cancelled. The filters are those of `spool messages ls`, with
    --state the event's and --since/--until bounding when it happened. -f keeps printing new
    events as they happen, until Ctrl-C (exit status 130).

    \b
    Examples:
      spool logs --label signup -n 50
      spool logs --state failed --since 1h --json | jq .message_id
      spool logs -f --url-group partners
    """
    client = state.client()
    latest = list(itertools.islice(client.logs(**filters, limit=count), count))
    for event in reversed(latest):
        _print_event(state, event)
    if not follow:
        return
    try:
        _follow(state, client, filters, latest)
    except KeyboardInterrupt:
        # Ctrl-C is how a follow ends, not a failure to report: status 130 alone.
        raise click.exceptions.Exit(ExitCode.INTERRUPTED) from None


def _follow(
    state: State, client: sdk.Client, filters: dict[str, Any], latest: list[sdk.LogEvent]
) -> None:
    # Events carry no id: those at the newest time printed are remembered, and the next ask
    # starts at that time, so an event of the same millisecond is printed once.
    newest = latest[0].at if latest else datetime.now(UTC)
    seen = {_key(event) for event in latest if event.at == newest}
    while True:
        time.sleep(_POLL_SECONDS)
        since = newest if filters["since"] is None else max(newest, filters["since"])
        fresh = [
            event
            for event in itertools.islice(client.logs(**{**filters, "since": since}), _PAGE)
            if _key(event) not in seen
        ]
        for event in reversed(fresh):
            _print_event(state, event)
        if fresh:
            newest = fresh[0].at
            seen = {_key(event) for event in fresh if event.at == newest}


def _print_event(state: State, event: sdk.LogEvent) -> None:
    if state.as_json:
        print_json(event)
        return
    details = [
        f"{name}={cell(value)}"
        for name, value in (
            ("attempt", event.attempt),
            ("status", event.status_code),
            ("error", event.error),
            ("labels", ",".join(event.labels) or None),
        )
        if value is not None
    ]
    click.echo(" ".join([cell(event.at), event.message_id, event.state, event.url, *details]))
