"""A real ``python -m server`` process for the benchmarks that go through HTTP."""

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
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = ["RunningServer", "running_server"]

ROOT = Path(__file__).resolve().parent.parent
_READY = re.compile(r"spool-server listening on (http://\S+)\n")
_START_TIMEOUT_SECONDS = 60.0


@dataclasses.dataclass(frozen=True, slots=True)
class RunningServer:
    """Where the server listens and the development token it accepts."""

    base_url: str
    token: str


@contextlib.contextmanager
def running_server(*, environment: Mapping[str, str] | None = None) -> Iterator[RunningServer]:
    """A development-mode server on a fresh SQLite file and a free loopback port, stopped (and its
    files removed) on exit. ``environment`` adds ``SPOOL_*`` settings such as allowed destinations.
    """
    token = f"bench-{secrets.token_hex(16)}"
    with tempfile.TemporaryDirectory(prefix="spool-bench-server-") as directory:
        # The caller's own SPOOL_* settings (a token file, a store) would change what is measured.
        env = {key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")}
        env.update(environment or {})
        env["SPOOL_DEV_TOKEN"] = token
        command = [sys.executable, "-m", "server", "--port", "0", "--log-level", "warning"]
        command += ["--store", f"sqlite:///{directory}/spool.db"]
        log_path = Path(directory) / "server.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log
            )
        try:
            base_url = _ready_url(process, log_path)
            yield RunningServer(base_url=base_url, token=token)
        finally:
            _stop(process)


def _ready_url(process: subprocess.Popen[bytes], log_path: Path) -> str:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], _START_TIMEOUT_SECONDS)
    line = process.stdout.readline().decode() if ready else ""
    match = _READY.fullmatch(line)
    if match is None:
        log = log_path.read_text(errors="replace")
        raise RuntimeError(f"the server did not print its ready line (got {line!r}):\n{log}")
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
