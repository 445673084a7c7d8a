"""The suite's own machinery in tests/conftest.py."""

from __future__ import annotations

import gc
import sys

import coverage
import pytest

from server.heap import YOUNG_COLLECTION_THRESHOLD
from tests.conftest import coverage_paused


def test_the_tests_run_on_a_settled_heap() -> None:
    """Collection's objects are frozen and the collector runs again, at the served app's young
    threshold (`pytest_collection`).
    """
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[0] == YOUNG_COLLECTION_THRESHOLD


def test_a_measured_test_is_traced_again_after_collection() -> None:
    """Collection pauses coverage; the tests that follow are traced (when coverage is on)."""
    if coverage.Coverage.current() is None:
        pytest.skip("coverage is off in this run")
    assert sys.gettrace() is not None


@pytest.mark.unmeasured
def test_an_unmeasured_test_runs_untraced() -> None:
    """No measurement traces a test marked ``unmeasured``, not even one stacked beneath."""
    assert coverage.Coverage.current() is None
    assert sys.gettrace() is None


def test_pausing_stops_every_stacked_measurement_and_restores_them() -> None:
    """Two measurements started one on the other (as in an xdist worker) are both stopped inside
    `coverage_paused` and back in their order after it.
    """
    outer = coverage.Coverage(data_file=None)
    inner = coverage.Coverage(data_file=None)
    with coverage_paused():
        outer.start()
        inner.start()
        try:
            with coverage_paused():
                assert coverage.Coverage.current() is None
                assert sys.gettrace() is None
            assert coverage.Coverage.current() is inner
            inner.stop()
            assert coverage.Coverage.current() is outer
        finally:
            inner.stop()
            outer.stop()
