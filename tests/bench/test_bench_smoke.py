"""Every benchmark runs end to end at tiny sizes; nothing here looks at how fast anything was."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench import delivery, facade, stores
from bench.__main__ import main
from bench._report import Report, format_report

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
            "HTTP deliveries per second, one server process",
            "delay lag after not_before, p95",
        ]
        for goal in report.goals:
            assert goal.anchor is None
            assert math.isfinite(goal.value) and goal.value > 0, format_report(report)


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
    assert "unknown benchmark nope; choose from stores, facade, delivery" in capsys.readouterr().err
