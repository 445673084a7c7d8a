"""``python -m server`` / ``spool-server``: run the service under uvicorn.

Once the service accepts connections it prints exactly one line to stdout,
``spool-server listening on http://HOST:PORT`` (the real port when ``--port 0`` asked for any free
one), so scripts, tests and ``sdk.Client.embedded()`` can wait for it. Logs go to stderr; in
development mode a warning there names the token to use and the console's address. SIGTERM
and SIGINT shut down gracefully: in-flight requests finish, the store is closed, and the process
exits 0 without a traceback.

``--exit-on-stdin-eof`` shuts down the same way when stdin reaches end of file. A parent that starts
the service with a pipe as its stdin and never writes to it thus takes the service down with it
however the parent ends, even by SIGKILL, which no signal handler of the parent could do; and
it works wherever pipes do, unlike Linux's parent-death signal.

``--console`` serves the web console at ``/console`` (see server/console/).

``--metrics`` serves ``GET /metrics`` (see server/metrics.py). With several workers and metrics on,
the supervising process makes a directory for prometheus-client's multiprocess mode, in which every
worker keeps its counts, hands it to the workers as ``$PROMETHEUS_MULTIPROC_DIR`` and removes it
when they have stopped; a directory already named there is used as it is and kept.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import logging
import logging.config
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.supervisors import Multiprocess

from .app import create_app
from .config import DEFAULT_DEV_TOKEN, DEFAULT_STORE_URL, ConfigError, Settings, load_settings
from .http_protocol import H11ReadDeadlineProtocol
from .metrics import MULTIPROCESS_DIRECTORY_VARIABLE
from .stores import InvalidStoreURL, store_from_url

__all__ = ["bind_listener", "main"]

READY_LINE = "spool-server listening on http://{host}:{port}"

logger = logging.getLogger("spool.server")


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="spool-server", description="Serve Spool's API (openapi.yaml) over a store."
    )
    parser.add_argument(
        "--store",
        default=os.environ.get("SPOOL_STORE", DEFAULT_STORE_URL),
        help="sqlite:///path/to.db (default %(default)s), redis://host:port/db or "
        "redis+cluster://host:port,host:port/",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (%(default)s)")
    parser.add_argument(
        "--port", type=int, default=8321, help="port to bind; 0 picks a free one (%(default)s)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes; more than one needs a shared store (Redis or an SQLite file)",
    )
    parser.add_argument(
        "--config", default=None, help="YAML or JSON token file (else $SPOOL_CONFIG or dev mode)"
    )
    parser.add_argument(
        "--metrics",
        action="store_true",
        help="serve Prometheus metrics at GET /metrics (as $SPOOL_METRICS=1 does; on in "
        "development mode)",
    )
    parser.add_argument(
        "--console",
        action="store_true",
        help="serve the web console at /console (as $SPOOL_CONSOLE=1 does; on in development mode)",
    )
    parser.add_argument(
        "--docs",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="serve the API reference at /docs (on unless $SPOOL_DOCS=0 or the config file's "
        "docs.enabled is false)",
    )
    parser.add_argument(
        "--exit-on-stdin-eof",
        action="store_true",
        help="shut down gracefully, as on SIGTERM, once stdin reaches end of file (for a parent "
        "that holds a pipe to it: the service then ends when the parent does, however it ends)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="(%(default)s)",
    )
    arguments = parser.parse_args(argv)
    if arguments.workers < 1:
        parser.error("--workers must be at least 1")
    if arguments.workers > 1 and arguments.store.endswith(":memory:"):
        parser.error("--workers > 1 needs a store the workers share: Redis or an SQLite file")
    if not 0 <= arguments.port <= 65535:
        parser.error("--port must be between 0 and 65535")
    return arguments


def _log_config(level: str) -> dict[str, Any]:
    # uvicorn logs access lines to stdout by default; stdout carries only the ready line.
    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    for handler in config["handlers"].values():
        handler["stream"] = "ext://sys.stderr"
    config["loggers"]["spool"] = {"handlers": ["default"], "level": level.upper()}
    return config


def _announce(host: str, port: int, settings: Settings) -> None:
    shown = f"[{host}]" if ":" in host else host
    sys.stdout.write(READY_LINE.format(host=shown, port=port) + "\n")
    sys.stdout.flush()
    if settings.development:
        _development_note(f"http://{shown}:{port}", settings)


def _development_note(base_url: str, settings: Settings) -> None:
    """Where development mode's token comes from (the default one is public, so it is shown; one
    given in $SPOOL_DEV_TOKEN is a secret of whoever set it, so it is not) and the console.
    """
    if settings.tokens[0].secret == DEFAULT_DEV_TOKEN:
        token = f"token {DEFAULT_DEV_TOKEN} (the default; $SPOOL_DEV_TOKEN sets another)"
    else:
        token = "the token in $SPOOL_DEV_TOKEN"
    console = f"; console at {base_url}/console" if settings.console else ""
    logger.warning("development mode: sign in with %s%s", token, console)


class _AnnouncingServer(uvicorn.Server):
    """A uvicorn server that prints the ready line once its app has started."""

    def __init__(self, config: uvicorn.Config, *, host: str, port: int, settings: Settings) -> None:
        super().__init__(config)
        self._host = host
        self._port = port
        self._settings = settings

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            _announce(self._host, self._port, self._settings)

    def request_exit(self) -> None:
        """Shut down gracefully, as SIGTERM does; callable from any thread."""
        # uvicorn's main loop reads this flag on every tick (a tenth of a second).
        self.should_exit = True


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the command line and serve until SIGTERM or SIGINT."""
    arguments = _arguments(argv)
    logging.config.dictConfig(_log_config(arguments.log_level))
    try:
        store_from_url(arguments.store)
        settings = load_settings(
            store_url=arguments.store,
            config_path=arguments.config,
            metrics=arguments.metrics,
            console=arguments.console,
            docs=arguments.docs,
        )
    except (ConfigError, InvalidStoreURL, ValueError) as error:
        sys.stderr.write(f"spool-server: {error}\n")
        raise SystemExit(2) from None

    common: dict[str, Any] = {
        "host": arguments.host,
        "port": arguments.port,
        "workers": arguments.workers,
        "log_config": _log_config(arguments.log_level),
        "log_level": arguments.log_level,
        "lifespan": "on",
        "http": H11ReadDeadlineProtocol,
    }
    if arguments.workers == 1:
        config = uvicorn.Config(create_app(settings, owns_process=True), **common)
    else:
        # Workers are fresh processes that build their app from the environment: hand them the
        # same store, configuration and signing keys (generated keys must match in every worker).
        os.environ["SPOOL_STORE"] = arguments.store
        if arguments.config is not None:
            os.environ["SPOOL_CONFIG"] = os.path.abspath(arguments.config)
        os.environ["SPOOL_SIGNING_KEY"] = settings.signing_keys.current
        os.environ["SPOOL_NEXT_SIGNING_KEY"] = settings.signing_keys.next
        if arguments.metrics:
            os.environ["SPOOL_METRICS"] = "1"
        if arguments.console:
            os.environ["SPOOL_CONSOLE"] = "1"
        if arguments.docs is not None:
            os.environ["SPOOL_DOCS"] = "1" if arguments.docs else "0"
        config = uvicorn.Config("server.app:create_app_from_environment", factory=True, **common)
    listener = bind_listener(config)
    port = listener.getsockname()[1]
    if arguments.workers == 1:
        server = _AnnouncingServer(config, host=arguments.host, port=port, settings=settings)
        if arguments.exit_on_stdin_eof:
            _watch_stdin_for_eof(server.request_exit)
        with _stopping_signals_exit_cleanly():
            server.run(sockets=[listener])
        return
    # Listening before the workers start queues early connections until a worker accepts them.
    listener.listen(config.backlog)
    supervisor = Multiprocess(config, sockets=[listener])
    if arguments.exit_on_stdin_eof:
        # The supervisor stops its workers as it does on SIGTERM, so only it needs to watch.
        _watch_stdin_for_eof(supervisor.should_exit.set)
    with _multiprocess_metrics(enabled=settings.metrics.enabled):
        _announce(arguments.host, port, settings)
        supervisor.run()


def _exit_cleanly(_signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(0)


@contextlib.contextmanager
def _stopping_signals_exit_cleanly() -> Iterator[None]:
    """While serving, have SIGINT and SIGTERM end the process with status 0, quietly.

    uvicorn stops gracefully on either, then puts back the handlers it found and raises the
    signal again. Python's own handlers would turn that into a KeyboardInterrupt traceback
    (SIGINT) or a death by SIGTERM (status -15); but a stop on request that went cleanly is a
    success, as it is with several workers, whose supervisor exits 0. A signal arriving before
    uvicorn has taken over exits the same way, as nothing has started yet.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _exit_cleanly) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            # None: a handler installed from C, which Python cannot put back.
            if handler is not None:
                signal.signal(sig, handler)


@contextlib.contextmanager
def _multiprocess_metrics(*, enabled: bool) -> Iterator[None]:
    """A fresh directory for the workers' metric files, named in the environment they inherit,
    removed once they have stopped; nothing when metrics are off or a directory is already named.
    """
    if not enabled or os.environ.get(MULTIPROCESS_DIRECTORY_VARIABLE):
        yield
        return
    directory = tempfile.mkdtemp(prefix="spool-metrics-")
    os.environ[MULTIPROCESS_DIRECTORY_VARIABLE] = directory
    try:
        yield
    finally:
        del os.environ[MULTIPROCESS_DIRECTORY_VARIABLE]
        shutil.rmtree(directory, ignore_errors=True)


def _watch_stdin_for_eof(request_exit: Callable[[], None]) -> None:
    """Call ``request_exit`` from a background thread once stdin reaches end of file (or cannot
    be read, or there is none); whatever arrives on stdin before that is discarded.
    """

    def watch() -> None:
        try:
            descriptor = sys.stdin.fileno()
            while os.read(descriptor, 4096):
                pass
        except (AttributeError, OSError, ValueError):
            # No stdin at all (pythonw), or a closed one: nobody can keep the service alive.
            pass
        logger.info("stdin reached end of file: shutting down")
        request_exit()

    threading.Thread(target=watch, name="spool-stdin-eof", daemon=True).start()


def bind_listener(config: uvicorn.Config) -> socket.socket:
    """The listening socket for ``config``, with TCP_NODELAY for every connection it accepts."""
    listener = config.bind_socket()
    if listener.family in (socket.AF_INET, socket.AF_INET6):
        # bind_socket() leaves the protocol at 0, so asyncio never sets TCP_NODELAY on accepted
        # connections and each keep-alive response waits ~40 ms for the client's delayed ACK.
        # Accepted sockets inherit the option from the listener.
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return listener


if __name__ == "__main__":
    main()
