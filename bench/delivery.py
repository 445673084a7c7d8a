"""How promptly and how fast HTTP messages are delivered by one server process.

A server process (development mode, SQLite file, loopback destinations allowed) delivers.

Lag: a receiver in this process notes when each message arrives. Each round publishes messages with
``delay=1`` and with no delay, alternately, and waits for all of them. A message's lag is its
arrival time minus its ``not_before`` as the service recorded it: for an immediate message that is
its publish time, so its lag is the ordinary publish-to-delivery path, the baseline. The ratio of
the medians says how much the scheduling of delayed messages adds on top of that path. The goal
bounds the delayed lag's p95 (the median over the rounds of each round's p95) at 100 ms.

Throughput: each round (after an uncounted warm-up round) publishes a batch of messages that all
fall due at one moment, a little later, to a fast receiver in a process of its own
(``bench/_receiver.py``), and divides the deliveries by the time from the first arrival to the last.
The anchor, measured in the same run, is a raw asyncio client (aiohttp, the engine's own HTTP
client) posting to the same receiver with as many requests in flight as the engine allows itself;
the goal is half its rate (an absolute figure moved with the machine). Beside it, the receiver's
own capacity, measured by a bare asyncio load generator, shows the receiver is not the limit. The server process's CPU time per message
over each burst (publishing it in batches, then delivering it) steadies that figure on a machine
that others share, where the rate follows whatever else runs.

When even an immediate message does not arrive, the delivery engine is not running in the served
app, and the benchmark says so instead of measuring.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import http.server
import os
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import sdk
from server.delivery.settings import DEFAULT_CONCURRENCY

from ._receiver import FastReceiver, client_rate, fast_receiver, receiver_capacity
from ._report import Report, Stats, percentile
from ._server import running_server

__all__ = ["run"]

DELAY_SECONDS = 1
_MESSAGE_ID_HEADER = "Spool-Message-Id"
_PROBE_TIMEOUT_SECONDS = 5.0
# A round waits this long past the delay for its messages before counting the rest as lost.
_ROUND_TIMEOUT_SECONDS = DELAY_SECONDS + 10.0
# A round starts right after the engine delivered the previous one, so without a random pause
# before each publish every message would be published at the same point of the engine's polling
# cycle, and the lags would measure that phase instead of the engine.
_MAX_JITTER_SECONDS = 0.25
# Deliveries per second of one server process, of a raw asyncio client's rate to the receiver.
DELIVERIES_RATIO_GOAL = 0.5
LAG_P95_GOAL_MS = 100.0
# The most messages one batch publish takes (openapi.yaml).
_BATCH_LIMIT = 1000
# A throughput round's messages fall due this long after its first publish, so that publishing them
# is over before the engine starts sending.
_PUBLISH_ALLOWANCE_SECONDS = 0.5
_PUBLISH_SECONDS_PER_MESSAGE = 0.001
_THROUGHPUT_TIMEOUT_SECONDS = 120.0


@dataclasses.dataclass(frozen=True, slots=True)
class _Sizes:
    """Lag rounds and messages of each kind per round; throughput rounds and messages per round;
    how long the receiver's capacity is measured.
    """

    rounds: int
    per_kind: int
    throughput_rounds: int
    burst: int
    capacity_seconds: float


_FULL = _Sizes(rounds=5, per_kind=20, throughput_rounds=3, burst=5000, capacity_seconds=3.0)
_QUICK = _Sizes(rounds=1, per_kind=2, throughput_rounds=1, burst=100, capacity_seconds=0.2)


class _Arrivals:
    """When each message id first arrived, filled by the receiver's threads."""

    def __init__(self) -> None:
        self._times: dict[str, float] = {}
        self._changed = threading.Condition()

    def record(self, message_id: str, moment: float) -> None:
        """Note the first arrival of ``message_id`` (deliveries are at least once)."""
        with self._changed:
            self._times.setdefault(message_id, moment)
            self._changed.notify_all()

    def wait_for(self, message_ids: set[str], *, timeout: float) -> dict[str, float]:
        """Arrival times of those of ``message_ids`` that arrive within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not message_ids <= self._times.keys():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._changed.wait(remaining)
            return {key: self._times[key] for key in message_ids if key in self._times}


@contextlib.contextmanager
def _receiver(arrivals: _Arrivals) -> Iterator[str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        """Notes the arrival of each delivery and answers 200."""

        def do_POST(self) -> None:
            arrived = time.time()
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            message_id = self.headers.get(_MESSAGE_ID_HEADER)
            if message_id:
                arrivals.record(message_id, arrived)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: object) -> None:
            # One line per delivery on stderr would bury the benchmark's table.
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="bench-receiver", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _publish(client: sdk.Client, url: str, *, delay: int, label: str) -> str:
    receipt = client.messages.publish_json(url=url, body={"kind": label}, delay=delay, retries=0)
    return receipt.message_id


def _cpu_seconds(pid: int) -> float | None:
    """The user and system CPU time process ``pid`` has used; None where ``/proc`` is not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The fields after the parenthesised command name, from the state on: utime and stime are
    # the 14th and 15th of the whole line.
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclasses.dataclass(frozen=True, slots=True)
class _Burst:
    """Deliveries per second of one burst, and the server's CPU seconds per message of it."""

    rate: float
    cpu_per_message: float | None


def _throughput_round(
    client: sdk.Client, receiver: FastReceiver, burst: int, server_pid: int
) -> _Burst | None:
    """One burst falling due at once; None when some did not arrive."""
    receiver.reset()
    cpu_before = _cpu_seconds(server_pid)
    lead = _PUBLISH_ALLOWANCE_SECONDS + burst * _PUBLISH_SECONDS_PER_MESSAGE
    due = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=lead)
    for start in range(0, burst, _BATCH_LIMIT):
        client.messages.batch(
            [
                sdk.MessageRequest(
                    f"burst message {index}",
                    url=receiver.url(f"/burst/{index}"),
                    not_before=due,
                    retries=0,
                )
                for index in range(start, min(burst, start + _BATCH_LIMIT))
            ]
        )
    deadline = time.monotonic() + lead + _THROUGHPUT_TIMEOUT_SECONDS
    while True:
        count, first, last = receiver.stats()
        if count >= burst:
            break
        if time.monotonic() > deadline:
            return None
        time.sleep(0.1)
    cpu_after = _cpu_seconds(server_pid)
    if last <= first:
        return None
    cpu = None if cpu_before is None or cpu_after is None else (cpu_after - cpu_before) / burst
    return _Burst(count / (last - first), cpu)


def _throughput(client: sdk.Client, report: Report, sizes: _Sizes, server_pid: int) -> None:
    with fast_receiver() as receiver:
        capacity = receiver_capacity(receiver, seconds=sizes.capacity_seconds)
        # The anchor: the engine's own HTTP client, bare, posting to the same receiver with as
        # many requests in flight as the engine allows itself.
        posting = client_rate(
            receiver, seconds=sizes.capacity_seconds, concurrency=DEFAULT_CONCURRENCY
        )
        bursts: list[_Burst] = []
        # The first burst opens the connections and warms the caches; it is not counted.
        for _ in range(1 + sizes.throughput_rounds):
            measured = _throughput_round(client, receiver, sizes.burst, server_pid)
            if measured is None:
                report.skipped.append(
                    f"throughput: a burst of {sizes.burst} messages was not delivered within "
                    f"{_THROUGHPUT_TIMEOUT_SECONDS:.0f} s"
                )
                return
            bursts.append(measured)
        bursts = bursts[1:]
    report.goal(
        "HTTP deliveries per second, one server process, of a raw asyncio client's",
        Stats.of([measured.rate for measured in bursts]),
        "deliveries/s",
        anchor=Stats.of([posting]),
        anchor_name=f"raw asyncio aiohttp client, {DEFAULT_CONCURRENCY} in flight",
        at_least=DELIVERIES_RATIO_GOAL,
    )
    report.add("fast receiver alone (asyncio load generator)", capacity, "req/s")
    cpu = [measured.cpu_per_message for measured in bursts if measured.cpu_per_message is not None]
    if len(cpu) == len(bursts):
        report.add(
            "server CPU per burst message (publish and delivery)", Stats.of(cpu).median * 1e6, "us"
        )


def run(*, quick: bool = False) -> Report:
    """Measure the delivery lag of delayed and immediate messages, published alternately, and the
    deliveries per second of one server process to a fast receiver.
    """
    sizes = _QUICK if quick else _FULL
    report = Report(
        "delivery",
        f"arrival - not_before of HTTP messages to a loopback receiver; {sizes.rounds} rounds of "
        f"{sizes.per_kind} delay={DELAY_SECONDS}s and {sizes.per_kind} immediate, interleaved; "
        f"{sizes.throughput_rounds} bursts (after a warm-up one) of {sizes.burst} messages due "
        "at once to a fast receiver",
    )
    arrivals = _Arrivals()
    environment = {"SPOOL_ALLOW_DESTINATIONS": "127.0.0.1"}
    with (
        _receiver(arrivals) as url,
        running_server(environment=environment) as server,
        sdk.Client(server.base_url, api_key=server.token) as client,
    ):
        probe = _publish(client, url, delay=0, label="probe")
        if not arrivals.wait_for({probe}, timeout=_PROBE_TIMEOUT_SECONDS):
            report.skipped.append(
                "delivery engine not wired: a message published with no delay did not arrive "
                f"within {_PROBE_TIMEOUT_SECONDS:.0f} s"
            )
            return report
        jitter = random.Random(0)
        published: dict[str, list[str]] = {"delayed": [], "immediate": []}
        delayed_rounds: list[list[str]] = []
        lost = 0
        for round_index in range(sizes.rounds):
            order = [("delayed", DELAY_SECONDS), ("immediate", 0)]
            if round_index % 2:
                order.reverse()
            in_round: set[str] = set()
            delayed_rounds.append([])
            for _ in range(sizes.per_kind):
                for label, delay in order:
                    time.sleep(jitter.uniform(0, _MAX_JITTER_SECONDS))
                    message_id = _publish(client, url, delay=delay, label=label)
                    published[label].append(message_id)
                    if label == "delayed":
                        delayed_rounds[-1].append(message_id)
                    in_round.add(message_id)
            lost += len(in_round) - len(arrivals.wait_for(in_round, timeout=_ROUND_TIMEOUT_SECONDS))
        # Looked up after the rounds, so that no round's deliveries compete with these reads.
        lag_of: dict[str, float] = {}
        for message_ids in published.values():
            arrived = arrivals.wait_for(set(message_ids), timeout=0)
            for message_id in message_ids:
                if message_id in arrived:
                    not_before = client.messages.get(message_id).not_before.timestamp()
                    lag_of[message_id] = arrived[message_id] - not_before
        lags = {
            label: [lag_of[message_id] for message_id in message_ids if message_id in lag_of]
            for label, message_ids in published.items()
        }
        # After the lags, so that no burst's backlog delays a lag round.
        _throughput(client, report, sizes, server.pid)
    if lost:
        report.skipped.append(f"{lost} messages did not arrive within {_ROUND_TIMEOUT_SECONDS} s")
    for label in ("delayed", "immediate"):
        if not lags[label]:
            report.skipped.append(f"no {label} message arrived")
            return report
    round_p95s = [
        percentile([lag_of[message_id] for message_id in message_ids if message_id in lag_of], 0.95)
        * 1e3
        for message_ids in delayed_rounds
        if any(message_id in lag_of for message_id in message_ids)
    ]
    report.goal(
        "delay lag after not_before, p95", Stats.of(round_p95s), "ms", at_most=LAG_P95_GOAL_MS
    )
    for label in ("delayed", "immediate"):
        for name, fraction in (("p50", 0.5), ("p95", 0.95), ("max", 1.0)):
            report.add(f"{label} lag {name}", percentile(lags[label], fraction) * 1e3, "ms")
    report.ratio(
        "delayed / immediate lag p50",
        percentile(lags["delayed"], 0.5),
        percentile(lags["immediate"], 0.5),
        "time past due of a delayed message over an immediate one's "
        "(1: scheduling adds no lag; the excess is the wait for the engine's next look)",
    )
    report.ratio(
        "delayed / immediate lag p95",
        percentile(lags["delayed"], 0.95),
        percentile(lags["immediate"], 0.95),
        "the same for the slowest 5%",
    )
    return report
