"""``bench peers``'s own logic, without the peers' virtualenvs or the network: the virtualenv
stamps, the figures drawn from a driver's answer, and the whole orchestration (rounds, Redis
flushes, exactly-once checks, rows, ratios and goals) with Spool's real drivers on a real service
beside a fake peer: a Redis list worked by a few lines of redis-py.
"""

from __future__ import annotations

import math
import sys
import textwrap
from pathlib import Path

import pytest

from bench.__main__ import BENCHMARKS, ON_REQUEST
from bench._report import format_report
from bench._server import running_server
from bench.peers import _suite, _venvs
from bench.peers._sides import FLOOR, SIDES, Side, Workload

# Every side of the suite records its jobs here; the tests use 15 with key prefixes, and a run of
# the suite itself 13 and 14.
TEST_DATABASE = 12

FAKE_PEER = '''
"""A peer made of a Redis list: RPUSH to enqueue, BLMOVE to a processing list to work."""

import os
import sys
from collections.abc import Sequence

import redis
from _common import REDIS_URL, Side, record

QUEUE = "fake"
PROCESSING = "fake:processing"


class FakeSide(Side):
    has_bulk = True

    async def open(self):
        self._redis = redis.Redis.from_url(REDIS_URL)

    async def close(self):
        self._redis.close()

    async def enqueue_one(self, job_id):
        self._redis.rpush(QUEUE, job_id)

    async def enqueue_bulk(self, job_ids: Sequence[str]):
        self._redis.rpush(QUEUE, *job_ids)

    async def backlog(self):
        return self._redis.llen(QUEUE) + self._redis.llen(PROCESSING)

    def worker_command(self):
        return [sys.executable, "-c", "import fake_peer; fake_peer.work()"]


def work():
    client = redis.Redis.from_url(REDIS_URL)
    twice = os.environ.get("FAKE_TWICE") == "1"
    while True:
        job = client.blmove(QUEUE, PROCESSING, 1)
        if job is None:
            continue
        record(job.decode())
        if twice:
            record(job.decode())
        client.lrem(PROCESSING, 1, job)


SIDE = FakeSide()
'''


def test_peers_runs_only_when_named() -> None:
    """``python -m bench`` leaves the peers suite out; it is known when named."""
    assert "peers" not in BENCHMARKS
    assert ON_REQUEST == ("peers",)


def test_database_url_replaces_only_the_database() -> None:
    """The suite's databases are the configured Redis's, whatever database it names."""
    assert _suite.database_url("redis://127.0.0.1:6379/15", 14) == "redis://127.0.0.1:6379/14"
    assert _suite.database_url("redis://h:1", 13) == "redis://h:1/13"
    assert _suite.database_url("redis://:pw@h:1/2?x=1", 14) == "redis://:pw@h:1/14?x=1"


def test_arq_has_a_virtualenv_of_its_own_and_every_pin_is_exact() -> None:
    """arq's redis-py bound clashes with Celery's, so the two never share a virtualenv."""
    assert _venvs.GROUPS["arq"].requirements == ("arq==0.28.0",)
    peers = _venvs.GROUPS["peers"].requirements
    assert not any(requirement.startswith("arq") for requirement in peers)
    for venv in _venvs.GROUPS.values():
        assert all("==" in requirement for requirement in venv.requirements)
    for side in SIDES.values():
        assert side.venv is None or side.venv in _venvs.GROUPS


def test_a_virtualenv_is_reused_only_while_its_requirements_match(tmp_path: Path) -> None:
    """The stamp holds the requirement list; a missing or different one means make it again."""
    venv = _venvs.Venv("demo", ("a==1", "b==2"))
    folder = venv.folder(tmp_path)
    assert not _venvs.is_current(venv, tmp_path)

    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "python").touch()
    assert not _venvs.is_current(venv, tmp_path)  # made, but its install never finished
    (folder / "requirements.txt").write_text("a==1\nb==2\n")
    assert _venvs.is_current(venv, tmp_path)
    assert _venvs.ensure(venv, tmp_path, python="/nonexistent/python") == folder / "bin"
    assert not _venvs.is_current(_venvs.Venv("demo", ("a==1", "b==3")), tmp_path)


def test_figures_from_a_drivers_answer() -> None:
    """Enqueues count every job; a drain counts the intervals between its first and last start;
    a latency run gives its p50 and p95 in milliseconds.
    """
    assert _suite.sample("enqueue_one", 100, {"seconds": 0.5}) == (200.0, None)
    assert _suite.sample("drain", 101, {"seconds": 2.0}) == (50.0, None)
    latencies = [n / 1000 for n in range(1, 101)]
    p50, p95 = _suite.sample("latency", 100, {"latencies": latencies})
    assert p50 == pytest.approx(50.5) and p95 == pytest.approx(95.0)


def _fake_side(name: str, tmp_path: Path, **environment: str) -> Side:
    return Side(name, "fake_peer", "fake", {"PYTHONPATH": str(tmp_path), **environment})


@pytest.mark.slow
@pytest.mark.redis
# It starts a worker process per side and workload, some 30 in all: on a busy machine that is
# more than the suite's default two minutes.
@pytest.mark.timeout(360)
def test_the_suite_runs_spool_beside_a_fake_peer_and_checks_every_job(
    redis_url: str, tmp_path: Path
) -> None:
    """Spool's real drivers (queue and stream, sync and async workers) on a real service, beside
    a fake peer, one that runs a job twice and the HTTP floor: every goal is measured against the
    fake peer (never the floor, an anchor), the floor's ratios to it are shown, and the one that
    ran a job twice is reported as failed, not measured.
    """
    (tmp_path / "fake_peer.py").write_text(textwrap.dedent(FAKE_PEER))
    sides = {
        **{name: side for name, side in SIDES.items() if not side.is_peer},
        "fake": _fake_side("fake", tmp_path),
        "twice": _fake_side("twice", tmp_path, FAKE_TWICE="1"),
    }
    queues = ("spool sync run()", "spool async run()", "fake", "twice")
    workloads = (
        Workload(
            "w1_one",
            "W1 one at a time",
            "enqueue_one",
            ("spool", "spool publish_nowait", "fake", FLOOR),
        ),
        Workload("w1_bulk", "W1 bulk", "enqueue_bulk", ("spool", "fake")),
        Workload("w2", "W2 drain", "drain", queues),
        Workload(
            "w3", "W3 latency", "latency", ("spool sync run()", "spool async run()", "fake", FLOOR)
        ),
        Workload(
            "w4_one",
            "W4 one at a time",
            "enqueue_one",
            ("spool stream", "spool stream publish_nowait", "fake", FLOOR),
        ),
        Workload("w4_bulk", "W4 bulk", "enqueue_bulk", ("spool stream", "fake")),
        Workload(
            "w4_consume",
            "W4 consume",
            "drain",
            ("spool stream sync run()", "spool stream async run()", "fake"),
        ),
    )
    with running_server() as server:
        report = _suite.run_suite(
            quick=True,
            redis_url=_suite.database_url(redis_url, TEST_DATABASE),
            server=server,
            bins={"fake": Path(sys.executable).parent},
            sides=sides,
            workloads=workloads,
        )

    text = format_report(report)
    assert len(report.skipped) == 1, text
    assert report.skipped[0].startswith("w2 twice: RuntimeError: "), text
    assert report.skipped[0].endswith("RuntimeError: 30 jobs ran more than once"), text
    assert len(report.goals) == 12, text
    for goal in report.goals:
        assert goal.anchor_name == "best peer, fake", text
        assert math.isfinite(goal.value) and goal.value > 0, text
    names = {row.name for row in report.rows}
    assert "w2 spool async run() (30 jobs)" in names, text
    assert "w3 fake (5 jobs) p95" in names, text
    assert {f"w1_one {FLOOR} (10 jobs)", f"w3 {FLOOR} (5 jobs) p95"} <= names, text
    assert {ratio.name for ratio in report.ratios} >= {
        "w2 spool sync run() / fake",
        "w3 p95 spool async run() / fake",
        "w4_consume spool stream async run() / fake",
        f"w1_one spool / {FLOOR}",
        f"w3 p95 spool sync run() / {FLOOR}",
        f"w1_one {FLOOR} / best peer, fake",
        f"w3 p95 {FLOOR} / best peer, fake",
        f"w4_one {FLOOR} / best peer, fake",
    }, text
