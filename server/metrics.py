"""Prometheus metrics: what the service counts as it goes, and ``GET /metrics``, which exports it.

Off unless the settings enable it (see :class:`server.config.MetricsSettings`). The counters and
histograms are prometheus-client's, labelled from small fixed sets only (operation ids, status
classes, kinds, outcomes). Each operation's request counters are labelled at its first request or
the first scrape, so that every scrape shows them, at 0 until requests come; its latency histogram
only at its first request, as a histogram is a dozen series and most operations of a service are
seldom used. Queue depths, stream lengths and consumer groups are not counted along the way: a
scrape reads them from the store, bounded in count and time and kept a few seconds for the next
scrape (:class:`_StoreReadings`), so they are right whichever process wrote last.

Every scrape also shows ``spool_build_info`` and prometheus-client's ``python_info``, and, from a
single process, its ``process_*`` series (CPU, memory, file descriptors).

With several worker processes (``spool-server --workers N``) every process writes its counts to
files in ``$PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's multiprocess mode; the supervising
process makes that directory and removes it) and a scrape, whichever worker answers it, adds up
every process's files. The ``process_*`` series are then left out: prometheus-client cannot gather
them from every worker, and the answering worker's alone would jump from worker to worker between
scrapes; watch the workers' processes from outside (node or cgroup exporters) instead.

The delivery engine reports through :func:`delivery_attempt_ended` and :func:`messages_claimed`,
which record into the metrics of the running app in this process, if any.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import math
import os
import platform
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Final, Literal

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
)
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from . import __version__
from .config import MetricsSettings
from .problems import ProblemError
from .rates import MinuteRates, RateSeries
from .routes._context import context_of
from .stores.base import (
    MessageRecord,
    NotFoundError,
    QueueRecord,
    Store,
    StoreError,
    StreamInfo,
    StreamSummary,
)

__all__ = [
    "DASHBOARD_PATH",
    "METRICS_PATH",
    "MULTIPROCESS_DIRECTORY_VARIABLE",
    "SCRAPE_STORE_TIMEOUT_SECONDS",
    "STORE_READING_SECONDS",
    "JobOutcome",
    "Metrics",
    "PublishCounters",
    "delivery_attempt_ended",
    "messages_claimed",
]

METRICS_PATH = "/metrics"
MULTIPROCESS_DIRECTORY_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
# The Grafana dashboard of these metrics, shipped with the package (README "Metrics").
DASHBOARD_PATH = Path(__file__).resolve().parent / "metrics_dashboard" / "spool.json"
# A scrape gives the store this long to answer, and a reading serves the scrapes of this long
# after it: several Prometheus servers, or a dashboard refreshed by hand, read the store once.
SCRAPE_STORE_TIMEOUT_SECONDS = 2.0
STORE_READING_SECONDS = 5.0

# A request's answer: publishes, acks and reads come back in milliseconds, so the buckets are
# finest there, where p50 and p95 fall; above, they only need to tell a slow store from a stall.
# A long poll that waits out its whole wait lands past the last bucket, blurring none below.
_REQUEST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5, 10.0)
# An attempt is a round trip to a receiver elsewhere, bounded by its message's timeout.
_DELIVERY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 30.0)
# A due message waits for the engine's next look (a fraction of a second) unless the engine is
# behind or was down, when it waits minutes.
_LAG_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 30.0, 300.0)

# A status's first digit, or client_closed: a request whose connection closed before the request
# arrived whole, which was answered nothing and is no failure of the service (nginx's 499).
_STATUS_CLASSES = ("1xx", "2xx", "3xx", "4xx", "5xx", "client_closed")
_CLIENT_CLOSED = _STATUS_CLASSES.index("client_closed")
# Exported from the start, at 0, so that rate() sees the first error; the API answers no other.
_ANSWERED_CLASSES = ("2xx", "4xx", "5xx")
_PUBLISH_KINDS: Final[dict[str, RateSeries]] = {
    "appendEntry": "entries",
    "appendEntries": "entries",
    "publishJob": "jobs",
    "publishJobs": "jobs",
    "publishMessage": "messages",
    "publishMessages": "messages",
}
_QUEUE_STATES = ("ready", "delayed", "leased", "dead")
JobOutcome = Literal["acked", "retried", "failed", "lease_expired"]
# The console charts nacks whatever followed them, and deaths whatever caused them.
_JOB_RATE_SERIES: Final[dict[JobOutcome, tuple[RateSeries, ...]]] = {
    "acked": ("jobs_acked",),
    "retried": ("jobs_nacked",),
    "failed": ("jobs_nacked", "jobs_dead"),
    "lease_expired": ("jobs_dead",),
}
_DeliveryError = Literal[
    "none", "http_status", "timeout", "network", "destination_refused", "interrupted"
]

logger = logging.getLogger("spool.server")

Endpoint = Callable[[Request], Awaitable[Response]]

# The metrics of the app running in this process, which the delivery engine reports to.
_running: Metrics | None = None


class PublishCounters:
    """One kind's published-item counters, labelled once, for a publishing route to bump."""

    __slots__ = ("_kind", "_over_quota", "_rates", "_replays", "_replayed", "_refused", "_written")

    def __init__(
        self,
        items: Counter,
        replays: Counter,
        over_quota: Counter,
        kind: RateSeries,
        rates: MinuteRates,
    ) -> None:
        self._kind = kind
        self._rates = rates
        self._written = items.labels(kind, "written")
        self._replayed = items.labels(kind, "replayed")
        self._refused = items.labels(kind, "refused")
        self._replays = replays.labels(kind)
        self._over_quota = over_quota

    def answered(self, items: int, *, replayed: bool) -> None:
        """A publish of ``items`` was written, or answered from its Idempotency-Key's record."""
        if replayed:
            self._replayed.inc(items)
            self._replays.inc()
        else:
            self._written.inc(items)
            self._rates.count(self._kind, items)

    def refused(self, items: int, *, quota: bool = False) -> None:
        """A publish of ``items`` wrote nothing: refused by the store, a key reuse or (``quota``)
        the token's quota.
        """
        self._refused.inc(items)
        if quota:
            self._over_quota.inc()


class _RequestSeries:
    """One operation's request counters, labelled at its first request or at the first scrape,
    whichever comes first, and its latency histogram, labelled at its first answer. Labelled as
    the routes were bound, they were half of making an app: prometheus validates and builds each
    child anew.
    """

    __slots__ = ("_by_class", "_latency", "_operation_id", "_requests", "_request_seconds")

    def __init__(self, requests: Counter, request_seconds: Histogram, operation_id: str) -> None:
        self._requests = requests
        self._request_seconds = request_seconds
        self._operation_id = operation_id
        self._by_class: list[Counter | None] = []
        self._latency: Histogram | None = None

    def label(self) -> None:
        """Make the answered classes' counters, once, so that a scrape shows them at 0."""
        if not self._by_class:
            self._by_class = [
                self._requests.labels(self._operation_id, name)
                if name in _ANSWERED_CLASSES
                else None
                for name in _STATUS_CLASSES
            ]

    def count(self, status: int, seconds: float) -> None:
        """One request answered with ``status`` after ``seconds``."""
        self._counter(min(max(status // 100, 1), 5) - 1).inc()
        latency = self._latency
        if latency is None:
            latency = self._latency = self._request_seconds.labels(self._operation_id)
        latency.observe(seconds)

    def client_closed(self) -> None:
        """One request whose connection closed before it arrived whole; with no response, it
        has no latency to observe.
        """
        self._counter(_CLIENT_CLOSED).inc()

    def _counter(self, index: int) -> Counter:
        self.label()
        counter = self._by_class[index]
        if counter is None:
            counter = self._by_class[index] = self._requests.labels(
                self._operation_id, _STATUS_CLASSES[index]
            )
        return counter


class Metrics:
    """The service's metrics in this process, and the ``/metrics`` route that exports them."""

    def __init__(self, settings: MetricsSettings) -> None:
        # A `_created` twin of every series would double the exposition for what Prometheus can
        # tell from a counter's reset.
        disable_created_metrics()
        self._token = None if settings.token is None else settings.token.encode()
        self._store_readings = _StoreReadings(settings)
        # prometheus-client picks mmap-backed values when this is set as it is imported; the
        # scrape must then read every process's files instead of this registry.
        self._multiprocess = bool(os.environ.get(MULTIPROCESS_DIRECTORY_VARIABLE))
        registry = self.registry = CollectorRegistry(auto_describe=False)
        if not self._multiprocess:
            ProcessCollector(registry=registry)
        # The same in every process, so whichever answers a scrape may tell them.
        self._static: list[Metric] = [*PlatformCollector(registry=None).collect(), _build_info()]
        self._requests = Counter(
            "spool_http_requests",
            "Requests by operation id and status class (client_closed: the connection closed "
            "before the request arrived whole, and nothing was answered).",
            ["operation", "status_class"],
            registry=registry,
        )
        self._request_seconds = Histogram(
            "spool_http_request_duration_seconds",
            "Time from routing a request to its response, by operation id.",
            ["operation"],
            buckets=_REQUEST_BUCKETS,
            registry=registry,
        )
        self._request_series: list[_RequestSeries] = []
        published = Counter(
            "spool_published_items",
            "Stream entries, jobs and messages published, by outcome (written, replayed from "
            "an Idempotency-Key's record, refused).",
            ["kind", "outcome"],
            registry=registry,
        )
        replays = Counter(
            "spool_idempotent_replays",
            "Publish requests answered from their Idempotency-Key's record, writing nothing.",
            ["kind"],
            registry=registry,
        )
        refusals = Counter(
            "spool_publish_refusals",
            "Publish requests refused for the token's rate limit or quota (429).",
            ["reason"],
            registry=registry,
        )
        self.rate_limited = refusals.labels("rate_limited")
        over_quota = refusals.labels("quota_exceeded")
        # The console's charts of the last hour in this process (server/rates.py).
        self.rates = MinuteRates()
        self.publishing = {
            operation: PublishCounters(published, replays, over_quota, kind, self.rates)
            for operation, kind in _PUBLISH_KINDS.items()
        }
        self._attempts = Counter(
            "spool_delivery_attempts",
            "HTTP message delivery attempts, by outcome (delivered, retry, dead) and error.",
            ["outcome", "error"],
            registry=registry,
        )
        self._attempt_seconds = Histogram(
            "spool_delivery_attempt_duration_seconds",
            "Time an HTTP message delivery attempt took, by outcome.",
            ["outcome"],
            buckets=_DELIVERY_BUCKETS,
            registry=registry,
        )
        jobs = Counter(
            "spool_job_outcomes",
            "How leases of jobs ended: acked; retried (nacked with attempts left); failed (its "
            "last attempt nacked) or lease_expired (its last lease ran out), both leaving it dead.",
            ["outcome"],
            registry=registry,
        )
        self._job_outcomes = {outcome: jobs.labels(outcome) for outcome in _JOB_RATE_SERIES}
        self._lag_seconds = Histogram(
            "spool_delivery_lag_seconds",
            "Time from a message's not_before to the claim of its first attempt.",
            buckets=_LAG_BUCKETS,
            registry=registry,
        )

    def start(self) -> None:
        """Take the delivery engine's reports in this process (called by the app's lifespan)."""
        global _running
        _running = self

    def stop(self) -> None:
        """Stop taking the delivery engine's reports, unless another app took them since."""
        global _running
        if _running is self:
            _running = None

    def instrument(self, operation_id: str, endpoint: Endpoint) -> Endpoint:
        """``endpoint`` counting its requests by status class and timing them."""
        series = _RequestSeries(self._requests, self._request_seconds, operation_id)
        self._request_series.append(series)
        clock = time.perf_counter

        async def counted(request: Request) -> Response:
            started = clock()
            try:
                response = await endpoint(request)
            except ClientDisconnect:
                series.client_closed()
                raise
            except Exception as error:
                series.count(_status_of(error), clock() - started)
                raise
            series.count(response.status_code, clock() - started)
            return response

        return counted

    def route(self) -> Route:
        """``GET /metrics``, outside the API document: behind its own token when one is set."""

        async def metrics(request: Request) -> Response:
            self._authorize(request)
            for series in self._request_series:
                series.label()
            families = await self._store_readings.families(context_of(request).store)
            encoder, content_type = choose_encoder(request.headers.get("accept", ""))
            collector = self._collector([*self._static, *families])
            return Response(encoder(collector), media_type=content_type)

        return Route(METRICS_PATH, metrics, methods=["GET"])

    def delivery_attempt_ended(
        self, *, succeeded: bool, last: bool, error: str | None, status: int | None, seconds: float
    ) -> None:
        """Count one delivery attempt and its duration (see :func:`delivery_attempt_ended`)."""
        outcome = "delivered" if succeeded else "dead" if last else "retry"
        self._attempts.labels(outcome, _delivery_error(error, status)).inc()
        self._attempt_seconds.labels(outcome).observe(seconds)
        self.rates.count("delivered" if succeeded else "failed")
        if outcome == "dead":
            self.rates.count("dead_letters")

    def jobs_ended(self, outcome: JobOutcome, amount: int = 1) -> None:
        """Count ``amount`` jobs whose lease ended so, for ``/metrics`` and the console's charts."""
        if not amount:
            return
        self._job_outcomes[outcome].inc(amount)
        for series in _JOB_RATE_SERIES[outcome]:
            self.rates.count(series, amount)

    def lease_deaths(self, _queue: str, job_ids: Sequence[str]) -> None:
        """Count the jobs a write of this process's store made dead because their last lease ran
        out (``Store.on_lease_deaths``), beside those a nack left dead.
        """
        self.jobs_ended("lease_expired", len(job_ids))

    def messages_claimed(self, messages: Sequence[MessageRecord], *, now: float) -> None:
        """Observe the lag of every first attempt among ``messages``."""
        for message in messages:
            if not message.attempts:
                self._lag_seconds.observe(max(0.0, now - message.not_before))

    def _authorize(self, request: Request) -> None:
        if self._token is None:
            return
        scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            credentials.strip().encode(), self._token
        ):
            raise ProblemError(
                401,
                "unauthenticated",
                "GET /metrics needs the metrics bearer token",
                headers={"WWW-Authenticate": 'Bearer realm="spool-metrics"'},
            )

    def _collector(self, families: list[Metric]) -> Collector:
        if self._multiprocess:
            registry = CollectorRegistry(auto_describe=False)
            MultiProcessCollector(registry)
        else:
            registry = self.registry
        return _Joined(registry, families)


class _Joined:
    """A registry's metrics followed by families read for one scrape."""

    def __init__(self, registry: CollectorRegistry, families: list[Metric]) -> None:
        self._registry = registry
        self._families = families

    def collect(self) -> Iterable[Metric]:
        """Every metric of the registry, then the scrape's own."""
        yield from self._registry.collect()
        yield from self._families


def delivery_attempt_ended(
    *, succeeded: bool, last: bool, error: str | None, status: int | None, seconds: float
) -> None:
    """The delivery engine finished an attempt: it succeeded, or failed with ``error`` (and was
    the ``last`` of the message's retries), after ``seconds``. Recorded when metrics are on.
    """
    if _running is not None:
        _running.delivery_attempt_ended(
            succeeded=succeeded, last=last, error=error, status=status, seconds=seconds
        )


def messages_claimed(messages: Sequence[MessageRecord], *, now: float) -> None:
    """The delivery engine claimed ``messages`` at ``now``. Recorded when metrics are on."""
    if _running is not None and messages:
        _running.messages_claimed(messages, now=now)


def _status_of(error: Exception) -> int:
    """The status the app's exception handlers answer ``error`` with."""
    if isinstance(error, ProblemError):
        return error.status
    if isinstance(error, StoreError):
        return 422 if error.code == "validation_failed" else error.status
    if isinstance(error, HTTPException):
        return error.status_code
    return 500


def _delivery_error(error: str | None, status: int | None) -> _DeliveryError:
    # The engine's error texts are fixed phrases (server/delivery.py); a status is a receiver's.
    if error is None:
        return "none"
    if status is not None:
        return "http_status"
    if error.startswith("timed out"):
        return "timeout"
    if error.startswith("destination not allowed"):
        return "destination_refused"
    if error.startswith("interrupted"):
        return "interrupted"
    return "network"


def _build_info() -> GaugeMetricFamily:
    family = GaugeMetricFamily(
        "spool_build_info",
        "Always 1: the service's version and the Python it runs on, as labels.",
        labels=["version", "python"],
    )
    family.add_metric([__version__, platform.python_version()], 1)
    return family


class _StoreReadings:
    """The gauges a scrape reads from the store, kept :data:`STORE_READING_SECONDS` for the next
    scrapes; one read at a time, so that scrapes arriving together wait for the same one.
    """

    def __init__(self, settings: MetricsSettings) -> None:
        self._settings = settings
        self._lock = asyncio.Lock()
        self._families: list[Metric] = []
        self._read_at = -math.inf

    async def families(self, store: Store) -> list[Metric]:
        """The store's gauges, read now unless a reading of the last few seconds stands."""
        async with self._lock:
            if time.monotonic() - self._read_at >= STORE_READING_SECONDS:
                self._families = await _store_families(store, self._settings)
                # A failed reading stands as long: a store that is slow to answer is not asked
                # again by every scrape.
                self._read_at = time.monotonic()
            return self._families


async def _store_families(store: Store, settings: MetricsSettings) -> list[Metric]:
    """Queue depths and streams with their groups, as the store has them now, within the caps;
    nothing but ``spool_metrics_store_read_ok 0`` when it cannot say within the timeout.
    """
    ok = GaugeMetricFamily(
        "spool_metrics_store_read_ok",
        "1 when the last reading of the store's queues and streams came in time, else 0.",
    )
    started = time.perf_counter()
    try:
        async with asyncio.timeout(SCRAPE_STORE_TIMEOUT_SECONDS):
            queues, (streams, stream_count) = await asyncio.gather(
                store.list_queues(), _read_streams(store, settings)
            )
    except (TimeoutError, StoreError) as error:
        logger.warning("metrics: reading the store failed: %s", error or "timed out")
        ok.add_metric([], 0)
        return [ok]
    ok.add_metric([], 1)
    seconds = GaugeMetricFamily(
        "spool_metrics_store_read_seconds",
        "How long the last reading of the store's queues and streams took.",
    )
    seconds.add_metric([], time.perf_counter() - started)
    exported = sorted(queues, key=lambda record: record.name)[: settings.max_queues]
    omitted = GaugeMetricFamily(
        "spool_metrics_omitted",
        "Queues and streams left out of the gauges by metrics.max_queues and max_streams.",
        labels=["kind"],
    )
    omitted.add_metric(["queues"], len(queues) - len(exported))
    omitted.add_metric(["streams"], max(0, stream_count - len(streams)))
    return [ok, seconds, omitted, _queue_family(exported), *_stream_families(streams)]


async def _read_streams(store: Store, settings: MetricsSettings) -> tuple[list[StreamInfo], int]:
    """The configured streams that exist and the first ``max_streams`` by name, each with its
    groups, and how many streams there are. A listing tells a stream's length; only a stream with
    groups is read again, for them.
    """
    summaries: list[StreamSummary] = []
    if settings.max_streams:
        page, count = await asyncio.gather(
            store.list_streams(prefix="", limit=settings.max_streams, cursor=None),
            store.count_streams(),
        )
        summaries = page.streams
    else:
        count = await store.count_streams()
    listed = {summary.stream for summary in summaries}
    named = [stream for stream in settings.streams if stream not in listed]
    wanted = [*named, *(summary.stream for summary in summaries if summary.group_count)]
    read = {
        info.stream: info
        for info in await asyncio.gather(*(_stream_info(store, stream) for stream in wanted))
        if info is not None
    }
    infos = [
        read.get(summary.stream)
        or StreamInfo(summary.stream, summary.length, summary.first_id, summary.last_id, [])
        for summary in summaries
    ]
    return [*infos, *(read[stream] for stream in named if stream in read)], count


async def _stream_info(store: Store, stream: str) -> StreamInfo | None:
    try:
        return await store.stream_info(stream)
    except NotFoundError:
        return None


def _queue_family(queues: Sequence[QueueRecord]) -> GaugeMetricFamily:
    family = GaugeMetricFamily(
        "spool_queue_jobs",
        "Jobs in each queue by state (the first metrics.max_queues queues by name).",
        labels=["queue", "state"],
    )
    for queue in queues:
        stats = queue.stats
        for state, count in zip(
            _QUEUE_STATES, (stats.ready, stats.delayed, stats.leased, stats.dead), strict=True
        ):
            family.add_metric([queue.name, state], count)
    return family


def _stream_families(infos: Iterable[StreamInfo]) -> list[GaugeMetricFamily]:
    length = GaugeMetricFamily(
        "spool_stream_entries",
        "Entries in each stream (metrics.streams, then the first metrics.max_streams by name).",
        labels=["stream"],
    )
    pending = GaugeMetricFamily(
        "spool_stream_group_pending_entries",
        "Entries delivered to a consumer group and not acknowledged yet.",
        labels=["stream", "group"],
    )
    lag = GaugeMetricFamily(
        "spool_stream_group_lag_entries",
        "Entries of the stream a consumer group has yet to read (left out where the store "
        "cannot tell).",
        labels=["stream", "group"],
    )
    for info in infos:
        length.add_metric([info.stream], info.length)
        for group in info.groups:
            pending.add_metric([info.stream, group.group], group.pending)
            if group.lag is not None:
                lag.add_metric([info.stream, group.group], group.lag)
    return [length, pending, lag]
