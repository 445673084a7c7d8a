"""What a redacted message shows (server/redaction.py)."""

from __future__ import annotations

from server.redaction import REDACTED, redact_headers, redact_message_request


def test_named_headers_are_hidden_in_any_letter_case() -> None:
    """Only the named headers lose their values; names and other headers stay as given."""
    headers = {"Authorization": "Bearer x", "X-Tenant": "acme", "x-api-key": "k"}
    assert redact_headers(headers, ["AUTHORIZATION", "X-Api-Key"]) == {
        "Authorization": REDACTED,
        "X-Tenant": "acme",
        "x-api-key": REDACTED,
    }
    assert redact_headers(headers, []) == headers


def test_a_message_request_hides_its_body_and_every_set_of_headers() -> None:
    """``redact`` applies to the body and to headers, callback_headers and
    failure_callback_headers; the input document is left as it was.
    """
    message = {
        "url": "https://example.com/h",
        "body": {"card": "4111"},
        "headers": {"Authorization": "a"},
        "callback_headers": {"authorization": "b"},
        "failure_callback_headers": {"X-Other": "c"},
        "redact": {"body": True, "headers": ["Authorization"]},
    }
    shown = redact_message_request(message)
    assert shown["body"] == REDACTED
    assert shown["headers"] == {"Authorization": REDACTED}
    assert shown["callback_headers"] == {"authorization": REDACTED}
    assert shown["failure_callback_headers"] == {"X-Other": "c"}
    assert message["body"] == {"card": "4111"}
    unredacted = {"url": "https://example.com/h", "body": 1, "headers": {"Authorization": "a"}}
    assert redact_message_request(unredacted) == unredacted
