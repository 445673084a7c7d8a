"""Every benchmark runs end to end at tiny sizes; nothing here looks at how fast anything was."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench import client, delivery, facade, flow_control, http, schedules, stores, worker
from bench.__main__ import BENCHMARKS, ON_REQUEST, main
from bench._load import post_request, run_load
from bench._report import Report, format_report
from bench._server import rss_bytes, running_server

pytestmark = pytest.mark.slow

# Nothing listens on port 1, so the connection is refused at once.
SILENT_REDIS_URL = "redis://127.0.0.1:1/15"


def _assert_complete(report: Report) -> None:
    assert report.rows, format_report(report)
    assert report.ratios, format_report(report)
    for ratio in report.ratios:
        assert math.isfinite(ratio.value) and ratio.value > 0, format_report(report)
        assert ratio.meaning


@pytest.mark.redis
def test_stores_compares_sqlite_with_redis(redis_url: str) -> None:
    """With Redis the store benchmark measures both stores and prints their ratios."""
    report = stores.run(quick=True, redis_url=redis_url)

    _assert_complete(report)
    assert not report.skipped
    assert {row.name.partition(":")[0] for row in report.rows} == {"sqlite", "redis"}
    assert any(ratio.name.startswith("redis/sqlite") for ratio in report.ratios)


def test_stores_skips_the_redis_column_without_redis() -> None:
    """Without Redis the store benchmark measures SQLite alone and says Redis was skipped."""
    report = stores.run(quick=True, redis_url=SILENT_REDIS_URL)

    _assert_complete(report)
    assert {row.name.partition(":")[0] for row in report.rows} == {"sqlite"}
    assert report.skipped == [f"Redis column: no Redis answers at {SILENT_REDIS_URL}"]


def test_facade_compares_the_sdk_with_the_generated_client() -> None:
    """The facade benchmark measures both clients against a real server and prints ratios."""
    report = facade.run(quick=True)

    _assert_complete(report)
    assert {ratio.name for ratio in report.ratios} >= {"sdk / generated + key", "sdk / generated"}


def test_client_measures_cpu_import_async_and_memory_beside_their_anchors() -> None:
    """The client benchmark's goals each have their anchor, and memory is reported."""
    report = client.run(quick=True)

    _assert_complete(report)
    assert [(goal.name, goal.anchor_name) for goal in report.goals] == [
        ("client CPU per publish_json (mock transport)", "qstash-py 3.4.0"),
        ("import sdk (runtime dependencies only)", "import httpx"),
        ("AsyncClient, 64 publish_json in flight", "sync Client, one at a time"),
        (
            "AsyncClient, 64 in flight, of the service's own ceiling",
            "raw load generator, 64 connections",
        ),
        ("64 concurrent single publishes, batching on", "batching off"),
    ]
    for goal in report.goals:
        assert goal.anchor is not None and goal.anchor.median > 0 and goal.spool.median > 0
    assert {row.name for row in report.rows} >= {
        "RSS per sdk.Client (5 made)",
        "RSS per bare httpx.Client (5 made)",
    }


def test_the_import_benchmark_hides_only_what_the_sdk_does_not_depend_on() -> None:
    """httpx's dependencies stay importable; tools installed beside the SDK are hidden."""
    hidden = set(client.hidden_modules())
    assert hidden.isdisjoint({"httpx", "httpcore", "h11", "anyio", "idna", "certifi", "sniffio"})
    assert hidden.isdisjoint({"attr", "attrs", "dateutil", "sdk", "generated"})
    assert {"pytest", "qstash", "pydantic"} <= hidden


def test_delivery_measures_lags_and_throughput_or_says_the_engine_is_missing() -> None:
    """The delivery benchmark reports both lags, the deliveries per second beside the receiver's
    own capacity, and both goals; or why it could not measure them.
    """
    report = delivery.run(quick=True)

    if report.skipped and report.skipped[0].startswith("delivery engine not wired"):
        assert not report.rows
    else:
        _assert_complete(report)
        assert not report.skipped, format_report(report)
        assert {row.name for row in report.rows} >= {
            "delayed lag p50",
            "immediate lag p50",
            "fast receiver alone (asyncio load generator)",
        }
        assert [goal.name for goal in report.goals] == [
            "HTTP deliveries per second, one server process, of a raw asyncio client's",
            "delay lag after not_before, p95",
        ]
        deliveries, lag = report.goals
        assert deliveries.anchor is not None and lag.anchor is None
        for goal in report.goals:
            assert math.isfinite(goal.value) and goal.value > 0, format_report(report)


@pytest.mark.redis
def test_schedules_measures_the_fire_lag_on_both_stores(redis_url: str) -> None:
    """The schedules benchmark waits for one tick and bounds each store's lag, with no anchor."""
    report = schedules.run(quick=True, redis_url=redis_url)

    assert not report.skipped, format_report(report)
    assert [goal.name for goal in report.goals] == [
        "schedule-fire lag, p95, sqlite",
        "schedule-fire lag, p95, redis",
    ]
    for goal in report.goals:
        assert goal.anchor is None
        assert math.isfinite(goal.value) and goal.value >= 0, format_report(report)


@pytest.mark.redis
def test_http_measures_spool_beside_its_anchors(redis_url: str) -> None:
    """With Redis every goal of the HTTP benchmark is measured, each against its anchor."""
    report = http.run(quick=True, redis_url=redis_url)

    assert not report.skipped, format_report(report)
    anchored = {goal.anchor_name for goal in report.goals if goal.anchor is not None}
    assert anchored == {"redis-py pipelined XADD x20", "Starlette + XADD"}
    assert len(report.goals) == 4
    for goal in report.goals:
        assert math.isfinite(goal.value) and goal.value >= 0, format_report(report)
    names = [row.name for row in report.rows]
    assert any(name.startswith("ceiling: appendEntry") for name in names)
    assert any(name.startswith("RSS after") for name in names)


def test_http_measures_the_ceiling_and_memory_on_sqlite_without_redis() -> None:
    """Without Redis the HTTP benchmark still measures Spool's ceiling and memory, on SQLite."""
    report = http.run(quick=True, redis_url=SILENT_REDIS_URL)

    assert report.skipped == [
        "Redis rows (publish_many, anchors, Idempotency-Key): no Redis answers at "
        f"{SILENT_REDIS_URL}"
    ]
    assert [goal.unit for goal in report.goals] == ["%"]
    assert any(row.name.endswith("SQLite") and row.value > 0 for row in report.rows)


async def test_the_load_generator_counts_responses_and_errors() -> None:
    """Every request gets its response read; a non-2xx answer counts as an error."""
    with running_server() as server:
        good = post_request(
            server.host,
            server.port,
            "/v1/streams/load/entries",
            b'{"body": 1}',
            {"Authorization": f"Bearer {server.token}"},
        )
        done = await run_load(server.host, server.port, good, connections=3, count=10)
        unauthenticated = post_request(
            server.host, server.port, "/v1/streams/load/entries", b'{"body": 1}'
        )
        refused = await run_load(server.host, server.port, unauthenticated, connections=2, count=4)
        assert rss_bytes(server.pid) > 0

    assert (done.requests, done.errors) == (10, 0)
    assert done.per_second > 0
    assert (refused.requests, refused.errors) == (4, 4)
    assert refused.first_error is not None and b"unauthenticated" in refused.first_error


def test_flow_control_measures_one_keys_rate_against_its_set_rate() -> None:
    """Two processes deliver one key's messages and the benchmark reports both bounds of the
    goal; how fast is not looked at.
    """
    report = flow_control.run(quick=True)

    _assert_complete(report)
    assert not report.skipped, format_report(report)
    assert [goal.direction for goal in report.goals] == ["at_least", "at_most"]
    assert {row.name for row in report.rows} == {"set rate", "delivered rate, median"}


def test_main_prints_a_table_per_benchmark_and_writes_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``python -m bench NAME --quick`` prints the load, the named benchmark's table, and writes
    its figures as JSON.
    """
    results = tmp_path / "latest.json"
    assert main(["stores", "--quick", "--results", str(results)]) == 0

    output = capsys.readouterr().out
    assert output.startswith("cores: ")
    assert "load average before" in output
    assert "\nstores: " in output
    assert "x  " in output
    document = json.loads(results.read_text())
    assert document["quick"] is True
    assert [run["benchmark"] for run in document["benchmarks"]] == ["stores"]
    assert document["benchmarks"][0]["rows"]


def test_main_refuses_unknown_benchmarks(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown benchmark name is a usage error naming the known ones."""
    with pytest.raises(SystemExit) as exit_info:
        main(["nope"])

    assert exit_info.value.code == 2
    known = ", ".join(BENCHMARKS + ON_REQUEST)
    assert f"unknown benchmark nope; choose from {known}" in capsys.readouterr().err
    assert known.startswith(
        "stores, facade, delivery, schedules, flow_control, http, client, worker"
    )


def test_worker_compares_a_queue_worker_with_and_without_an_idle_stream() -> None:
    """The worker benchmark has a goal per client kind, each against the worker alone."""
    report = worker.run(quick=True)

    assert [goal.anchor_name for goal in report.goals] == ["the queue worker alone"] * 2
    for goal in report.goals:
        assert goal.anchor is not None and goal.anchor.median > 0 and goal.spool.median > 0
