"""The listing indexes' catch-up: stream names and message ids kept before the indexes existed.

The names of streams (``StoreKeys.stream_names``) and the ids of messages
(``MessageKeys.listed``) are indexed as streams and messages are written. A database written by an
earlier version has streams and messages in neither, so opening the store walks the keyspace once
(SCAN, a page at a time, on every master of a cluster) and adds them; a marker key records that it
ran, so later opens read one key. Several processes opening at once may each walk it, which only
adds the same members again.
"""

from __future__ import annotations

import re

from .connection import Client
from .keys import StoreKeys

__all__ = ["backfill_listing_indexes", "stream_name_of_key"]

_SCAN_COUNT = 1000
_GLOB_SPECIAL = re.compile(r"([*?\[\]\\])")


def _glob_literal(text: str) -> str:
    return _GLOB_SPECIAL.sub(r"\\\1", text)


def stream_name_of_key(prefix: str, key: str) -> str | None:
    """The stream that ``StoreKeys(prefix).stream`` names ``key``, or None for another key."""
    head = f"{prefix}:s:{{"
    if not key.startswith(head) or "}" not in key[len(head) :]:
        return None
    tag, _, rest = key[len(head) :].partition("}")
    return tag + rest if tag else None


async def backfill_listing_indexes(client: Client, keys: StoreKeys) -> None:
    """Index the streams and messages that are not yet, unless that was done before."""
    if await client.exists(keys.listing_indexed):
        return
    stream_keys = client.scan_iter(
        match=_glob_literal(f"{keys.prefix}:s:{{") + "*", count=_SCAN_COUNT, _type="stream"
    )
    names = {}
    async for key in stream_keys:
        name = stream_name_of_key(keys.prefix, str(key))
        if name is not None:
            names[name] = 0
        if len(names) >= _SCAN_COUNT:
            await client.zadd(keys.stream_names, names, nx=True)
            names = {}
    if names:
        await client.zadd(keys.stream_names, names, nx=True)
    messages = keys.messages
    message_keys = client.scan_iter(
        match=_glob_literal(messages.message_prefix) + "*", count=_SCAN_COUNT, _type="hash"
    )
    found: list[str] = []
    async for key in message_keys:
        found.append(str(key))
        if len(found) >= _SCAN_COUNT:
            await _index_messages(client, keys, found)
            found = []
    await _index_messages(client, keys, found)
    await client.set(keys.listing_indexed, "1")


async def _index_messages(client: Client, keys: StoreKeys, message_keys: list[str]) -> None:
    if not message_keys:
        return
    messages = keys.messages
    async with client.pipeline(transaction=False) as pipe:
        for key in message_keys:
            pipe.hget(key, "seq")
        sequences = await pipe.execute()
    members = {
        key.removeprefix(messages.message_prefix): int(sequence)
        for key, sequence in zip(message_keys, sequences, strict=True)
        if sequence is not None
    }
    if members:
        await client.zadd(messages.listed, members, nx=True)
