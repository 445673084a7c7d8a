"""The service behind the pytest plugin: Redis prefixes, what its clients record, attaching."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

import sdk
from sdk._pytest_service import SpoolService, _own_prefix, _Tracker


def _prefix(url: str) -> str:
    return dict(parse_qsl(urlsplit(url).query))["prefix"]


def test_a_redis_store_gets_a_fresh_prefix_that_keeps_the_given_one() -> None:
    """Two sessions on one Redis never share keys; the user's prefix stays the start."""
    first = _own_prefix("redis://127.0.0.1:6379/15")
    second = _own_prefix("redis://127.0.0.1:6379/15?prefix=mine&health_check_interval=5")
    assert _prefix(first).startswith("spool-pytest-")
    assert _prefix(second).startswith("mine-pytest-")
    assert "health_check_interval=5" in second
    assert _prefix(first) != _prefix(_own_prefix("redis://127.0.0.1:6379/15"))


def test_other_stores_are_left_as_they_are() -> None:
    """An SQLite URL has no prefix to give."""
    assert _own_prefix("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"


def test_the_tracker_records_streams_from_paths_and_messages_from_answers() -> None:
    """Stream names come from request paths (decoded), message ids from publish answers."""
    tracker = _Tracker()
    tracker.see_request(httpx.Request("POST", "http://h/v1/streams/a%2Eb/entries"))
    tracker.see_request(httpx.Request("GET", "http://h/v1/streams/orders"))
    tracker.see_request(httpx.Request("GET", "http://h/v1/queues/jobs"))
    publish = httpx.Request("POST", "http://h/v1/messages/batch")
    tracker.see_answer(publish, b'{"messages": [{"message_id": "m1"}, {"message_id": "m2"}]}')
    tracker.see_answer(publish, b"not json, but message_id")
    tracker.see_answer(httpx.Request("GET", "http://h/v1/messages/m3"), b'{"message_id": "m3"}')
    assert tracker.take() == ({"a.b", "orders"}, {"m1", "m2"})
    assert tracker.take() == (set(), set())


def test_attaching_needs_an_api_key() -> None:
    """A running service is used with a token; without one the error says where to put it."""
    with pytest.raises(sdk.ConfigurationError, match=r"\$SPOOL_API_KEY"):
        SpoolService.attach("http://127.0.0.1:9", api_key=None)
    service = SpoolService.attach("http://127.0.0.1:9/", api_key="key")
    assert service.environment == {"SPOOL_BASE_URL": "http://127.0.0.1:9", "SPOOL_API_KEY": "key"}
    assert repr(service) == "SpoolService(base_url='http://127.0.0.1:9')"
    service.close()
