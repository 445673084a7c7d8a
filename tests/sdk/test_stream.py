"""`Stream` is a frozen, validated definition shared by producers and consumers."""

from __future__ import annotations

import dataclasses

import pytest

import sdk


def test_a_stream_holds_name_group_maxlen_and_codec() -> None:
    """The fields are set by keyword after the name."""
    codec = sdk.JsonCodec()
    stream = sdk.Stream("orders", group="billing", maxlen=100_000, codec=codec)
    assert (stream.name, stream.group, stream.maxlen, stream.codec) == (
        "orders",
        "billing",
        100_000,
        codec,
    )


def test_a_stream_is_frozen_and_comparable() -> None:
    """Definitions cannot drift after import, and equal definitions are equal."""
    stream = sdk.Stream("events", maxlen=10)
    with pytest.raises(dataclasses.FrozenInstanceError):
        stream.maxlen = 20  # type: ignore[misc]
    assert stream == sdk.Stream("events", maxlen=10)
    assert hash(stream) == hash(sdk.Stream("events", maxlen=10))


@pytest.mark.parametrize("name", ["", "bad name", "-leading", "x" * 129, "events\n", "a/b", 7])
def test_invalid_names_are_refused(name: object) -> None:
    """The name must match the spec's ResourceName pattern."""
    with pytest.raises(sdk.InvalidNameError):
        sdk.Stream(name)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["events", "a", "orders.v2", "tenant:42_events-x", "x" * 128])
def test_valid_names_are_accepted(name: str) -> None:
    """Names the spec allows, up to 128 characters."""
    assert sdk.Stream(name).name == name


@pytest.mark.parametrize("group", ["", "bad group", "g" * 65])
def test_invalid_groups_are_refused(group: str) -> None:
    """The group must match the spec's GroupName pattern."""
    with pytest.raises(sdk.InvalidNameError):
        sdk.Stream("orders", group=group)


@pytest.mark.parametrize("maxlen", [-1, 1_000_000_001, 1.5, True, "10"])
def test_invalid_maxlen_is_refused(maxlen: object) -> None:
    """maxlen is an int from 0 to the spec's maximum."""
    with pytest.raises(sdk.InvalidArgumentError, match="maxlen"):
        sdk.Stream("events", maxlen=maxlen)  # type: ignore[arg-type]


def test_zero_and_the_maximum_maxlen_are_accepted() -> None:
    """The bounds themselves are valid."""
    assert sdk.Stream("events", maxlen=0).maxlen == 0
    assert sdk.Stream("events", maxlen=1_000_000_000).maxlen == 1_000_000_000


def test_a_codec_without_its_methods_is_refused() -> None:
    """A codec must have encode() and decode()."""
    with pytest.raises(sdk.InvalidArgumentError, match="codec"):
        sdk.Stream("events", codec=object())  # type: ignore[arg-type]
