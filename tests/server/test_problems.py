"""Problem responses (server/problems.py): X-Should-Retry on every one."""

from __future__ import annotations

import pytest

from server.problems import SHOULD_RETRY_HEADER, TITLES, ProblemError, problem_response

# What openapi.yaml's ShouldRetry header says of each code, written out here rather than read
# from server/problems.py, so that a code moved between the two lists fails this test.
PASSING = {"rate_limited", "unavailable", "store_full", "internal_error"}


@pytest.mark.parametrize("code", sorted(TITLES))
def test_every_problem_says_whether_a_retry_can_help(code: str) -> None:
    """``true`` for the refusals that pass with time, ``false`` for every other, whatever else
    the error's own headers set.
    """
    status = {"rate_limited": 429, "unavailable": 503, "store_full": 503}.get(code, 400)
    error = ProblemError(status, code, "detail", headers={"Retry-After": "1"})
    response = problem_response(error, instance="/v1/x", request_id="req_1")
    assert response.headers[SHOULD_RETRY_HEADER] == ("true" if code in PASSING else "false")
    assert response.headers["retry-after"] == "1"


def test_a_quota_used_up_is_final_though_it_is_429() -> None:
    """``quota_exceeded`` shares 429 with ``rate_limited``; only the rate limit passes."""
    quota = problem_response(
        ProblemError(429, "quota_exceeded", "used up"), instance="/v1/x", request_id="req_1"
    )
    rate = problem_response(
        ProblemError(429, "rate_limited", "slow down"), instance="/v1/x", request_id="req_1"
    )
    assert (quota.headers[SHOULD_RETRY_HEADER], rate.headers[SHOULD_RETRY_HEADER]) == (
        "false",
        "true",
    )
