"""`spool console`: the service's web console, opened in a browser, with the token to sign in.

The console signs in with an API token typed into its form and has no sign-in by link (a token
in a URL would stay in the browser's history and in access logs), so this opens the sign-in page
and prints the token that the command line itself uses, to paste there.
"""

from __future__ import annotations

import os
import webbrowser

import click
import httpx

from sdk._config import API_KEY_ENV, BASE_URL_ENV
from sdk._http import own_client

from ._context import State, common_options, pass_state
from ._errors import CliError, ExitCode
from ._output import error_console, print_json

__all__ = ["console"]

_CHECK_SECONDS = 10.0


@click.command()
@click.option("--no-browser", is_flag=True, help="Print the URL and the token; open nothing.")
@common_options
@pass_state
def console(state: State, no_browser: bool) -> None:
    """Open the service's web console in a browser, and print how to sign in.

    Prints the console's URL on stdout and, on stderr, the token to sign in with: the one this
    command line uses (--api-key or $SPOOL_API_KEY). The console has no sign-in by link, so paste
    the token into its form. Without a browser to open (or with --no-browser), open the URL
    yourself. A service that does not serve the console exits 3.

    \b
    Examples:
      spool console
      spool console --no-browser --base-url http://127.0.0.1:8321
    """
    state.client()  # the same checks of the URL and the key as every command
    base_url = (state.base_url or os.environ.get(BASE_URL_ENV, "")).rstrip("/")
    token = state.api_key or os.environ.get(API_KEY_ENV) or None
    url = f"{base_url}/console"
    _check_served(url, timeout=state.timeout or _CHECK_SECONDS)
    opened = False if no_browser else webbrowser.open(f"{url}/sign-in")
    if state.as_json:
        print_json({"console_url": url, "token": token, "opened": opened})
        return
    click.echo(url)
    notes = error_console()
    if not opened:
        why = "" if no_browser else " (no browser to open here)"
        notes.print(f"open {url} in a browser{why}", markup=False, soft_wrap=True)
    if token is None:
        notes.print(
            "sign in with an API token (a development service's: spool-dev-token, "
            "unless $SPOOL_DEV_TOKEN set another)",
            markup=False,
            soft_wrap=True,
        )
    else:
        notes.print(
            f"sign in with this command line's token (the console has no sign-in by link): {token}",
            markup=False,
            soft_wrap=True,
        )


def _check_served(url: str, *, timeout: float) -> None:
    """Fail, saying how to turn it on, when the service serves no console at `url`."""
    try:
        with own_client(None) as http:
            answer = http.get(f"{url}/sign-in", timeout=timeout)
    except httpx.HTTPError as error:
        raise CliError(
            f"could not reach the console at {url}: {error}", code=ExitCode.UNREACHABLE
        ) from error
    if answer.status_code == httpx.codes.NOT_FOUND:
        raise CliError(
            f"the service does not serve the console at {url}: start it with --console, "
            "$SPOOL_CONSOLE=1 or console.enabled in its config file (development mode has it on)",
            code=ExitCode.NOT_FOUND,
        )
