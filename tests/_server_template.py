"""Service processes forked from a template that has imported the service already.

A ``python -m server`` process spends about half a second of CPU importing the service before it
serves anything (three quarters of a second when coverage traces those imports), and the suite
starts such processes by the dozen. A template is a process that has done those imports once and
then forks a service for each request, as a preloading server forks its workers: each fork runs
``server.__main__.main`` with the test's command line and environment, stderr into the test's log
and stdout into a pipe the test reads the ready line from, exactly as a fresh process would.

The environment a module may read as it is imported is the template's, so a template serves only
the environment it was started with (`ServerTemplates` keeps one per environment). The template
itself runs without coverage, and a child whose environment asks for coverage starts it as a new
process does (coverage's ``.pth`` file calls `coverage.process_startup`), so each child measures
what it runs in a data file of its own. The lines a child does not run again, those run as the
modules are imported, are measured in the test workers, which import every module (tests/conftest.py).

Run as ``python -m tests._server_template FD``, FD being one end of a ``SOCK_SEQPACKET`` socket
pair: each request is a JSON ``{"argv": [...], "environment": {...}}`` with three descriptors
(stdout, stderr, and the write end of a pipe that receives the exit code), and the answer is the
child's pid. End of file on the socket ends the template; its children keep running.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

__all__ = ["ForkedProcess", "ServerTemplates", "is_coverage_variable"]

_MESSAGE_SIZE = 1 << 20
_DESCRIPTORS_PER_REQUEST = 3
# pytest names the running test in the environment; the child gets it, the template's key does not.
_VARIABLES_OF_EACH_TEST = frozenset({"PYTEST_CURRENT_TEST"})


def is_coverage_variable(name: str) -> bool:
    """Whether coverage's subprocess patch passes its settings to child processes in ``name``."""
    return name.startswith("COVERAGE_")


class ForkedProcess:
    """A service forked from a template, with the part of `subprocess.Popen` the tests use."""

    def __init__(self, pid: int, *, stdout: int, exit_code: int) -> None:
        self.pid = pid
        self.stdout = os.fdopen(stdout, "rb")
        self.returncode: int | None = None
        self._exit_code = exit_code

    def poll(self) -> int | None:
        """The exit code once the process has ended (negative: the signal that ended it)."""
        if self.returncode is None and select.select([self._exit_code], [], [], 0)[0]:
            self._read_exit_code()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the process to end; `subprocess.TimeoutExpired` after ``timeout`` seconds."""
        if self.returncode is None:
            if not select.select([self._exit_code], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(f"forked service {self.pid}", timeout or 0.0)
            self._read_exit_code()
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, number: int) -> None:
        """Send a signal unless the process has ended (its pid may then be another's)."""
        if self.poll() is None:
            os.kill(self.pid, number)

    def terminate(self) -> None:
        """SIGTERM."""
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL."""
        self.send_signal(signal.SIGKILL)

    def _read_exit_code(self) -> None:
        chunks = []
        while chunk := os.read(self._exit_code, 64):
            chunks.append(chunk)
        os.close(self._exit_code)
        text = b"".join(chunks).decode()
        if not text:
            raise RuntimeError(
                f"the template of service {self.pid} ended before reporting its exit"
            )
        self.returncode = int(text)


class _ServerTemplate:
    """A template process serving forks; ``environment`` is its own, which holds no coverage
    variables, so that it runs untraced.
    """

    def __init__(self, environment: Mapping[str, str], *, cwd: Path) -> None:
        self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._lock = threading.Lock()
        with theirs:
            command = [sys.executable, "-m", "tests._server_template", str(theirs.fileno())]
            self._process = subprocess.Popen(
                command,
                cwd=cwd,
                env=dict(environment),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=[theirs.fileno()],
            )

    def spawn(
        self, argv: Sequence[str], environment: Mapping[str, str], *, stderr: int
    ) -> ForkedProcess:
        """Fork a service, as `ServerTemplates.spawn` says."""
        stdout_read, stdout_write = os.pipe()
        exit_read, exit_write = os.pipe()
        request = json.dumps({"argv": list(argv), "environment": dict(environment)}).encode()
        try:
            with self._lock:
                socket.send_fds(self._control, [request], [stdout_write, stderr, exit_write])
                answer = self._control.recv(64)
            if not answer:
                raise RuntimeError(f"the service template ended (exit code {self._process.wait()})")
        except BaseException:
            os.close(stdout_read)
            os.close(exit_read)
            raise
        finally:
            os.close(stdout_write)
            os.close(exit_write)
        return ForkedProcess(int(answer), stdout=stdout_read, exit_code=exit_read)

    def close(self) -> None:
        """End the template and wait for it; the services it forked run on."""
        self._control.close()
        self._process.wait(timeout=60)


class ServerTemplates:
    """One template per environment, each started when first needed; closing ends them all."""

    def __init__(self, *, cwd: Path) -> None:
        self._cwd = cwd
        self._templates: dict[frozenset[tuple[str, str]], _ServerTemplate] = {}

    def spawn(
        self, argv: Sequence[str], environment: Mapping[str, str], *, stderr: int
    ) -> ForkedProcess:
        """Fork a service running ``python -m server ARGV`` with ``environment``, its stderr on
        the descriptor ``stderr``, from the template of that environment.
        """
        template_environment = {
            name: value
            for name, value in environment.items()
            if name not in _VARIABLES_OF_EACH_TEST and not is_coverage_variable(name)
        }
        key = frozenset(template_environment.items())
        template = self._templates.get(key)
        if template is None:
            template = self._templates[key] = _ServerTemplate(template_environment, cwd=self._cwd)
        return template.spawn(argv, environment, stderr=stderr)

    def close(self) -> None:
        """End every template."""
        while self._templates:
            _, template = self._templates.popitem()
            template.close()

    def __enter__(self) -> ServerTemplates:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


# The template's side --------------------------------------------------------------------------


def _serve(control: socket.socket) -> list[str] | None:
    """Fork a child per request until the socket ends; returns the argv in a child, None in the
    template once the socket has ended.
    """
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    # A handler of its own makes SIGCHLD interrupt the wait below through the wake-up pipe.
    signal.signal(signal.SIGCHLD, lambda number, frame: None)
    signal.set_wakeup_fd(wake_write)
    exit_codes: dict[int, int] = {}
    while True:
        readable, _, _ = select.select([control.fileno(), wake_read], [], [])
        if wake_read in readable:
            os.read(wake_read, 4096)
            _report_exits(exit_codes)
        if control.fileno() not in readable:
            continue
        message, descriptors, _, _ = socket.recv_fds(
            control, _MESSAGE_SIZE, _DESCRIPTORS_PER_REQUEST
        )
        if not message:
            return None
        request = json.loads(message)
        stdout, stderr, exit_code = descriptors
        pid = os.fork()
        if pid == 0:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for descriptor in (wake_read, wake_write, *exit_codes.values(), exit_code):
                os.close(descriptor)
            control.close()
            os.dup2(stdout, 1)
            os.dup2(stderr, 2)
            os.close(stdout)
            os.close(stderr)
            os.environ.clear()
            os.environ.update(request["environment"])
            argv: list[str] = request["argv"]
            return argv
        os.close(stdout)
        os.close(stderr)
        exit_codes[pid] = exit_code
        control.send(str(pid).encode())
        _report_exits(exit_codes)


def _report_exits(exit_codes: dict[int, int]) -> None:
    while exit_codes:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        descriptor = exit_codes.pop(pid)
        with contextlib.suppress(BrokenPipeError):
            os.write(descriptor, str(os.waitstatus_to_exitcode(status)).encode())
        os.close(descriptor)


def _main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    import server.__main__

    # The service imports a store's backend when it first sees its URL: each fork would again.
    import server.stores.redis
    import server.stores.sqlite

    # A fork copies only the thread that forks: no other may exist, or it would be missing.
    if threading.active_count() != 1:
        raise RuntimeError(f"the service template runs threads: {threading.enumerate()}")
    argv = _serve(control)
    if argv is None:
        return
    if any(is_coverage_variable(name) for name in os.environ):
        import coverage

        coverage.process_startup()
    sys.argv = [server.__main__.__file__, *argv]
    server.__main__.main(argv)


if __name__ == "__main__":
    _main()
