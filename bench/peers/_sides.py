"""Who runs in ``bench peers``: Spool's sides and each peer's, with the driver module and the
virtualenv each runs in, and which workloads each takes part in.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

__all__ = ["FLOOR", "SIDES", "Side", "Workload", "WORKLOADS"]

#: The anchor of the one-round-trip workloads (bench/peers/drivers/http_floor.py).
FLOOR = "HTTP floor"


@dataclasses.dataclass(frozen=True, slots=True)
class Side:
    """One library (or one way of running it): its driver module in ``bench/peers/drivers``, the
    virtualenv of ``_venvs.GROUPS`` it runs in (``None``: Spool's own interpreter), and the
    environment its driver and worker get.
    """

    name: str
    module: str
    venv: str | None
    environment: Mapping[str, str] = dataclasses.field(default_factory=dict)
    #: at most this many jobs in a drain: a side that drains slowly gets fewer, so that the full
    #: suite ends in minutes; a drain's rate is timed from its first handler start to its last
    drain_cap: int | None = None
    #: an anchor rather than a peer (runs in Spool's interpreter): shown with Spool's ratios to
    #: it, never the best peer of a goal
    anchor: bool = False

    @property
    def is_spool(self) -> bool:
        """Whether this is one of Spool's own sides, the numerators of every ratio."""
        return self.venv is None and not self.anchor

    @property
    def is_peer(self) -> bool:
        """Whether this is a peer, one of the sides a goal takes its best from."""
        return self.venv is not None


def _spool(name: str, mode: str, *, nowait: bool = False) -> Side:
    environment = {"BENCH_SPOOL_MODE": mode, "BENCH_SPOOL_NOWAIT": "1" if nowait else "0"}
    return Side(name, "spool_peer", None, environment, drain_cap=2000)


SIDES = {
    side.name: side
    for side in (
        _spool("spool", "sync"),
        _spool("spool publish_nowait", "sync", nowait=True),
        _spool("spool sync run()", "sync"),
        _spool("spool async run()", "async"),
        _spool("spool stream", "stream-sync"),
        _spool("spool stream publish_nowait", "stream-sync", nowait=True),
        _spool("spool stream sync run()", "stream-sync"),
        _spool("spool stream async run()", "stream-async"),
        Side("dramatiq", "dramatiq_peer", "peers"),
        Side("taskiq", "taskiq_peer", "peers"),
        Side("saq", "saq_peer", "peers", drain_cap=5000),
        Side("celery -P solo", "celery_peer", "peers", drain_cap=3000),
        Side("arq", "arq_peer", "arq", drain_cap=1500),
        Side(
            "rq SimpleWorker",
            "rq_peer",
            "peers",
            {"RQ_WORKER_CLASS": "rq.SimpleWorker"},
            drain_cap=1000,
        ),
        # rq's default worker forks a process per job.
        Side("rq (fork)", "rq_peer", "peers", drain_cap=200),
        Side("rq", "rq_peer", "peers"),
        Side("celery", "celery_peer", "peers"),
        Side("faststream", "faststream_peer", "peers"),
        Side(FLOOR, "http_floor", None, anchor=True),
    )
}


@dataclasses.dataclass(frozen=True, slots=True)
class Workload:
    """One row group of the report: the drivers' action, how many jobs, and who takes part."""

    key: str
    title: str
    action: str
    sides: tuple[str, ...]


_QUEUE_WORKERS = (
    "spool sync run()",
    "spool async run()",
    "dramatiq",
    "taskiq",
    "saq",
    "celery -P solo",
    "arq",
    "rq SimpleWorker",
    "rq (fork)",
)

WORKLOADS = (
    Workload(
        "w1_one",
        "W1 enqueue one at a time, one producer",
        "enqueue_one",
        (
            "spool",
            "spool publish_nowait",
            "dramatiq",
            "saq",
            "arq",
            "taskiq",
            "rq",
            "celery",
            FLOOR,
        ),
    ),
    Workload(
        "w1_bulk",
        "W1 enqueue in bulk (500 a call)",
        "enqueue_bulk",
        ("spool", "rq", "dramatiq", "celery"),
    ),
    Workload("w2", "W2 queued jobs drained by one worker process", "drain", _QUEUE_WORKERS),
    Workload(
        "w3", "W3 publish to handler start, jobs 20 ms apart", "latency", (*_QUEUE_WORKERS, FLOOR)
    ),
    Workload(
        "w4_one",
        "W4 stream publish one at a time",
        "enqueue_one",
        ("spool stream", "spool stream publish_nowait", "faststream", FLOOR),
    ),
    Workload(
        "w4_bulk",
        "W4 stream publish batched (500 a call)",
        "enqueue_bulk",
        ("spool stream", "faststream"),
    ),
    Workload(
        "w4_consume",
        "W4 stream entries consumed by one consumer-group process",
        "drain",
        ("spool stream sync run()", "spool stream async run()", "faststream"),
    ),
)
