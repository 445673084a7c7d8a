"""The suite's own machinery in tests/conftest.py."""

from __future__ import annotations

import gc

from server.heap import YOUNG_COLLECTION_THRESHOLD


def test_the_tests_run_on_a_settled_heap() -> None:
    """Collection's objects are frozen and the collector runs again, at the served app's young
    threshold (`pytest_collection`).
    """
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[0] == YOUNG_COLLECTION_THRESHOLD
