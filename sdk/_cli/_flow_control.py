"""`spool flow-control`: the flow control keys messages are published with, and pause, resume and
reset.
"""

from __future__ import annotations

import click

import sdk

from ._context import State, common_options, pass_state
from ._output import print_json, print_table, show

__all__ = ["flow_control"]


@click.group(name="flow-control")
@common_options
def flow_control() -> None:
    """See and steer the flow control keys that limit messages' rate and parallelism.

    \b
    Example:
      spool flow-control ls
      spool flow-control show acme
      spool flow-control pause acme
    """


def _limits(state: sdk.FlowControlState) -> tuple[object, object, object]:
    period = None if state.period is None else f"{int(state.period.total_seconds())}s"
    return state.rate, period, state.parallelism


@flow_control.command(name="ls")
@common_options
@pass_state
def list_(state: State) -> None:
    """Every key a message was published with or that was paused, by key, with its state.

    \b
    Example:
      spool flow-control ls --json
    """
    found = list(state.client().flow_control.list())
    if state.as_json:
        print_json(found)
        return
    print_table(
        ("key", "rate", "period", "parallelism", "paused", "waiting", "in flight", "rate used"),
        ((s.key, *_limits(s), s.paused, s.waiting, s.in_flight, s.rate_used) for s in found),
    )


def _show(state: State, key_state: sdk.FlowControlState) -> None:
    if state.as_json:
        print_json(key_state)
        return
    rate, period, parallelism = _limits(key_state)
    show(
        {
            "key": key_state.key,
            "rate": rate,
            "period": period,
            "parallelism": parallelism,
            "paused": key_state.paused,
            "waiting": key_state.waiting,
            "in flight": key_state.in_flight,
            "rate used": key_state.rate_used,
        },
        as_json=False,
    )


@flow_control.command(name="show")
@click.argument("key")
@common_options
@pass_state
def show_key(state: State, key: str) -> None:
    """A key's limits (from its latest publish), whether it is paused, its waiting messages, its
    attempts in flight and those started in the last period.

    \b
    Example:
      spool flow-control show acme
    """
    _show(state, state.client().flow_control.get(key))


@flow_control.command()
@click.argument("key")
@common_options
@pass_state
def pause(state: State, key: str) -> None:
    """Deliver none of a key's messages until it is resumed; publishing with it goes on.

    \b
    Example:
      spool flow-control pause acme
    """
    _show(state, state.client().flow_control.pause(key))


@flow_control.command()
@click.argument("key")
@common_options
@pass_state
def resume(state: State, key: str) -> None:
    """Deliver a paused key's waiting messages again, within its limits.

    \b
    Example:
      spool flow-control resume acme
    """
    _show(state, state.client().flow_control.resume(key))


@flow_control.command()
@click.argument("key")
@common_options
@pass_state
def reset(state: State, key: str) -> None:
    """Forget the attempts counted against a key's rate, so its waiting messages go at once.

    \b
    Example:
      spool flow-control reset acme
    """
    _show(state, state.client().flow_control.reset(key))
