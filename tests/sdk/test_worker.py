"""run(): consuming streams through groups and queues through leases, deterministically (the
loop of sdk/_worker.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import (
    API_KEY,
    BASE_URL,
    QUEUE,
    leased,
    problem,
    resolve,
    sent_json,
)
from tests.sdk._worker_support import (
    GROUP,
    ORDERS,
    ClientFactory,
    acked_ids,
    acks_answer,
    claim_answer,
    entry,
    read_answer,
)


async def test_entries_are_handled_then_acknowledged(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    group: respx.Route,
    ack: respx.Route,
) -> None:
    """The group is made with the stream; each body is handled, then its id acked."""
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    read = api.post(f"{GROUP}/read").mock(
        return_value=read_answer(entry("1-0", {"id": 1}), entry("1-1", {"id": 2}))
    )
    seen: list[Any] = []

    @client.subscribe(ORDERS)
    def bill(order: dict[str, Any]) -> None:
        seen.append(order)

    await resolve(client.run(consumer="worker-1", max_messages=2))
    assert seen == [{"id": 1}, {"id": 2}]
    assert sent_json(group.calls.last) == {"group": "billing", "start_id": "$", "mkstream": True}
    assert sent_json(read.calls.last) == {"consumer": "worker-1", "count": 2, "wait_ms": 1000}
    assert acked_ids(ack) == ["1-0", "1-1"]


async def test_an_existing_group_is_fine_but_other_conflicts_are_not(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, ack: respx.Route
) -> None:
    """409 group_exists means ready; any other answer ends the run with its error."""
    create = api.post("/v1/streams/orders/groups").mock(return_value=problem(409, "group_exists"))
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    api.post(f"{GROUP}/read").mock(return_value=read_answer(entry("1-0", {})))
    client.subscribe(ORDERS)(lambda body: None)
    await resolve(client.run(max_messages=1))
    assert ack.call_count == 1
    create.mock(return_value=problem(403, "permission_denied"))
    with pytest.raises(sdk.PermissionDeniedError):
        await resolve(client.run(max_messages=1))


async def test_a_failed_entry_stays_pending_and_is_claimed_again(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    group: respx.Route,
    ack: respx.Route,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The handler raises: no ack; the next scan claims it back and it succeeds."""
    claim = api.post(f"{GROUP}/claim").mock(
        side_effect=[claim_answer(), claim_answer(entry("1-0", {"id": 1}, delivery_count=2))]
    )
    api.post(f"{GROUP}/read").mock(return_value=read_answer(entry("1-0", {"id": 1})))
    attempts: list[int] = []

    @client.subscribe(ORDERS, redeliver_after=0)
    def bill(order: dict[str, Any]) -> None:
        attempts.append(order["id"])
        if len(attempts) == 1:
            raise RuntimeError("card declined")

    await resolve(client.run(consumer="worker-1", max_messages=2))
    assert attempts == [1, 1]
    assert acked_ids(ack) == ["1-0"]
    assert sent_json(claim.calls.last) == {
        "consumer": "worker-1",
        "min_idle_ms": 0,
        "count": 1,
        "start_id": "0-0",
    }
    assert "card declined" in caplog.text and "entry 1-0" in caplog.text


async def test_trimmed_pending_entries_are_simply_done(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    group: respx.Route,
    ack: respx.Route,
) -> None:
    """Ids a claim reports deleted are not handled and need no ack."""
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer(deleted=("0-5", "0-6")))
    api.post(f"{GROUP}/read").mock(return_value=read_answer(entry("1-0", "new")))
    seen: list[Any] = []
    client.subscribe(ORDERS)(seen.append)
    await resolve(client.run(max_messages=1))
    assert seen == ["new"]
    assert [sent_json(call) for call in ack.calls] == [{"ids": ["1-0"]}]


async def test_a_claim_scan_continues_from_where_it_stopped(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    group: respx.Route,
    ack: respx.Route,
) -> None:
    """next_start_id feeds the next claim until the scan wraps to 0-0."""
    claim = api.post(f"{GROUP}/claim").mock(
        side_effect=[
            claim_answer(entry("1-0", "a", 2), next_start_id="1-1"),
            claim_answer(entry("1-1", "b", 2)),
        ]
    )
    api.post(f"{GROUP}/read").mock(return_value=read_answer())
    client.subscribe(ORDERS, redeliver_after=0, count=1)(lambda body: None)
    await resolve(client.run(max_messages=2))
    assert [sent_json(call)["start_id"] for call in claim.calls] == ["0-0", "1-1"]


async def test_stop_from_a_handler_ends_the_run_after_that_message(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    group: respx.Route,
    ack: respx.Route,
) -> None:
    """stop() lets the current message finish (and be acked), then run() returns."""
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    api.post(f"{GROUP}/read").mock(return_value=read_answer(entry("1-0", "a"), entry("1-1", "b")))
    seen: list[str] = []

    @client.subscribe(ORDERS)
    def handle(body: str) -> None:
        seen.append(body)
        client.stop()

    await resolve(client.run())
    assert seen == ["a"]
    assert acked_ids(ack) == ["1-0"]


async def test_keyboard_interrupt_stops_cleanly_without_acking(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    group: respx.Route,
    ack: respx.Route,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Ctrl+C inside a handler: run() returns, the message stays pending for later."""
    caplog.set_level(logging.INFO)
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    api.post(f"{GROUP}/read").mock(return_value=read_answer(entry("1-0", "a")))

    @client.subscribe(ORDERS)
    def handle(body: str) -> None:
        raise KeyboardInterrupt

    await resolve(client.run())
    assert ack.call_count == 0
    assert "interrupted" in caplog.text


async def test_an_unreachable_service_is_waited_out(
    make_client: ClientFactory,
    api: respx.MockRouter,
    group: respx.Route,
    ack: respx.Route,
    sleeps: list[float],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Retryable failures while polling are logged and retried after a wait."""
    client = make_client(max_retries=0)
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    api.post(f"{GROUP}/read").mock(
        side_effect=[
            httpx.ConnectError("refused"),
            problem(503, "unavailable"),
            read_answer(entry("1-0", "a")),
        ]
    )
    client.subscribe(ORDERS)(lambda body: None)
    await resolve(client.run(max_messages=1))
    assert ack.call_count == 1
    assert len(sleeps) == 2
    assert "polling failed" in caplog.text


async def test_a_permanent_failure_ends_the_run(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, group: respx.Route
) -> None:
    """A bad API key is not waited out: run() raises AuthenticationError."""
    api.post(f"{GROUP}/claim").mock(return_value=problem(401, "unauthenticated"))
    client.subscribe(ORDERS)(lambda body: None)
    with pytest.raises(sdk.AuthenticationError):
        await resolve(client.run())


async def test_an_idle_subscription_does_not_hold_up_a_busy_one(
    make_client: ClientFactory, api: respx.MockRouter, group: respx.Route
) -> None:
    """While the queue has jobs, the idle stream is read without waiting on the service."""
    client = make_client()
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    read = api.post(f"{GROUP}/read").mock(return_value=read_answer())
    jobs = iter(range(1, 7))

    def lease_answer(request: httpx.Request) -> httpx.Response:
        number = next(jobs, None)
        body = [] if number is None else [leased(f"job-{number}", payload={"n": number})]
        return httpx.Response(200, json={"queue": "jobs", "jobs": body})

    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    api.post("/v1/queues/jobs/leases").mock(side_effect=lease_answer)
    api.post("/v1/queues/jobs/acks").mock(side_effect=acks_answer)
    handled: list[int] = []
    client.subscribe(ORDERS)(lambda body: None)
    queue = await resolve(client.init_queue("jobs"))
    queue.subscribe()(lambda payload: handled.append(payload["n"]))
    await resolve(client.run(max_messages=6, poll_wait="10s"))

    assert handled == [1, 2, 3, 4, 5, 6]
    # Each subscription is fetched on its own, so the idle one long-polls all the while.
    assert {sent_json(call)["wait_ms"] for call in read.calls} == {5_000}


def test_the_sync_loop_always_long_polls_and_never_pauses(
    api: respx.MockRouter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every lease is a long poll, also the one that fetches ahead while a job is handled, and
    none waits on a timer first: a job arriving at an idle queue never waits for the worker.
    """
    answers = iter([[leased("job-1", payload={"n": 1})], [], [leased("job-2", payload={"n": 2})]])
    waits: list[int] = []

    def lease_answer(request: httpx.Request) -> httpx.Response:
        waits.append(json.loads(request.content)["wait_ms"])
        return httpx.Response(200, json={"queue": "jobs", "jobs": next(answers)})

    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    api.post("/v1/queues/jobs/leases").mock(side_effect=lease_answer)
    api.post("/v1/queues/jobs/acks").mock(side_effect=acks_answer)
    pauses: list[float] = []
    monkeypatch.setattr("sdk._retry.sleep", pauses.append)
    with sdk.Client(BASE_URL, api_key=API_KEY) as client:
        queue = client.init_queue("jobs")
        queue.subscribe()(lambda payload: None)

        client.run(max_messages=2, poll_wait="2s")

    assert waits == [2_000, 2_000, 2_000]
    assert pauses == []


async def test_subscribe_creates_the_group_with_its_max_deliveries(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, group: respx.Route
) -> None:
    """max_deliveries goes into the createGroup that run() sends."""
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    api.post(f"{GROUP}/read").mock(return_value=read_answer(entry("1-0", 1)))
    api.post(f"{GROUP}/ack").mock(return_value=httpx.Response(200, json={"acked": 1}))
    client.subscribe(ORDERS, max_deliveries=4)(lambda body: None)
    await resolve(client.run(max_messages=1))
    assert sent_json(group.calls.last)["max_deliveries"] == 4


@pytest.mark.parametrize(
    ("stream", "max_deliveries", "error"),
    [
        (ORDERS, 0, sdk.InvalidArgumentError),
        (ORDERS, 2.5, sdk.InvalidArgumentError),
        (sdk.Stream("o" * 124, group="billing"), 3, sdk.InvalidNameError),
    ],
)
def test_subscribe_refuses_an_unusable_max_deliveries(
    stream: sdk.Stream, max_deliveries: Any, error: type[Exception]
) -> None:
    """Checked when subscribing, not when run() first creates the group."""
    with sdk.Client("http://spool.test") as client, pytest.raises(error):
        client.subscribe(stream, max_deliveries=max_deliveries)


async def test_a_group_given_to_subscribe_wins(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """subscribe(stream, group=...) consumes through that group."""
    create = api.post("/v1/streams/orders/groups").mock(return_value=problem(409, "group_exists"))
    api.post("/v1/streams/orders/groups/audit/claim").mock(return_value=claim_answer())
    api.post("/v1/streams/orders/groups/audit/read").mock(return_value=read_answer(entry("1-0", 1)))
    api.post("/v1/streams/orders/groups/audit/ack").mock(
        return_value=httpx.Response(200, json={"acked": 1})
    )
    client.subscribe(sdk.Stream("orders"), group="audit")(lambda body: None)
    await resolve(client.run(max_messages=1))
    assert sent_json(create.calls.last)["group"] == "audit"


def test_stop_from_another_thread() -> None:
    """A Client running in one thread stops when another calls stop()."""
    with respx.mock(base_url="http://spool.test") as api, sdk.Client("http://spool.test") as client:
        api.post("/v1/streams/orders/groups").mock(return_value=problem(409, "group_exists"))
        api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
        polled = threading.Event()

        def read(request: httpx.Request) -> httpx.Response:
            polled.set()
            return read_answer()

        api.post(f"{GROUP}/read").mock(side_effect=read)
        client.subscribe(ORDERS)(lambda body: None)
        worker = threading.Thread(target=client.run)
        worker.start()
        assert polled.wait(timeout=30)
        client.stop()
        worker.join(timeout=30)
        assert not worker.is_alive()


async def test_an_async_run_ends_without_waiting_out_the_others_long_polls(
    api: respx.MockRouter, group: respx.Route
) -> None:
    """Once the budget is spent, a subscription still waiting in a long poll is not waited for."""
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())

    async def never_answers(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(3600)
        raise AssertionError("the long poll was waited out")

    api.post(f"{GROUP}/read").mock(side_effect=never_answers)
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    api.post("/v1/queues/jobs/leases").mock(
        return_value=httpx.Response(200, json={"queue": "jobs", "jobs": [leased("job_1")]})
    )
    api.post("/v1/queues/jobs/acks").mock(side_effect=acks_answer)
    handled: list[object] = []
    async with sdk.AsyncClient("http://spool.test") as client:
        client.subscribe(ORDERS)(lambda body: None)
        queue = await client.init_queue("jobs")
        queue.subscribe()(handled.append)
        # A liveness bound, not a speed figure: without the cancel this takes an hour.
        await asyncio.wait_for(client.run(max_messages=1), timeout=30)
    assert len(handled) == 1


def test_a_sync_run_ends_without_waiting_out_the_others_long_polls(
    api: respx.MockRouter,
) -> None:
    """Once the budget is spent, run() returns while another subscription's long poll is still
    out; what that poll brings afterwards is given back by its own thread.
    """
    idle_polling, answer_now, given_back = threading.Event(), threading.Event(), threading.Event()

    def idle_lease(request: httpx.Request) -> httpx.Response:
        idle_polling.set()
        assert answer_now.wait(timeout=30)
        return httpx.Response(200, json={"queue": "later", "jobs": [leased("job_late")]})

    def busy_answer(request: httpx.Request) -> httpx.Response:
        # Answered only once the idle queue's long poll is out.
        assert idle_polling.wait(timeout=30)
        return httpx.Response(200, json={"queue": "jobs", "jobs": [leased("job_1")]})

    def released(request: httpx.Request) -> httpx.Response:
        given_back.set()
        return httpx.Response(200, json={"results": [{"job_id": "job_late", "released": True}]})

    for name in ("jobs", "later"):
        api.get(f"/v1/queues/{name}").mock(return_value=httpx.Response(200, json=QUEUE))
    api.post("/v1/queues/later/leases").mock(side_effect=idle_lease)
    release = api.post("/v1/queues/later/releases").mock(side_effect=released)
    busy_lease = api.post("/v1/queues/jobs/leases").mock(side_effect=busy_answer)
    api.post("/v1/queues/jobs/acks").mock(side_effect=acks_answer)
    handled: list[object] = []
    with sdk.Client(BASE_URL, api_key=API_KEY) as client:
        client.init_queue("later").subscribe()(lambda payload: None)
        client.init_queue("jobs").subscribe()(handled.append)

        client.run(max_messages=1)

        assert handled == [{"userId": "12345"}]
        assert busy_lease.call_count == 1
        # run() came back while the idle lease was still waiting for its answer.
        assert release.call_count == 0
        answer_now.set()
        assert given_back.wait(timeout=30)
    assert sent_json(release.calls.last) == {
        "jobs": [{"job_id": "job_late", "lease_id": "lease_1"}]
    }


def _three_jobs_at_a_time(api: respx.MockRouter) -> None:
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    numbers = iter(range(100))

    def lease_answer(request: httpx.Request) -> httpx.Response:
        count = json.loads(request.content)["max_jobs"]
        jobs = [leased(f"job_{next(numbers)}") for _ in range(min(count, 3))]
        return httpx.Response(200, json={"jobs": jobs})

    api.post("/v1/queues/jobs/leases").mock(side_effect=lease_answer)
    api.post("/v1/queues/jobs/acks").mock(side_effect=acks_answer)


def test_a_sync_run_with_concurrency_runs_handlers_in_threads_at_once(
    api: respx.MockRouter,
) -> None:
    """concurrency=3: three handlers are in their jobs at the same time, each in a thread."""
    _three_jobs_at_a_time(api)
    together = threading.Barrier(3, timeout=30)
    threads: set[int] = set()
    with sdk.Client(BASE_URL, api_key=API_KEY) as client:
        queue = client.init_queue("jobs")

        @queue.subscribe()
        def handle(payload: object) -> None:
            threads.add(threading.get_ident())
            together.wait()

        client.run(max_messages=6, concurrency=3)
    assert len(threads) == 3 and threading.get_ident() not in threads


async def test_an_async_run_with_concurrency_awaits_handlers_at_once(
    api: respx.MockRouter,
) -> None:
    """concurrency=3: three async handlers are awaiting at the same time."""
    _three_jobs_at_a_time(api)
    waiting: list[asyncio.Event] = []

    async with sdk.AsyncClient(BASE_URL, api_key=API_KEY) as client:
        queue = await client.init_queue("jobs")

        @queue.subscribe()
        async def handle(payload: object) -> None:
            arrived = asyncio.Event()
            waiting.append(arrived)
            if len(waiting) % 3 == 0:
                for event in waiting[-3:]:
                    event.set()
            await asyncio.wait_for(arrived.wait(), timeout=30)

        await client.run(max_messages=6, concurrency=3)
    assert len(waiting) == 6
