"""The `spool` group: help with an example everywhere, version, completion, error handling."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

import sdk
from sdk._cli._app import cli
from tests.sdk.cli._support import Spool


def _every_command(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += _every_command(command, (*path, name))
        else:
            found.append((*path, name))
    return found


COMMANDS = _every_command(cli)


def test_the_command_tree_is_what_the_readme_documents() -> None:
    """Every group and command, so that adding one means documenting it."""
    assert sorted(" ".join(path) for path in COMMANDS if path) == sorted(
        [
            "console",
            "dlq",
            "dlq delete",
            "dlq ls",
            "dlq retry",
            "flow-control",
            "flow-control ls",
            "flow-control pause",
            "flow-control reset",
            "flow-control resume",
            "flow-control show",
            "health",
            "jobs",
            "jobs delete",
            "jobs get",
            "jobs ls",
            "jobs retry",
            "logs",
            "messages",
            "messages cancel",
            "messages get",
            "messages ls",
            "publish",
            "queues",
            "queues create",
            "queues delete",
            "queues info",
            "queues ls",
            "schedules",
            "schedules get",
            "schedules ls",
            "schedules pause",
            "schedules resume",
            "schedules rm",
            "schedules set",
            "serve",
            "streams",
            "streams delete",
            "streams info",
            "streams ls",
            "streams pending",
            "streams range",
            "streams trim",
            "tail",
            "url-groups",
            "url-groups delete",
            "url-groups get",
            "url-groups ls",
            "url-groups set",
            "verify",
            "whoami",
            "work",
        ]
    )


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path) or "spool")
def test_every_command_has_help_with_an_example(path: tuple[str, ...]) -> None:
    """`--help` works without a service, and shows at least one example of `spool` in use."""
    result = CliRunner().invoke(cli, [*path, "--help"], env={"SPOOL_BASE_URL": ""})
    assert result.exit_code == 0, result.output
    assert "Example" in result.stdout
    assert "spool " in result.stdout.split("Example", 1)[1]


def test_the_top_help_lists_exit_codes_and_completion() -> None:
    """The exit codes and the completion line are one `spool --help` away."""
    text = CliRunner().invoke(cli, ["-h"]).stdout
    assert "7 connection refused or timed out" in text
    assert "_SPOOL_COMPLETE=bash_source spool" in text


def test_completion_scripts_come_from_click() -> None:
    """`_SPOOL_COMPLETE=bash_source spool` prints a bash completion script."""
    result = CliRunner().invoke(cli, [], prog_name="spool", env={"_SPOOL_COMPLETE": "bash_source"})
    assert result.exit_code == 0
    assert "_spool_completion" in result.stdout


def test_version() -> None:
    """--version names the installed package's version."""
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.startswith("spool, version ")


def test_options_before_the_command_apply_to_it(spool: Spool, name: str) -> None:
    """`spool --json publish ...` is `spool publish ... --json`."""
    result = spool("--json", "publish", name, "{}")
    assert result.stdout.startswith('{"id":')


def test_an_unreachable_service_exits_7(spool: Spool, name: str) -> None:
    """Connection refused, after the SDK's retries, is one line and exit 7."""
    from tests.e2e._support import closed_port_url

    result = spool("publish", name, "{}", "--base-url", closed_port_url())
    assert result.exit_code == 7
    assert "could not connect" in result.stderr
    assert "Traceback" not in result.output


def test_an_unknown_key_exits_5(spool: Spool, name: str) -> None:
    """401 and 403 share exit 5."""
    result = spool("publish", name, "{}", "--api-key", "not-the-token")
    assert result.exit_code == 5
    assert "401" in result.stderr


def test_no_service_configured_exits_2(name: str) -> None:
    """Without --base-url or $SPOOL_BASE_URL, the SDK's message says what to set."""
    result = CliRunner().invoke(cli, ["publish", name, "{}"], env={"SPOOL_BASE_URL": ""})
    assert result.exit_code == 2
    assert "SPOOL_BASE_URL" in result.stderr


def test_ctrl_c_exits_130(monkeypatch: pytest.MonkeyPatch, spool: Spool) -> None:
    """A KeyboardInterrupt in any command is 'interrupted', status 130."""

    def interrupted(self: sdk.Client) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(sdk.Client, "health", interrupted)
    result = spool("health")
    assert result.exit_code == 130
    assert "interrupted" in result.stderr
