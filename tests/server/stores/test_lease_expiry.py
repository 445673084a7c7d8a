"""The words of a dead job's lease expiry (server/stores/lease_expiry.py), apart from any store."""

from __future__ import annotations

import pytest

from server.ids import new_id
from server.stores.lease_expiry import lease_expired_error, lease_taken_at


def test_a_lease_id_tells_when_it_was_taken() -> None:
    """To the millisecond the id was made at."""
    assert lease_taken_at(new_id("lease", now=1_700_000_000.1234)) == pytest.approx(
        1_700_000_000.123
    )


@pytest.mark.parametrize("lease_id", [None, "lease_short", "lease_" + "!" * 26, ""])
def test_an_id_not_of_ours_gives_the_reason_without_a_length(lease_id: str | None) -> None:
    """Without a lease's start, the reason still says what happened, and on which attempt."""
    assert lease_taken_at(lease_id) is None
    assert lease_expired_error(lease_id, 100.0, 3, 3) == "lease expired, attempt 3 of 3"


def test_the_length_is_rounded_to_the_second() -> None:
    """Half a second and more rounds up."""
    lease_id = new_id("lease", now=1000.0)
    assert lease_expired_error(lease_id, 1030.4, 1, 2) == "lease expired after 30 s, attempt 1 of 2"
    assert lease_expired_error(lease_id, 1030.5, 1, 2) == "lease expired after 31 s, attempt 1 of 2"
