"""`spool streams`: listing streams, a stream's info, entries, trimming, pending entries and
deletion.
"""

from __future__ import annotations

import itertools

import click

from ._context import State, common_options, pass_state
from ._output import print_json, print_table, show

__all__ = ["streams"]


@click.group()
@common_options
def streams() -> None:
    """List, inspect and trim streams.

    \b
    Example:
      spool streams ls --prefix orders
      spool streams info events
    """


@streams.command(name="ls")
@click.option("--prefix", metavar="P", help="Only streams whose names start with P.")
@click.option("-n", "--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@common_options
@pass_state
def list_streams(state: State, prefix: str | None, limit: int) -> None:
    """Streams by name, with their length, ends and consumer groups (those the token may see).

    \b
    Example:
      spool streams ls --prefix orders -n 20 --json
    """
    found = list(itertools.islice(state.client().streams.list(prefix=prefix, limit=limit), limit))
    if state.as_json:
        print_json(found)
        return
    print_table(
        ("stream", "length", "first id", "last id", "groups"),
        ((s.name, s.length, s.first_id, s.last_id, s.group_count) for s in found),
    )


@streams.command()
@click.argument("stream")
@common_options
@pass_state
def info(state: State, stream: str) -> None:
    """A stream's length, first and last ids, and consumer groups.

    \b
    Example:
      spool streams info events --json
    """
    result = state.client().streams.info(stream)
    if state.as_json:
        print_json(result)
        return
    show(
        {
            "name": result.name,
            "length": result.length,
            "first id": result.first_id,
            "last id": result.last_id,
        },
        as_json=False,
    )
    if result.groups:
        print_table(
            ("group", "consumers", "pending", "last delivered", "max deliveries"),
            (
                (g.group, g.consumers, g.pending, g.last_delivered_id, g.max_deliveries)
                for g in result.groups
            ),
            title="consumer groups",
        )


@streams.command(name="range")
@click.argument("stream")
@click.option(
    "--start", default="-", show_default=True, help="First id (inclusive); - is the oldest."
)
@click.option("--end", default="+", show_default=True, help="Last id (inclusive); + is the newest.")
@click.option("-n", "--count", type=click.IntRange(1, 1000), default=100, show_default=True)
@click.option("--reverse", is_flag=True, help="Newest first.")
@common_options
@pass_state
def range_(state: State, stream: str, start: str, end: str, count: int, reverse: bool) -> None:
    """Entries between two ids, without a consumer group (JSON lines with --json).

    \b
    Example:
      spool streams range events --start 1793095014218-0 -n 50
    """
    entries = state.client().streams.range(
        stream, start=start, end=end, count=count, reverse=reverse
    )
    if state.as_json:
        for entry in entries:
            print_json({"stream": stream, "id": entry.id, "body": entry.body})
        return
    print_table(("id", "body"), ((entry.id, entry.body) for entry in entries))


@streams.command()
@click.argument("stream")
@click.option("--maxlen", type=click.IntRange(min=0), help="Keep about this many entries.")
@click.option("--minid", metavar="ID", help="Remove entries with ids below ID.")
@click.option("--exact", is_flag=True, help="Trim to exactly --maxlen.")
@common_options
@pass_state
def trim(state: State, stream: str, maxlen: int | None, minid: str | None, exact: bool) -> None:
    """Trim a stream to --maxlen entries or below --minid.

    \b
    Example:
      spool streams trim events --maxlen 1000 --exact
    """
    result = state.client().streams.trim(stream, maxlen=maxlen, minid=minid, approximate=not exact)
    show(result, as_json=state.as_json)


@streams.command()
@click.argument("stream")
@click.argument("group")
@click.option("-n", "--count", type=click.IntRange(1, 1000), default=100, show_default=True)
@common_options
@pass_state
def pending(state: State, stream: str, group: str, count: int) -> None:
    """A consumer group's delivered, unacknowledged entries.

    \b
    Example:
      spool streams pending orders billing
    """
    entries = state.client().streams.pending(stream, group, count=count)
    if state.as_json:
        print_json(entries)
        return
    print_table(
        ("id", "consumer", "idle", "deliveries"),
        ((p.id, p.consumer, p.idle, p.delivery_count) for p in entries),
    )


@streams.command()
@click.argument("stream")
@click.confirmation_option(prompt="Delete the stream with its entries and groups?")
@common_options
@pass_state
def delete(state: State, stream: str) -> None:
    """Delete a stream with its entries and consumer groups (asks first; --yes does not).

    \b
    Example:
      spool streams delete scratch --yes
    """
    state.client().streams.delete(stream)
    _done(state, {"deleted": stream})


def _done(state: State, result: dict[str, str]) -> None:
    if state.as_json:
        print_json(result)
    else:
        click.echo(f"deleted {result['deleted']}")
