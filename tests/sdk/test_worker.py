"""run(): consuming streams through groups and queues through leases, deterministically."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import QUEUE, appended, job, leased, problem, resolve, sent_json

ClientFactory = Callable[..., "sdk.Client | sdk.AsyncClient"]
ORDERS = sdk.Stream("orders", group="billing")
GROUP = "/v1/streams/orders/groups/billing"


def entry(entry_id: str, body: Any, delivery_count: int = 1) -> dict[str, Any]:
    """A delivered entry."""
    return {"id": entry_id, "body": body, "delivery_count": delivery_count}


def read_answer(*entries: dict[str, Any]) -> httpx.Response:
    """readGroup's answer."""
    return httpx.Response(
        200, json={"stream": "orders", "group": "billing", "entries": list(entries)}
    )


def claim_answer(
    *entries: dict[str, Any], deleted: tuple[str, ...] = (), next_start_id: str = "0-0"
) -> httpx.Response:
    """claimEntries's answer."""
    return httpx.Response(
        200,
        json={
            "stream": "orders",
            "group": "billing",
            "next_start_id": next_start_id,
            "entries": list(entries),
            "deleted_ids": list(deleted),
        },
    )


@pytest.fixture
def group(api: respx.MockRouter) -> respx.Route:
    """createGroup answering 201."""
    return api.post("/v1/streams/orders/groups").mock(
        return_value=httpx.Response(
            201, json={"group": "billing", "consumers": 0, "pending": 0, "last_delivered_id": "0-0"}
        )
    )


@pytest.fixture
def ack(api: respx.MockRouter) -> respx.Route:
    """ackEntries answering 1."""
    return api.post(f"{GROUP}/ack").mock(return_value=httpx.Response(200, json={"acked": 1}))


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
    assert [sent_json(call) for call in ack.calls] == [{"ids": ["1-0"]}, {"ids": ["1-1"]}]


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
    assert [sent_json(call) for call in ack.calls] == [{"ids": ["1-0"]}]
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


async def test_return_values_go_to_every_stacked_publisher(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    group: respx.Route,
    ack: respx.Route,
) -> None:
    """A non-None return is published to each publisher in order; None publishes nothing."""
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    api.post(f"{GROUP}/read").mock(
        return_value=read_answer(entry("1-0", {"id": 7}), entry("1-1", {"id": 0}))
    )
    events = api.post("/v1/streams/events/entries").mock(return_value=appended())
    notifications = api.post("/v1/streams/notifications/entries").mock(return_value=appended())
    order: list[str] = []

    def appending(stream: str) -> Callable[[httpx.Request], httpx.Response]:
        def answer(request: httpx.Request) -> httpx.Response:
            order.append(stream)
            return appended()

        return answer

    events.side_effect = appending("events")
    notifications.side_effect = appending("notifications")

    @client.subscribe(ORDERS)
    # client.publisher(...) is Publisher | AsyncPublisher, and mypy takes a union of typed
    # decorators for an untyped one (python/mypy#16384).
    @client.publisher("events")  # type: ignore[untyped-decorator]
    @client.publisher("notifications")  # type: ignore[untyped-decorator]
    def bill(body: dict[str, Any]) -> dict[str, Any] | None:
        return {"order": body["id"], "status": "billed"} if body["id"] else None

    await resolve(client.run(max_messages=2))
    assert order == ["notifications", "events"]
    assert sent_json(events.calls.last) == {"body": {"order": 7, "status": "billed"}}
    assert ack.call_count == 2


async def test_a_publish_error_fails_the_message_and_publishers_run_again(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    group: respx.Route,
    ack: respx.Route,
) -> None:
    """The second publisher fails: no ack; on the retry the first publishes again."""
    api.post(f"{GROUP}/claim").mock(
        side_effect=[claim_answer(), claim_answer(entry("1-0", {"id": 7}, 2))]
    )
    api.post(f"{GROUP}/read").mock(return_value=read_answer(entry("1-0", {"id": 7})))
    first = api.post("/v1/streams/first/entries").mock(return_value=appended())
    second = api.post("/v1/streams/second/entries").mock(
        side_effect=[problem(403, "permission_denied"), appended()]
    )

    @client.subscribe(ORDERS, redeliver_after=0)
    @client.publisher("second")  # type: ignore[untyped-decorator]
    @client.publisher("first")  # type: ignore[untyped-decorator]
    def bill(body: dict[str, Any]) -> dict[str, Any]:
        return body

    await resolve(client.run(max_messages=2))
    assert first.call_count == 2
    assert second.call_count == 2
    assert ack.call_count == 1


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
    assert [sent_json(call) for call in ack.calls] == [{"ids": ["1-0"]}]


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


async def test_stop_after_zero_sends_nothing(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A deadline already passed ends the run before any request."""
    client.subscribe(ORDERS)(lambda body: None)
    await resolve(client.run(stop_after=0))
    assert api.calls.call_count == 0


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


async def test_queue_jobs_are_acked_or_nacked(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A returning handler acks its lease; a raising one nacks with the error and delay."""
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    lease = api.post("/v1/queues/jobs/leases").mock(
        return_value=httpx.Response(
            200,
            json={
                "jobs": [
                    leased("job_1", payload={"ok": True}, lease_id="lease_1"),
                    leased("job_2", payload={"ok": False}, lease_id="lease_2"),
                ]
            },
        )
    )
    ack = api.post("/v1/queues/jobs/jobs/job_1/ack").mock(
        return_value=httpx.Response(200, json=job("job_1"))
    )
    nack = api.post("/v1/queues/jobs/jobs/job_2/nack").mock(
        return_value=httpx.Response(200, json=job("job_2", state="delayed"))
    )
    queue: sdk.Queue | sdk.AsyncQueue = await resolve(client.init_queue("jobs"))

    @queue.subscribe("email-jobs", count=2, retry_delay="5s", lease="1m")
    def send(payload: dict[str, bool]) -> None:
        if not payload["ok"]:
            raise ValueError("SMTP timeout")

    await resolve(client.run(consumer="worker-1", max_messages=2))
    assert sent_json(lease.calls.last) == {
        "consumer": "worker-1",
        "topics": ["email-jobs"],
        "max_jobs": 2,
        "lease_seconds": 60,
        "wait_ms": 1000,
    }
    assert sent_json(ack.calls.last) == {"lease_id": "lease_1"}
    assert sent_json(nack.calls.last) == {
        "lease_id": "lease_2",
        "retry_delay": 5,
        "error": "ValueError: SMTP timeout",
    }


async def test_jobs_leased_after_a_stop_are_given_back(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A stop mid-batch nacks the leases not handled yet, so they need not time out."""
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    lease = api.post("/v1/queues/jobs/leases").mock(
        return_value=httpx.Response(
            200, json={"jobs": [leased("job_1"), leased("job_2", lease_id="lease_2")]}
        )
    )
    api.post("/v1/queues/jobs/jobs/job_1/ack").mock(return_value=httpx.Response(200, json=job()))
    nack = api.post("/v1/queues/jobs/jobs/job_2/nack").mock(
        return_value=httpx.Response(200, json=job("job_2", state="ready"))
    )
    queue = await resolve(client.init_queue("jobs"))
    queue.subscribe(count=2)(lambda payload: client.stop())
    await resolve(client.run())
    assert "topics" not in sent_json(lease.calls.last)
    assert sent_json(nack.calls.last) == {
        "lease_id": "lease_2",
        "retry_delay": 0,
        "error": "worker stopped before handling the job",
    }


async def test_subscriptions_share_the_long_poll(
    make_client: ClientFactory, api: respx.MockRouter, group: respx.Route, ack: respx.Route
) -> None:
    """A sync client's subscriptions, polled in turn, split poll_wait after a round that found
    nothing; an async client's each wait the whole of it at once. It never exceeds half the HTTP
    timeout.
    """
    client = make_client(timeout=1.0)
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    read = api.post(f"{GROUP}/read").mock(
        side_effect=[read_answer(), read_answer(), *[read_answer(entry("1-0", "a"))] * 4]
    )
    client.subscribe(ORDERS)(lambda body: None)
    client.subscribe(sdk.Stream("orders", group="billing"))(lambda body: None)
    await resolve(client.run(max_messages=2, poll_wait="10s"))
    waits = [sent_json(call)["wait_ms"] for call in read.calls]
    if isinstance(client, sdk.Client):
        # A first round without waiting, then (it found nothing) a shared long poll.
        assert waits[:3] == [0, 0, 250]
    else:
        assert set(waits) == {500}


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
    api.post(url__regex=r"/v1/queues/jobs/jobs/job-\d+/ack").mock(
        side_effect=lambda request: httpx.Response(200, json=job("job-1", state="succeeded"))
    )
    handled: list[int] = []
    client.subscribe(ORDERS)(lambda body: None)
    queue = await resolve(client.init_queue("jobs"))
    queue.subscribe()(lambda payload: handled.append(payload["n"]))
    await resolve(client.run(max_messages=6, poll_wait="10s"))

    assert handled == [1, 2, 3, 4, 5, 6]
    if isinstance(client, sdk.Client):
        # Polled in turn: only the first round (nothing known to be waiting yet) waits.
        assert [sent_json(call)["wait_ms"] for call in read.calls][1:] == [0] * (
            len(read.calls) - 1
        )


async def test_configuration_mistakes_are_refused(
    client: sdk.Client | sdk.AsyncClient,
) -> None:
    """No subscriptions, a Stream without group, a bad consumer or budget: ConfigurationError."""
    with pytest.raises(sdk.ConfigurationError, match="nothing to run"):
        await resolve(client.run())
    with pytest.raises(sdk.ConfigurationError, match="consumer group"):
        client.subscribe(sdk.Stream("orders"))
    with pytest.raises(sdk.ConfigurationError, match="Stream"):
        client.subscribe("orders")  # type: ignore[arg-type]
    client.subscribe(ORDERS)(lambda body: None)
    with pytest.raises(sdk.InvalidNameError):
        await resolve(client.run(consumer="not valid"))
    with pytest.raises(sdk.ConfigurationError, match="max_messages"):
        await resolve(client.run(max_messages=0))


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


def test_a_sync_client_refuses_async_handlers_and_publishers() -> None:
    """Client.run cannot await: async handlers and AsyncPublishers are refused up front."""

    async def handler(body: Any) -> None:
        return None

    with sdk.Client("http://spool.test") as client:
        with pytest.raises(sdk.ConfigurationError, match="AsyncClient"):
            client.subscribe(ORDERS)(handler)
        async_publisher = sdk.AsyncClient("http://spool.test").publisher("events")
        client.subscribe(ORDERS)(async_publisher(lambda body: body))
        with pytest.raises(sdk.ConfigurationError, match="same kind of client"):
            client.run()


async def test_an_async_client_runs_async_and_plain_handlers(
    api: respx.MockRouter, group: respx.Route, ack: respx.Route
) -> None:
    """AsyncClient awaits coroutine handlers and calls plain ones."""
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    api.post(f"{GROUP}/read").mock(return_value=read_answer(entry("1-0", "a")))
    seen: list[str] = []
    async with sdk.AsyncClient("http://spool.test") as client:

        @client.subscribe(ORDERS)
        async def handle(body: str) -> None:
            seen.append(f"async {body}")

        def plain(body: str) -> None:
            seen.append(f"plain {body}")
            client.stop()

        client.subscribe(ORDERS)(plain)
        await client.run()
    assert "async a" in seen and "plain a" in seen


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


async def test_a_lease_that_ended_before_the_ack_does_not_stop_the_worker(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """409 lease_expired on ack is logged (the job comes back); other conflicts end the run."""
    api.get("/v1/queues/jobs").mock(return_value=httpx.Response(200, json=QUEUE))
    api.post("/v1/queues/jobs/leases").mock(
        return_value=httpx.Response(200, json={"jobs": [leased("job_1")]})
    )
    ack = api.post("/v1/queues/jobs/jobs/job_1/ack").mock(
        return_value=problem(409, "lease_expired")
    )
    queue = await resolve(client.init_queue("jobs"))
    queue.subscribe("email-jobs")(lambda payload: None)
    await resolve(client.run(max_messages=1))
    assert "ended before the handler finished" in caplog.text
    ack.mock(return_value=problem(409, "invalid_state"))
    with pytest.raises(sdk.ConflictError):
        await resolve(client.run(max_messages=1))


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
    api.post("/v1/queues/jobs/jobs/job_1/ack").mock(return_value=httpx.Response(200, json=job()))
    handled: list[object] = []
    async with sdk.AsyncClient("http://spool.test") as client:
        client.subscribe(ORDERS)(lambda body: None)
        queue = await client.init_queue("jobs")
        queue.subscribe()(handled.append)
        # A liveness bound, not a speed figure: without the cancel this takes an hour.
        await asyncio.wait_for(client.run(max_messages=1), timeout=30)
    assert len(handled) == 1
