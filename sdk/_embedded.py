"""The embedded default: the reference service in a child process, behind `Client.embedded()`.

The service runs in its own interpreter (`python -m server`), never inside the caller's: `import
sdk` stays free of the service's dependencies, and the app's event loop, signal handlers and
logging stay its own. The child listens on a free loopback port, accepts only a random development
token handed to it in its environment, and is stopped (SIGTERM, then SIGKILL after a grace period)
when the client closes, or at interpreter exit if the client never did. If this process dies
without either (SIGKILL, a crash), the child stops itself: its stdin is a pipe from this process
that nothing writes to, and it runs with `--exit-on-stdin-eof`. However this process ends, the
operating system then closes the pipe, and the service shuts down gracefully.

With `tracing=True` the child is `python -m server.traced`, which configures OpenTelemetry from
the `OTEL_*` variables it inherits before serving, so its spans go where this process's are sent
when those variables configure it too (an OTLP endpoint, say), under the service name
`spool-server`.
"""

from __future__ import annotations

import importlib.util
import math
import os
import queue
import re
import secrets
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import IO
from urllib.parse import quote

from ._config import DEFAULT_STARTUP_TIMEOUT, LOOPBACK_DESTINATIONS
from ._exceptions import ConfigurationError, EmbeddedServiceError

__all__ = ["EmbeddedService"]

# The embedded service is reachable only from this machine and only with a token this process
# made up, so letting it deliver to local endpoints (the app under development) opens nothing.
# Long enough for in-flight requests to finish and the store to close cleanly.
STOP_GRACE_SECONDS = 10.0
SERVER_EXTRA_HINT = "pip install 'spool[server]'"
OTEL_EXTRA_HINT = "pip install 'spool[otel]'"
# What server/traced.py configures OpenTelemetry with.
_TRACING_MODULES = ("opentelemetry.distro", "opentelemetry.instrumentation.auto_instrumentation")
TRACED_SERVICE_NAME = "spool-server"

_READY_LINE = re.compile(r"spool-server listening on (http://\S+)")
_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^']+)'")
_CONFIGURATION_REFUSED = re.compile(r"^spool-server: (.+)$", re.MULTILINE)
_TOKEN = re.compile(r"[\x21-\x7E]+")
_LOG_TAIL_CHARS = 3000
# The service ships beside the SDK (same wheel, same source tree): run that one, not whatever
# else is called `server` on the path.
_SOURCE_ROOT = Path(__file__).resolve().parent.parent


class EmbeddedService:
    """A reference service running as a child process, for one or more clients on this machine.

    `base_url` and `token` are what a client needs, `console_url` where a browser signs in to
    the web console (with `token`); `stop()` ends the process and removes the temporary data
    directory, if one was made.
    """

    def __init__(
        self,
        *,
        base_url: str,
        token: str,
        process: subprocess.Popen[bytes],
        reader: threading.Thread,
        log: IO[bytes],
        data_dir: Path | None,
    ) -> None:
        self._base_url = base_url
        self._token = token
        self.data_dir = data_dir
        self._process = process
        self._log = log
        # A finalizer rather than __del__: it also runs at interpreter exit, so a client that was
        # never closed does not leave a service running after its program ended.
        self._finalizer = weakref.finalize(self, _stop, process, reader, log, data_dir)

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"EmbeddedService(base_url={self.base_url!r}, {state})"

    @property
    def base_url(self) -> str:
        """The service's URL, `http://127.0.0.1:PORT`."""
        return self._base_url

    @property
    def console_url(self) -> str:
        """The web console's URL; it signs in with `token`."""
        return f"{self._base_url}/console"

    @property
    def token(self) -> str:
        """The one token the service accepts, with every permission (kept out of `repr`)."""
        return self._token

    @property
    def running(self) -> bool:
        """Whether the child process is still alive."""
        return self._finalizer.alive and self._process.poll() is None

    @property
    def pid(self) -> int:
        """The child process's id."""
        return self._process.pid

    def log_tail(self) -> str:
        """The end of what the service wrote to stderr (warnings and errors)."""
        return _tail(self._log)

    def stop(self) -> None:
        """Stop the service and remove its temporary data; stopping twice is harmless."""
        self._finalizer()

    @classmethod
    def start(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        store: str | None = None,
        token: str | None = None,
        allow_destinations: Iterable[str] = LOOPBACK_DESTINATIONS,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        tracing: bool = False,
    ) -> EmbeddedService:
        """Start a service and return once it accepts requests.

        `path` is the SQLite file to keep data in; without it (and without `store`, any store
        URL) the data lives in a temporary directory removed by `stop()`. `token` defaults to a
        random one. `tracing` runs the service with OpenTelemetry configured from the `OTEL_*`
        environment variables (server/traced.py).

        Returns:
            The running EmbeddedService, with its `base_url` and `token`.

        Raises:
            ConfigurationError: a bad argument (both `path` and `store`, a token that is not
                printable ASCII, a `startup_timeout` that is not a positive number, ...), the
                `server` extra (or, for `tracing`, the `otel` extra) is missing, or the service
                refused its settings.
            EmbeddedServiceError: the service could not be started, exited before it was
                ready, or took longer than `startup_timeout`; `log` holds the end of its log.
        """
        secret = _check_token(token)
        destinations = _check_destinations(allow_destinations)
        deadline = _check_timeout(startup_timeout)
        _check_server_installed()
        _check_tracing(tracing)
        store_url, data_dir = _store(path, store)
        log = tempfile.TemporaryFile(mode="a+b", prefix="spool-embedded-log-")
        try:
            process = subprocess.Popen(
                _command(store_url, tracing=tracing),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                env=_environment(secret, destinations, tracing=tracing),
                # Its own session: Ctrl+C in a terminal reaches the app, which then stops the
                # service in order, instead of killing the service under a running worker loop.
                start_new_session=True,
            )
        except OSError as error:
            log.close()
            _remove(data_dir)
            raise EmbeddedServiceError(
                f"could not start the embedded service: {error}", log=""
            ) from error
        lines: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(
            target=_read_lines,
            args=(process.stdout, lines),
            name=f"spool-embedded-{process.pid}",
            daemon=True,
        )
        reader.start()
        try:
            base_url = _wait_until_ready(process, lines, deadline, log)
        except BaseException:
            _stop(process, reader, log, data_dir)
            raise
        return cls(
            base_url=base_url,
            token=secret,
            process=process,
            reader=reader,
            log=log,
            data_dir=data_dir,
        )


def _check_token(token: str | None) -> str:
    if token is None:
        return secrets.token_urlsafe(32)
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        # Never echo the value: it is a secret even when it is malformed.
        raise ConfigurationError("token must be printable ASCII without spaces")
    return token


def _check_destinations(allow_destinations: Iterable[str]) -> tuple[str, ...]:
    if isinstance(allow_destinations, str):
        raise ConfigurationError(
            "allow_destinations takes a sequence of hosts or networks, such as ['127.0.0.1'], "
            "not one string"
        )
    entries = tuple(allow_destinations)
    for entry in entries:
        if not isinstance(entry, str) or not entry.strip() or "," in entry:
            raise ConfigurationError(
                f"allow_destinations entries are hostnames, addresses or networks, got {entry!r}"
            )
    return entries


def _check_timeout(startup_timeout: float) -> float:
    if (
        isinstance(startup_timeout, bool)
        or not isinstance(startup_timeout, int | float)
        or not math.isfinite(startup_timeout)
        or startup_timeout <= 0
    ):
        raise ConfigurationError(
            f"startup_timeout must be a positive number of seconds, got {startup_timeout!r}"
        )
    return float(startup_timeout)


def _store(path: str | os.PathLike[str] | None, store: str | None) -> tuple[str, Path | None]:
    """The store URL to serve, and the temporary directory to remove afterwards (if any)."""
    if path is not None and store is not None:
        raise ConfigurationError("give path= (an SQLite file) or store= (a store URL), not both")
    if store is not None:
        if not isinstance(store, str) or not store.strip():
            raise ConfigurationError(
                f"store must be a store URL such as redis://..., got {store!r}"
            )
        return store, None
    if path is not None:
        if not isinstance(path, str | os.PathLike):
            raise ConfigurationError(f"path must be a file path, got {path!r}")
        return _sqlite_url(Path(path).expanduser().resolve()), None
    data_dir = Path(tempfile.mkdtemp(prefix="spool-embedded-"))
    return _sqlite_url(data_dir / "spool.db"), data_dir


def _sqlite_url(path: Path) -> str:
    # Quoted, because the store URL is parsed as a URL: a '#' or '?' in a directory name would
    # otherwise cut the path short.
    return "sqlite:///" + quote(path.as_posix())


def _check_server_installed() -> None:
    if not (_SOURCE_ROOT / "server" / "__main__.py").is_file():
        raise ConfigurationError(
            f"the embedded service needs Spool's reference service, which is not installed "
            f"beside this SDK: {SERVER_EXTRA_HINT}"
        )


def _check_tracing(tracing: bool) -> None:
    if not isinstance(tracing, bool):
        raise ConfigurationError(f"tracing must be True or False, got {tracing!r}")
    if tracing and not all(_installed(module) for module in _TRACING_MODULES):
        raise ConfigurationError(
            f"tracing=True needs OpenTelemetry's distro and instrumentation: {OTEL_EXTRA_HINT}"
        )


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        # A parent package that is missing altogether.
        return False


def _command(store_url: str, *, tracing: bool) -> list[str]:
    # -P: a module named `server` in the app's working directory must not shadow Spool's.
    return [
        sys.executable,
        "-P",
        "-m",
        "server.traced" if tracing else "server",
        "--store",
        store_url,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--log-level",
        "warning",
        "--exit-on-stdin-eof",
    ]


def _environment(token: str, destinations: tuple[str, ...], *, tracing: bool) -> dict[str, str]:
    # The caller's own Spool settings (a token file, a store, signing keys) are for some other
    # service; inheriting them would take this one out of development mode.
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")}
    environment["SPOOL_DEV_TOKEN"] = token
    if destinations:
        environment["SPOOL_ALLOW_DESTINATIONS"] = ",".join(destinations)
    if tracing:
        # The caller's own service name names the caller, not this service.
        environment["OTEL_SERVICE_NAME"] = TRACED_SERVICE_NAME
    installed = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    if str(_SOURCE_ROOT) not in installed:
        # A source tree (or an app that put it on sys.path): the child finds it the same way.
        inherited = environment.get("PYTHONPATH")
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_SOURCE_ROOT), inherited]))
    return environment


def _read_lines(stream: IO[bytes] | None, lines: queue.Queue[str]) -> None:
    """Hand on every stdout line, then "" at the end; reading on keeps the pipe from filling."""
    if stream is not None:
        for raw in iter(stream.readline, b""):
            lines.put(raw.decode("utf-8", errors="replace"))
    lines.put("")


def _wait_until_ready(
    process: subprocess.Popen[bytes], lines: queue.Queue[str], timeout: float, log: IO[bytes]
) -> str:
    """The service's URL from its ready line; a typed error if it exits or takes too long."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            output = _tail(log)
            raise EmbeddedServiceError(
                f"the embedded service did not start within {timeout:g} s; "
                f"its log ends with:\n{output}",
                log=output,
            ) from None
        if not line:
            raise _startup_failure(process, log)
        ready = _READY_LINE.search(line)
        if ready is not None:
            return ready.group(1)


def _startup_failure(process: subprocess.Popen[bytes], log: IO[bytes]) -> Exception:
    try:
        exit_code: int | None = process.wait(timeout=STOP_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        exit_code = None
    output = _tail(log)
    missing = _MISSING_MODULE.search(output)
    if missing is not None:
        return ConfigurationError(
            f"the embedded service needs the server extra (module {missing.group(1)!r} is "
            f"missing): {SERVER_EXTRA_HINT}"
        )
    refused = _CONFIGURATION_REFUSED.search(output)
    if refused is not None:
        return ConfigurationError(f"the embedded service refused its settings: {refused[1]}")
    return EmbeddedServiceError(
        f"the embedded service exited (code {exit_code}) before it was ready; "
        f"its log ends with:\n{output}",
        log=output,
        exit_code=exit_code,
    )


def _tail(log: IO[bytes]) -> str:
    # The file was opened for appending, so reading here never moves where the child writes.
    if log.closed:
        return ""
    log.seek(0, os.SEEK_END)
    size = log.tell()
    log.seek(max(0, size - _LOG_TAIL_CHARS))
    return log.read().decode("utf-8", errors="replace").strip()


def _stop(
    process: subprocess.Popen[bytes],
    reader: threading.Thread,
    log: IO[bytes],
    data_dir: Path | None,
) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    reader.join(timeout=STOP_GRACE_SECONDS)
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            pipe.close()
    log.close()
    _remove(data_dir)


def _remove(data_dir: Path | None) -> None:
    if data_dir is not None:
        shutil.rmtree(data_dir, ignore_errors=True)
