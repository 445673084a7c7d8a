"""The real service (server/__main__.py): ``python -m server`` processes on free loopback ports,
driven over TCP through the generated client, on both stores.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

import httpx
import pytest

from generated import AuthenticatedClient
from generated.api.messages import get_message, publish_message, put_url_group
from generated.api.queues import ack_job, lease_jobs, publish_job, put_queue
from generated.api.streams import append_entry, range_entries
from generated.api.system import get_health
from generated.models import (
    AppendEntryRequest,
    AppendEntryResult,
    EntryList,
    Health,
    Job,
    JobReceipt,
    LeasedJobList,
    LeaseRef,
    LeaseRequest,
    Message,
    MessageReceiptList,
    PublishJobRequest,
    PublishMessageRequest,
    Queue,
    QueueSettings,
    UrlEndpoint,
    UrlGroupSettings,
)
from tests.conftest import DEV_TOKEN, ROOT, TEST_DESTINATIONS, ServerProcess

pytestmark = pytest.mark.slow

EVERYTHING = [{"resource": "*", "name": "*", "actions": ["publish", "consume", "admin"]}]
CONFIG = {
    "tokens": [{"id": "ops", "token": "ops-secret", "permissions": EVERYTHING}],
    "destinations": {"allow": list(TEST_DESTINATIONS)},
}


def _client(server: ServerProcess) -> AuthenticatedClient:
    return AuthenticatedClient(
        base_url=server.base_url,
        token=server.token,
        raise_on_unexpected_status=True,
        timeout=httpx.Timeout(30.0),
    )


def test_a_scenario_through_the_generated_client(
    store_url: str, spool_server: Callable[..., ServerProcess]
) -> None:
    """Queues, streams, messages and URL groups work end to end over real TCP on each store."""
    server = spool_server(store_url, config=CONFIG)
    with _client(server) as client:
        health = get_health.sync(client=client)
        assert isinstance(health, Health)
        assert health.store == store_url.split(":", 1)[0]

        queue = put_queue.sync("jobs", client=client, body=QueueSettings())
        assert isinstance(queue, Queue)
        receipt = publish_job.sync(
            "jobs",
            client=client,
            body=PublishJobRequest(topic="email", payload={"user": 1}),
            idempotency_key="job-1",
        )
        assert isinstance(receipt, JobReceipt)
        leased = lease_jobs.sync("jobs", client=client, body=LeaseRequest(max_jobs=5))
        assert isinstance(leased, LeasedJobList)
        assert [job.job_id for job in leased.jobs] == [receipt.job_id]
        assert leased.jobs[0].payload == {"user": 1}
        acked = ack_job.sync(
            "jobs", receipt.job_id, client=client, body=LeaseRef(lease_id=leased.jobs[0].lease_id)
        )
        assert isinstance(acked, Job)
        assert acked.state == "succeeded"

        appended = append_entry.sync(
            "events", client=client, body=AppendEntryRequest(body=["any", "json"])
        )
        assert isinstance(appended, AppendEntryResult)
        entries = range_entries.sync("events", client=client)
        assert isinstance(entries, EntryList)
        assert [(entry.id, entry.body) for entry in entries.entries] == [
            (appended.id, ["any", "json"])
        ]

        put_url_group.sync(
            "partners",
            client=client,
            body=UrlGroupSettings(endpoints=[UrlEndpoint(url="https://example.com/hook")]),
        )
        published = publish_message.sync(
            client=client,
            body=PublishMessageRequest(body="hello", url_group="partners", delay=3600),
        )
        assert isinstance(published, MessageReceiptList)
        message = get_message.sync(published.messages[0].message_id, client=client)
        assert isinstance(message, Message)
        assert (message.url_group, message.state) == ("partners", "scheduled")

    document = httpx.get(f"{server.base_url}/openapi.yaml", timeout=30)
    assert document.content == (ROOT / "openapi.yaml").read_bytes()


def test_two_processes_on_one_redis_never_lease_a_job_twice(
    redis_store_url: str, spool_server: Callable[..., ServerProcess]
) -> None:
    """Workers leasing through two servers on one Redis each get distinct jobs, all of them."""
    servers = [spool_server(redis_store_url) for _ in range(2)]
    total = 120
    with httpx.Client(base_url=servers[0].base_url, headers=_auth(DEV_TOKEN), timeout=30) as http:
        assert http.put("/v1/queues/shared", json={"lease_seconds": 600}).status_code == 201
        for start in range(0, total, 40):
            jobs = [{"topic": "t", "payload": n} for n in range(start, start + 40)]
            assert http.post("/v1/queues/shared/batch", json={"jobs": jobs}).status_code == 202

    leased: list[str] = []
    lock = threading.Lock()

    def worker(base_url: str) -> None:
        with httpx.Client(base_url=base_url, headers=_auth(DEV_TOKEN), timeout=30) as http:
            while True:
                response = http.post("/v1/queues/shared/leases", json={"max_jobs": 3})
                jobs = response.json()["jobs"]
                if not jobs:
                    return
                with lock:
                    leased.extend(job["job_id"] for job in jobs)

    threads = [
        threading.Thread(target=worker, args=(server.base_url,))
        for server in servers
        for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    duplicates = [job_id for job_id, count in Counter(leased).items() if count > 1]
    assert duplicates == []
    assert len(leased) == total


def test_several_workers_share_one_port(
    redis_store_url: str, spool_server: Callable[..., ServerProcess]
) -> None:
    """``--workers 2`` prints one ready line and serves from both workers on one port."""
    server = spool_server(redis_store_url, workers=2)
    with httpx.Client(base_url=server.base_url, headers=_auth(DEV_TOKEN), timeout=30) as http:
        for _ in range(10):
            assert http.get("/v1/health").json()["store"] == "redis"
        signing_keys = {
            (keys["current"], keys["next"])
            for keys in (http.get("/v1/signing-keys").json() for _ in range(10))
        }
    # Generated keys are made once and handed to every worker.
    assert len(signing_keys) == 1
    assert server.stop() == 0


def test_a_published_entry_job_and_message_survive_kill_9(
    tmp_path: Path, spool_server: Callable[..., ServerProcess]
) -> None:
    """On SQLite a 2xx publish is committed: after SIGKILL and a restart, all of it is there."""
    store_url = f"sqlite:///{tmp_path / 'durable.db'}"
    first = spool_server(store_url, config=CONFIG)
    with httpx.Client(base_url=first.base_url, headers=_auth("ops-secret"), timeout=30) as http:
        http.put("/v1/queues/jobs", json={})
        entry = http.post("/v1/streams/events/entries", json={"body": {"n": 1}})
        job = http.post("/v1/queues/jobs/jobs", json={"topic": "t", "payload": 7})
        message = http.post(
            "/v1/messages", json={"url": "https://example.com/hook", "body": "x", "delay": 3600}
        )
    assert (entry.status_code, job.status_code, message.status_code) == (201, 202, 202)
    first.kill()
    assert first.process.returncode == -signal.SIGKILL

    second = spool_server(store_url, config=CONFIG)
    with httpx.Client(base_url=second.base_url, headers=_auth("ops-secret"), timeout=30) as http:
        entries = http.get("/v1/streams/events/entries").json()["entries"]
        assert entries == [{"id": entry.json()["id"], "body": {"n": 1}}]
        stored_job = http.get(f"/v1/queues/jobs/jobs/{job.json()['job_id']}").json()
        assert stored_job["payload"] == 7
        message_id = message.json()["messages"][0]["message_id"]
        assert http.get(f"/v1/messages/{message_id}").json()["state"] == "scheduled"


def test_sigterm_shuts_down_gracefully(
    sqlite_store_url: str, spool_server: Callable[..., ServerProcess]
) -> None:
    """SIGTERM runs the app's shutdown (the store is closed) before the process ends."""
    server = spool_server(sqlite_store_url, log_level="info")
    assert httpx.get(f"{server.base_url}/v1/health", timeout=30).status_code == 200
    # A clean stop on request is a success, not "terminated by SIGTERM" (-15).
    assert server.stop() == 0
    log = server.log()
    assert "Application shutdown complete" in log
    assert "Traceback" not in log


def _serving(
    store_url: str, workers: int, log_path: Path, arguments: list[str], *, own_session: bool
) -> subprocess.Popen[bytes]:
    """``python -m server`` on ``store_url``, its stdin a pipe and its log at ``log_path``, once
    it answers and every worker is serving; ``own_session`` gives it a process group of its own.
    """
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")}
    command = [sys.executable, "-m", "server", "--port", "0", "--store", store_url]
    command += ["--workers", str(workers), "--log-level", "info", *arguments]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=environment,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            start_new_session=own_session,
        )
    assert process.stdout is not None
    try:
        ready, _, _ = select.select([process.stdout], [], [], 60)
        line = process.stdout.readline().decode() if ready else ""
        match = re.fullmatch(r"spool-server listening on (http://\S+)\n", line)
        assert match is not None, log_path.read_text(errors="replace")
        health = httpx.get(f"{match[1]}/v1/health", timeout=30)
        assert health.status_code == 200
        # Several workers start after the ready line; shut down only once every one is serving.
        deadline = time.monotonic() + 60
        while log_path.read_text(errors="replace").count("startup complete") < workers:
            still_starting = process.poll() is None and time.monotonic() < deadline
            assert still_starting, log_path.read_text(errors="replace")
            time.sleep(0.05)
    except BaseException:
        _ended(process)
        raise
    return process


def _ended(process: subprocess.Popen[bytes]) -> None:
    """Kill ``process`` if it still runs, and close its pipes."""
    if process.poll() is None:
        process.kill()
        process.wait(timeout=30)
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            pipe.close()


# Several workers on Redis: SQLite workers opening a new file at once can find it locked.
@pytest.mark.parametrize("to_group", [False, True], ids=["process", "process-group"])
@pytest.mark.parametrize(
    ("store_fixture", "workers"), [("sqlite_store_url", 1), ("redis_store_url", 2)]
)
def test_sigint_shuts_down_gracefully_and_exits_0(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    store_fixture: str,
    workers: int,
    to_group: bool,
) -> None:
    """SIGINT stops the service as SIGTERM does: status 0 and no traceback, whether it reaches
    the process alone (``kill -INT``) or its whole process group, as Ctrl-C in a terminal does,
    which signals the workers too.
    """
    store_url = str(request.getfixturevalue(store_fixture))
    log_path = tmp_path / "server.log"
    process = _serving(store_url, workers, log_path, [], own_session=True)
    try:
        if to_group:
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0, log_path.read_text(errors="replace")
    finally:
        _ended(process)
    output = log_path.read_text(errors="replace")
    assert output.count("Application shutdown complete") == workers
    assert "Traceback" not in output


@pytest.mark.parametrize(
    ("store_fixture", "workers"), [("sqlite_store_url", 1), ("redis_store_url", 2)]
)
def test_stdin_reaching_its_end_shuts_down_gracefully_with_the_flag(
    request: pytest.FixtureRequest, tmp_path: Path, store_fixture: str, workers: int
) -> None:
    """With ``--exit-on-stdin-eof``, closing the server's stdin shuts it down as SIGTERM does."""
    store_url = str(request.getfixturevalue(store_fixture))
    log_path = tmp_path / "server.log"
    process = _serving(store_url, workers, log_path, ["--exit-on-stdin-eof"], own_session=False)
    assert process.stdin is not None
    try:
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    finally:
        _ended(process)
    output = log_path.read_text(errors="replace")
    assert "stdin reached end of file: shutting down" in output
    assert output.count("Application shutdown complete") == workers
    assert "Traceback" not in output


def test_the_help_documents_every_option() -> None:
    """``--help`` lists the options, ``--exit-on-stdin-eof`` with what it is for."""
    result = subprocess.run(
        [sys.executable, "-m", "server", "--help"],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
        check=True,
    )
    usage = " ".join(result.stdout.decode().split())
    for option in ("--store", "--host", "--port", "--workers", "--config", "--log-level"):
        assert option in usage
    assert "--exit-on-stdin-eof shut down gracefully, as on SIGTERM, once stdin reaches" in usage


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--store", "mysql://localhost/spool"], "unsupported store URL"),
        (["--config", "/nonexistent/spool.yaml"], "cannot read the config file"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--workers", "2", "--store", "sqlite:///:memory:"], "a store the workers share"),
    ],
)
def test_bad_command_lines_exit_with_a_message(arguments: list[str], message: str) -> None:
    """Bad options end the process with status 2 and say why on stderr, printing no ready line."""
    result = subprocess.run(
        [sys.executable, "-m", "server", "--port", "0", *arguments],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert message in result.stderr.decode()
    assert result.stdout == b""


@pytest.mark.parametrize("source", ["environment", "file"])
def test_a_bad_allowed_destination_exits_with_a_message(tmp_path: Path, source: str) -> None:
    """A bad allow-list entry is refused like other settings (status 2), before the app starts."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")}
    arguments = ["--store", f"sqlite:///{tmp_path / 'spool.db'}"]
    if source == "environment":
        environment["SPOOL_ALLOW_DESTINATIONS"] = "127.0.0.1,bad entry"
        expected = "spool-server: $SPOOL_ALLOW_DESTINATIONS: destination allow-list entry"
    else:
        config_path = tmp_path / "spool.json"
        config_path.write_text(json.dumps({**CONFIG, "destinations": {"allow": ["bad entry"]}}))
        arguments += ["--config", str(config_path)]
        expected = f"spool-server: {config_path}: destinations.allow: destination allow-list"
    result = subprocess.run(
        [sys.executable, "-m", "server", "--port", "0", *arguments],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        timeout=60,
        check=False,
    )
    stderr = result.stderr.decode()
    assert result.returncode == 2
    assert expected in stderr
    assert "'bad entry'" in stderr
    assert "Traceback" not in stderr
    assert result.stdout == b""


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class _Receiver(http.server.BaseHTTPRequestHandler):
    """Records every POST it receives and answers 200."""

    received: ClassVar[list[tuple[str, dict[str, str], bytes]]] = []

    def do_POST(self) -> None:
        """Keep the path, headers and body; answer 200."""
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.received.append((self.path, dict(self.headers.items()), body))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: object) -> None:
        """Stay quiet: the test reads what was received instead."""


def test_the_served_app_delivers_messages(
    sqlite_store_url: str, spool_server: Callable[..., ServerProcess]
) -> None:
    """The delivery engine runs in the server: a published message reaches its URL, signed."""
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    _Receiver.received = []
    thread = threading.Thread(target=receiver.serve_forever, daemon=True)
    thread.start()
    try:
        config = {**CONFIG, "destinations": {"allow": ["127.0.0.1"]}}
        server = spool_server(sqlite_store_url, config=config)
        url = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
        with httpx.Client(
            base_url=server.base_url, headers=_auth("ops-secret"), timeout=30
        ) as client:
            published = client.post("/v1/messages", json={"url": url, "body": {"hello": "world"}})
            message_id = published.json()["messages"][0]["message_id"]
            deadline = time.monotonic() + 60
            state = "scheduled"
            while state != "delivered" and time.monotonic() < deadline:
                time.sleep(0.1)
                state = client.get(f"/v1/messages/{message_id}").json()["state"]
        assert state == "delivered"
        ((path, headers, body),) = _Receiver.received
        assert (path, body) == ("/hook", b'{"hello":"world"}')
        assert headers["Content-Type"] == "application/json"
        assert "Spool-Signature" in headers
    finally:
        receiver.shutdown()
        receiver.server_close()
