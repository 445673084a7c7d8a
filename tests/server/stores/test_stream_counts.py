"""What a metrics scrape reads of streams (``Store.count_streams``, ``GroupInfo.lag``), on every
backend.
"""

from __future__ import annotations

from server.stores.base import Store


async def _append(store: Store, stream: str, count: int) -> None:
    await store.append(stream, [{"n": n} for n in range(count)], trim=None, nomkstream=False)


async def test_count_streams_counts_what_a_listing_answers(store: Store) -> None:
    """None at first; each new stream counts once, however many entries; a deleted one no more."""
    assert await store.count_streams() == 0
    for name in ("a", "b", "c"):
        await _append(store, name, 2)
    await _append(store, "a", 1)
    await store.create_group("d", "g", start_id="$", mkstream=True)
    assert await store.count_streams() == 4
    await store.delete_stream("b")
    assert await store.count_streams() == 3
    listed = await store.list_streams(prefix="", limit=10, cursor=None)
    assert len(listed.streams) == 3


async def test_a_groups_lag_is_what_it_has_yet_to_read(store: Store) -> None:
    """A group from the start lags by every entry, and by fewer as it reads; one from the end by
    none until entries come; reading everything leaves none, pending or not.
    """
    await _append(store, "events", 5)
    await store.create_group("events", "all", start_id="0", mkstream=False)
    await store.create_group("events", "new", start_id="$", mkstream=False)
    lags = {group.group: group.lag for group in (await store.stream_info("events")).groups}
    assert lags == {"all": 5, "new": 0}
    await store.read_group("events", "all", consumer="c", count=2, wait_ms=0)
    await _append(store, "events", 3)
    info = await store.stream_info("events")
    assert {group.group: (group.lag, group.pending) for group in info.groups} == {
        "all": (6, 2),
        "new": (3, 0),
    }
    await store.read_group("events", "new", consumer="c", count=10, wait_ms=0)
    [_, new] = (await store.stream_info("events")).groups
    assert (new.lag, new.pending) == (0, 3)
