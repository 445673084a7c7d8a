"""Opt-in automatic batching: concurrent single publishes to one stream or queue become one batch;
and `publish_nowait`, whose publishes a background sender batches (`BackgroundBatcher`).

Each publish joins the open batch for its target (a stream with the same trim options, or a queue).
The first one opens it; the batch is sent when it holds `Batching.max_items` items or when
`Batching.linger` has passed since it opened, whichever comes first, and an `AsyncClient` sends it
sooner when no earlier batch to its target is in flight (see `AsyncCoalescer`). Every caller gets
its own result (its entry id or job receipt) back, in the order it joined.

A batch is all or none on the service. When the service refuses a batch for its content (400,
413 or 422: one body malformed, too large or invalid), nothing was written, so every item is sent
again on its own, under a key of its own, and each caller gets its own verdict. A batch whose
document cannot be encoded (a NaN in one body, say) was never sent: the items that cannot be
encoded alone fail, and the others go again as one batch. Any other failure (connection, 5xx
after the retries, 403, 404, 409, 429) is the same for every item, or leaves unknown whether the
batch was written, so every caller gets it as its `PublishError` and nothing is sent again.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Awaitable, Callable, Hashable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from ._exceptions import (
    APIError,
    BadRequestError,
    ConfigurationError,
    PayloadTooLargeError,
    PublishError,
    UnprocessableEntityError,
)
from ._limits import BATCH_MAX

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "AsyncBackgroundBatcher",
    "AsyncCoalescer",
    "BackgroundBatcher",
    "Batching",
    "SyncCoalescer",
    "batching_of",
]

KeyT = TypeVar("KeyT", bound=Hashable)
ItemT = TypeVar("ItemT")
ResultT = TypeVar("ResultT")
ResultContraT = TypeVar("ResultContraT", contravariant=True)

_LINGER_MAX_SECONDS = 1.0


@dataclasses.dataclass(frozen=True, slots=True)
class Batching:
    """How a client coalesces concurrent single publishes: wait at most `linger` seconds for more
    publishes to the same target, and send at most `max_items` in one request.

    A `linger` that is not a number of seconds from 0 to 1, or a `max_items` that is not an int
    from 1 to 1000, is a ConfigurationError.
    """

    linger: float = 0.002
    max_items: int = 100

    def __post_init__(self) -> None:
        linger = self.linger
        if isinstance(linger, bool) or not isinstance(linger, int | float):
            raise ConfigurationError(f"batching linger must be seconds, got {linger!r}")
        if not math.isfinite(linger) or not 0 <= linger <= _LINGER_MAX_SECONDS:
            raise ConfigurationError(
                f"batching linger must be between 0 and {_LINGER_MAX_SECONDS} s, got {linger!r}"
            )
        items = self.max_items
        if isinstance(items, bool) or not isinstance(items, int) or not 1 <= items <= BATCH_MAX:
            raise ConfigurationError(
                f"batching max_items must be an integer from 1 to {BATCH_MAX}, got {items!r}"
            )


def batching_of(value: Batching | bool | None) -> Batching | None:
    """The client's `batching` argument: True for the defaults, False or None for none.

    Returns:
        The Batching to use, or None when publishes are not batched.

    Raises:
        ConfigurationError: `value` is not a Batching, a bool or None.
    """
    if value is None or value is False:
        return None
    if value is True:
        return Batching()
    if not isinstance(value, Batching):
        raise ConfigurationError(
            f"batching must be a sdk.Batching, True or False, got {type(value).__name__}"
        )
    return value


def _refused_for_content(error: BaseException) -> bool:
    """Whether the service refused a whole batch for what one of its items holds, writing none
    of it: only then may its items be sent again on their own without one being written twice.
    """
    cause = error.__cause__ if isinstance(error, PublishError) else error
    return isinstance(cause, BadRequestError | PayloadTooLargeError | UnprocessableEntityError)


def _never_sent(error: BaseException) -> bool:
    """Whether a batch failed before its request was made: its document could not be encoded."""
    # Every failure of a request made is a PublishError caused by an APIError (sdk/_http.py).
    return isinstance(error, PublishError) and not isinstance(error.__cause__, APIError)


def _encodable(
    check_one: Callable[[KeyT, ItemT], object] | None,
    key: KeyT,
    items: Sequence[ItemT],
    outcomes: Sequence[_Outcome[ResultT]],
) -> tuple[list[ItemT], list[_Outcome[ResultT]]] | None:
    """The items of a batch that could not be encoded that can be encoded alone, with their
    outcomes, failing the others' outcomes with their own errors; None when every item can, or
    there is no `check_one`, and so no item can be told apart.
    """
    if check_one is None:
        return None
    kept: tuple[list[ItemT], list[_Outcome[ResultT]]] = ([], [])
    refused: list[tuple[_Outcome[ResultT], Exception]] = []
    for item, outcome in zip(items, outcomes, strict=True):
        try:
            check_one(key, item)
        except Exception as error:
            refused.append((outcome, error))
        else:
            kept[0].append(item)
            kept[1].append(outcome)
    if not refused:
        return None
    for outcome, failure in refused:
        if not outcome.done():
            outcome.set_exception(failure)
    return kept


@dataclasses.dataclass(slots=True)
class _SyncBatch(Generic[ItemT, ResultT]):
    items: list[ItemT] = dataclasses.field(default_factory=list)
    outcomes: list[Future[ResultT]] = dataclasses.field(default_factory=list)
    full: threading.Event = dataclasses.field(default_factory=threading.Event)


@dataclasses.dataclass(slots=True)
class _AsyncBatch(Generic[ItemT, ResultT]):
    full: asyncio.Event
    items: list[ItemT] = dataclasses.field(default_factory=list)
    outcomes: list[asyncio.Future[ResultT]] = dataclasses.field(default_factory=list)


class _Outcome(Protocol[ResultContraT]):
    def done(self) -> bool: ...

    def set_result(self, result: ResultContraT, /) -> None: ...

    def set_exception(self, exception: BaseException, /) -> None: ...


def _settle(outcomes: Sequence[_Outcome[ResultT]], results: Sequence[ResultT]) -> None:
    for outcome, result in zip(outcomes, results, strict=True):
        # An async caller that was cancelled has given up its outcome already.
        if not outcome.done():
            outcome.set_result(result)


def _settle_each(
    outcomes: Sequence[_Outcome[ResultT]], results: Sequence[ResultT | BaseException]
) -> None:
    for outcome, result in zip(outcomes, results, strict=True):
        if outcome.done():
            continue
        if isinstance(result, BaseException):
            outcome.set_exception(result)
        else:
            outcome.set_result(result)


def _fail(outcomes: Sequence[_Outcome[ResultT]], error: BaseException) -> None:
    for outcome in outcomes:
        if not outcome.done():
            outcome.set_exception(error)


class SyncCoalescer(Generic[KeyT, ItemT, ResultT]):
    """Batching for the sync client: the thread that opens a batch waits out the linger and
    sends it; the threads that join wait for their result.

    `check_one` raises what sending one item alone would raise before any request (its body
    cannot be encoded), sending nothing; without it, a batch that cannot be encoded is sent
    again item by item.
    """

    def __init__(
        self,
        batching: Batching,
        *,
        send_batch: Callable[[KeyT, list[ItemT]], list[ResultT]],
        send_one: Callable[[KeyT, ItemT], ResultT],
        check_one: Callable[[KeyT, ItemT], object] | None = None,
    ) -> None:
        self._batching = batching
        self._send_batch = send_batch
        self._send_one = send_one
        self._check_one = check_one
        self._lock = threading.Lock()
        self._open: dict[KeyT, _SyncBatch[ItemT, ResultT]] = {}

    def submit(self, key: KeyT, item: ItemT) -> ResultT:
        """Publish `item` to `key`'s target in a batch and return its own result.

        Returns:
            What `send_batch` (or, for a batch refused for its content, `send_one`) gave for
            `item`: its entry id or job receipt.

        Raises:
            PublishError: the batch failed (every item of it gets the same error), or `item`
                alone was refused when its batch was sent again item by item; whatever else
                the senders raise is raised the same way.
        """
        outcome: Future[ResultT] = Future()
        with self._lock:
            batch = self._open.get(key)
            opens = batch is None
            if batch is None:
                batch = self._open[key] = _SyncBatch()
            batch.items.append(item)
            batch.outcomes.append(outcome)
            if len(batch.items) >= self._batching.max_items:
                del self._open[key]
                batch.full.set()
        if opens:
            batch.full.wait(self._batching.linger)
            with self._lock:
                if self._open.get(key) is batch:
                    del self._open[key]
            self.send(key, batch)
        return outcome.result()

    def send(self, key: KeyT, batch: _SyncBatch[ItemT, ResultT]) -> None:
        """Send `batch` to `key`'s target and settle each of its outcomes.

        A batch refused for its content (400, 413 or 422) is sent again item by item, so that
        each outcome gets its own verdict; one that cannot be encoded fails the items that cannot
        be encoded alone and sends the others as one batch; any other failure becomes every
        outcome's.

        Raises:
            KeyboardInterrupt: the sending thread was interrupted (as for any BaseException that
                is not an Exception), raised again once every outcome has it; an Exception goes
                to the outcomes only.
        """
        try:
            self._deliver(key, batch.items, batch.outcomes)
        except BaseException as error:
            # An interrupt of the sending thread must not leave the joined threads waiting.
            _fail(batch.outcomes, error)
            raise

    def _deliver(
        self, key: KeyT, items: list[ItemT], outcomes: Sequence[_Outcome[ResultT]]
    ) -> None:
        try:
            results = self._send_batch(key, items)
        except Exception as error:
            if len(items) == 1:
                _fail(outcomes, error)
            elif _never_sent(error):
                kept = _encodable(self._check_one, key, items, outcomes)
                if kept is None:
                    _settle_each(outcomes, [self._one(key, item) for item in items])
                elif kept[0]:
                    self._deliver(key, *kept)
            elif _refused_for_content(error):
                _settle_each(outcomes, [self._one(key, item) for item in items])
            else:
                _fail(outcomes, error)
            return
        _settle(outcomes, results)

    def _one(self, key: KeyT, item: ItemT) -> ResultT | Exception:
        try:
            return self._send_one(key, item)
        except Exception as error:
            return error


class AsyncCoalescer(Generic[KeyT, ItemT, ResultT]):
    """Batching for the async client: a task per open batch sends it when it is due.

    A batch is due once the publishes the event loop runs now have joined it, unless an earlier
    batch to the same target is still in flight: then it is due when that batch has its answer,
    when it holds `max_items`, or when `linger` has passed, whichever comes first. So a lone
    publish waits for nothing, and under load a batch grows while the one before it is sent, to
    what the service takes in one round trip (as a database's group commit does). Waiting out the
    linger instead would leave callers publishing in turn idle for much of every round trip.

    Failures are settled as `SyncCoalescer` settles them, with the same `check_one`.
    """

    def __init__(
        self,
        batching: Batching,
        *,
        send_batch: Callable[[KeyT, list[ItemT]], Awaitable[list[ResultT]]],
        send_one: Callable[[KeyT, ItemT], Awaitable[ResultT]],
        check_one: Callable[[KeyT, ItemT], object] | None = None,
    ) -> None:
        self._batching = batching
        self._send_batch = send_batch
        self._send_one = send_one
        self._check_one = check_one
        self._open: dict[KeyT, _AsyncBatch[ItemT, ResultT]] = {}
        self._in_flight: dict[KeyT, int] = {}
        self._sending: set[asyncio.Task[None]] = set()

    async def submit(self, key: KeyT, item: ItemT) -> ResultT:
        """Publish `item` to `key`'s target in a batch and return its own result.

        Cancelling the caller does not take its item out of a batch that is already open.

        Returns:
            What `send_batch` (or, for a batch refused for its content, `send_one`) gave for
            `item`: its entry id or job receipt.

        Raises:
            PublishError: the batch failed (every item of it gets the same error), or `item`
                alone was refused when its batch was sent again item by item; whatever else
                the senders raise is raised the same way.
            asyncio.CancelledError: the sending task was cancelled (the event loop is closing).
        """
        # Imported here so that `import sdk` does not load asyncio for sync users.
        import asyncio

        loop = asyncio.get_running_loop()
        batch = self._open.get(key)
        if batch is None:
            batch = self._open[key] = _AsyncBatch(full=asyncio.Event())
            task = loop.create_task(self._send_when_due(key, batch))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)
        outcome: asyncio.Future[ResultT] = loop.create_future()
        batch.items.append(item)
        batch.outcomes.append(outcome)
        if len(batch.items) >= self._batching.max_items:
            del self._open[key]
            batch.full.set()
        return await outcome

    async def _send_when_due(self, key: KeyT, batch: _AsyncBatch[ItemT, ResultT]) -> None:
        import asyncio

        try:
            # This task runs after the publishes the loop had ready when the batch opened; one
            # more turn lets those they woke join too.
            await asyncio.sleep(0)
            if self._in_flight.get(key, 0):
                try:
                    await asyncio.wait_for(batch.full.wait(), self._batching.linger)
                except TimeoutError:
                    pass
            if self._open.get(key) is batch:
                del self._open[key]
            self._in_flight[key] = self._in_flight.get(key, 0) + 1
            try:
                results: list[ResultT] | Exception = await self._send_batch(key, batch.items)
            except Exception as error:
                results = error
            finally:
                self._answered(key)
            await self._settle_answer(key, batch.items, batch.outcomes, results)
        except BaseException as error:
            # A cancelled sender (the loop is closing) must not leave its callers waiting.
            _fail(batch.outcomes, error)
            raise

    async def _settle_answer(
        self,
        key: KeyT,
        items: list[ItemT],
        outcomes: Sequence[_Outcome[ResultT]],
        answer: list[ResultT] | Exception,
    ) -> None:
        """Settle `outcomes` by a batch's `answer`, sending again what a failure allows."""
        if not isinstance(answer, Exception):
            _settle(outcomes, answer)
        elif len(items) == 1:
            _fail(outcomes, answer)
        elif _never_sent(answer):
            kept = _encodable(self._check_one, key, items, outcomes)
            if kept is None:
                await self._singles(key, items, outcomes)
            elif kept[0]:
                try:
                    again: list[ResultT] | Exception = await self._send_batch(key, kept[0])
                except Exception as error:
                    again = error
                await self._settle_answer(key, *kept, again)
        elif _refused_for_content(answer):
            await self._singles(key, items, outcomes)
        else:
            _fail(outcomes, answer)

    async def _singles(
        self, key: KeyT, items: list[ItemT], outcomes: Sequence[_Outcome[ResultT]]
    ) -> None:
        import asyncio

        singles = await asyncio.gather(
            *(self._send_one(key, item) for item in items), return_exceptions=True
        )
        _settle_each(outcomes, singles)

    def _answered(self, key: KeyT) -> None:
        """A batch to `key` has its answer: the next one is due now, if none other is in flight."""
        left = self._in_flight[key] - 1
        if left:
            self._in_flight[key] = left
            return
        del self._in_flight[key]
        waiting = self._open.get(key)
        if waiting is not None:
            waiting.full.set()

    async def flush(self) -> None:
        """Send every open batch now and wait until every batch in flight has its answer.

        Raises nothing itself: each failure goes to the caller whose publish it was.
        """
        import asyncio

        for batch in self._open.values():
            batch.full.set()
        self._open.clear()
        if self._sending:
            await asyncio.gather(*self._sending, return_exceptions=True)


class BackgroundBatcher(Generic[KeyT, ItemT, ResultT]):
    """`publish_nowait` for the sync client: the caller gets a `Future` at once, and a thread of
    the batcher's own sends what was submitted, one request per target for up to BATCH_MAX
    items; whatever is submitted while a request is on its way goes into the next. So a producer
    publishing one at a time is not held up by round trips, and no timer delays a lone publish.

    A future resolves once the service has answered for its item: with its result (the entry id
    or job receipt, durable from then on), or with its PublishError. At most `max_pending` items
    wait at once: past that, `submit` blocks until the sender catches up.
    """

    def __init__(
        self,
        *,
        send_batch: Callable[[KeyT, list[ItemT]], list[ResultT]],
        send_one: Callable[[KeyT, ItemT], ResultT],
        check_one: Callable[[KeyT, ItemT], object] | None = None,
        max_pending: int = 10_000,
    ) -> None:
        self._coalescer: SyncCoalescer[KeyT, ItemT, ResultT] = SyncCoalescer(
            Batching(), send_batch=send_batch, send_one=send_one, check_one=check_one
        )
        self._max_pending = max_pending
        self._changed = threading.Condition()
        self._waiting: dict[KeyT, _SyncBatch[ItemT, ResultT]] = {}
        self._unanswered = 0
        self._thread: threading.Thread | None = None

    def submit(self, key: KeyT, item: ItemT) -> Future[ResultT]:
        """Queue `item` for `key`'s target; its future resolves with its own result.

        Blocks while `max_pending` items wait for their answers. Raises nothing itself.

        Returns:
            A `concurrent.futures.Future` of `item`'s own result (its entry id or job receipt),
            or of the PublishError that refused it.
        """
        outcome: Future[ResultT] = Future()
        with self._changed:
            while self._unanswered >= self._max_pending:
                self._changed.wait()
            batch = self._waiting.get(key)
            if batch is None:
                batch = self._waiting[key] = _SyncBatch()
            batch.items.append(item)
            batch.outcomes.append(outcome)
            self._unanswered += 1
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._send_all, name="spool-publish", daemon=True
                )
                self._thread.start()
            self._changed.notify_all()
        return outcome

    def flush(self) -> None:
        """Wait until every item submitted so far has its answer.

        Raises nothing itself: each failure is in its item's future.
        """
        with self._changed:
            while self._unanswered:
                self._changed.wait()

    def _send_all(self) -> None:
        while True:
            with self._changed:
                while not self._waiting:
                    self._changed.wait()
                waiting, self._waiting = self._waiting, {}
            for key, batch in waiting.items():
                for start in range(0, len(batch.items), BATCH_MAX):
                    part: _SyncBatch[ItemT, ResultT] = _SyncBatch(
                        items=batch.items[start : start + BATCH_MAX],
                        outcomes=batch.outcomes[start : start + BATCH_MAX],
                    )
                    try:
                        self._coalescer.send(key, part)
                    finally:
                        with self._changed:
                            self._unanswered -= len(part.items)
                            self._changed.notify_all()


class AsyncBackgroundBatcher(Generic[KeyT, ItemT, ResultT]):
    """`publish_nowait` for the async client: the caller gets a future at once, and the item
    joins a batch of `AsyncCoalescer`'s, which goes out as soon as no earlier batch to the same
    target is in flight, so whatever is submitted meanwhile shares the next request.
    """

    def __init__(
        self,
        *,
        send_batch: Callable[[KeyT, list[ItemT]], Awaitable[list[ResultT]]],
        send_one: Callable[[KeyT, ItemT], Awaitable[ResultT]],
        check_one: Callable[[KeyT, ItemT], object] | None = None,
    ) -> None:
        self._coalescer: AsyncCoalescer[KeyT, ItemT, ResultT] = AsyncCoalescer(
            Batching(max_items=BATCH_MAX),
            send_batch=send_batch,
            send_one=send_one,
            check_one=check_one,
        )
        self._submitted: set[asyncio.Future[ResultT]] = set()

    def submit(self, key: KeyT, item: ItemT) -> asyncio.Future[ResultT]:
        """Queue `item` for `key`'s target; its future resolves with its own result.

        Raises nothing itself.

        Returns:
            An `asyncio.Future` of `item`'s own result (its entry id or job receipt), or of the
            PublishError that refused it.
        """
        import asyncio

        submitted = asyncio.ensure_future(self._coalescer.submit(key, item))
        self._submitted.add(submitted)
        submitted.add_done_callback(self._submitted.discard)
        return submitted

    async def flush(self) -> None:
        """Wait until every item submitted so far has its answer.

        Raises nothing itself: each failure is in its item's future.
        """
        import asyncio

        if self._submitted:
            await asyncio.gather(*self._submitted, return_exceptions=True)
