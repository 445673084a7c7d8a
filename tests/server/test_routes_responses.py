"""JSON responses (server/routes/_responses.py): dates."""

from __future__ import annotations

from server.routes._responses import rfc3339


def test_dates_are_rfc3339_utc_with_a_z() -> None:
    """Times are written with milliseconds and a Z, as the spec's examples are."""
    assert rfc3339(0) == "1970-01-01T00:00:00.000Z"
    assert rfc3339(1796472000.25) == "2026-12-05T12:00:00.250Z"
