"""Fixtures shared by every test layer."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from jsonschema.protocols import Validator

from tests._loopback import LoopbackReceiver, ReceiverFactory
from tests.generated._spec import load_spec

if TYPE_CHECKING:
    import redis

ROOT = Path(__file__).resolve().parent.parent
REDIS_URL = os.environ.get("SPOOL_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _redis_answers(url: str) -> bool:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except redis.RedisError:
        return False


def tool_environment() -> dict[str, str]:
    """The environment for a tool the tests run (schemathesis, the generators, mypy, pip), whose
    own code is not under test: without the ``COVERAGE_*`` variables in which coverage's
    subprocess patch asks every child process to measure itself, as tracing a tool measures
    nothing of sdk/ or server/ and made the contract runs take half as much CPU again.
    """
    return {name: value for name, value in os.environ.items() if not name.startswith("COVERAGE_")}


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The test Redis URL; skips (or, with SPOOL_REQUIRE_REDIS=1 as in CI, fails) without Redis."""
    if _redis_answers(REDIS_URL):
        return REDIS_URL
    reason = f"needs a Redis server at {REDIS_URL} (set SPOOL_TEST_REDIS_URL)"
    if os.environ.get("SPOOL_REQUIRE_REDIS") == "1":
        pytest.fail(f"SPOOL_REQUIRE_REDIS=1 but Redis does not answer: {reason}")
    pytest.skip(reason)


@pytest.fixture
def redis_prefix() -> str:
    """A key prefix no other test uses, so tests never see each other's keys."""
    return f"spooltest-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def redis_store_url(redis_url: str, redis_prefix: str) -> Iterator[str]:
    """A Redis store URL with a private prefix; its keys are removed afterwards."""
    yield f"{redis_url}?prefix={redis_prefix}"
    delete_redis_prefix(redis_url, redis_prefix)


def delete_redis_prefix(redis_url: str, prefix: str) -> None:
    """Remove every key under ``prefix`` from the Redis at ``redis_url``."""
    client = _cleaning_client(redis_url)
    cursor = 0
    while True:
        cursor, keys = client.scan(cursor, match=f"{prefix}*", count=1000)
        if keys:
            client.unlink(*keys)
        if cursor == 0:
            return


@functools.cache
def _cleaning_client(redis_url: str) -> redis.Redis:
    # One client per URL whose pool keeps its connection: a new client connected anew for each
    # test's clean-up, deleting key by key, took 2.4 ms of CPU against 0.5 ms, about a thousand
    # times in each worker.
    import redis

    return redis.Redis.from_url(redis_url)


# A cluster of this many masters, no replicas: enough for keys to land on different nodes.
_CLUSTER_MASTERS = 3
_CLUSTER_START_SECONDS = 30.0


def _free_ports(count: int) -> list[int]:
    """Ports the OS has just handed out and closed; a port plus 10000 is each node's bus port."""
    sockets: list[socket.socket] = []
    try:
        while len(sockets) < count:
            candidate = socket.socket()
            candidate.bind(("127.0.0.1", 0))
            if candidate.getsockname()[1] + 10000 > 65535:
                candidate.close()
                continue
            sockets.append(candidate)
        return [candidate.getsockname()[1] for candidate in sockets]
    finally:
        for candidate in sockets:
            candidate.close()


def _redis_cli(port: int, *command: str) -> str:
    answer = subprocess.run(
        ["redis-cli", "-p", str(port), *command], capture_output=True, text=True, check=False
    )
    return answer.stdout.strip()


def _cluster_is_ok(port: int) -> bool:
    return "cluster_state:ok" in _redis_cli(port, "cluster", "info")


@dataclasses.dataclass
class LocalCluster:
    """A Redis Cluster of local ``redis-server`` processes: its store URL and its masters."""

    url: str
    nodes: list[subprocess.Popen[bytes]]


def _require_cluster_binaries() -> None:
    missing = [name for name in ("redis-server", "redis-cli") if shutil.which(name) is None]
    if missing:
        reason = f"needs {' and '.join(missing)} on PATH to start a local Redis Cluster"
        if os.environ.get("SPOOL_REQUIRE_REDIS") == "1":
            pytest.fail(f"SPOOL_REQUIRE_REDIS=1 but the cluster cannot start: {reason}")
        pytest.skip(reason)


@contextlib.contextmanager
def local_redis_cluster(masters: int = _CLUSTER_MASTERS) -> Iterator[LocalCluster]:
    """Start a private cluster of ``masters`` masters (no replicas, nothing saved) on free
    loopback ports, wait until it serves every slot, and stop it afterwards. Skips without the
    binaries (or, with SPOOL_REQUIRE_REDIS=1 as in CI, fails).
    """
    _require_cluster_binaries()
    ports = _free_ports(masters)
    nodes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="spool-cluster-") as directory:
        try:
            for port in ports:
                command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1"]
                command += ["--cluster-enabled", "yes", "--dir", directory]
                command += ["--cluster-config-file", f"nodes-{port}.conf"]
                command += ["--save", "", "--appendonly", "no", "--logfile", f"{port}.log"]
                nodes.append(subprocess.Popen(command, stdout=subprocess.DEVNULL))
            deadline = time.monotonic() + _CLUSTER_START_SECONDS
            while not all(_redis_cli(port, "ping") == "PONG" for port in ports):
                if time.monotonic() > deadline:
                    pytest.fail(f"the cluster nodes on ports {ports} never answered PING")
                time.sleep(0.05)
            addresses = [f"127.0.0.1:{port}" for port in ports]
            created = subprocess.run(
                ["redis-cli", "--cluster", "create", *addresses]
                + ["--cluster-replicas", "0", "--cluster-yes"],
                capture_output=True,
                text=True,
            )
            if created.returncode != 0:
                pytest.fail(f"redis-cli --cluster create failed:\n{created.stdout}")
            while not all(_cluster_is_ok(port) for port in ports):
                if time.monotonic() > deadline:
                    pytest.fail(f"the cluster on ports {ports} never reached cluster_state:ok")
                time.sleep(0.05)
            yield LocalCluster(url="redis+cluster://" + ",".join(addresses) + "/", nodes=nodes)
        finally:
            for node in nodes:
                node.terminate()
            for node in nodes:
                node.wait(timeout=30)


@pytest.fixture(scope="session")
def redis_cluster_url() -> Iterator[str]:
    """The URL of a private three-master Redis Cluster that lives for the whole session."""
    with local_redis_cluster() as cluster:
        yield cluster.url


@pytest.fixture
def redis_cluster_store_url(redis_cluster_url: str, redis_prefix: str) -> str:
    """A cluster store URL with a private prefix (the cluster lives only for the session)."""
    return f"{redis_cluster_url}?prefix={redis_prefix}"


@pytest.fixture
def sqlite_store_url(tmp_path: Path) -> str:
    """An SQLite store URL in a fresh temporary directory."""
    return f"sqlite:///{tmp_path / 'spool.db'}"


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def store_url(request: pytest.FixtureRequest) -> str:
    """Each store's URL in turn: every test using it runs on both backends."""
    name = "sqlite_store_url" if request.param == "sqlite" else "redis_store_url"
    return str(request.getfixturevalue(name))


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[object]:
    """An opened store of each backend in turn."""
    from server.stores import store_from_url
    from tests._stores import opened

    async with opened(store_from_url(store_url)) as store:
        yield store


# The HTTP layer: apps with their lifespan running, and real server processes ------------------

DEV_TOKEN = "spool-dev-token"
# Destinations the SSRF policy lets through in tests without resolving them (example.com is
# reserved for documentation, so nothing is ever delivered there).
TEST_DESTINATIONS = ("example.com", "*.example.com")


@dataclasses.dataclass
class RunningApp:
    """An app whose lifespan is running, a client bound to it, and the store it opened."""

    app: Any
    client: httpx.AsyncClient
    store: Any


@pytest.fixture
def app_factory(
    store_url: str,
) -> Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]]:
    """Run apps on each store in turn: ``async with app_factory(settings, token=...) as running``.

    Without settings the app runs in development mode on ``store_url``; the client sends ``token``
    (the development token by default, none when None) as its bearer token.
    """
    from server.app import create_app, lifespan
    from server.config import Settings

    @contextlib.asynccontextmanager
    async def run(
        settings: Settings | None = None, *, token: str | None = DEV_TOKEN
    ) -> AsyncIterator[RunningApp]:
        if settings is None:
            settings = Settings.development_mode(
                store_url=store_url, allowed_destinations=TEST_DESTINATIONS
            )
        app = create_app(settings, services=())
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        async with lifespan(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://spool.test", headers=headers
            ) as client:
                yield RunningApp(app=app, client=client, store=app.state.context.store)

    return run


@pytest.fixture
async def api(
    app_factory: Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]],
) -> AsyncIterator[RunningApp]:
    """A development-mode app on each store in turn, with a client holding the dev token."""
    async with app_factory() as running:
        yield running


@dataclasses.dataclass
class ServerProcess:
    """A running ``python -m server`` process and how to reach it."""

    process: subprocess.Popen[bytes]
    base_url: str
    token: str
    log_path: Path

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush; what survives is what was committed."""
        self.process.kill()
        self.process.wait(timeout=30)

    def stop(self) -> int:
        """SIGTERM, then wait for the graceful shutdown; returns the exit code."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        return self.process.wait()

    def log(self) -> str:
        """What the process wrote to stderr so far."""
        return self.log_path.read_text(errors="replace")


class ServerStarter:
    """Starts ``python -m server`` processes that log into one directory, and stops them all."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.started: list[ServerProcess] = []

    def __call__(
        self,
        store_url: str,
        *,
        config: dict[str, Any] | None = None,
        workers: int = 1,
        log_level: str = "warning",
        arguments: Sequence[str] = (),
    ) -> ServerProcess:
        """A running server on ``store_url`` once it printed its ready line; ``arguments`` are
        added to the command line.
        """
        index = len(self.started)
        environment = {
            key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")
        }
        command = [sys.executable, "-m", "server", "--store", store_url, "--port", "0"]
        command += ["--workers", str(workers), "--log-level", log_level, *arguments]
        token = DEV_TOKEN
        if config is not None:
            config_path = self.directory / f"spool-config-{index}.json"
            config_path.write_text(json.dumps(config))
            command += ["--config", str(config_path)]
            token = config["tokens"][0]["token"]
        log_path = self.directory / f"spool-server-{index}.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command, cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=log
            )
        server = ServerProcess(process=process, base_url="", token=token, log_path=log_path)
        self.started.append(server)
        server.base_url = _read_ready_line(server)
        return server

    def stop_all(self) -> None:
        """Stop every server started, gracefully."""
        for server in self.started:
            server.stop()
            if server.process.stdout is not None:
                server.process.stdout.close()


@pytest.fixture
def spool_server(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start real servers: ``spool_server(store_url, config=None, workers=1, log_level="warning",
    arguments=())`` returns a running
    :class:`ServerProcess` on a free loopback port once it printed its ready line; every process
    started is stopped afterwards. ``config`` (a dict, written as the token file) gives the tokens;
    the first token's secret is the one returned. Without it the server runs in development mode.
    ``arguments`` are added to the command line.
    """
    starter = ServerStarter(tmp_path)
    yield starter
    starter.stop_all()


def _read_ready_line(server: ServerProcess, timeout: float = 60.0) -> str:
    stdout = server.process.stdout
    assert stdout is not None
    ready, _, _ = select.select([stdout], [], [], timeout)
    line = stdout.readline().decode() if ready else ""
    match = re.fullmatch(r"spool-server listening on (http://\S+)\n", line)
    if match is None:
        server.stop()
        pytest.fail(f"the server did not print its ready line (got {line!r}):\n{server.log()}")
    return match.group(1)


def assert_problem(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """Check that ``response`` is a problem+json document with this status and code; return it."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json", response.headers
    problem: dict[str, Any] = response.json()
    assert problem["code"] == code, problem
    assert problem["status"] == status
    assert problem["type"] == f"https://spool.dev/problems/{code}"
    assert problem["title"]
    assert problem["request_id"] == response.headers["x-request-id"]
    assert problem["instance"] == response.request.url.raw_path.decode().partition("?")[0]
    # openapi.yaml's ShouldRetry: only the refusals that pass with time are worth repeating.
    retryable = code in {"rate_limited", "unavailable", "store_full", "internal_error"}
    assert response.headers["x-should-retry"] == ("true" if retryable else "false"), code
    return problem


@functools.cache
def _component_validator(schema: str) -> Validator:
    rooted = {"$ref": f"#/components/schemas/{schema}", "components": load_spec()["components"]}
    return Draft202012Validator(rooted, format_checker=Draft202012Validator.FORMAT_CHECKER)


def schema_allows(schema: str, document: object) -> bool:
    """Whether openapi.yaml's component schema ``schema`` (JSON Schema 2020-12, formats checked)
    holds ``document``: what a client or schemathesis reads the document as promising to accept.
    """
    return _component_validator(schema).is_valid(document)


@pytest.fixture
async def loopback_receiver() -> AsyncIterator[ReceiverFactory]:
    """Start loopback receivers (``LoopbackReceiver``'s arguments); all close after the test."""
    started: list[LoopbackReceiver] = []

    async def start(*args: Any, **options: Any) -> LoopbackReceiver:
        receiver = LoopbackReceiver(*args, **options)
        await receiver.start()
        started.append(receiver)
        return receiver

    yield start
    for receiver in started:
        await receiver.close()
