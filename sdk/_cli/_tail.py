"""`spool tail`: the last entries of a stream, and the new ones as they arrive (`-f`)."""

from __future__ import annotations

import time
from typing import Any

import click
from rich.text import Text

import sdk
from sdk._worker_run import default_consumer_name

from ._context import State, common_options, pass_state
from ._errors import ExitCode
from ._output import cell, console, print_json

__all__ = ["tail"]

# How often `-f` without a group asks for new entries; with a group the service long-polls.
_POLL_SECONDS = 0.25
_GROUP_WAIT_SECONDS = 5
_PAGE = 1000


@click.command()
@click.argument("stream")
@click.option(
    "-n",
    "--lines",
    "count",
    type=click.IntRange(1, 1000),
    default=10,
    show_default=True,
    help="How many entries to print first.",
)
@click.option("-f", "--follow", is_flag=True, help="Keep printing new entries until Ctrl-C.")
@click.option(
    "--group",
    metavar="GROUP",
    help="Read through this consumer group, acknowledging what is printed.",
)
@click.option(
    "--consumer", metavar="NAME", help="The consumer name in --group [default: <host>-<pid>]."
)
@click.option(
    "--start-id",
    default="$",
    show_default=True,
    metavar="ID",
    help="Where a --group that does not exist yet starts: $ (new entries) or 0 (everything).",
)
@common_options
@pass_state
def tail(
    state: State,
    stream: str,
    count: int,
    follow: bool,
    group: str | None,
    consumer: str | None,
    start_id: str,
) -> None:
    """Print a stream's last entries; -f follows it.

    -f keeps printing new entries as they arrive, until Ctrl-C (exit status 130).

    With --group, entries are read through a consumer group (created if missing) and
    acknowledged once printed, so several `spool tail --group` share the stream.

    \b
    Examples:
      spool tail events -n 20
      spool tail events -f --json | jq .body
      spool tail orders -f --group audit --consumer audit-1
    """
    client = state.client()
    try:
        if group is not None:
            _tail_group(
                state,
                client,
                stream,
                group=group,
                consumer=consumer or default_consumer_name(),
                count=count,
                follow=follow,
                start_id=start_id,
            )
        else:
            _tail_range(state, client, stream, count=count, follow=follow)
    except KeyboardInterrupt:
        if not follow:
            raise
        # Ctrl-C is how a follow ends, not a failure to report: status 130 alone.
        raise click.exceptions.Exit(ExitCode.INTERRUPTED) from None


def _tail_range(state: State, client: sdk.Client, stream: str, *, count: int, follow: bool) -> None:
    last_id: str | None = None
    try:
        entries = list(reversed(client.streams.range(stream, count=count, reverse=True)))
    except sdk.NotFoundError:
        if not follow:
            raise
        # `tail -f` of a stream not created yet waits for its first entry.
        entries = []
    for entry in entries:
        _print_entry(state, stream, entry.id, entry.body)
        last_id = entry.id
    while follow:
        time.sleep(_POLL_SECONDS)
        try:
            fresh = client.streams.range(stream, start=last_id or "-", count=_PAGE)
        except sdk.NotFoundError:
            continue
        for entry in fresh:
            if entry.id == last_id:
                continue
            _print_entry(state, stream, entry.id, entry.body)
            last_id = entry.id


def _tail_group(
    state: State,
    client: sdk.Client,
    stream: str,
    *,
    group: str,
    consumer: str,
    count: int,
    follow: bool,
    start_id: str,
) -> None:
    wait = _GROUP_WAIT_SECONDS if follow else 0
    while True:
        try:
            entries = client.streams.read_group(
                stream, group, consumer=consumer, count=count, wait=wait
            )
        except sdk.NotFoundError:
            client.streams.create_group(stream, group, start_id=start_id, mkstream=True)
            continue
        for entry in entries:
            _print_entry(state, stream, entry.id, entry.body, delivery_count=entry.delivery_count)
        # Acknowledged once printed: an interrupted tail leaves them pending, to be claimed.
        client.streams.ack(stream, group, [entry.id for entry in entries])
        if not follow:
            return


def _print_entry(
    state: State, stream: str, entry_id: str, body: Any, *, delivery_count: int | None = None
) -> None:
    if state.as_json:
        record: dict[str, Any] = {"stream": stream, "id": entry_id, "body": body}
        if delivery_count is not None:
            record["delivery_count"] = delivery_count
        print_json(record)
        return
    console().print(Text.assemble((entry_id, "dim"), " ", cell(body)), soft_wrap=True)
