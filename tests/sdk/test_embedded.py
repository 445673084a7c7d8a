"""Client.embedded() and AsyncClient.embedded(): a real service as a child, stopped on close."""

from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import sdk
from sdk import _embedded as embedded_module
from sdk._embedded import EmbeddedService
from tests.conftest import ROOT
from tests.sdk._support import resolve

pytestmark = pytest.mark.slow


def _gone(pid: int) -> bool:
    """Whether no process `pid` is left (a zombie is reaped by its parent, not here)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[EmbeddedService]:
    """Every EmbeddedService started during the test, to look at the child processes."""
    services: list[EmbeddedService] = []
    original = EmbeddedService.start.__func__  # type: ignore[attr-defined]

    def record(cls: type[EmbeddedService], *args: Any, **kwargs: Any) -> EmbeddedService:
        service: EmbeddedService = original(cls, *args, **kwargs)
        services.append(service)
        return service

    monkeypatch.setattr(EmbeddedService, "start", classmethod(record))
    return services


@pytest.fixture(params=["sync", "async"])
def flavour(request: pytest.FixtureRequest) -> str:
    """Each client kind in turn."""
    return str(request.param)


async def _start_client(flavour: str, *args: Any, **kwargs: Any) -> sdk.Client | sdk.AsyncClient:
    if flavour == "sync":
        return sdk.Client.embedded(*args, **kwargs)
    return await sdk.AsyncClient.embedded(*args, **kwargs)


async def _close(client: sdk.Client | sdk.AsyncClient) -> None:
    await resolve(client.close())


async def test_a_ready_client_whose_close_stops_the_service(
    flavour: str, started: list[EmbeddedService]
) -> None:
    """The client answers at once; closing it ends the child and removes the temporary data."""
    client = await _start_client(flavour)
    [service] = started
    assert service.running and service.data_dir is not None and service.data_dir.is_dir()
    entry_id = await resolve(client.publish("events", {"type": "signup"}))
    assert entry_id.count("-") == 1
    health = await resolve(client.health())
    assert (health.status, health.store) == ("ok", "sqlite")
    await _close(client)
    assert not service.running
    assert _gone(service.pid)
    assert not service.data_dir.exists()


async def test_the_client_names_its_service_url_console_and_token(
    flavour: str, started: list[EmbeddedService]
) -> None:
    """`embedded_service` gives what a browser needs: the console's URL, whose sign-in takes the
    token; a client of another service has none, and the repr never shows the token.
    """
    import httpx

    client = await _start_client(flavour, token="console-token")
    try:
        service = client.embedded_service
        assert service is started[0]
        assert service.token == "console-token"
        assert service.base_url.startswith("http://127.0.0.1:")
        assert service.console_url == f"{service.base_url}/console"
        assert "console-token" not in repr(service)
        with pytest.raises(AttributeError):
            service.token = "another"  # type: ignore[misc]
        with httpx.Client(trust_env=False) as browser:
            form = browser.get(f"{service.console_url}/sign-in")
            assert form.status_code == 200
            # A token given to the service is a secret: the page says where it is, not what.
            assert "console-token" not in form.text and "embedded_service.token" in form.text
            signed_in = browser.post(
                f"{service.console_url}/sign-in", data={"token": service.token}
            )
            assert signed_in.status_code == 303
            assert signed_in.headers["location"] == "/console/streams"
    finally:
        await _close(client)
    other = (
        sdk.Client("http://127.0.0.1:9")
        if flavour == "sync"
        else sdk.AsyncClient("http://127.0.0.1:9")
    )
    try:
        assert other.embedded_service is None
    finally:
        await _close(other)


async def test_context_managers_stop_the_service(
    flavour: str, started: list[EmbeddedService]
) -> None:
    """Leaving the with block is closing the client."""
    if flavour == "sync":
        with sdk.Client.embedded() as client:
            client.publish("events", {"n": 1})
    else:
        async with await sdk.AsyncClient.embedded() as aclient:
            await aclient.publish("events", {"n": 1})
    assert not started[0].running


async def test_path_keeps_the_data_across_services(flavour: str, tmp_path: Path) -> None:
    """With path= the SQLite file outlives the service, and the next one sees its entries."""
    path = tmp_path / "dir with # and ?" / "spool.db"
    client = await _start_client(flavour, path)
    await resolve(client.publish("events", {"n": 1}))
    await _close(client)
    assert path.is_file()
    client = await _start_client(flavour, path=str(path))
    try:
        assert await resolve(client.streams.length("events")) == 1
    finally:
        await _close(client)
    assert path.is_file()


async def test_the_service_accepts_only_its_token(flavour: str) -> None:
    """A random token is the only one the child accepts; it never shows in the repr."""
    client = await _start_client(flavour, token="my-embedded-token")
    try:
        assert "my-embedded-token" not in repr(client)
        base_url = repr(client).split("'")[1]
        client_class = sdk.Client if flavour == "sync" else sdk.AsyncClient
        intruder = client_class(base_url, "some-other-token", max_retries=0)
        try:
            with pytest.raises(sdk.AuthenticationError):
                await resolve(intruder.streams.length("events"))
        finally:
            await _close(intruder)
    finally:
        await _close(client)


async def test_the_callers_spool_settings_do_not_reach_the_service(
    flavour: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """$SPOOL_CONFIG and friends are for another service: the child stays in development mode."""
    monkeypatch.setenv("SPOOL_CONFIG", str(tmp_path / "missing.yaml"))
    monkeypatch.setenv("SPOOL_DEV_TOKEN", "not-the-embedded-one")
    monkeypatch.setenv("SPOOL_STORE", "bogus://nowhere")
    client = await _start_client(flavour)
    try:
        await resolve(client.publish("events", {"n": 1}))
        assert await resolve(client.streams.length("events")) == 1
    finally:
        await _close(client)


async def test_loopback_destinations_are_allowed_unless_refused(flavour: str) -> None:
    """Messages to this machine are accepted by default; allow_destinations=() refuses them."""
    client = await _start_client(flavour)
    try:
        receipt = await resolve(
            client.messages.publish_json(url="http://127.0.0.1:9/hook", body={"a": 1}, delay="1h")
        )
        assert receipt.url == "http://127.0.0.1:9/hook"
    finally:
        await _close(client)
    client = await _start_client(flavour, allow_destinations=())
    try:
        with pytest.raises(sdk.PublishError) as caught:
            await resolve(client.messages.publish_json(url="http://127.0.0.1:9/hook", body={}))
        assert isinstance(caught.value.__cause__, sdk.PermissionDeniedError)
        assert caught.value.__cause__.code == "destination_not_allowed"
    finally:
        await _close(client)


async def test_another_store_url(flavour: str, redis_store_url: str) -> None:
    """store= serves any store URL, such as Redis."""
    client = await _start_client(flavour, store=redis_store_url)
    try:
        await resolve(client.publish("events", {"n": 1}))
        assert (await resolve(client.health())).store == "redis"
    finally:
        await _close(client)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"path": "a.db", "store": "sqlite:///b.db"}, "not both"),
        ({"store": ""}, "store URL"),
        ({"path": 42}, "file path"),
        ({"token": "with space"}, "printable ASCII"),
        ({"allow_destinations": "127.0.0.1"}, "not one string"),
        ({"allow_destinations": ["a,b"]}, "hostnames"),
        ({"startup_timeout": 0}, "positive"),
        ({"startup_timeout": float("nan")}, "positive"),
    ],
)
async def test_bad_arguments_fail_before_any_process(
    flavour: str, started: list[EmbeddedService], arguments: dict[str, Any], message: str
) -> None:
    """Bad arguments are ConfigurationErrors (ValueErrors), and no child is started."""
    with pytest.raises(sdk.ConfigurationError, match=message) as caught:
        await _start_client(flavour, **arguments)
    assert isinstance(caught.value, ValueError)
    assert "with space" not in str(caught.value)
    assert started == []


async def test_a_store_url_the_service_refuses_is_a_configuration_error(flavour: str) -> None:
    """The service's own refusal of its settings comes back as a ConfigurationError."""
    with pytest.raises(sdk.ConfigurationError, match="refused its settings: unsupported store"):
        await _start_client(flavour, store="bogus://nowhere")


async def test_a_service_that_dies_while_starting_reports_its_log(flavour: str) -> None:
    """EmbeddedServiceError carries the exit code and the end of the child's log."""
    with pytest.raises(sdk.EmbeddedServiceError, match="exited \\(code") as caught:
        await _start_client(flavour, store="redis://127.0.0.1:1/0")
    assert caught.value.exit_code not in (None, 0)
    assert "Traceback" in caught.value.log or "Error" in caught.value.log
    assert isinstance(caught.value, sdk.SpoolError)


async def test_a_service_too_slow_to_start_is_stopped(
    flavour: str, started: list[EmbeddedService], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past startup_timeout the child is killed and EmbeddedServiceError says so."""
    processes: list[subprocess.Popen[bytes]] = []
    original_popen = subprocess.Popen

    def recording_popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        process: subprocess.Popen[bytes] = original_popen(*args, **kwargs)
        processes.append(process)
        return process

    monkeypatch.setattr(subprocess, "Popen", recording_popen)
    with pytest.raises(sdk.EmbeddedServiceError, match="did not start within 0.01 s"):
        await _start_client(flavour, startup_timeout=0.01)
    [process] = processes
    assert process.poll() is not None


async def test_a_missing_server_extra_names_the_install_command(
    flavour: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Without the service's dependencies, the error says `pip install 'spool[server]'`."""
    (tmp_path / "uvicorn.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'uvicorn'\", name='uvicorn')\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    with pytest.raises(sdk.ConfigurationError, match="pip install 'spool\\[server\\]'") as caught:
        await _start_client(flavour)
    assert "'uvicorn'" in str(caught.value)


async def test_a_missing_server_package_names_the_install_command(
    flavour: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, started: list[EmbeddedService]
) -> None:
    """An SDK installed without the service raises ConfigurationError before starting anything."""
    monkeypatch.setattr(embedded_module, "_SOURCE_ROOT", tmp_path)
    with pytest.raises(sdk.ConfigurationError, match="pip install 'spool\\[server\\]'"):
        await _start_client(flavour)
    assert started == []


async def test_a_server_module_in_the_working_directory_is_not_run(
    flavour: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The app's own `server` package does not shadow Spool's service."""
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "__init__.py").write_text("raise SystemExit('the app server ran')\n")
    monkeypatch.chdir(tmp_path)
    client = await _start_client(flavour)
    try:
        assert (await resolve(client.health())).status == "ok"
    finally:
        await _close(client)


async def test_cancelling_the_async_start_stops_the_service(
    started: list[EmbeddedService],
) -> None:
    """A cancelled AsyncClient.embedded() leaves no service running once the start finishes."""
    task = asyncio.ensure_future(sdk.AsyncClient.embedded())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    deadline = time.monotonic() + 60
    while not started or started[0].running:
        assert time.monotonic() < deadline, "the service never stopped"
        await asyncio.sleep(0.05)


def test_a_client_never_closed_is_stopped_at_exit() -> None:
    """Interpreter exit stops the child of a client that was never closed."""
    script = (
        "from sdk._embedded import EmbeddedService\n"
        "service = EmbeddedService.start()\n"
        "print(service.pid, flush=True)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert _wait_for(lambda: _gone(int(result.stdout)))


# A parent that starts an embedded service, prints the service's pid and then waits to be killed.
ORPHANING_PARENT = """
import sys, time
import sdk
from sdk._embedded import EmbeddedService

started = []
start = EmbeddedService.start

def record(*args, **kwargs):
    service = start(*args, **kwargs)
    started.append(service)
    return service

EmbeddedService.start = record
client = sdk.Client.embedded(sys.argv[1])
client.publish("events", {"n": 1})
print(started[0].pid, flush=True)
time.sleep(600)
"""


def _ended(pid: int) -> bool:
    """Whether `pid` has exited, reaped or not.

    An orphan is reaped by whoever adopts it, which in a container may be nobody: a zombie
    counts as ended (Linux shows it in /proc; elsewhere the adopter reaps it).
    """
    if _gone(pid):
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] == "Z"


def test_the_service_stops_itself_when_its_parent_is_killed(tmp_path: Path) -> None:
    """A parent killed by SIGKILL cannot stop its service, so the service notices and stops."""
    with (tmp_path / "parent.log").open("wb") as log:
        parent = subprocess.Popen(
            [sys.executable, "-c", ORPHANING_PARENT, str(tmp_path / "spool.db")],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=log,
        )
    assert parent.stdout is not None
    service_pid = None
    try:
        ready, _, _ = select.select([parent.stdout], [], [], 60)
        line = parent.stdout.readline() if ready else b""
        assert line.strip().isdigit(), (tmp_path / "parent.log").read_text(errors="replace")
        service_pid = int(line)
        assert not _ended(service_pid)
        parent.kill()
        parent.wait(timeout=30)
        assert _wait_for(lambda: _ended(service_pid))
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(timeout=30)
        parent.stdout.close()
        if service_pid is not None and not _ended(service_pid):
            os.kill(service_pid, signal.SIGKILL)


def test_embedded_does_not_load_the_server_into_the_caller() -> None:
    """The service runs in its own interpreter; the app's stays free of it."""
    probe = (
        "import sys, sdk\n"
        "with sdk.Client.embedded() as client:\n"
        "    client.publish('events', {'a': 1})\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'server', 'uvicorn', 'starlette'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_errors_belong_to_the_hierarchy() -> None:
    """EmbeddedServiceError and SignatureError are SpoolErrors; ConfigurationError a ValueError."""
    assert issubclass(sdk.EmbeddedServiceError, sdk.SpoolError)
    assert issubclass(sdk.SignatureError, sdk.SpoolError)
    assert issubclass(sdk.ConfigurationError, ValueError)


async def test_an_async_embedded_clients_open_batch_goes_out_before_its_connections_close() -> None:
    """Publishes still waiting in a batch when an embedded client closes are sent and answered
    before its HTTP client closes and its service stops.
    """
    client = await sdk.AsyncClient.embedded(batching=sdk.Batching(linger=1.0, max_items=100))
    publishes = [asyncio.create_task(client.publish("closing", {"n": n})) for n in range(5)]
    await asyncio.sleep(0)

    await client.close()

    entries = await asyncio.gather(*publishes)
    assert all(isinstance(entry, str) for entry in entries)
