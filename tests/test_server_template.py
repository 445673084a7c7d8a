"""tests/_server_template.py: services forked from a template behave as processes started afresh."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests._server_template import ForkedProcess, ServerTemplates
from tests.conftest import ROOT

pytestmark = pytest.mark.slow


def _environment(**extra: str) -> dict[str, str]:
    inherited = {name: value for name, value in os.environ.items() if not name.startswith("SPOOL_")}
    return {**inherited, **extra}


@pytest.fixture(scope="module")
def templates() -> Iterator[ServerTemplates]:
    with ServerTemplates(cwd=ROOT) as templates:
        yield templates


class Spawner:
    """Forks services on a fresh SQLite file each, and closes their stdout afterwards."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.spawned: list[ForkedProcess] = []

    def __call__(
        self, templates: ServerTemplates, *arguments: str, **environment: str
    ) -> tuple[ForkedProcess, Path]:
        index = len(self.spawned)
        log = self.directory / f"server-{index}.log"
        argv = ["--store", f"sqlite:///{self.directory}/spool-{index}.db", "--port", "0"]
        with log.open("wb") as stderr:
            process = templates.spawn(
                [*argv, *arguments], _environment(**environment), stderr=stderr.fileno()
            )
        self.spawned.append(process)
        return process, log


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Spawner]:
    spawner = Spawner(tmp_path)
    yield spawner
    for process in spawner.spawned:
        process.stdout.close()


def _ready_url(process: ForkedProcess) -> str:
    line = process.stdout.readline().decode()
    assert line.startswith("spool-server listening on http://"), line
    return line.split()[-1]


def _parent_of(pid: int) -> int:
    # /proc/PID/stat: "pid (name) state ppid ...", the name in parentheses may hold spaces.
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return int(fields[1])


def test_a_forked_service_serves_and_stops_gracefully_on_sigterm(
    templates: ServerTemplates, spawn: Spawner
) -> None:
    process, _ = spawn(templates)
    url = _ready_url(process)
    assert httpx.get(f"{url}/v1/health").status_code == 200
    assert process.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(timeout=0.05)
    process.terminate()
    assert process.wait(timeout=30) == 0
    assert process.poll() == 0
    assert process.stdout.read() == b""


def test_a_killed_service_reports_the_signal(templates: ServerTemplates, spawn: Spawner) -> None:
    process, _ = spawn(templates)
    _ready_url(process)
    process.kill()
    assert process.wait(timeout=30) == -signal.SIGKILL
    # The pid is no longer this service's: nothing is sent to it again.
    process.terminate()


def test_a_refused_command_line_exits_2_with_its_message_on_stderr(
    templates: ServerTemplates, spawn: Spawner
) -> None:
    process, log = spawn(templates, "--workers", "0")
    assert process.wait(timeout=30) == 2
    assert "--workers must be at least 1" in log.read_text()


def test_the_service_reads_the_environment_of_its_request(
    templates: ServerTemplates, spawn: Spawner
) -> None:
    process, _ = spawn(templates, SPOOL_DEV_TOKEN="token-of-this-request")
    url = _ready_url(process)
    try:
        answer = httpx.get(
            f"{url}/v1/streams", headers={"Authorization": "Bearer token-of-this-request"}
        )
        assert answer.status_code == 200, answer.text
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_one_template_serves_one_environment_whatever_the_running_test(
    templates: ServerTemplates, spawn: Spawner
) -> None:
    first, _ = spawn(templates, PYTEST_CURRENT_TEST="a")
    second, _ = spawn(templates, PYTEST_CURRENT_TEST="b")
    other, _ = spawn(templates, SPOOL_TEST_OTHER_ENVIRONMENT="1")
    processes = [first, second, other]
    try:
        for process in processes:
            _ready_url(process)
        assert _parent_of(first.pid) == _parent_of(second.pid) != _parent_of(other.pid)
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=30)


def test_the_services_of_a_closed_template_run_on(spawn: Spawner) -> None:
    templates = ServerTemplates(cwd=ROOT)
    process, _ = spawn(templates)
    url = _ready_url(process)
    templates.close()
    try:
        assert httpx.get(f"{url}/v1/health").status_code == 200
        with pytest.raises(RuntimeError, match="ended before reporting its exit"):
            process.poll()
    finally:
        os.kill(process.pid, signal.SIGTERM)
