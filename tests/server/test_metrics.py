"""Prometheus metrics (server/metrics.py): what a scrape of ``GET /metrics`` says after real
traffic on each store, its token, its absence unless enabled, and its sums across workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import platform
import shutil
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

import server
import server.metrics
from server.app import create_app, lifespan
from server.config import (
    ConfigError,
    MetricsSettings,
    Permission,
    RateLimit,
    Settings,
    TokenConfig,
    load_settings,
)
from server.stores.base import QueueRecord
from tests._loopback import ReceiverFactory
from tests.conftest import (
    DEV_TOKEN,
    TEST_DESTINATIONS,
    RunningApp,
    ServerProcess,
    assert_problem,
)
from tests.generated._spec import load_spec
from tests.server._asgi import publish_abandoned_mid_body

AppFactory = Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]]
EVERYTHING = (
    Permission(resource="*", name="*", actions=frozenset({"publish", "consume", "admin"})),
)
SERVER_ERROR = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\nboom"


def _samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of an exposition, by name and labels."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _value(text: str, name: str, **labels: str) -> float:
    """One sample's value; 0 when the exposition has no such series."""
    return _samples(text).get((name, frozenset(labels.items())), 0.0)


async def _scrape(client: httpx.AsyncClient, **headers: str) -> str:
    response = await client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


def _settings(
    store_url: str, *, quota: int | None = None, rate_limit: RateLimit | None = None
) -> Settings:
    token = TokenConfig(
        id="ops", secret="ops-secret", permissions=EVERYTHING, quota=quota, rate_limit=rate_limit
    )
    return Settings(
        tokens=(token,),
        store_url=store_url,
        allowed_destinations=TEST_DESTINATIONS,
        metrics=MetricsSettings(enabled=True, token="scrape-secret", streams=("events",)),
    )


def _operations() -> set[str]:
    return {
        operation["operationId"]
        for item in load_spec()["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }


async def test_every_operation_is_exported_at_zero_from_the_first_scrape(api: RunningApp) -> None:
    """Before any request, a scrape shows every operation's answered status classes at 0, so
    that rate() sees the first error; its latency histogram comes with its first request.
    """
    samples = _samples(await _scrape(api.client))
    for operation in _operations():
        for status_class in ("2xx", "4xx", "5xx"):
            labels = {"operation": operation, "status_class": status_class}
            assert samples[("spool_http_requests_total", frozenset(labels.items()))] == 0
    assert not any(name.startswith("spool_http_request_duration") for name, _ in samples)
    assert (await api.client.get("/v1/health")).status_code == 200
    text = await _scrape(api.client)
    assert _value(text, "spool_http_requests_total", operation="getHealth", status_class="2xx") == 1
    assert _value(text, "spool_http_request_duration_seconds_count", operation="getHealth") == 1
    buckets = [
        labels
        for name, labels in _samples(text)
        if name == "spool_http_request_duration_seconds_bucket"
    ]
    assert buckets and all(("operation", "getHealth") in labels for labels in buckets)
    assert len(buckets) <= 11


async def test_an_idle_scrape_is_small(api: RunningApp) -> None:
    """At idle a scrape is three counters per operation and at most 100 lines besides: no
    histogram buckets but the delivery lag's, however many operations the API has.
    """
    text = await _scrape(api.client)
    lines = text.splitlines()
    assert len(lines) <= 3 * len(_operations()) + 100, len(lines)
    buckets = [line for line in lines if "_bucket{" in line]
    assert all(line.startswith("spool_delivery_lag_seconds_bucket") for line in buckets)


async def test_publishes_and_replays_are_counted(api: RunningApp) -> None:
    """N publishes count N requests and N written entries; a repeated Idempotency-Key counts a
    replay and writes nothing.
    """
    for number in range(5):
        response = await api.client.post("/v1/streams/events/entries", json={"body": number})
        assert response.status_code == 201
    batch = {"entries": [{"body": "a"}, {"body": "b"}, {"body": "c"}]}
    for _ in range(2):
        response = await api.client.post(
            "/v1/streams/events/batch", json=batch, headers={"Idempotency-Key": "batch-1"}
        )
        assert response.status_code == 201
    assert response.headers["idempotent-replayed"] == "true"
    text = await _scrape(api.client)
    requests = "spool_http_requests_total"
    assert _value(text, requests, operation="appendEntry", status_class="2xx") == 5
    assert _value(text, requests, operation="appendEntries", status_class="2xx") == 2
    assert _value(text, requests, operation="appendEntry", status_class="4xx") == 0
    latency = "spool_http_request_duration_seconds_count"
    assert _value(text, latency, operation="appendEntry") == 5
    published = "spool_published_items_total"
    assert _value(text, published, kind="entries", outcome="written") == 5 + 3
    assert _value(text, published, kind="entries", outcome="replayed") == 3
    assert _value(text, "spool_idempotent_replays_total", kind="entries") == 1


async def test_refusals_are_counted_by_status_class_and_reason(
    app_factory: AppFactory, store_url: str
) -> None:
    """A 404 counts as 4xx and its items as refused; the quota's 429 counts as a refusal."""
    settings = _settings(store_url, quota=2)
    async with app_factory(settings, token="ops-secret") as running:
        job = {"topic": "t", "payload": 1}
        missing = await running.client.post("/v1/queues/absent/jobs", json=job)
        assert_problem(missing, 404, "queue_not_found")
        await running.client.put("/v1/queues/work", json={})
        for _ in range(2):
            assert (await running.client.post("/v1/queues/work/jobs", json=job)).status_code == 202
        over = await running.client.post("/v1/queues/work/jobs", json=job)
        assert_problem(over, 429, "quota_exceeded")
        text = await _scrape(running.client, authorization="Bearer scrape-secret")
    requests = "spool_http_requests_total"
    assert _value(text, requests, operation="publishJob", status_class="2xx") == 2
    assert _value(text, requests, operation="publishJob", status_class="4xx") == 2
    published = "spool_published_items_total"
    assert _value(text, published, kind="jobs", outcome="written") == 2
    assert _value(text, published, kind="jobs", outcome="refused") == 2
    assert _value(text, "spool_publish_refusals_total", reason="quota_exceeded") == 1
    assert _value(text, "spool_publish_refusals_total", reason="rate_limited") == 0


async def test_a_rate_limited_publish_is_counted(app_factory: AppFactory, store_url: str) -> None:
    """A 429 rate_limited counts one refusal."""
    settings = _settings(store_url, rate_limit=RateLimit(per_second=0.001, burst=1))
    async with app_factory(settings, token="ops-secret") as running:
        first = await running.client.post("/v1/streams/events/entries", json={"body": 1})
        assert first.status_code == 201
        limited = await running.client.post("/v1/streams/events/entries", json={"body": 2})
        assert_problem(limited, 429, "rate_limited")
        text = await _scrape(running.client, authorization="Bearer scrape-secret")
    assert _value(text, "spool_publish_refusals_total", reason="rate_limited") == 1
    assert (
        _value(text, "spool_http_requests_total", operation="appendEntry", status_class="4xx") == 1
    )


async def test_queue_depths_and_stream_lengths_are_read_at_scrape_time(
    app_factory: AppFactory, store_url: str
) -> None:
    """Jobs by state per queue; the listed stream's length and its group's pending entries."""
    async with app_factory(_settings(store_url), token="ops-secret") as running:
        client = running.client
        await client.put("/v1/queues/work", json={})
        jobs = [{"topic": "t", "payload": n} for n in range(3)]
        assert (await client.post("/v1/queues/work/batch", json={"jobs": jobs})).status_code == 202
        later = {"topic": "t", "payload": "later", "delay": 3600}
        assert (await client.post("/v1/queues/work/jobs", json=later)).status_code == 202
        leased = await client.post("/v1/queues/work/leases", json={"consumer": "w1", "max_jobs": 1})
        assert len(leased.json()["jobs"]) == 1
        entries = {"entries": [{"body": n} for n in range(4)]}
        assert (await client.post("/v1/streams/events/batch", json=entries)).status_code == 201
        group = {"group": "billing", "start_id": "0"}
        assert (await client.post("/v1/streams/events/groups", json=group)).status_code == 201
        read = {"consumer": "c1", "count": 3}
        delivered = await client.post("/v1/streams/events/groups/billing/read", json=read)
        assert len(delivered.json()["entries"]) == 3
        text = await _scrape(client, authorization="Bearer scrape-secret")
    assert _value(text, "spool_metrics_store_read_ok") == 1
    assert _value(text, "spool_queue_jobs", queue="work", state="ready") == 2
    assert _value(text, "spool_queue_jobs", queue="work", state="leased") == 1
    assert _value(text, "spool_queue_jobs", queue="work", state="delayed") == 1
    assert _value(text, "spool_queue_jobs", queue="work", state="dead") == 0
    assert _value(text, "spool_stream_entries", stream="events") == 4
    pending = "spool_stream_group_pending_entries"
    assert _value(text, pending, stream="events", group="billing") == 3
    lag = "spool_stream_group_lag_entries"
    assert _value(text, lag, stream="events", group="billing") == 1
    assert _value(text, "spool_metrics_omitted", kind="queues") == 0
    assert _value(text, "spool_metrics_omitted", kind="streams") == 0


def _labels(text: str, name: str, label: str) -> set[str]:
    """The values of ``label`` among the exposition's ``name`` samples."""
    return {dict(labels)[label] for sample, labels in _samples(text) if sample == name}


async def test_every_stream_and_queue_is_read_without_naming_them(api: RunningApp) -> None:
    """With no stream named in the settings (development mode), a scrape shows every stream
    with its groups' pending entries and lag, and every queue.
    """
    client = api.client
    for stream, count in (("orders", 3), ("audit", 1)):
        batch = {"entries": [{"body": n} for n in range(count)]}
        assert (await client.post(f"/v1/streams/{stream}/batch", json=batch)).status_code == 201
    group = {"group": "shipping", "start_id": "0"}
    assert (await client.post("/v1/streams/orders/groups", json=group)).status_code == 201
    assert (await client.put("/v1/queues/mail", json={})).status_code == 201
    text = await _scrape(client)
    assert _value(text, "spool_stream_entries", stream="orders") == 3
    assert _value(text, "spool_stream_entries", stream="audit") == 1
    lag = "spool_stream_group_lag_entries"
    assert _value(text, lag, stream="orders", group="shipping") == 3
    assert _labels(text, "spool_stream_group_pending_entries", "group") == {"shipping"}
    assert _labels(text, "spool_queue_jobs", "queue") == {"mail"}


async def test_the_caps_bound_the_gauges_and_count_what_they_left_out(
    app_factory: AppFactory, store_url: str
) -> None:
    """``max_streams`` and ``max_queues`` keep the first streams and queues by name, a stream the
    settings name is read whatever the cap, and ``spool_metrics_omitted`` counts the others.
    """
    metrics = MetricsSettings(enabled=True, streams=("zulu",), max_streams=2, max_queues=1)
    settings = dataclasses.replace(_settings(store_url), metrics=metrics)
    async with app_factory(settings, token="ops-secret") as running:
        for stream in ("charlie", "alpha", "zulu", "bravo"):
            response = await running.client.post(f"/v1/streams/{stream}/entries", json={"body": 1})
            assert response.status_code == 201
        for queue in ("q3", "q1", "q2"):
            assert (await running.client.put(f"/v1/queues/{queue}", json={})).status_code == 201
        text = await _scrape(running.client)
    assert _labels(text, "spool_stream_entries", "stream") == {"alpha", "bravo", "zulu"}
    assert _labels(text, "spool_queue_jobs", "queue") == {"q1"}
    assert _value(text, "spool_metrics_omitted", kind="streams") == 1
    assert _value(text, "spool_metrics_omitted", kind="queues") == 2


async def test_a_reading_of_the_store_serves_the_next_seconds_scrapes(
    api: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scrapes close together read the store once; a scrape after the reading's time reads it
    again.
    """
    await api.client.put("/v1/queues/first", json={})
    assert _labels(await _scrape(api.client), "spool_queue_jobs", "queue") == {"first"}
    await api.client.put("/v1/queues/second", json={})
    assert _labels(await _scrape(api.client), "spool_queue_jobs", "queue") == {"first"}
    monkeypatch.setattr(server.metrics, "STORE_READING_SECONDS", 0.0)
    assert _labels(await _scrape(api.client), "spool_queue_jobs", "queue") == {"first", "second"}


async def test_a_scrape_tells_the_build_and_the_process(api: RunningApp) -> None:
    """``spool_build_info`` names the version and the Python; the process series are this
    process's.
    """
    text = await _scrape(api.client)
    python = platform.python_version()
    assert _value(text, "spool_build_info", version=server.__version__, python=python) == 1
    assert _labels(text, "python_info", "version") == {python}
    if Path("/proc/self/stat").exists():
        assert _value(text, "process_resident_memory_bytes") > 0
        assert _value(text, "process_cpu_seconds_total") > 0
        assert _value(text, "process_open_fds") > 0


async def test_with_worker_processes_the_process_series_are_left_out(
    app_factory: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In multiprocess mode the answering worker's process series would stand for all of them:
    a scrape leaves them out and still tells the build.
    """
    # Not tmp_path itself, where the SQLite store keeps its own .db file.
    directory = tmp_path / "metrics"
    directory.mkdir()
    monkeypatch.setenv(server.metrics.MULTIPROCESS_DIRECTORY_VARIABLE, str(directory))
    async with app_factory() as running:
        text = await _scrape(running.client)
    assert not any(name.startswith("process_") for name, _ in _samples(text))
    assert (
        _value(
            text, "spool_build_info", version=server.__version__, python=platform.python_version()
        )
        == 1
    )


def test_the_caps_come_from_the_configuration_file(tmp_path: Path) -> None:
    """``metrics.max_streams`` and ``max_queues`` (100 unless given), whole numbers from 0 to
    1000.
    """
    config = tmp_path / "spool.json"
    ops = {
        "id": "ops",
        "token": "ops-secret",
        "permissions": [{"resource": "*", "actions": ["admin"]}],
    }

    def load(metrics: dict[str, object]) -> MetricsSettings:
        config.write_text(json.dumps({"tokens": [ops], "metrics": metrics}))
        return load_settings(config_path=config, environ={}).metrics

    assert (load({}).max_streams, load({}).max_queues) == (100, 100)
    caps = load({"max_streams": 5, "max_queues": 0})
    assert (caps.max_streams, caps.max_queues) == (5, 0)
    for bad in (-1, 1001, "5", True, 2.5):
        with pytest.raises(ConfigError, match="metrics.max_streams"):
            load({"max_streams": bad})


async def test_a_slow_store_leaves_out_its_readings(
    api: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scrape answers in time without the store's figures when the store is slow."""

    async def slow_listing() -> list[QueueRecord]:
        await asyncio.sleep(30)
        return []

    monkeypatch.setattr(server.metrics, "SCRAPE_STORE_TIMEOUT_SECONDS", 0.05)
    monkeypatch.setattr(api.store, "list_queues", slow_listing)
    started = time.monotonic()
    text = await _scrape(api.client)
    assert time.monotonic() - started < 5
    assert _value(text, "spool_metrics_store_read_ok") == 0
    assert "spool_queue_jobs" not in text


async def test_the_metrics_token_is_required_when_configured(
    app_factory: AppFactory, store_url: str
) -> None:
    """401 without the metrics token, with another or with an API token; 200 with it."""
    async with app_factory(_settings(store_url), token=None) as running:
        for headers in (
            {},
            {"authorization": "Bearer wrong"},
            {"authorization": "Bearer ops-secret"},
        ):
            refused = await running.client.get("/metrics", headers=headers)
            assert_problem(refused, 401, "unauthenticated")
            assert refused.headers["www-authenticate"].startswith("Bearer")
        await _scrape(running.client, authorization="Bearer scrape-secret")


async def test_metrics_are_off_unless_enabled(app_factory: AppFactory, store_url: str) -> None:
    """Outside development mode, without the switch, /metrics is not served and the API answers
    as ever.
    """
    token = TokenConfig(id="ops", secret="ops-secret", permissions=EVERYTHING)
    settings = Settings(tokens=(token,), store_url=store_url)
    async with app_factory(settings, token="ops-secret") as running:
        assert running.app.state.metrics is None
        assert_problem(await running.client.get("/metrics"), 404, "not_found")
        response = await running.client.post("/v1/streams/events/entries", json={"body": 1})
        assert response.status_code == 201


def test_metrics_are_not_an_operation_of_the_document() -> None:
    """/metrics stays out of openapi.yaml, which describes the API only."""
    assert server.metrics.METRICS_PATH not in load_spec()["paths"]


@contextlib.asynccontextmanager
async def _delivering_app(store_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A development-mode app with its delivery engine, allowed to deliver to loopback."""
    settings = Settings.development_mode(
        store_url=store_url,
        allowed_destinations=("127.0.0.1",),
        delivery_poll_interval_seconds=0.05,
    )
    app = create_app(settings)
    async with lifespan(app):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://spool.test",
            headers={"Authorization": f"Bearer {DEV_TOKEN}"},
        ) as client:
            yield client


@pytest.mark.redis
async def test_streams_queues_and_lag_are_read_from_a_redis_cluster(
    redis_cluster_store_url: str,
) -> None:
    """On a Redis Cluster, whose streams and queues sit on several masters, a scrape shows them
    all, with each group's lag, and counts the streams past the cap.
    """
    async with _delivering_app(redis_cluster_store_url) as client:
        for stream in ("east", "north", "west"):
            entries = {"entries": [{"body": n} for n in range(2)]}
            response = await client.post(f"/v1/streams/{stream}/batch", json=entries)
            assert response.status_code == 201
        group = {"group": "g", "start_id": "0"}
        assert (await client.post("/v1/streams/north/groups", json=group)).status_code == 201
        for queue in ("jobs-a", "jobs-b"):
            assert (await client.put(f"/v1/queues/{queue}", json={})).status_code == 201
        text = await _scrape(client)
    assert _value(text, "spool_metrics_store_read_ok") == 1
    assert _labels(text, "spool_stream_entries", "stream") == {"east", "north", "west"}
    assert _value(text, "spool_stream_group_lag_entries", stream="north", group="g") == 2
    assert _labels(text, "spool_queue_jobs", "queue") == {"jobs-a", "jobs-b"}
    assert _value(text, "spool_metrics_omitted", kind="streams") == 0


async def _settled(client: httpx.AsyncClient, message_id: str, state: str) -> None:
    deadline = time.monotonic() + 20
    while (await client.get(f"/v1/messages/{message_id}")).json()["state"] != state:
        assert time.monotonic() < deadline, f"message {message_id} never became {state}"
        await asyncio.sleep(0.02)


async def test_delivery_attempts_latency_and_lag_are_counted(
    store_url: str, loopback_receiver: ReceiverFactory
) -> None:
    """A delivered message counts one delivered attempt with its duration and its lag; one whose
    receiver fails, with no retries left, counts a dead attempt with its error kind.
    """
    good = await loopback_receiver()
    bad = await loopback_receiver([SERVER_ERROR])
    async with _delivering_app(store_url) as client:
        sent = await client.post("/v1/messages", json={"url": good.url, "body": {"n": 1}})
        failing = {"url": bad.url, "body": {"n": 2}, "retries": 0}
        failed = await client.post("/v1/messages", json=failing)
        await _settled(client, sent.json()["messages"][0]["message_id"], "delivered")
        await _settled(client, failed.json()["messages"][0]["message_id"], "failed")
        text = await _scrape(client)
    assert good.requests == 1
    attempts = "spool_delivery_attempts_total"
    assert _value(text, attempts, outcome="delivered", error="none") == 1
    assert _value(text, attempts, outcome="dead", error="http_status") == 1
    duration = "spool_delivery_attempt_duration_seconds_count"
    assert _value(text, duration, outcome="delivered") == 1
    assert _value(text, duration, outcome="dead") == 1
    assert _value(text, "spool_delivery_lag_seconds_count") == 2
    assert _value(text, "spool_published_items_total", kind="messages", outcome="written") == 2


@pytest.mark.slow
async def test_counts_add_up_across_worker_processes(
    spool_server: Callable[..., ServerProcess],
    sqlite_store_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With two workers every scrape, whichever worker answers it, says how many publishes all
    of them served; each worker served some; the metrics directory goes when the service stops.
    """
    # The supervisor makes its metrics directory under $TMPDIR: here, where the test can see it.
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    monkeypatch.delenv(server.metrics.MULTIPROCESS_DIRECTORY_VARIABLE, raising=False)
    service = spool_server(sqlite_store_url, workers=2)
    [directory] = temporary.glob("spool-metrics-*")
    headers = {"Authorization": f"Bearer {service.token}"}
    # A connection per request, so that the kernel hands them to both workers.
    limits = httpx.Limits(max_keepalive_connections=0)
    published = 0
    async with httpx.AsyncClient(
        base_url=service.base_url, headers=headers, limits=limits, timeout=30
    ) as client:
        for _ in range(20):
            answers = await asyncio.gather(
                *(client.post("/v1/streams/events/entries", json={"body": n}) for n in range(20))
            )
            assert all(answer.status_code == 201 for answer in answers)
            published += len(answers)
            per_worker = _per_worker_counts(directory, tmp_path / "one")
            if len(per_worker) == 2 and all(count > 0 for count in per_worker):
                break
        assert len(per_worker) == 2 and all(count > 0 for count in per_worker), per_worker
        assert sum(per_worker) == published
        for _ in range(6):
            text = await _scrape(client)
            requests = "spool_http_requests_total"
            assert _value(text, requests, operation="appendEntry", status_class="2xx") == published
            written = _value(text, "spool_published_items_total", kind="entries", outcome="written")
            assert written == published
        assert not any(name.startswith("process_") for name, _ in _samples(text))
        assert _labels(text, "spool_build_info", "version") == {server.__version__}
    assert service.stop() == 0
    assert not directory.exists()


def _per_worker_counts(directory: Path, scratch: Path) -> list[float]:
    """appendEntry's 2xx count in each worker's counter file."""
    counts = []
    for counter_file in sorted(directory.glob("counter_*.db")):
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir()
        shutil.copy(counter_file, scratch)
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(scratch))
        counts.append(
            sum(
                sample.value
                for family in registry.collect()
                for sample in family.samples
                if sample.name == "spool_http_requests_total"
                and sample.labels == {"operation": "appendEntry", "status_class": "2xx"}
            )
        )
    return counts


async def test_a_client_gone_mid_body_is_counted_apart_from_server_errors(
    api: RunningApp,
) -> None:
    """A publish whose connection closed before its body arrived whole counts as
    ``client_closed``, not as ``5xx``, and observes no latency, as it got no response.
    """
    await publish_abandoned_mid_body(api.app, "events")
    text = await _scrape(api.client)
    requests = "spool_http_requests_total"
    assert _value(text, requests, operation="appendEntry", status_class="client_closed") == 1
    assert _value(text, requests, operation="appendEntry", status_class="5xx") == 0
    assert _value(text, "spool_http_request_duration_seconds_count", operation="appendEntry") == 0
