"""Identifiers from ``server/ids.py``: format, time order and randomness."""

from __future__ import annotations

import multiprocessing
import os
import re

import pytest

from server import ids
from server.ids import CROCKFORD_ALPHABET, new_id

ULID_BODY = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")


def test_an_id_is_the_prefix_and_26_crockford_characters() -> None:
    """``new_id("job")`` is ``job_`` and a 26-character ULID without I, L, O or U."""
    prefix, _, body = new_id("job").partition("_")
    assert prefix == "job"
    assert ULID_BODY.fullmatch(body)
    assert not set("ILOU") & set(CROCKFORD_ALPHABET)


def test_the_time_part_encodes_milliseconds() -> None:
    """The first ten characters are the 48-bit millisecond time, most significant first."""
    assert new_id("msg", now=0).startswith("msg_0000000000")
    body = new_id("msg", now=1_800_000_000.123).removeprefix("msg_")
    milliseconds = 0
    for character in body[:10]:
        milliseconds = milliseconds * 32 + CROCKFORD_ALPHABET.index(character)
    assert milliseconds == 1_800_000_000_123


def test_ids_sort_by_time_across_milliseconds() -> None:
    """Ids from later milliseconds sort after earlier ones as plain strings."""
    times = [1_700_000_000.0 + step / 1000 for step in range(0, 5000, 7)]
    ids = [new_id("lease", now=now) for now in times]
    assert sorted(ids) == ids


def test_ids_made_in_one_millisecond_differ() -> None:
    """The 80 random bits keep ids of the same millisecond apart."""
    ids = {new_id("job", now=1_800_000_000.0) for _ in range(1000)}
    assert len(ids) == 1000


def test_an_empty_prefix_is_refused() -> None:
    """Every id names its kind, so an empty prefix is a ``ValueError``."""
    with pytest.raises(ValueError, match="prefix"):
        new_id("")


@pytest.mark.parametrize("random_bits", [0, 1, 2**80 - 1, 0x1234567890ABCDEF1234])
def test_the_body_is_the_time_and_random_bits_in_base32(
    monkeypatch: pytest.MonkeyPatch, random_bits: int
) -> None:
    """All 26 characters, read as base 32, give back the milliseconds and the random bits."""
    monkeypatch.setattr(ids, "_random_bits", lambda: random_bits)
    body = new_id("job", now=1_800_000_000.123).removeprefix("job_")
    value = 0
    for character in body:
        value = value * 32 + CROCKFORD_ALPHABET.index(character)
    assert value == (1_800_000_000_123 << 80) | random_bits


def _child_id(queue: multiprocessing.Queue[str]) -> None:
    queue.put(new_id("job", now=0))


def test_a_forked_child_draws_its_own_random_bits() -> None:
    """A child forked after its parent drew ids does not repeat the parent's next ones."""
    new_id("job")
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[str] = context.Queue()
    child = context.Process(target=_child_id, args=(queue,))
    child.start()
    from_child = queue.get(timeout=10)
    child.join(timeout=10)
    assert from_child != new_id("job", now=0)


def test_random_bits_are_drawn_a_block_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many ids cost one read of the system's generator, and still differ."""
    reads: list[int] = []
    real_urandom = os.urandom

    def counted(size: int) -> bytes:
        reads.append(size)
        return real_urandom(size)

    monkeypatch.setattr(ids, "_random_block", bytearray())
    monkeypatch.setattr(os, "urandom", counted)
    made = {new_id("job", now=0) for _ in range(400)}
    assert len(made) == 400
    assert reads == [ids.BLOCK_BYTES]
