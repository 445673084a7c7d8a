"""`spool serve` (the reference service), `spool verify` (a delivery's signature) and
`spool health`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import IO

import click

import sdk

from ._context import State, common_options, pass_state
from ._errors import CliError, ExitCode
from ._output import print_json, show

__all__ = ["health", "serve", "verify"]

# What each reason a signature fails means, for people reading the terminal.
_REASONS = {
    "malformed": "the header is not a Spool-Signature JWT",
    "bad_signature": "signed with neither key (wrong keys, or the token was altered)",
    "expired": "the signature has expired (a replay, or a clock behind)",
    "not_yet_valid": "the signature is not valid yet (a clock ahead)",
    "body_mismatch": "the body differs from what was signed (verify the raw bytes, not re-encoded JSON)",
    "url_mismatch": "the message was signed for another URL",
    "wrong_issuer": "the token was not issued by Spool",
}


@click.command(
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    add_help_option=True,
)
@click.argument("arguments", nargs=-1, type=click.UNPROCESSED, metavar="[SPOOL-SERVER OPTIONS]")
def serve(arguments: tuple[str, ...]) -> None:
    """Run the reference service, as `spool-server` does.

    Needs the 'server' extra (pip install 'spool[server]').

    Takes spool-server's options: --store, --host, --port, --workers, --config,
    --log-level; `spool serve -- --help` lists them.

    \b
    Example:
      spool serve --store redis://127.0.0.1:6379/0 --port 8321 --workers 4
    """
    try:
        # By name: the SDK type-checks, and installs, without the service's package.
        entry_point = importlib.import_module("server.__main__")
    except ImportError as error:
        raise CliError(
            f"spool serve needs the 'server' extra ({error.name} is missing): "
            "pip install 'spool[server]'",
            code=ExitCode.USAGE,
        ) from error
    serve_main: Callable[[list[str]], None] = entry_point.main
    serve_main(list(arguments))


@click.command()
@click.argument("signature")
@click.option(
    "--key",
    required=True,
    envvar="SPOOL_SIGNING_KEY",
    show_envvar=True,
    help="The current signing key.",
)
@click.option(
    "--next-key",
    envvar="SPOOL_NEXT_SIGNING_KEY",
    show_envvar=True,
    help="The next signing key [default: --key].",
)
@click.option("--url", help="The URL the delivery was received at.")
@click.option(
    "--body",
    "body_file",
    type=click.File("rb"),
    default="-",
    show_default=True,
    help="The raw body; - is standard input.",
)
@click.option(
    "--clock-tolerance",
    type=click.FloatRange(min=0),
    default=0,
    show_default=True,
    help="Seconds of clock skew to allow.",
)
@common_options
@pass_state
def verify(
    state: State,
    signature: str,
    key: str,
    next_key: str | None,
    url: str | None,
    body_file: IO[bytes],
    clock_tolerance: float,
) -> None:
    """Check a delivery's Spool-Signature.

    The raw body is read from standard input (or --body); a failure names its reason.

    Exits 0 when it verifies and 1 when it does not, naming the reason.

    \b
    Example:
      spool verify --key "$SPOOL_SIGNING_KEY" --url https://example.com/hook "$SIG" < body.json
    """
    receiver = sdk.Receiver(current_signing_key=key, next_signing_key=next_key or key)
    body = body_file.read()
    try:
        receiver.verify(signature, body, url=url, clock_tolerance=clock_tolerance)
    except sdk.SignatureError as error:
        if state.as_json:
            print_json({"valid": False, "reason": error.reason, "detail": str(error)})
            sys.exit(int(ExitCode.FAILED))
        raise CliError(
            f"invalid signature: {error.reason}: {_REASONS.get(error.reason, error)} ({error})",
            code=ExitCode.FAILED,
        ) from error
    if state.as_json:
        print_json({"valid": True})
    else:
        click.echo("valid")


@click.command()
@common_options
@pass_state
def health(state: State) -> None:
    """Whether the service and its store answer.

    Also names the store and the service's version.

    \b
    Example:
      spool health --base-url http://127.0.0.1:8321
    """
    show(state.client().health(), as_json=state.as_json)
