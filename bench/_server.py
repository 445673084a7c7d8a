"""Real server processes for the benchmarks that go through HTTP: ``python -m server`` and the
anchors of ``bench/anchors``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import secrets
import select
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

__all__ = ["RunningProcess", "RunningServer", "rss_bytes", "running_process", "running_server"]

ROOT = Path(__file__).resolve().parent.parent
_READY = re.compile(r"spool-server listening on (http://\S+)\n")
_START_TIMEOUT_SECONDS = 60.0


@dataclasses.dataclass(frozen=True, slots=True)
class RunningProcess:
    """A process serving HTTP: where it listens and its process id."""

    base_url: str
    pid: int

    @property
    def host(self) -> str:
        """The host part of the base URL."""
        return urlsplit(self.base_url).hostname or "127.0.0.1"

    @property
    def port(self) -> int:
        """The port part of the base URL."""
        port = urlsplit(self.base_url).port
        assert port is not None
        return port


@dataclasses.dataclass(frozen=True, slots=True)
class RunningServer(RunningProcess):
    """A Spool server, and the development token it accepts."""

    token: str


@contextlib.contextmanager
def running_server(
    *, environment: Mapping[str, str] | None = None, store_url: str | None = None
) -> Iterator[RunningServer]:
    """A development-mode server (one worker) on ``store_url`` (default: a fresh SQLite file) and a
    free loopback port, stopped (and its files removed) on exit. ``environment`` adds ``SPOOL_*``
    settings such as allowed destinations.
    """
    token = f"bench-{secrets.token_hex(16)}"
    with tempfile.TemporaryDirectory(prefix="spool-bench-server-") as directory:
        # The caller's own SPOOL_* settings (a token file, a store) would change what is measured.
        env = {key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")}
        env.update(environment or {})
        env["SPOOL_DEV_TOKEN"] = token
        command = [sys.executable, "-m", "server", "--port", "0", "--log-level", "warning"]
        command += ["--store", store_url or f"sqlite:///{directory}/spool.db"]
        with running_process(command, env=env, ready=_READY, directory=Path(directory)) as server:
            yield RunningServer(base_url=server.base_url, pid=server.pid, token=token)


@contextlib.contextmanager
def running_process(
    command: Sequence[str],
    *,
    ready: re.Pattern[str],
    env: Mapping[str, str] | None = None,
    directory: Path | None = None,
) -> Iterator[RunningProcess]:
    """Run ``command`` from the repository root until exit; its first line on stdout must match
    ``ready``, whose first group is the base URL. Its stderr goes to a log file that is shown if
    it fails to start.
    """
    with contextlib.ExitStack() as stack:
        if directory is None:
            directory = Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="spool-bench-"))
            )
        log_path = directory / "process.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                list(command),
                cwd=ROOT,
                env=dict(os.environ if env is None else env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log,
            )
        try:
            base_url = _ready_url(process, log_path, ready)
            yield RunningProcess(base_url=base_url, pid=process.pid)
        finally:
            _stop(process)


def rss_bytes(pid: int) -> int:
    """The resident set size of process ``pid`` (Linux: ``VmRSS`` in ``/proc/<pid>/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            kilobytes = line.split()[1]
            return int(kilobytes) * 1024
    raise RuntimeError(f"process {pid} reports no VmRSS")


def _ready_url(process: subprocess.Popen[bytes], log_path: Path, ready: re.Pattern[str]) -> str:
    assert process.stdout is not None
    readable, _, _ = select.select([process.stdout], [], [], _START_TIMEOUT_SECONDS)
    line = process.stdout.readline().decode() if readable else ""
    match = ready.fullmatch(line)
    if match is None:
        _stop(process)
        log = log_path.read_text(errors="replace")
        raise RuntimeError(f"the process did not print its ready line (got {line!r}):\n{log}")
    return match.group(1)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
    if process.stdout is not None:
        process.stdout.close()
