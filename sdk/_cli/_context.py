"""The options every command takes (service, API key, `--json`, `--wide`) and the client they
make.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

import click
import httpx

import sdk
from sdk._http import own_client

from ._errors import failure

__all__ = ["State", "common_options", "pass_state"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclasses.dataclass
class State:
    """What the options given so far say; one per `spool` run, shared by its subcommands."""

    base_url: str | None = None
    api_key: str | None = None
    timeout: float | None = None
    as_json: bool = False
    wide: bool = False
    _client: sdk.Client | None = None

    _replayed: set[str] = dataclasses.field(default_factory=set)

    def client(self) -> sdk.Client:
        """The run's client, made on first use (closed when the command ends)."""
        if self._client is None:
            options: dict[str, Any] = {}
            if self.timeout is not None:
                options["timeout"] = self.timeout
            # The SDK's own kind of HTTP client, plus a hook that notes replayed answers.
            http = own_client(None)
            http.event_hooks = {"response": [self._note_replay]}
            try:
                # Unset options fall back to $SPOOL_BASE_URL and $SPOOL_API_KEY, as for sdk.Client.
                self._client = sdk.Client(self.base_url, self.api_key, http_client=http, **options)
            except sdk.ConfigurationError as error:
                http.close()
                raise failure(error) from error
            self._client.close_with(http.close)
            click.get_current_context().call_on_close(self._client.close)
        return self._client

    def replayed(self, idempotency_key: str) -> bool:
        """Whether the service answered a request with this key from its idempotency records
        (the request had been made before, and nothing was written again).
        """
        if idempotency_key in self._replayed:
            self._replayed.discard(idempotency_key)
            return True
        return False

    def _note_replay(self, response: httpx.Response) -> None:
        key = response.request.headers.get("Idempotency-Key")
        if key is not None and response.headers.get("Idempotent-Replayed") == "true":
            self._replayed.add(key)


def _store(name: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    def store(context: click.Context, _parameter: click.Parameter, value: Any) -> None:
        # Given at any level (`spool --json queues ls` or `spool queues ls --json`); a level
        # that does not give an option keeps what an outer one said.
        if value is not None and value is not False:
            setattr(context.ensure_object(State), name, value)

    return store


def common_options(command: F) -> F:
    """Add `--base-url`, `--api-key`, `--request-timeout`, `--json` and `--wide` to a command or
    group.
    """
    options = [
        click.option(
            "--base-url",
            metavar="URL",
            expose_value=False,
            callback=_store("base_url"),
            help="The service's URL [default: $SPOOL_BASE_URL].",
        ),
        click.option(
            "--api-key",
            metavar="KEY",
            expose_value=False,
            callback=_store("api_key"),
            help="The bearer token [default: $SPOOL_API_KEY].",
        ),
        click.option(
            "--request-timeout",
            "timeout",
            type=click.FloatRange(min=0, min_open=True),
            metavar="SECONDS",
            expose_value=False,
            callback=_store("timeout"),
            help="Seconds one request may take [default: 10].",
        ),
        click.option(
            "--json",
            "as_json",
            is_flag=True,
            default=False,
            expose_value=False,
            callback=_store("as_json"),
            help="Print JSON for scripts (JSON lines where a command prints a stream).",
        ),
        click.option(
            "--wide",
            is_flag=True,
            default=False,
            expose_value=False,
            callback=_store("wide"),
            help="Print every table column in full, wider than the terminal if need be.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


pass_state = click.make_pass_decorator(State, ensure=True)
