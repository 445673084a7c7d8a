"""What the web-framework receivers share: guarded paths, the URL to verify, the 401 document."""

from __future__ import annotations

import json

import pytest

import sdk
from sdk._web import (
    check_paths,
    check_public_url,
    covers,
    missing_framework,
    refusal_document,
    request_url,
)


def test_paths_cover_themselves_and_what_lies_below() -> None:
    """A prefix covers its own path and deeper ones, never a longer sibling."""
    prefixes = check_paths(["/hooks/", "/other"])
    assert prefixes == ("/hooks", "/other")
    assert covers(prefixes, "/hooks") and covers(prefixes, "/hooks/a/b")
    assert not covers(prefixes, "/hooksmith") and not covers(prefixes, "/")
    assert covers(check_paths(["/"]), "/anything")


def test_the_url_is_the_public_one_or_the_one_the_request_came_to() -> None:
    """public_url replaces scheme, host and any prefix; without it the request's own are used."""
    assert check_public_url("https://example.com/api/") == "https://example.com/api"
    assert check_public_url(None) is None
    target = "/hooks/a?x=1"
    assert (
        request_url("https://example.com/api", scheme="http", host="internal:8000", target=target)
        == "https://example.com/api/hooks/a?x=1"
    )
    assert (
        request_url(None, scheme="http", host="internal:8000", target=target)
        == "http://internal:8000/hooks/a?x=1"
    )


@pytest.mark.parametrize(
    "public_url", ["ftp://example.com", "example.com", "https://", "https://e.com/?a=1", 42]
)
def test_a_public_url_that_is_not_one_is_refused(public_url: object) -> None:
    """Only an http(s) URL with a host and neither query nor fragment can be joined to."""
    with pytest.raises(sdk.ConfigurationError, match="public_url"):
        check_public_url(public_url)  # type: ignore[arg-type]


def test_the_refusal_is_a_problem_document_with_the_reason() -> None:
    """401 problem+json: the SignatureError's reason as `code` and its message as `detail`."""
    error = sdk.SignatureError("signature verification failed (expired): ...", reason="expired")
    document = json.loads(refusal_document(error))
    assert document == {
        "type": "about:blank",
        "title": "Unauthorized",
        "status": 401,
        "code": "expired",
        "detail": "signature verification failed (expired): ...",
    }


def test_a_missing_framework_names_its_extra() -> None:
    """The error says what to install."""
    error = missing_framework("sdk.flask", "Flask", "flask")
    assert isinstance(error, sdk.ConfigurationError)
    assert str(error) == "sdk.flask needs Flask, which is not installed: pip install 'spool[flask]'"
