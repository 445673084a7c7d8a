"""The serving process's heap (server/heap.py), and which apps settle it: only those that own
their process, once started.
"""

from __future__ import annotations

import logging.config
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import uvicorn
from starlette.applications import Starlette

import server.__main__ as server_main
from server import app as app_module
from server.app import create_app, create_app_from_environment, lifespan
from server.config import Settings
from server.heap import YOUNG_COLLECTION_THRESHOLD
from tests.conftest import ROOT


def test_settling_collects_startup_garbage_freezes_the_rest_and_raises_the_young_threshold() -> (
    None
):
    """Run in a process of its own: settling changes the whole interpreter's collector."""
    script = textwrap.dedent(
        """
        import gc, weakref
        from server.heap import YOUNG_COLLECTION_THRESHOLD, settle_heap

        class Node:
            pass

        cycle = Node()
        cycle.itself = cycle
        gone = weakref.ref(cycle)
        del cycle
        middle, old = gc.get_threshold()[1:]
        settle_heap()
        assert gone() is None, "garbage left by startup is collected first"
        assert gc.get_freeze_count() > 1000, gc.get_freeze_count()
        assert gc.get_threshold() == (YOUNG_COLLECTION_THRESHOLD, middle, old), gc.get_threshold()
        assert gc.isenabled()
        print("settled")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "settled\n"
    assert YOUNG_COLLECTION_THRESHOLD == 10_000


@pytest.mark.parametrize("owns_process", [False, True])
async def test_only_an_app_that_owns_its_process_settles_the_heap_once_started(
    store_url: str, monkeypatch: pytest.MonkeyPatch, owns_process: bool
) -> None:
    """An app a test or an embedding program builds leaves the collector as it found it."""
    events: list[str] = []
    monkeypatch.setattr(app_module, "settle_heap", lambda: events.append("settled"))
    app = create_app(
        Settings.development_mode(store_url=store_url), services=[], owns_process=owns_process
    )
    async with lifespan(app):
        events.append("serving")
    assert events == (["settled", "serving"] if owns_process else ["serving"])


def test_the_apps_spool_server_serves_own_their_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """One worker's app, built by the command, and each of several workers' apps."""
    served: list[uvicorn.Config] = []

    def run(self: uvicorn.Server, sockets: list[socket.socket]) -> None:
        served.append(self.config)
        for listener in sockets:
            listener.close()

    # The command's server is a uvicorn.Server that keeps uvicorn's own run().
    monkeypatch.setattr(uvicorn.Server, "run", run)
    # The command configures logging for its own process, not for the test run's.
    monkeypatch.setattr(logging.config, "dictConfig", lambda config: None)
    server_main.main(["--port", "0", "--store", f"sqlite:///{tmp_path}/one.db"])
    [config] = served
    assert isinstance(config.app, Starlette)
    assert config.app.state.owns_process is True

    monkeypatch.setenv("SPOOL_STORE", f"sqlite:///{tmp_path}/workers.db")
    assert create_app_from_environment().state.owns_process is True
