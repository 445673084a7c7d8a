"""Automatic batching (sdk/_batching.py): coalescing, each caller's own result, failures."""

from __future__ import annotations

import asyncio
import threading

import pytest

import sdk
from sdk._batching import (
    AsyncCoalescer,
    BackgroundBatcher,
    Batching,
    SyncCoalescer,
    batching_of,
)
from sdk._exceptions import (
    InternalServerError,
    PublishError,
    UnprocessableEntityError,
)

# Long enough that only a full batch or a flush sends: nothing here waits for a linger to pass.
PATIENT = Batching(linger=1.0, max_items=4)


def _publish_error(cause: Exception) -> PublishError:
    try:
        raise PublishError("events", str(cause)) from cause
    except PublishError as error:
        return error


REFUSED = _publish_error(UnprocessableEntityError("422 validation_failed", status_code=422))
BROKEN = _publish_error(InternalServerError("500 internal", status_code=500))


class _Recorder:
    """Send functions that note every batch and single send, answering `<key>:<item>`."""

    def __init__(self, *, batch_error: Exception | None = None, bad_item: str | None = None):
        self.batches: list[tuple[str, list[str]]] = []
        self.singles: list[str] = []
        self.batch_error = batch_error
        self.bad_item = bad_item

    def batch(self, key: str, items: list[str]) -> list[str]:
        self.batches.append((key, list(items)))
        if self.batch_error is not None:
            raise self.batch_error
        return [f"{key}:{item}" for item in items]

    def one(self, key: str, item: str) -> str:
        self.singles.append(item)
        if item == self.bad_item:
            raise _publish_error(UnprocessableEntityError("422 bad", status_code=422))
        return f"{key}:{item}"

    async def abatch(self, key: str, items: list[str]) -> list[str]:
        await asyncio.sleep(0)
        return self.batch(key, items)

    async def aone(self, key: str, item: str) -> str:
        await asyncio.sleep(0)
        return self.one(key, item)


def _async(recorder: _Recorder, batching: Batching = PATIENT) -> AsyncCoalescer[str, str, str]:
    return AsyncCoalescer(batching, send_batch=recorder.abatch, send_one=recorder.aone)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"linger": -0.001}, "linger must be between 0 and 1.0 s"),
        ({"linger": 1.5}, "linger must be between 0 and 1.0 s"),
        ({"linger": float("nan")}, "linger must be between 0 and 1.0 s"),
        ({"linger": "2ms"}, "linger must be seconds"),
        ({"linger": True}, "linger must be seconds"),
        ({"max_items": 0}, "max_items must be an integer from 1 to 1000"),
        ({"max_items": 1001}, "max_items must be an integer from 1 to 1000"),
        ({"max_items": 2.0}, "max_items must be an integer from 1 to 1000"),
    ],
)
def test_batching_is_checked_when_built(options: dict[str, object], message: str) -> None:
    """A bad setting is a ConfigurationError (also a ValueError) naming it."""
    with pytest.raises(sdk.ConfigurationError, match=message) as raised:
        Batching(**options)  # type: ignore[arg-type]
    assert isinstance(raised.value, ValueError)


def test_batching_of_reads_the_clients_argument() -> None:
    """True means the defaults, False and None mean no batching, anything else is refused."""
    assert batching_of(True) == Batching()
    assert batching_of(False) is None
    assert batching_of(None) is None
    assert batching_of(PATIENT) is PATIENT
    with pytest.raises(sdk.ConfigurationError, match="batching must be a sdk.Batching"):
        batching_of("yes")  # type: ignore[arg-type]


async def test_concurrent_publishes_to_one_target_share_a_batch_in_order() -> None:
    """Four callers fill one batch; each gets its own result, and it is sent once."""
    recorder = _Recorder()
    coalescer = _async(recorder)

    results = await asyncio.gather(*(coalescer.submit("s", str(n)) for n in range(4)))

    assert results == ["s:0", "s:1", "s:2", "s:3"]
    assert recorder.batches == [("s", ["0", "1", "2", "3"])]
    assert recorder.singles == []


async def test_a_batch_is_sent_at_max_items_and_the_rest_waits_for_the_next() -> None:
    """Nine callers with max_items 4 make batches of 4, 4 and (flushed) 1; targets never mix."""
    recorder = _Recorder()
    coalescer = _async(recorder)

    calls = [asyncio.ensure_future(coalescer.submit("s", str(n))) for n in range(9)]
    other = asyncio.ensure_future(coalescer.submit("t", "x"))
    await asyncio.sleep(0)
    await coalescer.flush()

    assert [call.result() for call in calls] == [f"s:{n}" for n in range(9)]
    assert other.result() == "t:x"
    assert sorted(recorder.batches) == [
        ("s", ["0", "1", "2", "3"]),
        ("s", ["4", "5", "6", "7"]),
        ("s", ["8"]),
        ("t", ["x"]),
    ]


async def test_a_lone_publish_goes_out_without_waiting_for_the_linger() -> None:
    """With no batch to its target in flight, a publish is sent once the loop's other ready
    publishes have joined it: the linger (a second here) is not waited out.
    """
    recorder = _Recorder()
    coalescer = _async(recorder, PATIENT)

    async with asyncio.timeout(0.5):
        assert await coalescer.submit("s", "a") == "s:a"
    assert recorder.batches == [("s", ["a"])]


class _HeldBatches(_Recorder):
    """A recorder whose batches are answered only when the test releases them."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def abatch(self, key: str, items: list[str]) -> list[str]:
        self.batches.append((key, list(items)))
        await self.release.wait()
        return [f"{key}:{item}" for item in items]


async def test_publishes_gather_while_a_batch_is_in_flight_and_go_when_it_is_answered() -> None:
    """While a batch is out, later publishes to its target make the next batch, sent as soon as
    the first has its answer, not after the linger; another target does not wait.
    """
    held = _HeldBatches()
    coalescer = _async(held, PATIENT)
    first = asyncio.ensure_future(coalescer.submit("s", "a"))
    while not held.batches:
        await asyncio.sleep(0)
    later = [asyncio.ensure_future(coalescer.submit("s", item)) for item in ("b", "c")]
    other = asyncio.ensure_future(coalescer.submit("t", "x"))
    for _ in range(5):
        await asyncio.sleep(0)
    assert held.batches == [("s", ["a"]), ("t", ["x"])]
    held.release.set()
    async with asyncio.timeout(0.5):
        assert await first == "s:a"
        assert await asyncio.gather(*later) == ["s:b", "s:c"]
        assert await other == "t:x"
    assert held.batches == [("s", ["a"]), ("t", ["x"]), ("s", ["b", "c"])]


async def test_a_batch_waits_no_longer_than_the_linger_behind_a_slow_one() -> None:
    """A batch behind one that is slow to be answered goes out when its linger has passed."""
    held = _HeldBatches()
    coalescer = _async(held, Batching(linger=0.01, max_items=100))
    first = asyncio.ensure_future(coalescer.submit("s", "a"))
    while not held.batches:
        await asyncio.sleep(0)
    second = asyncio.ensure_future(coalescer.submit("s", "b"))
    async with asyncio.timeout(0.5):
        while len(held.batches) < 2:
            await asyncio.sleep(0.001)
    assert held.batches == [("s", ["a"]), ("s", ["b"])]
    held.release.set()
    assert (await first, await second) == ("s:a", "s:b")


async def test_a_failed_batch_fails_every_caller_with_the_same_error() -> None:
    """A failure that is not about the content reaches every caller; nothing is resent."""
    recorder = _Recorder(batch_error=BROKEN)
    coalescer = _async(recorder)

    results = await asyncio.gather(
        *(coalescer.submit("s", str(n)) for n in range(4)), return_exceptions=True
    )

    assert results == [BROKEN] * 4
    assert recorder.singles == []


async def test_a_batch_refused_for_its_content_is_resent_item_by_item() -> None:
    """On 422 every item goes again on its own, so only the bad one's caller fails."""
    recorder = _Recorder(batch_error=REFUSED, bad_item="2")
    coalescer = _async(recorder)

    results = await asyncio.gather(
        *(coalescer.submit("s", str(n)) for n in range(4)), return_exceptions=True
    )

    assert results[:2] == ["s:0", "s:1"] and results[3] == "s:3"
    assert isinstance(results[2], PublishError)
    assert isinstance(results[2].__cause__, UnprocessableEntityError)
    assert sorted(recorder.singles) == ["0", "1", "2", "3"]


async def test_a_cancelled_caller_does_not_hold_up_the_others() -> None:
    """A caller cancelled while its batch is open gives up its result; its item still goes."""
    recorder = _Recorder()
    coalescer = _async(recorder)

    leaving = asyncio.ensure_future(coalescer.submit("s", "gone"))
    staying = asyncio.ensure_future(coalescer.submit("s", "kept"))
    await asyncio.sleep(0)
    leaving.cancel()
    await coalescer.flush()

    assert leaving.cancelled()
    assert staying.result() == "s:kept"
    assert recorder.batches == [("s", ["gone", "kept"])]


def test_sync_threads_share_a_batch_and_each_gets_its_result() -> None:
    """Four threads publishing at once fill one batch; the opener sends it for all."""
    recorder = _Recorder()
    coalescer: SyncCoalescer[str, str, str] = SyncCoalescer(
        PATIENT, send_batch=recorder.batch, send_one=recorder.one
    )
    results: dict[int, str] = {}

    def publish(n: int) -> None:
        results[n] = coalescer.submit("s", str(n))

    threads = [threading.Thread(target=publish, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    assert results == {n: f"s:{n}" for n in range(4)}
    assert len(recorder.batches) == 1
    assert sorted(recorder.batches[0][1]) == ["0", "1", "2", "3"]


def test_sync_failures_reach_every_caller_or_are_resent_one_by_one() -> None:
    """The sync coalescer reports failures as the async one does."""
    broken = _Recorder(batch_error=BROKEN)
    alone: SyncCoalescer[str, str, str] = SyncCoalescer(
        Batching(linger=0, max_items=1), send_batch=broken.batch, send_one=broken.one
    )
    with pytest.raises(PublishError) as raised:
        alone.submit("s", "a")
    assert raised.value is BROKEN

    refused = _Recorder(batch_error=REFUSED, bad_item="b")
    coalescer: SyncCoalescer[str, str, str] = SyncCoalescer(
        Batching(linger=1.0, max_items=2), send_batch=refused.batch, send_one=refused.one
    )
    outcomes: dict[str, object] = {}

    def publish(item: str) -> None:
        try:
            outcomes[item] = coalescer.submit("s", item)
        except PublishError as error:
            outcomes[item] = error

    threads = [threading.Thread(target=publish, args=(item,)) for item in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    assert outcomes["a"] == "s:a"
    assert isinstance(outcomes["b"], PublishError)


def _background(recorder: _Recorder) -> BackgroundBatcher[str, str, str]:
    return BackgroundBatcher(send_batch=recorder.batch, send_one=recorder.one)


def test_background_submits_resolve_in_order_and_share_requests() -> None:
    """publish_nowait's sender: every future gets its own result; submits made while a request
    is on its way go together in the next, one request per target.
    """
    recorder = _Recorder()
    release = threading.Event()
    first_sent = threading.Event()
    plain_batch = recorder.batch

    def slow_first(key: str, items: list[str]) -> list[str]:
        if not first_sent.is_set():
            first_sent.set()
            assert release.wait(30)
        return plain_batch(key, items)

    sender = BackgroundBatcher(send_batch=slow_first, send_one=recorder.one)
    first = sender.submit("events", "a")
    assert first_sent.wait(30)
    later = [sender.submit("events", item) for item in "bcd"] + [sender.submit("audit", "x")]
    release.set()
    sender.flush()
    assert [future.result() for future in [first, *later]] == [
        "events:a",
        "events:b",
        "events:c",
        "events:d",
        "audit:x",
    ]
    assert recorder.batches == [("events", ["a"]), ("events", ["b", "c", "d"]), ("audit", ["x"])]


def test_background_failures_reach_each_future() -> None:
    """A failed request fails each of its futures; one refused for its content is resent item by
    item, so only the bad item fails.
    """
    broken = _Recorder(batch_error=BROKEN)
    sender = _background(broken)
    futures = [sender.submit("events", item) for item in "ab"]
    sender.flush()
    assert all(future.exception() is BROKEN for future in futures)

    refused = _Recorder(batch_error=REFUSED, bad_item="b")
    release = threading.Event()
    sending = threading.Event()
    refused_batch = refused.batch

    def gated(key: str, items: list[str]) -> list[str]:
        sending.set()
        assert release.wait(30)
        return refused_batch(key, items)

    sender = BackgroundBatcher(send_batch=gated, send_one=refused.one)
    # The sender is held inside its first request while a, b and c wait, so they share the next.
    sender.submit("first", "x")
    assert sending.wait(30)
    futures = [sender.submit("events", item) for item in "abc"]
    release.set()
    sender.flush()
    outcomes = [future.exception() or future.result() for future in futures]
    assert outcomes[0] == "events:a" and outcomes[2] == "events:c"
    assert isinstance(outcomes[1], PublishError)
    assert ("events", ["a", "b", "c"]) in refused.batches


def test_background_submit_blocks_past_max_pending() -> None:
    """At most max_pending items wait: the next submit waits until the sender catches up."""
    recorder = _Recorder()
    release = threading.Event()
    plain_batch = recorder.batch

    def gated(key: str, items: list[str]) -> list[str]:
        assert release.wait(30)
        return plain_batch(key, items)

    sender = BackgroundBatcher(send_batch=gated, send_one=recorder.one, max_pending=2)
    sender.submit("events", "a")
    sender.submit("events", "b")
    third: list[object] = []
    blocked = threading.Thread(target=lambda: third.append(sender.submit("events", "c")))
    blocked.start()
    blocked.join(0.2)
    assert blocked.is_alive() and not third
    release.set()
    blocked.join(30)
    sender.flush()
    assert third and recorder.batches[-1][1][-1] == "c"
