"""What the SDK costs its caller: CPU per publish, import time, the async client, memory.

* **CPU per publish** (goal: Spool ≤ qstash-py): ``client.messages.publish_json(url=..., body=...,
  delay=..., retries=..., headers=...)`` through the ``httpx.Client`` the SDK makes for itself, on
  an ``httpx.MockTransport`` that answers what the service answers, beside qstash-py 3.4.0's same
  call (its own ``httpx.Client`` made on a mock transport answering what QStash answers) and a bare ``httpx.Client.post`` of a similar
  document; ``time.process_time`` over many calls, interleaved rounds. No network, no server: only
  the client-side work of building, sending and reading the request.
* **Import** (goal: ``import sdk`` ≤ 1.5 × ``import httpx``): each in a fresh interpreter, timed
  around the import statement alone (interpreter start excluded), interleaved, bytecode cached as
  in an installed package. Only the SDK's declared runtime dependencies (``pyproject.toml``'s
  ``[project] dependencies`` and theirs) can be imported: the packages other tools installed into
  the environment (httpx's optional CLI imports rich and click when they are there) are hidden, as
  they are from an application that installed just the SDK.
* **Async** (goals: ≥ 2× the sync client, ≥ 0.8 of the service's ceiling): ``AsyncClient`` with
  64 publishes in flight against the sync ``Client`` publishing one at a time, and against a raw
  asyncio load generator sending the very request the SDK sends (with a fresh Idempotency-Key) on
  64 keep-alive connections, all against one real service process (SQLite file), messages delayed
  by an hour so that the service only stores them.
* **aiohttp** (no goal): the same 64 publishes in flight through
  ``AsyncClient(http_client=sdk.AioHttpClient())`` (the ``spool[aiohttp]`` extra), beside the
  ``AsyncClient`` on httpx's default transport, in the same interleaved rounds.
* **Batching** (goal: ≥ 5×): 64 tasks each publishing single stream entries through an
  ``AsyncClient(batching=True)``, against the same without batching.
* **Memory**: resident memory per ``sdk.Client`` (N clients made in a fresh process, VmRSS growth
  divided by N), beside a bare ``httpx.Client``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import time
import tomllib
import unittest.mock
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

import sdk
from sdk import _http as sdk_http

from ._load import post_request, run_load
from ._report import Report, Stats, side_by_side_stats, side_by_side_stats_async
from ._server import ROOT, running_server

__all__ = ["hidden_modules", "run"]

URL = "http://127.0.0.1:9/hooks/signup"
BODY = {"type": "signup", "user": 42, "plan": "pro", "tags": ["a", "b"]}
DELAY = "1h"
RETRIES = 3
HEADERS = {"X-Tenant": "acme"}
IN_FLIGHT = 64


@dataclasses.dataclass(frozen=True, slots=True)
class _Sizes:
    rounds: int
    warmup: int
    cpu_calls: int
    import_rounds: int
    publishes: int
    clients: int


_FULL = _Sizes(rounds=7, warmup=1, cpu_calls=2000, import_rounds=9, publishes=384, clients=500)
_QUICK = _Sizes(rounds=1, warmup=0, cpu_calls=20, import_rounds=1, publishes=IN_FLIGHT, clients=5)


def run(*, quick: bool = False) -> Report:
    """Measure the four figures; the first three against their anchors, in the same run."""
    sizes = _QUICK if quick else _FULL
    report = Report(
        "client",
        f"client-side cost of the SDK: CPU per publish_json on a mock transport ({sizes.cpu_calls} "
        f"calls a round), import time in fresh interpreters, AsyncClient with {IN_FLIGHT} in "
        f"flight against one service process; {sizes.rounds} interleaved rounds, medians",
    )
    _cpu_per_publish(report, sizes)
    _import_time(report, sizes)
    _async_against_sync(report, sizes)
    _memory_per_client(report, sizes)
    return report


# CPU per publish ----------------------------------------------------------------------------------


def _answer(status: int, document: Any) -> httpx.Response:
    return httpx.Response(
        status,
        content=json.dumps(document).encode(),
        headers={"Content-Type": "application/json", "X-Request-Id": "req_01BENCHMARK"},
    )


def _spool_transport() -> httpx.MockTransport:
    receipts = {"messages": [{"message_id": "msg_01BENCH", "url": URL, "deduplicated": False}]}
    return httpx.MockTransport(lambda _request: _answer(202, receipts))


def _qstash_transport() -> httpx.MockTransport:
    return httpx.MockTransport(lambda _request: _answer(201, {"messageId": "msg_01BENCH"}))


def _spool_publisher() -> tuple[Callable[[], object], Callable[[], None]]:
    # A plain httpx.Client with the shared TLS context, as the SDK makes for itself, on a mock
    # transport: what a caller who passes no http_client gets, as qstash-py keeps its own below.
    http = httpx.Client(verify=sdk_http.tls_context(), transport=_spool_transport())
    client = sdk.Client("http://spool.bench", api_key="sk_bench", max_retries=0, http_client=http)

    def publish() -> object:
        return client.messages.publish_json(
            url=URL, body=BODY, delay=DELAY, retries=RETRIES, headers=HEADERS
        )

    def close() -> None:
        client.close()
        http.close()

    return publish, close


def _qstash_publisher() -> tuple[Callable[[], object], Callable[[], None]]:
    from qstash import QStash

    # QStash has no option for a transport or an httpx client: it makes its own httpx.Client
    # (qstash/http.py, in HttpClient.__init__) and sends everything through it. While QStash is
    # made, httpx.Client stands for one made with qstash's own options on a mock transport; the
    # client QStash keeps is httpx's as shipped, and everything above httpx (headers, JSON, the
    # answer's parsing) runs as shipped too.
    made: list[httpx.Client] = []
    real_client = httpx.Client

    def on_mock_transport(**options: Any) -> httpx.Client:
        made.append(real_client(**options, transport=_qstash_transport()))
        return made[-1]

    with unittest.mock.patch.object(httpx, "Client", on_mock_transport):
        client = QStash("qstash_bench_token", base_url="http://qstash.bench", retry=False)
    [http] = made

    def publish() -> object:
        return client.message.publish_json(
            url=URL, body=BODY, delay=DELAY, retries=RETRIES, headers=HEADERS
        )

    return publish, http.close


def _bare_publisher() -> tuple[Callable[[], object], Callable[[], None]]:
    http = httpx.Client(
        base_url="http://spool.bench",
        headers={"Authorization": "Bearer sk_bench"},
        transport=_spool_transport(),
    )
    document = {"url": URL, "body": BODY, "delay": 3600, "retries": RETRIES, "headers": HEADERS}

    def publish() -> object:
        return http.post("/v1/messages", json=document).json()

    return publish, http.close


def _cpu_seconds_per_call(call: Callable[[], object], calls: int) -> float:
    started = time.process_time()
    for _ in range(calls):
        call()
    return (time.process_time() - started) / calls


def _cpu_per_publish(report: Report, sizes: _Sizes) -> None:
    made = {"spool": _spool_publisher(), "qstash": _qstash_publisher(), "bare": _bare_publisher()}
    try:
        for publish, _close in made.values():
            publish()  # first calls import and cache what every later call reuses
        stats = side_by_side_stats(
            {
                name: functools.partial(_cpu_seconds_per_call, publish, sizes.cpu_calls)
                for name, (publish, _close) in made.items()
            },
            rounds=sizes.rounds,
            warmup=sizes.warmup,
        )
    finally:
        for _publish, close in made.values():
            close()
    micros = {name: value.map(lambda seconds: seconds * 1e6) for name, value in stats.items()}
    report.goal(
        "client CPU per publish_json (mock transport)",
        micros["spool"],
        "us",
        anchor=micros["qstash"],
        anchor_name="qstash-py 3.4.0",
        at_most=1.0,
    )
    report.add("CPU per call, bare httpx POST (json=, .json())", micros["bare"].median, "us")
    report.ratio(
        "spool / bare httpx POST",
        micros["spool"].median,
        micros["bare"].median,
        "the SDK's checks, typed answer and retry wrapper over a bare POST of the same document",
    )


# Import time --------------------------------------------------------------------------------------

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_IMPORT_PROBE = """
import sys, time
for name in sys.argv[2].split(","):
    if name:
        sys.modules[name] = None  # as if not installed: importing it raises ImportError
started = time.perf_counter()
__import__(sys.argv[1])
print(time.perf_counter() - started)
"""


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _runtime_distributions() -> set[str]:
    """The SDK's runtime dependencies and theirs, as normalized distribution names."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pending = [_requirement_name(requirement) for requirement in project["dependencies"]]
    found = {_normalized(project["name"])}
    while pending:
        name = pending.pop()
        if name is None or name in found:
            continue
        found.add(name)
        try:
            requirements = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        pending.extend(
            _requirement_name(requirement)
            for requirement in requirements
            if "extra ==" not in requirement.replace("extra==", "extra ==")
        )
    return found


def _requirement_name(requirement: str) -> str | None:
    match = _NAME.match(requirement.strip())
    return _normalized(match.group(0)) if match else None


def hidden_modules() -> list[str]:
    """Top-level modules installed by distributions outside the SDK's runtime dependencies."""
    runtime = _runtime_distributions()
    hidden = []
    for module, distributions in importlib.metadata.packages_distributions().items():
        if module.startswith("_") or module in sys.stdlib_module_names:
            continue
        if not any(_normalized(distribution) in runtime for distribution in distributions):
            hidden.append(module)
    return sorted(hidden)


def _import_seconds(module: str, hidden: str) -> float:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")}
    # Bytecode is cached as it is for an installed package (the warm-up round writes it).
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment["PYTHONPATH"] = str(ROOT)
    completed = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE, module, hidden],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(completed.stdout.strip().splitlines()[-1])


def _import_time(report: Report, sizes: _Sizes) -> None:
    hidden = ",".join(hidden_modules())
    stats = side_by_side_stats(
        {module: functools.partial(_import_seconds, module, hidden) for module in ("sdk", "httpx")},
        rounds=sizes.import_rounds,
        warmup=1,
    )
    millis = {name: value.map(lambda seconds: seconds * 1e3) for name, value in stats.items()}
    report.goal(
        "import sdk (runtime dependencies only)",
        millis["sdk"],
        "ms",
        anchor=millis["httpx"],
        anchor_name="import httpx",
        at_most=1.5,
    )


# Async client against the sync client ---------------------------------------------------------------


def _async_against_sync(report: Report, sizes: _Sizes) -> None:
    environment = {"SPOOL_ALLOW_DESTINATIONS": "127.0.0.0/8"}
    with running_server(environment=environment) as server:
        stats = asyncio.run(_publish_rates(server.base_url, server.token, sizes))
    report.goal(
        f"AsyncClient, {IN_FLIGHT} publish_json in flight",
        stats["async"],
        "publishes/s",
        anchor=stats["sync"],
        anchor_name="sync Client, one at a time",
        at_least=2.0,
    )
    report.goal(
        f"AsyncClient, {IN_FLIGHT} in flight, of the service's own ceiling",
        stats["async"],
        "publishes/s",
        anchor=stats["ceiling"],
        anchor_name=f"raw load generator, {IN_FLIGHT} connections",
        at_least=0.8,
    )
    if "aiohttp" in stats:
        report.add(
            f"AsyncClient, {IN_FLIGHT} publish_json in flight, httpx's default transport",
            stats["async"].median,
            "publishes/s",
        )
        report.add(
            f"AsyncClient, {IN_FLIGHT} publish_json in flight, sdk.AioHttpClient()",
            stats["aiohttp"].median,
            "publishes/s",
        )
        report.ratio(
            "AsyncClient on aiohttp / on httpx's default transport",
            stats["aiohttp"].median,
            stats["async"].median,
            "the spool[aiohttp] extra's transport against httpx's own, 64 publishes in flight",
        )
        report.ratio(
            "AsyncClient on aiohttp / the service's own ceiling",
            stats["aiohttp"].median,
            stats["ceiling"].median,
            f"the same {IN_FLIGHT} in flight against the raw load generator's rate",
        )
    else:
        report.skipped.append("AsyncClient on aiohttp: the spool[aiohttp] extra is not installed")
    report.goal(
        f"{IN_FLIGHT} concurrent single publishes, batching on",
        stats["batched"],
        "publishes/s",
        anchor=stats["unbatched"],
        anchor_name="batching off",
        at_least=5.0,
    )


def _message_request(base_url: str, token: str) -> Callable[[], bytes]:
    """publishMessage as the SDK sends it (a fresh Idempotency-Key each time), as raw bytes."""
    parts = httpx.URL(base_url)
    document = {"url": URL, "body": BODY, "delay": 3600, "retries": RETRIES, "headers": HEADERS}
    marker = "K" * 36
    template = post_request(
        parts.host,
        parts.port or 80,
        "/v1/messages",
        json.dumps(document, separators=(",", ":")).encode(),
        {"Authorization": f"Bearer {token}", "Idempotency-Key": marker},
    )
    before, _, after = template.partition(marker.encode())
    return lambda: before + str(uuid.uuid4()).encode() + after


async def _on_aiohttp(
    closing: contextlib.AsyncExitStack, base_url: str, token: str
) -> sdk.AsyncClient | None:
    """An AsyncClient on `sdk.AioHttpClient()`, both closed with `closing`; None without the
    spool[aiohttp] extra.
    """
    try:
        http = sdk.AioHttpClient()
    except sdk.ConfigurationError:
        return None
    await closing.enter_async_context(http)
    return await closing.enter_async_context(
        sdk.AsyncClient(base_url, api_key=token, max_retries=0, http_client=http)
    )


async def _publish_rates(base_url: str, token: str, sizes: _Sizes) -> dict[str, Stats]:
    # No retries: a failed publish should fail the benchmark, not hide in a slower median.
    parts = httpx.URL(base_url)
    raw_request = _message_request(base_url, token)
    with sdk.Client(base_url, api_key=token, max_retries=0) as client:
        async with (
            sdk.AsyncClient(base_url, api_key=token, max_retries=0) as aclient,
            sdk.AsyncClient(base_url, api_key=token, max_retries=0, batching=True) as batching,
            contextlib.AsyncExitStack() as closing,
        ):
            on_aiohttp = await _on_aiohttp(closing, base_url, token)

            async def sync_rate() -> float:
                started = time.perf_counter()
                for _ in range(sizes.publishes):
                    client.messages.publish_json(
                        url=URL, body=BODY, delay=DELAY, retries=RETRIES, headers=HEADERS
                    )
                return sizes.publishes / (time.perf_counter() - started)

            async def in_flight(publish: Callable[[], Awaitable[object]]) -> float:
                share, extra = divmod(sizes.publishes, IN_FLIGHT)
                counts = [share + (index < extra) for index in range(IN_FLIGHT)]

                async def publisher(count: int) -> None:
                    for _ in range(count):
                        await publish()

                started = time.perf_counter()
                await asyncio.gather(*(publisher(count) for count in counts))
                return sizes.publishes / (time.perf_counter() - started)

            def message() -> Awaitable[object]:
                return aclient.messages.publish_json(
                    url=URL, body=BODY, delay=DELAY, retries=RETRIES, headers=HEADERS
                )

            async def async_rate() -> float:
                return await in_flight(message)

            async def aiohttp_rate() -> float:
                assert on_aiohttp is not None
                return await in_flight(
                    lambda: on_aiohttp.messages.publish_json(
                        url=URL, body=BODY, delay=DELAY, retries=RETRIES, headers=HEADERS
                    )
                )

            async def ceiling() -> float:
                result = await run_load(
                    parts.host,
                    parts.port or 80,
                    raw_request,
                    connections=IN_FLIGHT,
                    count=sizes.publishes,
                )
                if result.errors:
                    raise RuntimeError(f"the service refused a request: {result.first_error!r}")
                return result.per_second

            async def unbatched_rate() -> float:
                return await in_flight(lambda: aclient.publish("bench-batching", BODY))

            async def batched_rate() -> float:
                return await in_flight(lambda: batching.publish("bench-batching", BODY))

            rates: dict[str, Callable[[], Awaitable[float]]] = {
                "sync": sync_rate,
                "async": async_rate,
                "ceiling": ceiling,
                "unbatched": unbatched_rate,
                "batched": batched_rate,
            }
            if on_aiohttp is not None:
                rates["aiohttp"] = aiohttp_rate
                await aiohttp_rate()
            await async_rate()  # opens the connections, so no round pays for them
            await batched_rate()
            return await side_by_side_stats_async(rates, rounds=sizes.rounds, warmup=sizes.warmup)


# Memory per client ----------------------------------------------------------------------------------

_MEMORY_PROBE = """
import re, sys
import httpx, sdk

def rss_kib():
    with open("/proc/self/status") as status:
        return int(re.search(r"VmRSS:\\s+(\\d+) kB", status.read()).group(1))

count = int(sys.argv[2])
make = {
    "sdk": lambda: sdk.Client("http://127.0.0.1:9", api_key="sk_bench"),
    "httpx": lambda: httpx.Client(base_url="http://127.0.0.1:9"),
}[sys.argv[1]]
make()  # the first client loads what every later one shares
before = rss_kib()
clients = [make() for _ in range(count)]
print((rss_kib() - before) / count)
"""


def _rss_per_client(kind: str, count: int) -> float:
    completed = subprocess.run(
        [sys.executable, "-c", _MEMORY_PROBE, kind, str(count)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(completed.stdout.strip().splitlines()[-1])


def _memory_per_client(report: Report, sizes: _Sizes) -> None:
    if not Path("/proc/self/status").exists():
        report.skipped.append("memory per client: no /proc/self/status on this system")
        return
    for kind, label in (("sdk", "sdk.Client"), ("httpx", "bare httpx.Client")):
        report.add(
            f"RSS per {label} ({sizes.clients} made)", _rss_per_client(kind, sizes.clients), "KiB"
        )
