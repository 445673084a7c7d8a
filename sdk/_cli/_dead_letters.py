"""`spool dlq` (dead letters): ls, retry and delete (also `rm`), by ids, by filters or all.

Ids go out in requests of up to 1000 and each is reported; filters and `--all` go through the
dead letters a page at a time (`--page-size`), so a large DLQ is handled in bounded requests,
and the count is reported. `--all` asks first unless `--yes` is given, as deleting a stream or a
queue does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

import click

from ._context import State, common_options, pass_state
from ._errors import CliError, ExitCode
from ._output import print_json, print_table
from ._parsing import MOMENT, parse_headers

__all__ = ["dlq"]

Action = Literal["retry", "delete"]
_DONE = {"retry": "retried", "delete": "deleted"}
_SHOWN = {"not_found": "not found", "permission_denied": "permission denied"}


class _DeadLetterGroup(click.Group):
    """`spool dlq`, where `rm` is another name of `delete`."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, "delete" if cmd_name == "rm" else cmd_name)


@click.group(cls=_DeadLetterGroup)
@common_options
def dlq() -> None:
    """Dead letters: messages whose retries ran out. List, retry or delete (rm) them, by id,
    by filters or all.

    \b
    Example:
      spool dlq ls
      spool dlq retry msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9
      spool dlq retry --url-group partners --since 2026-11-29T06:00:00Z -H 'X-Retried: yes'
      spool dlq rm --all --yes
    """


@dlq.command(name="ls")
@click.option("-n", "--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@common_options
@pass_state
def list_letters(state: State, limit: int) -> None:
    """Dead letters, oldest first, with their last error.

    \b
    Example:
      spool dlq ls -n 20 --json
    """
    letters = state.client().dead_letters.list(limit=limit)
    if state.as_json:
        print_json(letters)
        return
    print_table(
        ("message id", "url", "attempts", "status", "last error", "failed at"),
        (
            (d.message_id, d.url, d.attempts, d.last_status_code, d.last_error, d.failed_at)
            for d in letters
        ),
    )


def _selection_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options that choose dead letters other than by id."""
    options = [
        click.option("--all", "every", is_flag=True, help="Every dead letter (asks first)."),
        click.option("--url", metavar="URL", help="Only dead letters of messages to URL."),
        click.option("--url-group", metavar="G", help="Only those published to URL group G."),
        click.option("--label", metavar="L", help="Only those of messages with label L."),
        click.option(
            "--schedule", metavar="S", help="Only those of messages schedule S published."
        ),
        click.option(
            "--flow-control-key",
            metavar="K",
            help="Only those of messages under flow control key K.",
        ),
        click.option(
            "--since", type=MOMENT, metavar="TIME", help="Only those filed at or after TIME."
        ),
        click.option("--until", type=MOMENT, metavar="TIME", help="Only those filed before TIME."),
        click.option(
            "--page-size",
            type=click.IntRange(1, 1000),
            default=100,
            show_default=True,
            help="Dead letters looked at per request.",
        ),
        click.option("-y", "--yes", is_flag=True, help="Do not ask before --all."),
        click.argument("message_ids", nargs=-1, metavar="[MESSAGE_ID]..."),
    ]
    return functools.reduce(lambda wrapped, option: option(wrapped), reversed(options), command)


def _act(
    state: State,
    action: Action,
    message_ids: tuple[str, ...],
    *,
    every: bool,
    filters: dict[str, str | datetime | None],
    page_size: int,
    yes: bool,
    headers: dict[str, str] | None = None,
) -> None:
    """Retry or delete the dead letters named, matched or all, and report what was done: each
    id named (exit 3 when one was not found, 5 when one was not allowed), else the count.
    """
    filtering = any(value is not None for value in filters.values())
    chosen = [bool(message_ids), every, filtering]
    if sum(chosen) != 1:
        raise CliError(
            "give message ids, filters (--url, --url-group, --label, --schedule,"
            " --flow-control-key, --since, --until) or --all: one of them",
            code=ExitCode.USAGE,
        )
    letters = state.client().dead_letters
    done = _DONE[action]
    if message_ids:
        if action == "retry":
            results = letters.retry_many(message_ids, headers=headers)
        else:
            results = letters.delete_many(message_ids)
        if state.as_json:
            print_json(results)
        else:
            for result in results:
                click.echo(f"{_SHOWN.get(result.outcome, result.outcome)} {result.message_id}")
        missed = {result.outcome for result in results} - {done}
        if "permission_denied" in missed:
            raise CliError("some dead letters were not allowed", code=ExitCode.DENIED)
        if "not_found" in missed:
            raise CliError("some dead letters were not found", code=ExitCode.NOT_FOUND)
        return
    if every and not yes:
        click.confirm(f"{action.capitalize()} every dead letter?", abort=True)
    selection: dict[str, Any] = {name: value for name, value in filters.items()}
    if action == "retry":
        count = letters.retry_all(**selection, headers=headers, page_size=page_size)
    else:
        count = letters.delete_all(**selection, page_size=page_size)
    if state.as_json:
        print_json({done: count})
    else:
        click.echo(f"{done} {count} dead letter{'' if count == 1 else 's'}")


@dlq.command()
@_selection_options
@click.option("-H", "--header", "headers", multiple=True, metavar="'K: V'", help="A header to set.")
@common_options
@pass_state
def retry(
    state: State,
    /,
    message_ids: tuple[str, ...],
    every: bool,
    page_size: int,
    yes: bool,
    headers: tuple[str, ...],
    **filters: str | datetime | None,
) -> None:
    """Deliver dead letters again, their retries counted from zero: those named, those the
    filters match (all of them must), or --all. Each -H header replaces the message's header
    of that name or is added.

    \b
    Example:
      spool dlq retry msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9 -H 'Authorization: Bearer fresh'
      spool dlq retry --url-group partners --since 2026-11-29T06:00:00Z
      spool dlq retry --label signup --flow-control-key acme
      spool dlq retry --all --yes --json
    """
    _act(
        state,
        "retry",
        message_ids,
        every=every,
        filters=filters,
        page_size=page_size,
        yes=yes,
        headers=parse_headers(headers),
    )


@dlq.command()
@_selection_options
@common_options
@pass_state
def delete(
    state: State,
    /,
    message_ids: tuple[str, ...],
    every: bool,
    page_size: int,
    yes: bool,
    **filters: str | datetime | None,
) -> None:
    """Forget dead letters (also `spool dlq rm`): those named, those the filters match (all of
    them must), or --all. Each message's status stays readable.

    \b
    Example:
      spool dlq delete msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9
      spool dlq rm --url https://example.com/hook --until 2026-11-29T00:00:00Z
      spool dlq rm --all --yes
    """
    _act(
        state,
        "delete",
        message_ids,
        every=every,
        filters=filters,
        page_size=page_size,
        yes=yes,
    )
