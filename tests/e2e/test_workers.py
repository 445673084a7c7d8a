"""`client.run()` against the real service: stream groups with stacked publishers, queue workers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import sdk
from sdk._publisher import publishers_of
from tests.e2e.conftest import AnyClient
from tests.sdk._support import resolve

pytestmark = pytest.mark.slow

# Bounds every run(): a broken loop fails its assertions instead of hanging the suite.
RUN_LIMIT = 60


async def _bodies(client: AnyClient, stream: str) -> list[object]:
    return [entry.body for entry in await resolve(client.streams.range(stream))]


async def test_stacked_publishers_send_the_result_to_both_streams(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """@subscribe + two @publisher: each consumed order's result lands in both streams."""
    orders = sdk.Stream(name("orders"), group="billing")
    events, notifications = name("events"), name("notifications")
    handled: list[Any] = []

    @client.subscribe(orders, start_id="0")
    # client.publisher(...) is Publisher | AsyncPublisher, and mypy takes a union of typed
    # decorators for an untyped one (python/mypy#16384).
    @client.publisher(events)  # type: ignore[untyped-decorator]
    @client.publisher(notifications)  # type: ignore[untyped-decorator]
    def handle(order: dict[str, Any]) -> dict[str, Any]:
        handled.append(order)
        return {"billed": order["id"]}

    publishers = publishers_of(handle)
    assert [publisher.stream.name for publisher in publishers] == [notifications, events]

    assert handle({"id": 0}) == {"billed": 0}
    for stream in (events, notifications):
        with pytest.raises(sdk.NotFoundError):
            await resolve(client.streams.length(stream))
    handled.clear()

    await resolve(client.publish(orders, {"id": 1}))
    await resolve(client.publish(orders, {"id": 2}))
    await resolve(client.run(max_messages=2, stop_after=RUN_LIMIT))

    assert handled == [{"id": 1}, {"id": 2}]
    assert await _bodies(client, events) == [{"billed": 1}, {"billed": 2}]
    assert await _bodies(client, notifications) == [{"billed": 1}, {"billed": 2}]
    info = await resolve(client.streams.info(orders))
    assert [(group.group, group.pending) for group in info.groups] == [("billing", 0)]


async def test_a_handler_returning_none_publishes_nothing(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """Publishers skip None: the stream they name is never created."""
    orders = sdk.Stream(name("orders"), group="audit")
    events = name("events")

    @client.subscribe(orders, start_id="0")
    @client.publisher(events)  # type: ignore[untyped-decorator]
    def handle(order: dict[str, Any]) -> None:
        return None

    await resolve(client.publish(orders, {"id": 1}))
    await resolve(client.run(max_messages=1, stop_after=RUN_LIMIT))
    with pytest.raises(sdk.NotFoundError):
        await resolve(client.streams.length(events))


async def test_a_failed_entry_stays_pending_and_is_delivered_again(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """A handler that raises leaves the entry pending; it is claimed again and then acknowledged."""
    orders = sdk.Stream(name("orders"), group="billing")
    calls: list[Any] = []

    @client.subscribe(orders, start_id="0", redeliver_after=0)
    def handle(order: dict[str, Any]) -> None:
        calls.append(order)
        if len(calls) == 1:
            raise RuntimeError("the payment provider is down")

    await resolve(client.publish(orders, {"id": 1}))
    await resolve(client.run(max_messages=2, stop_after=RUN_LIMIT))
    assert calls == [{"id": 1}, {"id": 1}]
    assert await resolve(client.streams.pending(orders)) == []


class _FailsOnce:
    """A codec whose first encode raises, as a service outage during a publish would."""

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, value: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            raise RuntimeError("the first publish fails")
        return value

    def decode(self, value: Any) -> Any:
        return value


async def test_a_failing_publisher_fails_the_message_and_all_publishers_run_again(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """A PublishError in a publisher leaves the entry pending; on the retry every publisher runs."""
    orders = sdk.Stream(name("orders"), group="billing")
    events, flaky = name("events"), sdk.Stream(name("flaky"), codec=_FailsOnce())
    calls: list[Any] = []

    @client.subscribe(orders, start_id="0", redeliver_after=0)
    @client.publisher(flaky)  # type: ignore[untyped-decorator]
    @client.publisher(events)  # type: ignore[untyped-decorator]
    def handle(order: dict[str, Any]) -> dict[str, Any]:
        calls.append(order)
        return {"billed": order["id"]}

    await resolve(client.publish(orders, {"id": 1}))
    await resolve(client.run(max_messages=2, stop_after=RUN_LIMIT))
    assert calls == [{"id": 1}, {"id": 1}]
    assert await _bodies(client, events) == [{"billed": 1}, {"billed": 1}]
    assert await _bodies(client, flaky.name) == [{"billed": 1}]
    assert await resolve(client.streams.pending(orders)) == []


async def test_a_pending_entry_trimmed_away_is_simply_acknowledged(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """An entry that failed and was then trimmed is not delivered again and leaves no pending."""
    orders = sdk.Stream(name("orders"), group="billing")
    calls: list[Any] = []

    @client.subscribe(orders, start_id="0", redeliver_after=0)
    def handle(order: dict[str, Any]) -> None:
        calls.append(order)
        if order["id"] == 1:
            raise RuntimeError("fails until trimmed away")

    await resolve(client.publish(orders, {"id": 1}))
    await resolve(client.run(max_messages=1, stop_after=RUN_LIMIT))
    assert [entry.id for entry in await resolve(client.streams.pending(orders))]
    await resolve(client.streams.trim(orders, maxlen=0, approximate=False))
    await resolve(client.publish(orders, {"id": 2}))
    await resolve(client.run(max_messages=1, stop_after=RUN_LIMIT))
    assert calls == [{"id": 1}, {"id": 2}]
    assert await resolve(client.streams.pending(orders)) == []


async def test_an_entry_that_always_fails_is_dead_lettered_after_max_deliveries(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """With max_deliveries=3 the handler sees a failing entry exactly three times; the next claim
    moves it to `<stream>.dead` with where it came from, and run() goes on to the next entry.
    """
    orders = sdk.Stream(name("orders"), group="billing")
    calls: list[Any] = []

    @client.subscribe(orders, start_id="0", redeliver_after=0, max_deliveries=3)
    def handle(order: dict[str, Any]) -> None:
        calls.append(order)
        if order["id"] == 1:
            raise RuntimeError("this order can never be billed")

    first = await resolve(client.publish(orders, {"id": 1}))
    await resolve(client.run(max_messages=3, stop_after=RUN_LIMIT))
    assert calls == [{"id": 1}] * 3
    [group] = (await resolve(client.streams.info(orders))).groups
    assert group.max_deliveries == 3
    await resolve(client.publish(orders, {"id": 2}))
    await resolve(client.run(max_messages=1, stop_after=RUN_LIMIT))
    assert calls == [{"id": 1}] * 3 + [{"id": 2}]
    assert await resolve(client.streams.pending(orders)) == []
    assert await _bodies(client, f"{orders.name}.dead") == [
        {
            "stream": orders.name,
            "id": first,
            "group": "billing",
            "delivery_count": 3,
            "body": {"id": 1},
        }
    ]


async def test_queues_need_creating_first(client: AnyClient, name: Callable[[str], str]) -> None:
    """`init_queue` of a queue never created raises NotFoundError; after `create` it works."""
    jobs = name("jobs")
    with pytest.raises(sdk.NotFoundError) as caught:
        await resolve(client.init_queue(jobs))
    assert caught.value.code == "queue_not_found"
    info = await resolve(client.queues.create(jobs, max_attempts=5))
    assert (info.name, info.max_attempts) == (jobs, 5)
    queue = await resolve(client.init_queue(jobs))
    assert queue.name == jobs
    assert jobs in [listed.name for listed in await resolve(client.queues.list())]


async def test_a_worker_consumes_jobs_and_retries_a_failure(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """@queue.subscribe: jobs are handled at least once; one that raised is retried and succeeds."""
    jobs = name("jobs")
    await resolve(client.queues.create(jobs, max_attempts=5))
    queue: sdk.Queue | sdk.AsyncQueue = await resolve(client.init_queue(jobs))
    seen: list[str] = []

    @queue.subscribe("email-jobs")
    def send(job: dict[str, Any]) -> None:
        seen.append(job["userId"])
        if job["userId"] == "12345" and seen.count("12345") == 1:
            raise RuntimeError("the mail server is down")

    receipt = await resolve(
        queue.publish("email-jobs", {"userId": "12345", "template": "welcome-email"})
    )
    assert receipt.job_id and receipt.queue == jobs and not receipt.deduplicated
    other = await resolve(queue.publish("email-jobs", {"userId": "67890"}))
    await resolve(client.run(max_messages=3, stop_after=RUN_LIMIT))

    assert sorted(seen) == ["12345", "12345", "67890"]
    retried = await resolve(queue.job(receipt.job_id))
    assert (retried.state, retried.attempts) == ("succeeded", 2)
    assert "the mail server is down" in (retried.last_error or "")
    assert (await resolve(queue.job(other.job_id))).state == "succeeded"


async def test_jobs_fetched_ahead_of_a_stop_are_released_not_killed(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """Jobs on their only attempt, leased ahead and not handled when run() stops, are ready
    afterwards with their attempts as before, not dead; the attempt ends as released.
    """
    jobs = name("jobs")
    await resolve(client.queues.create(jobs, max_attempts=1))
    queue: sdk.Queue | sdk.AsyncQueue = await resolve(client.init_queue(jobs))
    handled: list[int] = []

    @queue.subscribe("email", count=3)
    def send(job: int) -> None:
        handled.append(job)
        client.stop()

    receipts = await resolve(queue.publish_many([("email", n) for n in range(3)]))
    await resolve(client.run(stop_after=RUN_LIMIT))
    assert handled == [0]
    first, *rest = [await resolve(queue.job(receipt.job_id)) for receipt in receipts]
    assert (first.state, first.attempts) == ("succeeded", 1)
    for job in rest:
        assert (job.state, job.attempts, job.last_error) == ("ready", 0, None)
        assert [attempt.outcome for attempt in job.attempt_history] == ["released"]
    info = await resolve(queue.info())
    assert (info.stats.ready, info.stats.dead) == (2, 0)


async def test_a_worker_takes_only_its_topics(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """Jobs of other topics stay ready for other workers."""
    jobs = name("jobs")
    await resolve(client.queues.create(jobs))
    queue = await resolve(client.init_queue(jobs))
    seen: list[Any] = []
    queue.subscribe("sms-jobs")(seen.append)
    email = await resolve(queue.publish("email-jobs", {"to": "a@example.com"}))
    await resolve(queue.publish("sms-jobs", {"to": "+15550100"}))
    await resolve(client.run(max_messages=1, stop_after=RUN_LIMIT))
    assert seen == [{"to": "+15550100"}]
    assert (await resolve(queue.job(email.job_id))).state == "ready"


async def test_queue_publish_many_and_deduplication(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """`queue.publish_many` returns one receipt per job; a repeated deduplication_id is skipped."""
    jobs = name("jobs")
    await resolve(client.queues.create(jobs))
    queue = await resolve(client.init_queue(jobs))
    receipts = await resolve(
        queue.publish_many(
            [
                ("email-jobs", {"n": 1}),
                sdk.JobRequest("email-jobs", {"n": 2}, deduplication_id="welcome-2"),
                sdk.JobRequest("sms-jobs", {"n": 3}, delay="1h"),
            ]
        )
    )
    assert [(receipt.topic, receipt.deduplicated) for receipt in receipts] == [
        ("email-jobs", False),
        ("email-jobs", False),
        ("sms-jobs", False),
    ]
    again = await resolve(queue.publish("email-jobs", {"n": 2}, deduplication_id="welcome-2"))
    assert again.deduplicated and again.job_id == receipts[1].job_id
    stats = (await resolve(queue.info())).stats
    assert (stats.ready, stats.delayed) == (2, 1)


async def test_the_same_idempotency_key_submits_a_job_once(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """A queue publish repeated with its idempotency key returns the first receipt."""
    jobs = name("jobs")
    await resolve(client.queues.create(jobs))
    queue = await resolve(client.init_queue(jobs))
    key = name("key")
    first = await resolve(queue.publish("email-jobs", {"n": 1}, idempotency_key=key))
    second = await resolve(queue.publish("email-jobs", {"n": 1}, idempotency_key=key))
    assert first.job_id == second.job_id
    assert (await resolve(queue.info())).stats.ready == 1


async def test_invalid_and_reserved_topics_fail_before_any_request(
    service: Any, name: Callable[[str], str]
) -> None:
    """A bad topic raises InvalidTopicError, a reserved one ReservedTopicError; nothing is sent."""
    import httpx

    sent: list[httpx.Request] = []
    jobs = name("jobs")
    http_client = httpx.Client(event_hooks={"request": [sent.append]})
    with (
        http_client,
        sdk.Client(service.base_url, service.token, http_client=http_client) as client,
    ):
        client.queues.create(jobs)
        queue = client.init_queue(jobs)
        before = len(sent)
        with pytest.raises(sdk.InvalidTopicError):
            queue.publish("email jobs!", {})
        with pytest.raises(sdk.ReservedTopicError):
            queue.publish("spool.internal", {})
        with pytest.raises(sdk.InvalidTopicError):
            queue.subscribe("")
        assert len(sent) == before


async def test_async_handlers_on_an_async_client(service: Any, name: Callable[[str], str]) -> None:
    """`async def` handlers and publishers on an AsyncClient, streams and queues in one run."""
    async with sdk.AsyncClient(service.base_url, service.token) as client:
        orders = sdk.Stream(name("orders"), group="billing")
        events, jobs = name("events"), name("jobs")
        await client.queues.create(jobs)
        queue = await client.init_queue(jobs)
        handled: list[Any] = []

        @client.subscribe(orders, start_id="0")
        @client.publisher(events)
        async def bill(order: dict[str, Any]) -> dict[str, Any]:
            handled.append(order)
            return {"billed": order["id"]}

        @queue.subscribe("email-jobs")
        async def send(job: dict[str, Any]) -> None:
            handled.append(job)

        await client.publish(orders, {"id": 1})
        await queue.publish("email-jobs", {"userId": "12345"})
        await client.run(max_messages=2, stop_after=RUN_LIMIT)
        assert sorted(handled, key=str) == [{"id": 1}, {"userId": "12345"}]
        assert await _bodies(client, events) == [{"billed": 1}]
