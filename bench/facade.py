"""What the ``sdk`` facade costs over the generated client it wraps, and what batching saves.

Both clients publish to streams of one real server process (development mode, SQLite file) over
keep-alive connections, in interleaved rounds:

* ``generated``: ``append_entry.sync_detailed`` with no Idempotency-Key, the bare minimum;
* ``generated + key``: the same with a fresh Idempotency-Key, which is what the facade sends on
  every publish (the server records the key in the same store write as the entry);
* ``sdk``: ``Client.publish``, with its checks, codec, retry wrapper and typed answers.

``sdk / generated + key`` is the facade's own client-side cost (the same request reaches the
server); ``sdk / generated`` adds what idempotent publishing costs the server. ``publish_many`` of
100 entries is compared with 100 ``publish`` calls. A ``GET /v1/health`` on a kept-alive
connection against one on a new connection each time checks the transport itself: reuse should be
the cheaper one, and ~40 ms more per reused call means the server's responses wait for the client's
delayed ACK (Nagle's algorithm left on for the server's sockets).
"""

from __future__ import annotations

import dataclasses
import statistics
import time
import uuid
from collections.abc import Callable

import httpx

import sdk
from generated.api.streams import append_entry
from generated.client import AuthenticatedClient
from generated.models import AppendEntryRequest
from generated.types import UNSET

from ._report import Report, side_by_side
from ._server import running_server

__all__ = ["run"]

BATCH = 100


@dataclasses.dataclass(frozen=True, slots=True)
class _Sizes:
    """Calls per case per round, and how many rounds."""

    rounds: int
    warmup: int
    calls: int
    batches: int
    health_checks: int


_FULL = _Sizes(rounds=5, warmup=1, calls=50, batches=5, health_checks=10)
_QUICK = _Sizes(rounds=1, warmup=0, calls=3, batches=1, health_checks=2)


def _median_latency(call: Callable[[int], object], count: int) -> float:
    latencies = []
    for index in range(count):
        started = time.perf_counter()
        call(index)
        latencies.append(time.perf_counter() - started)
    return statistics.median(latencies)


def _generated_call(raw: AuthenticatedClient, *, with_key: bool) -> Callable[[int], object]:
    stream = "generated-key" if with_key else "generated"

    def call(index: int) -> object:
        response = append_entry.sync_detailed(
            stream,
            client=raw,
            body=AppendEntryRequest(body={"n": index}),
            idempotency_key=str(uuid.uuid4()) if with_key else UNSET,
        )
        if response.status_code != 201:
            raise RuntimeError(
                f"append_entry answered {response.status_code}: {response.content!r}"
            )
        return response.parsed

    return call


def run(*, quick: bool = False) -> Report:
    """Measure per-call latencies of both clients and batch against single publishing."""
    sizes = _QUICK if quick else _FULL
    report = Report(
        "facade",
        f"sdk.Client vs the generated client against one server process (SQLite file); "
        f"{sizes.rounds} interleaved rounds of {sizes.calls} calls, median latencies",
    )
    with (
        running_server() as server,
        # No retries: a failed call should fail the benchmark, not hide in a slower median.
        sdk.Client(server.base_url, api_key=server.token, max_retries=0) as client,
        AuthenticatedClient(base_url=server.base_url, token=server.token) as raw,
        httpx.Client(base_url=server.base_url) as kept_alive,
        httpx.Client(
            base_url=server.base_url, limits=httpx.Limits(max_keepalive_connections=0)
        ) as reconnecting,
    ):
        bodies = [{"n": index} for index in range(BATCH)]

        def sdk_publish(index: int) -> object:
            return client.publish("sdk", {"n": index})

        def batch_publish(_index: int) -> object:
            return client.publish_many("sdk-batch", bodies)

        def health_kept_alive(_index: int) -> object:
            return kept_alive.get("/v1/health").raise_for_status()

        def health_new_connection(_index: int) -> object:
            return reconnecting.get("/v1/health").raise_for_status()

        # So that even a single quick round measures a connection that is really kept alive.
        health_kept_alive(0)

        medians = side_by_side(
            {
                "generated": lambda: _median_latency(
                    _generated_call(raw, with_key=False), sizes.calls
                ),
                "generated + key": lambda: _median_latency(
                    _generated_call(raw, with_key=True), sizes.calls
                ),
                "sdk": lambda: _median_latency(sdk_publish, sizes.calls),
                "sdk batch": lambda: _median_latency(batch_publish, sizes.batches),
                "health kept alive": lambda: _median_latency(
                    health_kept_alive, sizes.health_checks
                ),
                "health new connection": lambda: _median_latency(
                    health_new_connection, sizes.health_checks
                ),
            },
            rounds=sizes.rounds,
            warmup=sizes.warmup,
        )
    for name in ("generated", "generated + key", "sdk"):
        report.add(f"publish 1 entry, {name}", medians[name] * 1e6, "us/call")
    report.add(f"publish_many {BATCH} entries, sdk", medians["sdk batch"] * 1e6, "us/call")
    report.add(
        "GET /v1/health, kept-alive connection", medians["health kept alive"] * 1e6, "us/call"
    )
    report.add("GET /v1/health, new connection", medians["health new connection"] * 1e6, "us/call")
    report.add(
        "sdk overhead over generated + key",
        (medians["sdk"] - medians["generated + key"]) * 1e6,
        "us/call",
    )
    report.ratio(
        "sdk / generated + key",
        medians["sdk"],
        medians["generated + key"],
        "latency of the same request through the facade (1.00: the facade costs nothing)",
    )
    report.ratio(
        "sdk / generated",
        medians["sdk"],
        medians["generated"],
        "facade with its automatic Idempotency-Key over the bare generated call",
    )
    report.ratio(
        f"{BATCH} x publish / publish_many {BATCH}",
        BATCH * medians["sdk"],
        medians["sdk batch"],
        f"time for {BATCH} entries one call each over one batch call (>1: batching saves)",
    )
    report.ratio(
        "health kept alive / new connection",
        medians["health kept alive"],
        medians["health new connection"],
        "<1 expected (no handshake); >>1 means reused connections wait ~40 ms for delayed ACKs",
    )
    return report
