"""The service killed (SIGKILL) and started again on the same port and store, under a steady
stream of publishes from an SDK client with a retry budget: every publish returns, and each is
written exactly once, on both stores.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import sdk
from tests.conftest import ROOT
from tests.faults._config import CONFIG, TOKEN

pytestmark = pytest.mark.slow

PUBLISHES = 120
KILL_AFTER = 40
DOWN_FOR = 1.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class _Service:
    """A `python -m server` process on a fixed port, which can be killed and started again."""

    def __init__(self, store_url: str, port: int, directory: Path) -> None:
        self.store_url = store_url
        self.port = port
        self.config = directory / "spool.json"
        self.config.write_text(json.dumps(CONFIG))
        self.log = directory / "server.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("SPOOL_")}
        command = [sys.executable, "-m", "server", "--store", self.store_url]
        command += ["--port", str(self.port), "--config", str(self.config)]
        command += ["--log-level", "warning"]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=log
            )
        stdout = self.process.stdout
        assert stdout is not None
        ready, _, _ = select.select([stdout], [], [], 60)
        line = stdout.readline().decode() if ready else ""
        if not re.fullmatch(r"spool-server listening on (http://\S+)\n", line):
            pytest.fail(f"no ready line ({line!r}):\n{self.log.read_text(errors='replace')}")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)
        self._close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)
        self._close()

    def _close(self) -> None:
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()


@pytest.fixture
def service(store_url: str, tmp_path: Path) -> Iterator[_Service]:
    """The service on a fixed free port; stopped at the end."""
    running = _Service(store_url, _free_port(), tmp_path)
    running.start()
    yield running
    running.stop()


def test_a_killed_and_restarted_service_loses_and_repeats_no_publish(service: _Service) -> None:
    """Publishes sent while the service is down are retried until it is back, each written once."""
    base_url = f"http://127.0.0.1:{service.port}"
    ids: list[str] = []
    failures: list[BaseException] = []
    published = threading.Event()

    def publish_all() -> None:
        with sdk.Client(base_url, TOKEN, max_retries=2, retry_timeout="60s", timeout=5) as client:
            for number in range(PUBLISHES):
                try:
                    ids.append(client.publish("restarts", {"n": number}))
                except BaseException as error:
                    failures.append(error)
                if number == KILL_AFTER:
                    published.set()

    publisher = threading.Thread(target=publish_all)
    publisher.start()
    assert published.wait(60), "the publisher never got going"
    service.kill()
    time.sleep(DOWN_FOR)
    service.start()
    publisher.join(120)

    assert not publisher.is_alive()
    assert failures == []
    assert len(ids) == PUBLISHES
    with sdk.Client(base_url, TOKEN) as reader:
        entries = reader.streams.range("restarts", count=1000)
    assert sorted(entry.body["n"] for entry in entries) == list(range(PUBLISHES))
