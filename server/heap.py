"""The heap of a process that serves the app: once the app has started, what the process holds is
moved out of the cyclic garbage collector's reach, and a young collection waits for more new
objects than a load of requests keeps alive at once.

A served app holds some 90,000 tracked objects from startup on (modules, the document's facts,
models, the store's clients) that live as long as the process. With Python's defaults every full
collection walked all of them: under 32 connections of single publishes on Redis, gc callbacks in
``python -m server`` counted a full collection every ~1,100 publishes at 36–49 ms each, 37–47 µs
per publish, a sixth of its CPU; the minimal Starlette app the service is measured against spent
10 µs. Frozen, they are skipped (0.4 µs per publish).

A young collection ran every ~9 publishes: the 700 new objects that trigger one are fewer than the
requests in flight hold, so each collection found them all alive and promoted them, to be walked
again by the older collections. At 10,000 none ran in 20,000 publishes; cyclic garbage, which the
service does not make per request, is still collected, a little later.
"""

from __future__ import annotations

import gc

__all__ = ["YOUNG_COLLECTION_THRESHOLD", "settle_heap"]

YOUNG_COLLECTION_THRESHOLD = 10_000


def settle_heap() -> None:
    """Collect what startup left as garbage, freeze the rest, and raise the young threshold.

    For a process whose life the app is: what is alive when it runs is never collected, so a
    process that then drops some of it (a test that ends, with its app) keeps it.
    """
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, middle, old)
