"""The pytest plugin's receiver: it records what arrives under its URL and checks signatures."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from sdk._pytest_receiver import DeliveryReceiver
from sdk._receiver import Receiver
from server.signing import sign

CURRENT = "receiver_current_key"
NEXT = "receiver_next_key"


@pytest.fixture
def receiver() -> Iterator[DeliveryReceiver]:
    """A receiver on a free loopback port, closed after the test."""
    endpoint = DeliveryReceiver(Receiver(CURRENT, NEXT))
    try:
        yield endpoint
    finally:
        endpoint.close()


def _send(url: str, body: bytes, *, key: str = CURRENT, signed_for: str | None = None) -> int:
    signature = sign(key, url=signed_for or url, body=body, now=time.time(), ttl=60)
    response = httpx.post(url, content=body, headers={"Spool-Signature": signature, "X-A": "1"})
    return response.status_code


def test_a_signed_request_is_recorded_and_verified(receiver: DeliveryReceiver) -> None:
    """Method, path, headers, body and the signature's outcome are all kept."""
    assert _send(receiver.url + "/hook?x=1", b'{"a": 1}') == 200
    (delivery,) = receiver.wait_for(1, timeout=5)
    assert delivery.verified and delivery.signature_error is None
    assert (delivery.method, delivery.json()) == ("POST", {"a": 1})
    assert delivery.path.endswith("/hook?x=1")
    assert delivery.url == receiver.url + "/hook?x=1"
    assert delivery.headers["x-a"] == "1"


def test_a_bad_signature_is_recorded_and_fails_wait_for(receiver: DeliveryReceiver) -> None:
    """A delivery signed with another key is kept with its reason; wait_for says so."""
    _send(receiver.url, b"{}", key="another_key")
    with pytest.raises(AssertionError, match=r"failed verification:\n.*bad_signature"):
        receiver.wait_for(1, timeout=5)
    (delivery,) = receiver.wait_for(1, timeout=5, verified=False)
    assert delivery.signature_error is not None
    assert delivery.signature_error.reason == "bad_signature"


def test_a_signature_for_another_url_is_a_url_mismatch(receiver: DeliveryReceiver) -> None:
    """The receiver checks the URL the request came to, as the service signed it."""
    _send(receiver.url, b"{}", signed_for="http://127.0.0.1:1/elsewhere")
    (delivery,) = receiver.wait_for(1, timeout=5, verified=False)
    assert delivery.signature_error is not None
    assert delivery.signature_error.reason == "url_mismatch"


def test_requests_outside_its_path_are_refused_unrecorded(receiver: DeliveryReceiver) -> None:
    """A request for another path (a retry meant for an earlier receiver) gets 404."""
    origin = receiver.url.rsplit("/", 1)[0]
    assert _send(origin + "/spool-receiver-other/hook", b"{}") == 404
    assert receiver.deliveries == []


def test_its_status_is_what_it_answers(receiver: DeliveryReceiver) -> None:
    """Setting status makes deliveries fail, to see retries."""
    receiver.status = 503
    assert _send(receiver.url, b"{}") == 503
    assert len(receiver.deliveries) == 1


def test_waiting_in_vain_lists_what_arrived(receiver: DeliveryReceiver) -> None:
    """wait_for gives up after its timeout and says how many arrived, and which."""
    _send(receiver.url + "/one", b'{"n": 1}')
    with pytest.raises(AssertionError) as caught:
        receiver.wait_for(2, timeout=0.2)
    message = str(caught.value)
    assert "expected 2 delivery(ies)" in message and "within 0.2 s, got 1" in message
    assert "/one (signed)" in message
    idle = DeliveryReceiver(Receiver(CURRENT, NEXT))
    try:
        with pytest.raises(AssertionError, match="got 0:\n  nothing"):
            idle.wait_for(1, timeout=0.01)
    finally:
        idle.close()


def test_wait_for_returns_as_soon_as_the_delivery_arrives(receiver: DeliveryReceiver) -> None:
    """Waiting is on a condition, not a fixed sleep."""
    _send(receiver.url, b"{}")
    started = time.monotonic()
    receiver.wait_for(1, timeout=30)
    assert time.monotonic() - started < 1
    assert "deliveries=1" in repr(receiver)
