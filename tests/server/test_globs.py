"""Permission globs (server/globs.py): names by shell globs, URLs part by part."""

from __future__ import annotations

import pytest

from server.globs import GlobError, check_glob, glob_matches

MATCHES = [
    # Names keep shell globs.
    ("billing-*", "billing-eu"),
    ("jobs-?", "jobs-1"),
    ("*", "anything"),
    ("*", "https://anywhere.example/x"),
    # URLs, part by part.
    ("https://hooks.example.com/*", "https://hooks.example.com/a"),
    ("https://hooks.example.com/*", "https://hooks.example.com/a/b?c=d"),
    ("https://HOOKS.example.com/*", "https://hooks.EXAMPLE.com/a"),
    ("https://*.example.com/*", "https://a.example.com/x"),
    ("https://*.example.com/*", "https://a.b.example.com/x"),
    ("https://hooks-*.example.com", "https://hooks-eu.example.com/any/path"),
    ("https://example.com", "https://example.com"),
    ("https://example.com", "https://example.com/deep/path"),
    ("https://example.com/in", "https://example.com/in"),
    ("https://example.com/in/*/x", "https://example.com/in/abc/x"),
    ("https://example.com/hooks/*", "https://example.com/other/../hooks/a"),
    ("*://example.com/*", "http://example.com/a"),
    ("*://example.com/*", "https://example.com/a"),
    ("https://example.com/*", "https://example.com:443/a"),
    ("http://127.0.0.1:8080/*", "http://127.0.0.1:8080/hook"),
    ("http://127.0.0.1:*/*", "http://127.0.0.1:9999/hook"),
    ("http://[::1]:8080/*", "http://[::1]:8080/hook"),
    ("https://*/*", "https://anything.example/a"),
]

NON_MATCHES = [
    # The example from the fault-injection report: a path that looks like a host.
    ("https://*.example.com/*", "https://evil.com/a.example.com/x"),
    ("https://*.example.com/*", "https://example.com/x"),
    ("https://*.example.com/*", "https://evilexample.com/x"),
    ("https://*.example.com/*", "https://a.example.com.evil.com/x"),
    ("https://*.example.com/*", "https://a.example.com@evil.com/x"),
    ("https://hooks.example.com/*", "https://hooks.example.com.evil.com/a"),
    ("https://hooks.example.com/*", "http://hooks.example.com/a"),
    ("https://hooks.example.com/*", "https://hooks.example.com:8443/a"),
    ("https://hooks-*.example.com", "https://hooks-eu.evil.com/.example.com"),
    ("https://example.com/in", "https://example.com/in/deeper"),
    ("https://example.com/in/*/x", "https://example.com/in/a/b/x"),
    ("https://example.com/hooks/*", "https://example.com/hooks/../admin"),
    ("https://example.com/hooks/*", "https://example.com/hooksx"),
    ("http://127.0.0.1:8080/*", "http://127.0.0.1:8081/hook"),
    ("http://127.0.0.1:8080/*", "http://127.0.0.1:bad/hook"),
    # A name glob never covers a URL, and a URL glob never covers a name.
    ("https*", "https://example.com/a"),
    ("*example.com*", "https://example.com/a"),
    ("https://example.com/*", "partners"),
    ("billing-*", "billing"),
]


@pytest.mark.parametrize(("glob", "name"), MATCHES)
def test_globs_that_match(glob: str, name: str) -> None:
    """Each glob covers its name or URL."""
    assert glob_matches(glob, name)


@pytest.mark.parametrize(("glob", "name"), NON_MATCHES)
def test_globs_that_do_not_match(glob: str, name: str) -> None:
    """No ``*`` reaches across a ``/``, into the host, or between names and URLs."""
    assert not glob_matches(glob, name)


@pytest.mark.parametrize(
    ("glob", "message"),
    [
        ("ftp://example.com/*", "the scheme must be http, https or \\*"),
        ("https://user@example.com/*", "only scheme, host, port and path"),
        ("https://example.com/*?a=b", "only scheme, host, port and path"),
        ("https:///path", "the host is missing"),
        ("https://example.com:http/*", "the port must be a number or \\*"),
        ("https://example.com:70000/*", "the port must be a number or \\*"),
        ("https://exa mple.com/*", "is not a host name"),
    ],
)
def test_unreadable_url_globs_are_refused(glob: str, message: str) -> None:
    """A URL glob that cannot be read is a GlobError (a ValueError) naming the wrong part."""
    with pytest.raises(GlobError, match=message):
        check_glob(glob)


def test_name_globs_are_always_readable() -> None:
    """Shell globs over names need no checking."""
    check_glob("billing-[a-z]*")
