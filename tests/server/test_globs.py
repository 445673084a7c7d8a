"""Permission globs (server/globs.py): names by shell globs, URLs part by part."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import unquote

import httpx
import pytest
from hypothesis import example, given, settings, strategies as st

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


# A token allowed one directory, and URLs that percent-encode their way out of it (RFC 3986
# §6.2.2.2: `%2E` is `.`, so `%2e%2e` is a dot segment to every receiver that normalises).
HOOKS = "http://host.example/a/*"
ESCAPING = [
    "http://host.example/a/%2e%2e/b/secret",
    "http://host.example/a/%2E%2E/b/secret",
    "http://host.example/a/%2e%2E/b/secret",
    "http://host.example/a/.%2e/b/secret",
    "http://host.example/a/%2e./b/secret",
    "http://host.example/a/.%2E/b/secret",
    "http://host.example/a/%2e%2e/b/secret?x=1",
    "http://host.example/a/%2e%2e?x=/a/",
    "http://host.example/a/%2e%2e",
    "http://host.example/a/%2E%2E/",
    "http://host.example/a/x/%2e%2e/%2e%2e/b",
    "http://host.example/a/./%2e%2e/b",
    # Another segment's encoded dots take the place of the ones resolved.
    "http://host.example/b/%2e%2e/../a/x",
    "http://host.example/%2e%2e/a/x",
    # Encoded slashes and backslashes, which some receivers read as separators.
    "http://host.example/a/%2e%2e%2fb/secret",
    "http://host.example/a/%2E%2E%2Fb/secret",
    "http://host.example/a/x%2f..%2f..%2fb",
    "http://host.example/a/x%2Fy",
    "http://host.example/a/..%5cb",
    "http://host.example/a/x%5Cy",
    "http://host.example/a/..\\b",
    # Encoded once more: a second decoding (a proxy, then the application) makes the dots.
    "http://host.example/a/%252e%252e/b/secret",
    "http://host.example/a/%252E%252E/b",
    "http://host.example/a/%25252e%25252e/b",
    "http://host.example/a/%252f",
    "http://host.example/a/%25%32%65%25%32%65/b",
    # A dot segment with parameters, which some servers resolve (`..;/`).
    "http://host.example/a/..;/b/secret",
    "http://host.example/a/%2e%2e;x/b",
    "http://host.example/a/..%3bx/b",
    "http://host.example/a/..%00/b",
    # An empty segment: `..` removes it (RFC 3986 §5.2.4, and the delivery's HTTP client) where
    # collapsing the slashes first would have removed `b`.
    "http://host.example/b//../a/x",
    "http://host.example/a//%2e%2e/%2e%2e/b",
    # A final literal dot segment, which the delivery's HTTP client resolves without the slash.
    "http://host.example/a/b/..",
]
INSIDE = [
    "http://host.example/a/ok",
    "http://host.example/a/b/%2e%2e/c",
    "http://host.example/a/b/%2E%2E",
    "http://host.example/a/%2e/x",
    "http://host.example/a/%2ehidden",
    "http://host.example/a/x?next=%2e%2e%2f%2e%2e%2fb",
    "http://host.example/a/50%25",
    "http://host.example/a/%25zz",
    "http://host.example/a/hello%20world",
    "http://host.example/a/x;v=1",
    "http://host.example/a/b/.",
    "http://host.example/a/b/c/..",
]


@pytest.mark.parametrize("url", ESCAPING)
def test_encoded_dots_and_separators_do_not_leave_a_path_glob(url: str) -> None:
    """A path read with its unreserved characters decoded, and read as it is, must both be under
    the glob; an encoded slash or backslash, a backslash, an encoded percent before two hex
    digits or a dot segment with parameters is never under a glob with a path.
    """
    assert not glob_matches(HOOKS, url)


@pytest.mark.parametrize("url", INSIDE)
def test_encoded_characters_that_stay_inside_a_path_glob(url: str) -> None:
    """Encoded dots that resolve inside the glob whichever way they are read, encoded ones in a
    name or the query, and escapes of other characters are still covered.
    """
    assert glob_matches(HOOKS, url)


@pytest.mark.parametrize(
    ("glob", "url"),
    [
        ("http://host.example/A/*", "http://host.example/%41/x"),
        ("http://host.example/caf%c3%a9/*", "http://host.example/caf%C3%A9/x"),
        ("http://host.example/%7Euser/*", "http://host.example/~user/x"),
        # Without a path the glob covers every path on the host, however it is read.
        ("http://host.example", "http://host.example/a/x%2f..%2f..%2fb"),
        ("*", "http://host.example/a/%2e%2e%2fb"),
    ],
)
def test_urls_equal_after_normalisation_match_alike(glob: str, url: str) -> None:
    """Escapes of unreserved characters are those characters, and hex digits are of either
    case (RFC 3986 §6.2.2), in the glob and in the URL.
    """
    assert glob_matches(glob, url)


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
        ("https://example.com/a/../b/*", "has a dot segment"),
        ("https://example.com/a/%2E%2E/*", "has a dot segment"),
        ("https://example.com/a/..;x/*", "has a dot segment"),
        ("https://example.com/a//b", "an empty segment"),
        ("https://example.com/a%2Fb/*", "an encoded slash"),
        ("https://example.com/a%5cb/*", "an encoded slash"),
        ("https://example.com/a\\b/*", "a backslash"),
        ("https://example.com/a%252e/*", "percent"),
    ],
)
def test_unreadable_url_globs_are_refused(glob: str, message: str) -> None:
    """A URL glob that cannot be read is a GlobError (a ValueError) naming the wrong part."""
    with pytest.raises(GlobError, match=message):
        check_glob(glob)


def test_name_globs_are_always_readable() -> None:
    """Shell globs over names need no checking."""
    check_glob("billing-[a-z]*")


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4, step by step as the RFC writes it."""
    output = ""
    while path:
        if path.startswith(("../", "./")):
            path = path[path.index("/") + 1 :]
        elif path.startswith("/./") or path == "/.":
            path = "/" + path[3:]
        elif path.startswith("/../") or path == "/..":
            path = "/" + path[4:]
            output = output[: max(output.rfind("/"), 0)]
        elif path in (".", ".."):
            path = ""
        else:
            end = path.find("/", 1)
            end = len(path) if end == -1 else end
            output, path = output + path[:end], path[end:]
    return output


_UNRESERVED_ESCAPE = re.compile(r"%(2[dDeE]|5[fF]|7[eE]|3[0-9]|[46][1-9a-fA-F]|[57][0-9aA])")


def _unreserved_decoded(path: str) -> str:
    return _UNRESERVED_ESCAPE.sub(lambda escape: chr(int(escape.group(1), 16)), path)


def _slashes(path: str) -> str:
    return path.replace("\\", "/")


def _merged(path: str) -> str:
    return re.sub("/+", "/", path)


def _without_parameters(path: str) -> str:
    return "/".join(segment.partition(";")[0] for segment in path.split("/"))


def _cut_at_nul(path: str) -> str:
    return "/".join(segment.partition("\x00")[0] for segment in path.split("/"))


# How receivers read the path they are sent: as it is, with unreserved characters or everything
# decoded once or twice, backslashes as slashes, slashes merged, segments cut at ";" or NUL.
RECEIVERS: list[Callable[[str], str]] = [
    lambda path: path,
    _unreserved_decoded,
    unquote,
    lambda path: _slashes(unquote(path)),
    lambda path: _slashes(unquote(unquote(path))),
    lambda path: _merged(_slashes(unquote(path))),
    lambda path: _merged(path),
    lambda path: unquote(_without_parameters(path)),
    lambda path: _without_parameters(unquote(path)),
    lambda path: _cut_at_nul(unquote(path)),
]

# Path globs and, independently of server/globs.py, what each means for a resolved path.
PATH_GLOBS = {
    "http://host.example/a/*": re.compile(r"/a/.*", re.DOTALL),
    "http://host.example/a/*/c": re.compile(r"/a/[^/]*/c"),
    "http://host.example/a/b": re.compile(r"/a/b"),
}

ATOMS = [
    "a",
    "b",
    "c",
    ".",
    "..",
    "%2e",
    "%2E",
    "%2f",
    "%5C",
    "\\",
    "%25",
    "%32",
    "%65",
    ";",
    "%00",
]
PATHS = st.lists(
    st.lists(st.sampled_from(ATOMS), max_size=3).map("".join), min_size=1, max_size=6
).map(lambda segments: "/" + "/".join(segments))


@settings(max_examples=2000, deadline=None)
@given(PATHS)
@example("/a/b")
@example("/a/b/c")
@example("/a/%62/%2e%2e/x/c")
@example("/a/b/../x/c")
@example("/b//../a/x")
@example("/a/a/..")
@example("/a/%25%32%65%25%32%65/b")
def test_a_covered_url_is_delivered_where_every_receiver_reads_it_under_the_glob(path: str) -> None:
    """The pair holds: for each URL a path glob covers, the path the delivery's HTTP client sends,
    however a receiver reads it, resolves under the glob.
    """
    url = f"http://host.example{path}"
    sent = httpx.URL(url).raw_path.decode("ascii").partition("?")[0]
    for glob, under in PATH_GLOBS.items():
        if glob_matches(glob, url):
            for receiver in RECEIVERS:
                resolved = _remove_dot_segments(receiver(sent))
                assert under.fullmatch(resolved), (glob, url, sent, resolved)
