"""Fixtures of the typing tests: one mypy cache for their strict runs."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mypy cache the session's runs share (one per xdist worker): the standard library and the
    dependencies are checked once, not again in each run; mypy still rechecks any module whose
    file or content differs from what the cache saw, so every run reports what a cold one would.
    """
    return tmp_path_factory.mktemp("mypy-cache")
