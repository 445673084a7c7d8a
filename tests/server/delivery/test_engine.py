"""The delivery engine (server/delivery/engine.py): claims, wake-ups, concurrency, start and stop,
against an in-memory store, real receivers on loopback and each real store.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Literal

import httpx
import pytest

from server.delivery import DeliveryEngine, DeliverySettings
from server.stores.base import MessageRecord, StoreUnavailableError
from tests._eventually import eventually
from tests.server.delivery._support import (
    HANG,
    KEYS,
    LOOPBACK,
    RECEIVER,
    EndpointFactory,
    EngineFactory,
    MemoryStore,
    Reply,
    new_message,
    publish,
    settled,
)


async def test_not_delivered_before_not_before(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A message scheduled in the future arrives only once its time has come."""
    receiver = await endpoint(Reply(200))
    not_before = time.time() + 1.0
    message_id = await publish(store, new_message(receiver.url(), not_before=not_before))
    await engine().start()
    await eventually(settled(store, message_id))
    assert receiver.requests[0].at >= not_before


async def test_lease_ending_mid_attempt_does_not_send_twice(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A message this process claims again while settling it is recorded under the new lease."""
    receiver = await endpoint(Reply(200, delay=0.2))
    message_id = await publish(store, new_message(receiver.url(), timeout=1))
    store.next_record_delay = 1.5
    await engine(lease_margin=0.0).start()
    await eventually(settled(store, message_id))
    assert len(receiver.requests) == 1
    assert len(store.messages[message_id].attempts) == 1
    assert store.messages[message_id].state == "delivered"


async def test_a_settled_attempt_is_out_of_flight_before_its_task_ends(
    store: MemoryStore,
    endpoint: EndpointFactory,
    engine: EngineFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A retry due at once may be claimed before the attempt's task has ended: by then the
    message is no longer in flight, so the claim sends it instead of leaving it for its lease.
    """
    receiver = await endpoint(Reply(500), Reply(200))
    message_id = await publish(store, new_message(receiver.url(), retries=1, retry_delay=None))
    delivery = engine(default_retry_delay=lambda retried: 0.0)
    in_flight_after_settling: list[bool] = []
    record_attempt = store.record_attempt

    async def recording(*args: Any, **kwargs: Any) -> MessageRecord:
        settled_record = await record_attempt(*args, **kwargs)
        # Runs once the attempt's task has taken its next steps, before its done callbacks.
        asyncio.get_running_loop().call_soon(
            lambda: in_flight_after_settling.append(delivery.is_in_flight(message_id))
        )
        return settled_record

    monkeypatch.setattr(store, "record_attempt", recording)
    await delivery.start()
    await eventually(settled(store, message_id))
    assert store.messages[message_id].state == "delivered"
    assert in_flight_after_settling[0] is False


async def test_many_messages_are_delivered_with_bounded_concurrency(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """More messages than the batch and concurrency limits are all delivered once."""
    receiver = await endpoint(Reply(200, delay=0.01))
    ids = [
        await publish(store, new_message(receiver.url(f"/m/{n}"), body=str(n).encode()))
        for n in range(30)
    ]
    await engine(batch=4, concurrency=3).start()
    await eventually(lambda: all(settled(store, message_id)() for message_id in ids))
    assert sorted(request.body for request in receiver.requests) == sorted(
        str(n).encode() for n in range(30)
    )


class GatedTransport:
    """An HTTP transport whose requests wait at a gate the test opens; it counts how many are in
    flight at once.
    """

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.in_flight = 0
        self.most_in_flight = 0
        self.started = 0

    async def handle(self, request: httpx.Request) -> httpx.Response:
        """Answer 200 once the gate opens."""
        self.started += 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await self.gate.wait()
        finally:
            self.in_flight -= 1
        return httpx.Response(200, text="ok")

    def transport(self) -> httpx.AsyncBaseTransport:
        """An HTTP transport factory's product that answers through ``handle``."""
        return httpx.MockTransport(self.handle)


def record_claims(store: MemoryStore) -> list[tuple[int, int]]:
    """Wrap the store's claim to note each claim's ``limit`` and how many messages it took."""
    claims: list[tuple[int, int]] = []
    real_claim = store.claim_due_messages

    async def claim(*, now: float, limit: int, lease_margin: float) -> list[MessageRecord]:
        claimed = await real_claim(now=now, limit=limit, lease_margin=lease_margin)
        claims.append((limit, len(claimed)))
        return claimed

    store.claim_due_messages = claim  # type: ignore[method-assign]
    return claims


async def test_one_claim_takes_as_many_due_messages_as_slots_are_free(
    store: MemoryStore, engine: EngineFactory
) -> None:
    """Due messages are claimed in one batch up to the free slots, never more than are free, and
    no more are sent at once than ``concurrency`` allows.
    """
    transport = GatedTransport()
    ids = [await publish(store, new_message(f"http://127.0.0.1:9/m/{n}")) for n in range(12)]
    claims = record_claims(store)
    await engine(concurrency=5, batch=50, http_transport_factory=transport.transport).start()
    await eventually(lambda: transport.started == 5)
    await asyncio.sleep(0.1)
    assert claims == [(5, 5)]
    assert transport.started == 5

    transport.gate.set()
    await eventually(lambda: all(settled(store, message_id)() for message_id in ids))
    assert transport.most_in_flight <= 5
    assert all(limit <= 5 for limit, _ in claims)
    assert sum(taken for _, taken in claims) == 12


async def test_a_future_message_is_sent_at_its_due_time_without_a_poll(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """The engine sleeps until the store's next due time: with an hour-long poll, only that wake-up
    can deliver a message due in a moment.
    """
    receiver = await endpoint(Reply(200))
    message_id = await publish(store, new_message(receiver.url(), not_before=time.time() + 0.3))
    await engine(poll_interval=3600.0).start()
    await eventually(settled(store, message_id))
    assert len(receiver.requests) == 1


async def test_a_message_published_after_start_is_found_after_the_wake(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A publish in this process wakes the engine, which then also learns a later due time."""
    receiver = await endpoint(Reply(200))
    delivery = engine(poll_interval=3600.0)
    await delivery.start()
    now_id = await publish(store, new_message(receiver.url("/now")))
    later_id = await publish(
        store, new_message(receiver.url("/later"), not_before=time.time() + 0.3)
    )
    delivery.wake()
    await eventually(settled(store, now_id))
    await eventually(settled(store, later_id))


async def test_a_retry_this_process_scheduled_wakes_it(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """The engine wakes for a retry it scheduled itself, however long its poll is."""
    receiver = await endpoint(Reply(500), Reply(200))
    message_id = await publish(store, new_message(receiver.url(), retry_delay="200"))
    await engine(poll_interval=3600.0).start()
    await eventually(settled(store, message_id))
    assert [a.status_code for a in store.messages[message_id].attempts] == [500, 200]


async def test_the_poll_finds_what_another_process_scheduled(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A message written by another process (no wake-up here) is found by the fallback poll."""
    receiver = await endpoint(Reply(200))
    await engine(poll_interval=0.05).start()
    await asyncio.sleep(0.1)
    message_id = await publish(store, new_message(receiver.url()))
    await eventually(settled(store, message_id))


async def test_an_idle_engine_sleeps_until_the_next_due_time(
    store: MemoryStore, engine: EngineFactory
) -> None:
    """With only a message due in an hour, the engine claims once and reads the due time once,
    then sleeps instead of asking the store again and again.
    """
    await publish(store, new_message("http://127.0.0.1:9/later", not_before=time.time() + 3600))
    claims = record_claims(store)
    reads: list[float | None] = []
    real_next_due_at = store.next_due_at

    async def next_due_at() -> float | None:
        reads.append(await real_next_due_at())
        return reads[-1]

    store.next_due_at = next_due_at  # type: ignore[method-assign]
    await engine(poll_interval=3600.0).start()
    await eventually(lambda: len(reads) == 1)
    await asyncio.sleep(0.2)
    assert claims == [(50, 0)]
    assert len(reads) == 1


async def test_a_failing_next_due_time_falls_back_to_the_poll(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """When the store cannot tell the next due time, the poll still finds the message."""
    receiver = await endpoint(Reply(200))

    async def unavailable() -> float | None:
        raise StoreUnavailableError("Redis does not answer")

    store.next_due_at = unavailable  # type: ignore[method-assign]
    message_id = await publish(store, new_message(receiver.url(), not_before=time.time() + 0.2))
    await engine(poll_interval=0.05).start()
    await eventually(settled(store, message_id))


async def test_stop_interrupts_hanging_attempts_and_reschedules_them(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """Stopping records an interrupted attempt, so the message is retried instead of stranded."""
    receiver = await endpoint(HANG)
    message_id = await publish(store, new_message(receiver.url(), timeout=60))
    delivery = engine(shutdown_grace=0.05)
    await delivery.start()
    await eventually(lambda: len(receiver.requests) == 1)
    await delivery.stop()

    record = store.messages[message_id]
    assert record.state == "scheduled"
    (attempt,) = record.attempts
    assert attempt.error == "interrupted: the service stopped during this attempt"
    assert not delivery.running


async def test_engine_start_stop_and_arguments(store: MemoryStore) -> None:
    """Starting twice is an error, stopping twice is harmless, and bad settings are refused."""
    delivery = DeliveryEngine(
        store, DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, poll_interval=0.01)
    )
    await delivery.start()
    assert delivery.running
    with pytest.raises(RuntimeError, match="already running"):
        await delivery.start()
    delivery.wake()
    await delivery.stop()
    await delivery.stop()
    with pytest.raises(ValueError, match="poll_interval"):
        DeliveryEngine(store, DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, poll_interval=0))
    with pytest.raises(ValueError, match="concurrency"):
        DeliveryEngine(store, DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, concurrency=0))
    with pytest.raises(ValueError, match="lease_margin"):
        DeliveryEngine(store, DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, lease_margin=-1))
    with pytest.raises(ValueError, match="stop_timeout"):
        DeliveryEngine(store, DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, stop_timeout=0))


class CancellationSwallowingStore(MemoryStore):
    """A store whose claims hang until released and swallow cancellation, as redis-py sometimes
    does: ``on_cancel`` says what a cancelled claim does instead of ending.
    """

    def __init__(self, on_cancel: Literal["return", "unavailable", "keep_waiting"]) -> None:
        super().__init__()
        self.on_cancel = on_cancel
        self.claims = 0
        self.cancellations = 0
        self.claiming = asyncio.Event()
        self.release = asyncio.Event()
        self.claimer: asyncio.Task[Any] | None = None

    async def claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """Wait for ``release``; a cancellation meanwhile is handled as ``on_cancel`` says."""
        self.claims += 1
        self.claimer = asyncio.current_task()
        self.claiming.set()
        while True:
            try:
                await self.release.wait()
                return []
            except asyncio.CancelledError:
                self.cancellations += 1
                if self.on_cancel == "return":
                    return []
                if self.on_cancel == "unavailable":
                    raise StoreUnavailableError("connection lost while cancelling") from None


@pytest.mark.parametrize("on_cancel", ["return", "unavailable"])
async def test_stop_returns_when_the_store_swallows_the_cancellation(
    on_cancel: Literal["return", "unavailable"],
) -> None:
    """A claim that turns its cancellation into a result or an outage ends the loop all the same."""
    store = CancellationSwallowingStore(on_cancel)
    delivery = DeliveryEngine(
        store,
        DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, poll_interval=0.01, stop_timeout=0.05),
    )
    await delivery.start()
    await asyncio.wait_for(store.claiming.wait(), timeout=30)
    async with asyncio.timeout(60):
        await delivery.stop()
    assert not delivery.running
    # The loop read the stop after the claim that swallowed it, and claimed nothing more.
    assert (store.claims, store.cancellations) == (1, 1)
    assert store.claimer is not None and store.claimer.done()


async def test_stop_gives_up_on_a_store_call_that_never_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A claim that ignores every cancellation is abandoned, logged, and stop() still returns."""
    store = CancellationSwallowingStore("keep_waiting")
    delivery = DeliveryEngine(
        store,
        DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, poll_interval=0.01, stop_timeout=0.05),
    )
    await delivery.start()
    await asyncio.wait_for(store.claiming.wait(), timeout=30)
    async with asyncio.timeout(60):
        await delivery.stop()
    assert not delivery.running
    assert "ignored its cancellation" in caplog.text

    # Once its store call returns, the abandoned loop sees its stop and ends without claiming.
    store.release.set()
    assert store.claimer is not None
    await asyncio.wait_for(store.claimer, timeout=30)
    assert store.claims == 1


async def test_stop_lets_a_claim_in_progress_finish_and_delivers_what_it_claimed(
    store: MemoryStore, endpoint: EndpointFactory
) -> None:
    """stop() waits for a slow claim instead of cancelling it; its messages get the grace."""
    receiver = await endpoint(Reply(200))
    message_id = await publish(store, new_message(receiver.url()))
    real_claim = store.claim_due_messages
    claiming = asyncio.Event()
    proceed = asyncio.Event()
    cancelled: list[bool] = []

    async def slow_claim(*, now: float, limit: int, lease_margin: float) -> list[MessageRecord]:
        claiming.set()
        try:
            await proceed.wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return await real_claim(now=now, limit=limit, lease_margin=lease_margin)

    store.claim_due_messages = slow_claim  # type: ignore[method-assign]
    delivery = DeliveryEngine(
        store, DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, stop_timeout=60)
    )
    await delivery.start()
    await asyncio.wait_for(claiming.wait(), timeout=30)
    stopping = asyncio.create_task(delivery.stop())
    await asyncio.sleep(0.05)
    proceed.set()
    await asyncio.wait_for(stopping, timeout=60)
    assert cancelled == []
    assert store.messages[message_id].state == "delivered"


async def test_claim_errors_do_not_stop_the_engine(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A store that fails to answer a claim is asked again at the next poll."""
    receiver = await endpoint(Reply(200))
    message_id = await publish(store, new_message(receiver.url()))
    real_claim = store.claim_due_messages
    failures = iter([ConnectionError("a bug"), StoreUnavailableError("Redis does not answer")])

    async def flaky_claim(*, now: float, limit: int, lease_margin: float) -> list[MessageRecord]:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return await real_claim(now=now, limit=limit, lease_margin=lease_margin)

    store.claim_due_messages = flaky_claim  # type: ignore[method-assign]
    await engine().start()
    await eventually(settled(store, message_id))


async def test_custom_http_transport_factory_is_used(
    store: MemoryStore, engine: EngineFactory
) -> None:
    """The HTTP transport comes from the factory, so tests and deployments can swap it."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, text="mocked")

    def factory() -> httpx.AsyncBaseTransport:
        return httpx.MockTransport(handler)

    message_id = await publish(store, new_message("http://127.0.0.1:9/mock"))
    await engine(http_transport_factory=factory).start()
    await eventually(settled(store, message_id))
    assert str(seen[0].url) == "http://127.0.0.1:9/mock"
    assert store.messages[message_id].attempts[0].response_excerpt == "mocked"


async def test_engine_on_each_real_store(store_url: str, endpoint: EndpointFactory) -> None:
    """On SQLite and Redis: retries, dead letter, callbacks, and a fresh budget after a retry."""
    from server.stores import store_from_url

    real = store_from_url(store_url)
    await real.open()
    delivery = DeliveryEngine(
        real,
        DeliverySettings(
            signing_keys=KEYS,
            policy=LOOPBACK,
            poll_interval=0.02,
            lease_margin=30.0,
            default_retry_delay=lambda retried: 10.0,
        ),
    )
    try:
        flaky = await endpoint(Reply(500), Reply(200, b"yay"))
        down = await endpoint(Reply(500))
        callbacks = await endpoint(Reply(200))
        await delivery.start()
        (delivered,) = await real.publish_messages(
            [new_message(flaky.url(), callback=callbacks.url("/ok"))]
        )
        (failing,) = await real.publish_messages(
            [new_message(down.url(), retries=1, failure_callback=callbacks.url("/failed"))]
        )

        async def state_of(message_id: str) -> str:
            return (await real.get_message(message_id)).state

        deadline = time.monotonic() + 15
        while (
            await state_of(delivered.message_id) != "delivered"
            or await state_of(failing.message_id) != "failed"
            or len(callbacks.requests) < 2
        ):
            assert time.monotonic() < deadline, "deliveries did not settle in time"
            await asyncio.sleep(0.02)

        statuses = [a.status_code for a in (await real.get_message(delivered.message_id)).attempts]
        assert statuses == [500, 200]
        (dead,) = (await real.list_dead_letters(limit=10)).dead_letters
        assert (dead.message_id, dead.attempts, dead.last_status_code) == (
            failing.message_id,
            2,
            500,
        )
        assert sorted(request.path for request in callbacks.requests) == ["/failed", "/ok"]
        for request in callbacks.requests:
            RECEIVER.verify(
                request.headers["spool-signature"], request.body, url=callbacks.url(request.path)
            )

        await real.retry_dead_letter(failing.message_id)
        while len(down.requests) < 4 or await state_of(failing.message_id) != "failed":
            assert time.monotonic() < deadline + 15, "the retried dead letter did not settle"
            await asyncio.sleep(0.02)
        assert [r.headers["spool-retried"] for r in down.requests] == ["0", "1", "0", "1"]
    finally:
        await delivery.stop()
        await real.close()
