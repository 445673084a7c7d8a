"""`spool flow-control` against the real service."""

from __future__ import annotations

import sdk
from tests.sdk.cli._support import Spool, parsed


def test_pause_show_ls_resume_reset(spool: Spool, client: sdk.Client, name: str) -> None:
    """A key paused from the command line shows as paused, is listed with its state, and is
    resumed and reset; the table never cuts the key.
    """
    key = f"{name}.{'k' * 60}"
    paused = parsed(spool("flow-control", "pause", key, "--json"))
    assert (paused["key"], paused["paused"], paused["waiting"]) == (key, True, 0)
    assert client.flow_control.get(key).paused
    shown = spool("flow-control", "show", key)
    assert shown.exit_code == 0, shown.output
    assert key in shown.stdout and "paused" in shown.stdout
    listed = {state["key"]: state for state in parsed(spool("flow-control", "ls", "--json"))}
    assert listed[key]["paused"] is True
    table = spool("flow-control", "ls").stdout
    assert key in table
    resumed = parsed(spool("flow-control", "resume", key, "--json"))
    assert resumed["paused"] is False
    reset = parsed(spool("flow-control", "reset", key, "--json"))
    assert (reset["paused"], reset["rate_used"]) == (False, 0)


def test_the_limits_of_a_published_key_are_shown(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    client.flow_control.pause(name)
    client.messages.publish(
        url="https://example.com/hooks/flow",
        body="x",
        flow_control=sdk.FlowControl(name, rate=5, period="1m", parallelism=2),
    )
    shown = parsed(spool("flow-control", "show", name, "--json"))
    assert (shown["rate"], shown["parallelism"], shown["waiting"]) == (5, 2, 1)
    table = spool("flow-control", "show", name).stdout
    assert "60s" in table


def test_a_bad_key_is_a_usage_error(spool: Spool) -> None:
    result = spool("flow-control", "show", "bad key")
    assert result.exit_code == 2, result.output
    assert "flow control key" in result.output
