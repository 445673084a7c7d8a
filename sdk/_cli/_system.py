"""`spool serve` (the reference service), `spool verify` (a delivery's signature),
`spool health` and `spool whoami`.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from typing import IO

import click

import sdk
from sdk._config import LOOPBACK_DESTINATIONS

from ._context import State, common_options, pass_state
from ._errors import CliError, ExitCode
from ._output import error_console, print_json, show

__all__ = ["health", "serve", "verify", "whoami"]

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

    Without --config, $SPOOL_CONFIG or $SPOOL_TOKENS it runs in development mode (the token is
    spool-dev-token unless $SPOOL_DEV_TOKEN says otherwise) and, as Client.embedded() does, may
    deliver messages to this machine (localhost, 127.0.0.0/8, ::1) unless
    $SPOOL_ALLOW_DESTINATIONS says otherwise. Ctrl-C stops it gracefully (exit status 130).

    \b
    Example:
      spool serve --store redis://127.0.0.1:6379/0 --port 8321 --workers 4
    """
    try:
        with _noting_sigint() as interrupted:
            serve_main = _entry_point()
            with _development_destinations(arguments, os.environ):
                try:
                    serve_main(list(arguments))
                except SystemExit as done:
                    if done.code not in (0, None) or not interrupted():
                        raise
            stopped_by_ctrl_c = interrupted()
    except KeyboardInterrupt:
        # Before the service took over its signals (still starting): nothing to stop.
        stopped_by_ctrl_c = True
    if stopped_by_ctrl_c:
        # The service stops on SIGINT as on SIGTERM, with status 0 (as spool-server documents);
        # a command line stopped by Ctrl-C says so quietly, as `tail -f` does.
        raise click.exceptions.Exit(ExitCode.INTERRUPTED)


def _entry_point() -> Callable[[list[str]], None]:
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
    return serve_main


def _configured(arguments: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Whether the service will read tokens from a configuration (else: development mode), as
    spool-server decides: --config (or an abbreviation argparse accepts), $SPOOL_CONFIG or
    $SPOOL_TOKENS.
    """
    if environ.get("SPOOL_CONFIG") or environ.get("SPOOL_TOKENS"):
        return True
    for argument in arguments:
        if argument == "--":
            break
        option = argument.partition("=")[0]
        # --con is also --console's: argparse refuses it, so only --conf and longer count.
        if len(option) >= len("--conf") and "--config".startswith(option):
            return True
    return False


@contextlib.contextmanager
def _development_destinations(
    arguments: Sequence[str], environ: MutableMapping[str, str]
) -> Iterator[None]:
    """In development mode, let the service deliver to loopback as Client.embedded() does,
    unless $SPOOL_ALLOW_DESTINATIONS is set (even empty); the environment is put back after.
    """
    if _configured(arguments, environ) or "SPOOL_ALLOW_DESTINATIONS" in environ:
        yield
        return
    environ["SPOOL_ALLOW_DESTINATIONS"] = ",".join(LOOPBACK_DESTINATIONS)
    error_console().print(
        f"development mode: messages may go to {', '.join(LOOPBACK_DESTINATIONS)} "
        "(set SPOOL_ALLOW_DESTINATIONS to choose)",
        style="dim",
        markup=False,
        soft_wrap=True,
    )
    try:
        yield
    finally:
        del environ["SPOOL_ALLOW_DESTINATIONS"]


@contextlib.contextmanager
def _noting_sigint() -> Iterator[Callable[[], bool]]:
    """Whether SIGINT arrived while serving, whoever handled it.

    The service installs its own handlers, so ours would never run; but Python writes the number
    of every signal it handles to the wakeup file descriptor, whichever handler takes it.
    """
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    reading, writing = os.pipe()
    os.set_blocking(reading, False)
    os.set_blocking(writing, False)
    previous = signal.set_wakeup_fd(writing, warn_on_full_buffer=False)
    seen: list[bool] = []

    def interrupted() -> bool:
        with contextlib.suppress(BlockingIOError):
            while numbers := os.read(reading, 64):
                seen.extend(number == signal.SIGINT for number in numbers)
        return any(seen)

    try:
        yield interrupted
    finally:
        signal.set_wakeup_fd(previous)
        os.close(reading)
        os.close(writing)


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


@click.command()
@common_options
@pass_state
def whoami(state: State) -> None:
    """The token this command sends: its id, permissions and limits.

    Never its secret. A key the service does not know exits with 5, as for any command, so
    this checks a key before anything uses it (health needs none).

    \b
    Example:
      SPOOL_API_KEY=... spool whoami
    """
    token = state.client().whoami()
    if state.as_json:
        print_json(token)
        return
    rate = token.rate_limit
    show(
        {
            "id": token.id,
            "development": "yes: every permission" if token.development else "no",
            "permissions": "\n".join(
                f"{p.resource} {p.name}: {', '.join(p.actions)}" for p in token.permissions
            )
            or "none",
            "quota": "none" if token.quota is None else token.quota,
            "rate limit": "none" if rate is None else f"{rate.per_second:g}/s, burst {rate.burst}",
        },
        as_json=False,
    )
