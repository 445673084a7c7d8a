"""The `spool` group: its global options, error handling, and every command group."""

from __future__ import annotations

from typing import Any

import click

import sdk

from . import (
    _console,
    _dead_letters,
    _flow_control,
    _logs,
    _messages,
    _publish,
    _queues,
    _schedules,
    _streams,
    _system,
    _tail,
    _work,
)
from ._context import State, common_options
from ._errors import CliError, ExitCode, failure

__all__ = ["cli"]

_EPILOG = """\b
Exit codes: 0 ok, 1 failed (an API error with no code below, a bad signature, a load
with failures), 2 usage (bad arguments, or input the service refuses: 400, 413, 422),
3 not found, 4 conflict, 5 authentication or permission, 6 rate limited or quota used
up, 7 connection refused or timed out, 130 interrupted.

\b
Shell completion (bash; zsh and fish alike with zsh_source, fish_source):
  eval "$(_SPOOL_COMPLETE=bash_source spool)"
"""


class _SpoolGroup(click.Group):
    """The root group: turns the SDK's errors into one line on stderr and an exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except sdk.SpoolError as error:
            raise failure(error) from error
        except KeyboardInterrupt:
            raise CliError("interrupted", code=ExitCode.INTERRUPTED) from None


@click.group(
    cls=_SpoolGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=_EPILOG,
)
@common_options
@click.version_option(package_name="spool", prog_name="spool")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Publish to Spool's streams, queues and URLs, follow streams, run shell workers and
    inspect everything, from the command line.

    \b
    Example:
      export SPOOL_BASE_URL=http://127.0.0.1:8321 SPOOL_API_KEY=spool-dev-token
      spool publish events '{"type": "signup"}'
      spool tail events -f
    """
    ctx.ensure_object(State)


for _command in (
    _publish.publish,
    _tail.tail,
    _streams.streams,
    _queues.queues,
    _queues.jobs,
    _messages.messages,
    _logs.logs,
    _dead_letters.dlq,
    _messages.url_groups,
    _schedules.schedules,
    _flow_control.flow_control,
    _work.work,
    _system.serve,
    _console.console,
    _system.verify,
    _system.health,
    _system.whoami,
):
    cli.add_command(_command)
