"""A stream publish's keywords, read once into `EntryOptions`."""

from __future__ import annotations

import pytest

import sdk
from generated.types import UNSET
from sdk._stream_calls import EntryOptions, StreamCalls


def _options(
    stream: str | sdk.Stream,
    *,
    maxlen: int | None = None,
    approximate: bool = True,
    minid: str | None = None,
) -> EntryOptions:
    return StreamCalls(sdk.JsonCodec()).options(
        stream, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=False
    )


def test_nothing_trimmed_sends_no_trim_options() -> None:
    """Without maxlen or minid, `approximate` is left out too (the model would send True)."""
    options = _options("events")
    assert (options.stream, options.maxlen, options.minid, options.approximate) == (
        "events",
        UNSET,
        UNSET,
        UNSET,
    )


def test_the_calls_maxlen_wins_over_the_streams() -> None:
    """A Stream's maxlen applies unless the call gives its own."""
    stream = sdk.Stream("events", maxlen=1000)
    assert _options(stream).maxlen == 1000
    assert _options(stream, maxlen=10, approximate=False).maxlen == 10
    assert _options(stream, approximate=False).approximate is False


def test_equal_options_batch_together_only_with_the_same_codec() -> None:
    """Options are the batch key: equal keywords with the very same codec compare equal."""
    calls = StreamCalls(sdk.JsonCodec())
    first = calls.options("events", maxlen=5, approximate=True, minid=None, nomkstream=True)
    again = calls.options("events", maxlen=5, approximate=True, minid=None, nomkstream=True)
    other = StreamCalls(sdk.JsonCodec()).options(
        "events", maxlen=5, approximate=True, minid=None, nomkstream=True
    )
    assert first == again and hash(first) == hash(again)
    assert first != other


def test_a_bad_maxlen_is_refused_before_anything_is_sent() -> None:
    """The keywords are checked where they are read."""
    with pytest.raises(sdk.InvalidArgumentError):
        _options("events", maxlen=-1)
