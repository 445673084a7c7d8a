"""The backlog of a Redis stream read through one consumer group: entries not yet delivered to
the group (its lag) and those delivered but not acknowledged; before the group exists, the whole
stream.
"""

from __future__ import annotations

__all__ = ["stream_backlog"]


async def stream_backlog(client: object, stream: str, group: str) -> int:
    """What ``group`` of ``stream`` still has to do, through the ``redis.asyncio`` ``client``."""
    if not await client.exists(stream):  # type: ignore[attr-defined]
        return 0
    groups = await client.xinfo_groups(stream)  # type: ignore[attr-defined]
    for info in groups:
        name = info["name"]
        if (name.decode() if isinstance(name, bytes) else name) == group:
            return int(info["lag"] or 0) + int(info["pending"])
    return int(await client.xlen(stream))  # type: ignore[attr-defined]
