"""Time-sortable identifiers for jobs, messages and leases: ``<prefix>_<26 characters>``.

The 26 characters are a ULID: 48 bits of milliseconds since the epoch, then 80 random bits, in
Crockford's base32 (no I, L, O or U, so ids survive being read aloud or copied by hand). Ids made in
different milliseconds sort by time as plain strings; within one millisecond their order is random,
which nothing relies on.
"""

from __future__ import annotations

import os
import threading
import time

__all__ = ["BLOCK_BYTES", "CROCKFORD_ALPHABET", "ID_BODY_LENGTH", "new_id"]

CROCKFORD_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ID_BODY_LENGTH = 26

_TIME_BITS = 48
_RANDOM_BITS = 80
# Every 10 bits as their two characters: 13 lookups instead of 26 divisions by 32 in Python.
_PAIRS = tuple(first + second for first in CROCKFORD_ALPHABET for second in CROCKFORD_ALPHABET)
_PAIR_SHIFTS = tuple(range(5 * ID_BODY_LENGTH - 10, -1, -10))

# The random bits come from the operating system's generator, as ``secrets`` would draw them, but
# a block at a time: one getrandom call per id cost 3% of a single publish (py-spy). The block is
# dropped in a forked child, which must not hand out its parent's bits again.
_RANDOM_BYTES = _RANDOM_BITS // 8
BLOCK_BYTES = 4096 - 4096 % _RANDOM_BYTES
_random_lock = threading.Lock()
_random_block = bytearray()


def _forget_random_block() -> None:
    _random_block.clear()


os.register_at_fork(after_in_child=_forget_random_block)


def _random_bits() -> int:
    with _random_lock:
        if not _random_block:
            _random_block.extend(os.urandom(BLOCK_BYTES))
        drawn = _random_block[-_RANDOM_BYTES:]
        del _random_block[-_RANDOM_BYTES:]
    return int.from_bytes(drawn, "big")


def new_id(prefix: str, *, now: float | None = None) -> str:
    """A fresh id such as ``job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9``; ``now`` (seconds) pins its time part."""
    if not prefix:
        raise ValueError("an id prefix must not be empty")
    seconds = time.time() if now is None else now
    milliseconds = int(seconds * 1000) & ((1 << _TIME_BITS) - 1)
    value = (milliseconds << _RANDOM_BITS) | _random_bits()
    body = "".join([_PAIRS[(value >> shift) & 1023] for shift in _PAIR_SHIFTS])
    return f"{prefix}_{body}"
