"""The globs of token permissions: simple globs over names, and URL globs matched part by part.

A name (a stream, a queue, a URL group) is matched by a shell-style glob (``*``, ``?``, ``[...]``).
A destination URL is matched only by ``*`` or by a URL glob ``scheme://host[:port][/path]``, each
part on its own so that no ``*`` can reach across a ``/`` or from the path into the host
(``https://*.example.com/*`` must not cover ``https://evil.com/a.example.com/x``):

- scheme: ``http``, ``https``, or ``*`` for either;
- host: exact (case-insensitive), ``*.example.com`` for every subdomain at any depth (not the
  domain itself), ``*`` within a label for part of it (``hooks-*.example.com``), or ``*`` for any;
- port: a number or ``*``; without one, only the scheme's default port;
- path: without one, every path; otherwise ``*`` matches within one segment, and a trailing ``*``
  everything below (``/hooks/*``). The query is ignored.

A path glob decides on the path as its receiver will resolve it, and receivers differ: some decode
the escapes of unreserved characters first (RFC 3986 §6.2.2.2: ``%2e`` is ``.``, so ``%2e%2e`` is a
dot segment), some read encoded dots as a name; some keep empty segments when removing dot segments
(§5.2.4, as the delivery's HTTP client does), some merge slashes first. Every one of these readings
must be covered. Where receivers disagree on the separators themselves no reading can be trusted,
so no glob with a path covers a path with an encoded slash or backslash (``%2F``, ``%5C``), a
backslash, an encoded ``%`` before two hex digits (``%252e``: a second decoding makes it a dot), or
a dot segment followed by parameters or a NUL (``..;x``, ``..%3Bx``, ``..%00``). A glob without a
path still covers them: every reading is on its host. The URL is delivered as it was given, so what
its receiver makes of it is one of the readings checked.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import re
import string
from urllib.parse import SplitResult, unquote, urlsplit

__all__ = ["GlobError", "check_glob", "glob_matches"]

_SCHEMES = ("http", "https")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_HOST = re.compile(r"[a-z0-9*_.-]+|\[[0-9a-f:.]+\]")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
# What receivers disagree on reading as a separator, or (decoded twice) as another escape.
_AMBIGUOUS = re.compile(r"%2F|%5C|\\|%25[0-9A-F]{2}", re.IGNORECASE)
_DOT_SEGMENTS = (".", "..")
# Servers that cut a segment at its parameters (";") or at a NUL read these as a dot segment.
_DOT_WITH_PARAMETERS = re.compile(r"\.\.?[;\x00]")


class GlobError(ValueError):
    """A permission's URL glob cannot be read; the message says which part is wrong."""


@dataclasses.dataclass(frozen=True, slots=True)
class _UrlGlob:
    schemes: tuple[str, ...]
    host: re.Pattern[str]
    port: int | None
    any_port: bool
    path: re.Pattern[str] | None

    def matches(self, url: SplitResult) -> bool:
        scheme = url.scheme.lower()
        if scheme not in self.schemes:
            return False
        host = url.hostname
        if host is None or not self.host.fullmatch(host):
            return False
        try:
            port = url.port or _DEFAULT_PORTS.get(scheme)
        except ValueError:
            return False
        if not self.any_port and port != (self.port or _DEFAULT_PORTS[scheme]):
            return False
        if self.path is None:
            return True
        readings = _readings(url.path)
        return readings is not None and all(self.path.fullmatch(path) for path in readings)


def _readings(path: str) -> tuple[str, ...] | None:
    """The paths receivers may resolve ``path`` to, or None when they disagree on its separators."""
    if not path:
        return ("/",)
    if "%" not in path and "\\" not in path and "/." not in path and "//" not in path:
        return (path,)
    normal = _normal(path)
    # After decoding, since "%25%32%65" is "%252e" to a receiver that decodes once.
    if _AMBIGUOUS.search(normal):
        return None
    if "/." not in normal and "//" not in normal:
        return (normal,)
    segments = normal.removeprefix("/").split("/")
    if any(
        segment.startswith(".")
        and segment not in _DOT_SEGMENTS
        and _DOT_WITH_PARAMETERS.match(unquote(segment))
        for segment in segments
    ):
        return None
    # Decoding never makes or removes a "/", so the raw segments line up with the decoded ones.
    raw_segments = path.removeprefix("/").split("/")
    encoded_dots = [
        segment in _DOT_SEGMENTS and raw not in _DOT_SEGMENTS
        for segment, raw in zip(segments, raw_segments, strict=True)
    ]
    variants = [segments]
    if any(encoded_dots):
        # A receiver that does not decode them reads encoded dots as a name.
        variants.append(
            [
                _ESCAPE.sub(_upper_escape, raw) if encoded else segment
                for segment, raw, encoded in zip(segments, raw_segments, encoded_dots, strict=True)
            ]
        )
    # Only an empty segment before the last tells a server that merges slashes from one that does not.
    collapses = (False, True) if "" in segments[:-1] else (False,)
    # A path ending in a dot segment names a directory (RFC 3986 §5.2.4: "/a/b/.." is "/a/"), but
    # httpx, which sends the deliveries, resolves a literal one without the trailing slash.
    trailing = (True, False) if raw_segments[-1] in _DOT_SEGMENTS else (True,)
    readings = (
        _remove_dot_segments(variant, collapse=collapse, directory=directory)
        for variant in variants
        for collapse in collapses
        for directory in (trailing if variant[-1] in _DOT_SEGMENTS else (False,))
    )
    return tuple(dict.fromkeys(readings))


def _normal(text: str) -> str:
    """``text`` with escapes of unreserved characters decoded and the others' hex digits in upper
    case, which RFC 3986 §6.2.2 makes the same text.
    """
    return _ESCAPE.sub(_normal_escape, text)


def _normal_escape(escape: re.Match[str]) -> str:
    character = chr(int(escape.group(1), 16))
    return character if character in _UNRESERVED else _upper_escape(escape)


def _upper_escape(escape: re.Match[str]) -> str:
    return "%" + escape.group(1).upper()


def _remove_dot_segments(segments: list[str], *, collapse: bool, directory: bool) -> str:
    """RFC 3986 §5.2.4 over a path's segments; ``collapse`` first drops the empty ones, as servers
    that merge slashes do, and ``directory`` keeps the trailing slash of a final dot segment.
    """
    resolved: list[str] = []
    for segment in segments:
        if segment == "..":
            if resolved:
                resolved.pop()
        elif segment != "." and (segment or not collapse):
            resolved.append(segment)
    if directory or (collapse and not segments[-1]):
        # The path names a directory, and a path glob tells "/a/" from "/a".
        resolved.append("")
    return "/" + "/".join(resolved)


def _host_pattern(host: str, glob: str) -> re.Pattern[str]:
    if host == "*":
        return re.compile(r"[^/?#@]+")
    if host.startswith("["):
        # An IPv6 literal: the parsed URL's hostname has no brackets.
        return re.compile(re.escape(host[1:-1]))
    if not _HOST.fullmatch(host):
        raise GlobError(f"URL glob {glob!r}: the host {host!r} is not a host name or a glob of one")
    subdomains = host.startswith("*.")
    labels = host[2:] if subdomains else host
    pattern = re.escape(labels).replace(r"\*", r"[^./]*")
    return re.compile((r"(?:[^./]+\.)+" if subdomains else "") + pattern)


def _path_pattern(path: str, glob: str) -> re.Pattern[str]:
    path = _normal(path)
    if _AMBIGUOUS.search(path) or "//" in path or _has_dot_segment(path):
        # No path is ever read with these, so the glob would cover nothing below its host.
        raise GlobError(
            f"URL glob {glob!r}: the path {path!r} has a dot segment, an empty segment, a "
            "backslash, or an encoded slash, backslash or percent, and no URL is read that way"
        )
    if path.endswith("*"):
        within = re.escape(path[:-1]).replace(r"\*", r"[^/]*")
        return re.compile(within + r".*", re.DOTALL)
    return re.compile(re.escape(path).replace(r"\*", r"[^/]*"))


def _has_dot_segment(path: str) -> bool:
    return any(
        segment in _DOT_SEGMENTS or _DOT_WITH_PARAMETERS.match(unquote(segment))
        for segment in path.split("/")
    )


@functools.lru_cache(maxsize=1024)
def _url_glob(glob: str) -> _UrlGlob:
    scheme, _, rest = glob.partition("://")
    scheme = scheme.lower()
    if scheme != "*" and scheme not in _SCHEMES:
        raise GlobError(f"URL glob {glob!r}: the scheme must be http, https or *")
    authority, slash, path = rest.partition("/")
    if "@" in authority or "?" in rest or "#" in rest:
        raise GlobError(f"URL glob {glob!r}: only scheme, host, port and path may be given")
    host, port_text = authority.lower(), ""
    if not host.endswith("]") and ":" in host:
        host, _, port_text = host.rpartition(":")
    if not host:
        raise GlobError(f"URL glob {glob!r}: the host is missing")
    if port_text and port_text != "*" and not (port_text.isdigit() and 0 < int(port_text) < 65536):
        raise GlobError(f"URL glob {glob!r}: the port must be a number or *")
    return _UrlGlob(
        schemes=_SCHEMES if scheme == "*" else (scheme,),
        host=_host_pattern(host, glob),
        port=int(port_text) if port_text.isdigit() else None,
        any_port=port_text == "*",
        path=_path_pattern(slash + path, glob) if slash else None,
    )


def check_glob(glob: str) -> None:
    """Raise :class:`GlobError` when ``glob`` is a URL glob that cannot be read."""
    if "://" in glob:
        _url_glob(glob)


def glob_matches(glob: str, name: str) -> bool:
    """Whether a permission's ``glob`` covers ``name``: a resource name or a destination URL."""
    if "://" in name:
        if glob == "*":
            return True
        if "://" not in glob:
            return False
        try:
            url = urlsplit(name)
        except ValueError:
            return False
        return _url_glob(glob).matches(url)
    return "://" not in glob and fnmatch.fnmatchcase(name, glob)
