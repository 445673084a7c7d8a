"""Spool's reference service: openapi.yaml served over a SQLite or Redis store."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:
    __version__ = version("spool")
except PackageNotFoundError:
    # Run from a source tree that was never installed: the version is unknown, not wrong.
    __version__ = "0+unknown"
