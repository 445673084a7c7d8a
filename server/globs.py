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
  everything below (``/hooks/*``). The URL's dot segments are resolved first, its query ignored.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import posixpath
import re
from urllib.parse import SplitResult, urlsplit

__all__ = ["GlobError", "check_glob", "glob_matches"]

_SCHEMES = ("http", "https")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_HOST = re.compile(r"[a-z0-9*_.-]+|\[[0-9a-f:.]+\]")


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
        return self.path is None or bool(self.path.fullmatch(_resolved_path(url.path)))


def _resolved_path(path: str) -> str:
    if not path:
        return "/"
    resolved = posixpath.normpath(path)
    # normpath keeps a leading "//" and drops a trailing "/", which both matter to a path glob.
    resolved = "/" + resolved.lstrip("/")
    return resolved + "/" if path.endswith("/") and resolved != "/" else resolved


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


def _path_pattern(path: str) -> re.Pattern[str]:
    if path.endswith("*"):
        within = re.escape(path[:-1]).replace(r"\*", r"[^/]*")
        return re.compile(within + r".*", re.DOTALL)
    return re.compile(re.escape(path).replace(r"\*", r"[^/]*"))


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
        path=_path_pattern(slash + path) if slash else None,
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
