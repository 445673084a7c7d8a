"""Which failures of a batch are sent again item by item (sdk/_batching.py), in every batcher.

A 400, 413 or 422 refused the whole batch for one item and wrote nothing: every item goes again
on its own. A document that could not be encoded was never sent: the items that cannot be encoded
alone fail, the others go again as one batch. Anything else (a 409, a connection error) may have
been written or is every item's failure: it reaches every caller and nothing is sent again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from sdk._batching import (
    AsyncBackgroundBatcher,
    AsyncCoalescer,
    BackgroundBatcher,
    Batching,
    SyncCoalescer,
)
from sdk._exceptions import (
    APIConnectionError,
    BadRequestError,
    ConflictError,
    PayloadTooLargeError,
    PublishError,
    UnprocessableEntityError,
)

ITEMS = ["a", "bad", "c", "d"]


def _publish_error(cause: Exception) -> PublishError:
    try:
        raise PublishError("events", str(cause)) from cause
    except PublishError as error:
        return error


def _unencodable() -> PublishError:
    return _publish_error(ValueError("Out of range float values are not JSON compliant"))


class _Service:
    """Send functions over a pretend service refusing any batch holding `bad` with `refusal`
    (or, with `refusal` None, failing to encode it), and `bad` alone the same way.
    """

    def __init__(self, refusal: Exception | None) -> None:
        self.refusal = refusal
        self.batches: list[list[str]] = []
        self.singles: list[str] = []
        self.checked: list[str] = []

    def _refuse(self) -> PublishError:
        return _unencodable() if self.refusal is None else _publish_error(self.refusal)

    def batch(self, key: str, items: list[str]) -> list[str]:
        if "bad" in items and self.refusal is None:
            raise self._refuse()
        self.batches.append(list(items))
        if "bad" in items:
            raise self._refuse()
        return [f"{key}:{item}" for item in items]

    def one(self, key: str, item: str) -> str:
        if item == "bad" and self.refusal is None:
            raise self._refuse()
        self.singles.append(item)
        if item == "bad":
            raise self._refuse()
        return f"{key}:{item}"

    def check(self, key: str, item: str) -> None:
        self.checked.append(f"{key}:{item}")
        if item == "bad" and self.refusal is None:
            raise self._refuse()

    async def abatch(self, key: str, items: list[str]) -> list[str]:
        await asyncio.sleep(0)
        return self.batch(key, items)

    async def aone(self, key: str, item: str) -> str:
        await asyncio.sleep(0)
        return self.one(key, item)


Publish = Callable[[_Service, bool], Awaitable[list[str | BaseException]]]


async def _sync_coalescer(service: _Service, checks: bool) -> list[str | BaseException]:
    coalescer: SyncCoalescer[str, str, str] = SyncCoalescer(
        Batching(linger=1.0, max_items=len(ITEMS)),
        send_batch=service.batch,
        send_one=service.one,
        check_one=service.check if checks else None,
    )

    def publish(item: str) -> str | BaseException:
        try:
            return coalescer.submit("s", item)
        except PublishError as error:
            return error

    return list(await asyncio.gather(*(asyncio.to_thread(publish, item) for item in ITEMS)))


async def _async_coalescer(service: _Service, checks: bool) -> list[str | BaseException]:
    coalescer: AsyncCoalescer[str, str, str] = AsyncCoalescer(
        Batching(linger=1.0, max_items=len(ITEMS)),
        send_batch=service.abatch,
        send_one=service.aone,
        check_one=service.check if checks else None,
    )
    return await asyncio.gather(
        *(coalescer.submit("s", item) for item in ITEMS), return_exceptions=True
    )


async def _background(service: _Service, checks: bool) -> list[str | BaseException]:
    sender: BackgroundBatcher[str, str, str] = BackgroundBatcher(
        send_batch=service.batch,
        send_one=service.one,
        check_one=service.check if checks else None,
    )
    # The first submit may go alone before the others arrive: nothing here depends on it.
    futures = [sender.submit("s", item) for item in ITEMS]
    sender.flush()
    return [future.exception() or future.result() for future in futures]


async def _async_background(service: _Service, checks: bool) -> list[str | BaseException]:
    sender: AsyncBackgroundBatcher[str, str, str] = AsyncBackgroundBatcher(
        send_batch=service.abatch,
        send_one=service.aone,
        check_one=service.check if checks else None,
    )
    futures = [sender.submit("s", item) for item in ITEMS]
    await sender.flush()
    return [future.exception() or future.result() for future in futures]


BATCHERS = [_sync_coalescer, _async_coalescer, _background, _async_background]


def _only_bad_failed(results: list[str | BaseException], cause: type[BaseException]) -> None:
    assert [result for n, result in enumerate(results) if n != 1] == ["s:a", "s:c", "s:d"]
    failure = results[1]
    assert isinstance(failure, PublishError)
    assert isinstance(failure.__cause__, cause)


@pytest.mark.parametrize("batcher", BATCHERS, ids=lambda batcher: batcher.__name__)
@pytest.mark.parametrize(
    "refusal",
    [
        BadRequestError("400 malformed_request: recursion limit exceeded", status_code=400),
        PayloadTooLargeError("413 payload_too_large", status_code=413),
        UnprocessableEntityError("422 validation_failed", status_code=422),
    ],
    ids=["400", "413", "422"],
)
async def test_a_batch_refused_for_one_item_is_sent_again_item_by_item(
    batcher: Publish, refusal: Exception
) -> None:
    """Only the bad item fails; each good one is written once, by its own request."""
    service = _Service(refusal)
    results = await batcher(service, True)
    _only_bad_failed(results, type(refusal))
    written = [item for batch in service.batches if "bad" not in batch for item in batch]
    assert sorted(written + [item for item in service.singles if item != "bad"]) == [
        "a",
        "c",
        "d",
    ]


@pytest.mark.parametrize("batcher", BATCHERS, ids=lambda batcher: batcher.__name__)
async def test_a_batch_that_cannot_be_encoded_sends_the_others_as_one_batch(
    batcher: Publish,
) -> None:
    """The item that cannot be encoded alone fails before any request; the others go together,
    each once.
    """
    service = _Service(None)
    results = await batcher(service, True)
    _only_bad_failed(results, ValueError)
    assert sorted(item for batch in service.batches for item in batch) == ["a", "c", "d"]
    assert service.singles == []


@pytest.mark.parametrize("batcher", BATCHERS, ids=lambda batcher: batcher.__name__)
async def test_without_a_check_a_batch_that_cannot_be_encoded_goes_item_by_item(
    batcher: Publish,
) -> None:
    """Without `check_one` the items cannot be told apart but by sending each alone."""
    service = _Service(None)
    results = await batcher(service, False)
    _only_bad_failed(results, ValueError)
    assert sorted(service.singles + [i for b in service.batches for i in b]) == ["a", "c", "d"]


@pytest.mark.parametrize("batcher", BATCHERS, ids=lambda batcher: batcher.__name__)
@pytest.mark.parametrize(
    "failure",
    [
        ConflictError("409 idempotency_key_reused", status_code=409),
        APIConnectionError("connection reset"),
    ],
    ids=["409", "connection"],
)
async def test_a_failure_that_may_have_written_is_every_callers(
    batcher: Publish, failure: Exception
) -> None:
    """A batch that may have been written, or failed for all, is never sent again."""
    error = _publish_error(failure)
    service = _Service(failure)

    def refused(key: str, items: list[str]) -> list[str]:
        service.batches.append(list(items))
        raise error

    async def arefused(key: str, items: list[str]) -> list[str]:
        return refused(key, items)

    service.batch = refused  # type: ignore[method-assign]
    service.abatch = arefused  # type: ignore[method-assign]
    results = await batcher(service, True)
    assert results == [error] * len(ITEMS)
    assert service.singles == [] and service.checked == []
