"""`spool messages` (ls, get, cancel) and `spool url-groups`; `spool dlq` is in _dead_letters."""

from __future__ import annotations

import itertools
from typing import Any, get_args

import click

import sdk

from ._context import State, common_options, pass_state
from ._logs import filter_options
from ._output import print_json, print_table, show

__all__ = ["messages", "url_groups"]


@click.group()
@common_options
def messages() -> None:
    """List, read and cancel HTTP messages.

    \b
    Example:
      spool messages ls --state failed
      spool messages get msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9
    """


@messages.command(name="ls")
@filter_options(get_args(sdk.MessageState), "messages")
@click.option("-n", "--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@common_options
@pass_state
def list_messages(state: State, filters: dict[str, Any], limit: int) -> None:
    """Recent messages, newest first (those the token may see), that pass every filter given;
    --since and --until bound when they were published.

    \b
    Examples:
      spool messages ls --state failed --url-group partners -n 20 --json
      spool messages ls --label signup --since 2h
    """
    listing = state.client().messages.list(**filters, limit=limit)
    found = list(itertools.islice(listing, limit))
    if state.as_json:
        print_json(found)
        return
    print_table(
        ("message id", "state", "url", "url group", "labels", "attempts", "created at"),
        (
            (
                m.message_id,
                m.state,
                m.url,
                m.url_group,
                ",".join(m.labels) or None,
                len(m.attempts),
                m.created_at,
            )
            for m in found
        ),
    )


def _show_message(state: State, message: sdk.Message) -> None:
    if state.as_json:
        print_json(message)
        return
    show(
        {
            "message id": message.message_id,
            "state": message.state,
            "url": message.url,
            "url group": message.url_group,
            "method": message.method,
            "retries": message.retries,
            "created at": message.created_at,
            "not before": message.not_before,
            "next attempt at": message.next_attempt_at,
            "deduplication id": message.deduplication_id,
        },
        as_json=False,
    )
    if message.attempts:
        print_table(
            ("attempt", "started", "duration", "status", "error"),
            (
                (a.attempt, a.started_at, a.duration, a.status_code, a.error)
                for a in message.attempts
            ),
            title="attempts",
        )


@messages.command()
@click.argument("message_id")
@common_options
@pass_state
def get(state: State, message_id: str) -> None:
    """A message's state and every delivery attempt.

    \b
    Example:
      spool messages get msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9 --json
    """
    _show_message(state, state.client().messages.get(message_id))


@messages.command()
@click.argument("message_id")
@common_options
@pass_state
def cancel(state: State, message_id: str) -> None:
    """Cancel a message that has not been delivered yet (exit 4 once it has).

    \b
    Example:
      spool messages cancel msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9
    """
    _show_message(state, state.client().messages.cancel(message_id))


@click.group(name="url-groups")
@common_options
def url_groups() -> None:
    """Named sets of URLs that one message fans out to.

    \b
    Example:
      spool url-groups set partners https://a.example.com/hook https://b.example.com/hook
    """


def _show_group(state: State, group: sdk.UrlGroup) -> None:
    if state.as_json:
        print_json(group)
        return
    print_table(
        ("url", "name"),
        ((endpoint.url, endpoint.name) for endpoint in group.endpoints),
        title=f"URL group {group.name}",
    )


@url_groups.command(name="ls")
@common_options
@pass_state
def list_groups(state: State) -> None:
    """Every URL group, with its URLs.

    \b
    Example:
      spool url-groups ls
    """
    groups = state.client().url_groups.list()
    if state.as_json:
        print_json(groups)
        return
    print_table(
        ("group", "urls", "updated"),
        (
            (g.name, " ".join(endpoint.url for endpoint in g.endpoints), g.updated_at)
            for g in groups
        ),
    )


@url_groups.command(name="get")
@click.argument("name")
@common_options
@pass_state
def get_group(state: State, name: str) -> None:
    """One URL group's URLs.

    \b
    Example:
      spool url-groups get partners
    """
    _show_group(state, state.client().url_groups.get(name))


@url_groups.command(name="set")
@click.argument("name")
@click.argument("urls", nargs=-1, required=True, metavar="URL...")
@common_options
@pass_state
def set_group(state: State, name: str, urls: tuple[str, ...]) -> None:
    """Create a URL group or replace its URLs; `NAME=URL` names an endpoint.

    \b
    Example:
      spool url-groups set partners a=https://a.example.com/hook https://b.example.com/hook
    """
    endpoints = [_endpoint(text) for text in urls]
    _show_group(state, state.client().url_groups.upsert(name, endpoints))


def _endpoint(text: str) -> sdk.UrlEndpoint:
    label, equals, url = text.partition("=")
    if equals and "://" not in label:
        return sdk.UrlEndpoint(url, name=label)
    return sdk.UrlEndpoint(text)


@url_groups.command(name="delete")
@click.argument("name")
@common_options
@pass_state
def delete_group(state: State, name: str) -> None:
    """Delete a URL group; publishing to it afterwards is not found (exit 3).

    \b
    Example:
      spool url-groups delete partners
    """
    state.client().url_groups.delete(name)
    if state.as_json:
        print_json({"deleted": name})
    else:
        click.echo(f"deleted {name}")
