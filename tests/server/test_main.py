"""The command line (server/__main__.py): its listening socket, its switches, and what it says
when it starts in development mode.
"""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette

from server.__main__ import bind_listener
from tests._eventually import eventually
from tests.conftest import ROOT, ServerProcess


def test_the_listener_turns_off_nagle_for_every_accepted_connection() -> None:
    """TCP_NODELAY is set on the listener, so keep-alive responses never wait for delayed ACKs."""
    listener = bind_listener(uvicorn.Config(Starlette(), host="127.0.0.1", port=0))
    try:
        listener.listen()
        with socket.create_connection(listener.getsockname()):
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        listener.close()


CONFIG = {
    "tokens": [
        {
            "id": "ops",
            "token": "ops-secret",
            "permissions": [{"resource": "*", "actions": ["admin"]}],
        }
    ]
}


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_the_console_flag_serves_the_console(
    spool_server: Callable[..., ServerProcess], sqlite_store_url: str, workers: int
) -> None:
    """``--console`` serves /console with a token file, in every worker; without it, 404."""
    served = spool_server(sqlite_store_url, config=CONFIG, workers=workers, arguments=["--console"])
    assert httpx.get(f"{served.base_url}/console/sign-in", timeout=60).status_code == 200
    if workers == 1:
        plain = spool_server(sqlite_store_url, config=CONFIG)
        assert httpx.get(f"{plain.base_url}/console/sign-in").status_code == 404


@pytest.mark.slow
@pytest.mark.parametrize("dev_token", [None, "a-chosen-dev-token"])
async def test_development_mode_names_its_token_and_console_on_stderr(
    sqlite_store_url: str, tmp_path: Path, dev_token: str | None
) -> None:
    """After the ready line, which stays alone on stdout, a warning on stderr says which token
    signs in (the default by name, a chosen one only by where it comes from) and where the
    console is.
    """
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")}
    if dev_token is not None:
        environment["SPOOL_DEV_TOKEN"] = dev_token
    log_path = tmp_path / "server.log"
    command = [sys.executable, "-m", "server", "--store", sqlite_store_url, "--port", "0"]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*command, "--log-level", "warning"],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=log,
        )
    server = ServerProcess(process=process, base_url="", token="", log_path=log_path)
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 60)
        assert ready, server.log()
        line = process.stdout.readline().decode()
        base_url = line.removeprefix("spool-server listening on ").strip()
        assert line == f"spool-server listening on {base_url}\n"
        logged = await eventually(server.log, lambda text: "sign in with" in text)
        assert f"console at {base_url}/console" in logged
        if dev_token is None:
            assert "sign in with token spool-dev-token (the default" in logged
        else:
            assert "sign in with the token in $SPOOL_DEV_TOKEN" in logged
            assert dev_token not in logged
    finally:
        assert server.stop() == 0
        assert process.stdout is not None
        assert process.stdout.read() == b""
        process.stdout.close()
