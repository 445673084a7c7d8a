"""What the web-framework receivers share: the URL the service signed, the 401 problem, the extra.

A delivery's signature binds the URL the service sent it to. Behind a reverse proxy the app sees
another scheme, host or path prefix, so each adapter takes `public_url`: the public URL that the
request's path (and query) is joined to, such as `https://hooks.example.com` or, when the proxy
strips a prefix, `https://example.com/api`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from urllib.parse import urlsplit

from ._exceptions import ConfigurationError, SignatureError

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "check_paths",
    "check_public_url",
    "covers",
    "missing_framework",
    "refusal_document",
    "request_url",
]

PROBLEM_MEDIA_TYPE = "application/problem+json"


def check_public_url(public_url: str | None) -> str | None:
    """`public_url` without a trailing slash (None stays None).

    Raises:
        ConfigurationError: it is not an http(s) URL with a host and neither query nor fragment.
    """
    if public_url is None:
        return None
    parts = urlsplit(public_url) if isinstance(public_url, str) else None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.netloc
        or parts.query
        or parts.fragment
    ):
        raise ConfigurationError(
            "public_url must be the public http(s) URL that request paths are joined to, such "
            f"as 'https://hooks.example.com', got {public_url!r}"
        )
    return public_url.rstrip("/")


def check_paths(paths: Iterable[str]) -> tuple[str, ...]:
    """Path prefixes, each starting with '/', without a trailing slash (except '/' itself).

    Raises:
        ConfigurationError: `paths` is one string, or holds something that is not a path.
    """
    if isinstance(paths, str):
        raise ConfigurationError(
            f"paths takes a sequence of path prefixes, not one string: {paths!r}"
        )
    checked = tuple(paths)
    for path in checked:
        if not isinstance(path, str) or not path.startswith("/"):
            raise ConfigurationError(f"paths are URL path prefixes starting with '/', got {path!r}")
    return tuple(path.rstrip("/") or "/" for path in checked)


def covers(prefixes: tuple[str, ...], path: str) -> bool:
    """Whether `path` is one of `prefixes` or below one of them."""
    return any(
        prefix == "/" or path == prefix or path.startswith(prefix + "/") for prefix in prefixes
    )


def request_url(public_url: str | None, *, scheme: str, host: str, target: str) -> str:
    """The URL to verify: `target` (the raw path and query, as sent) on `public_url`, or on the
    scheme and Host the request came with.
    """
    if public_url is not None:
        return public_url + target
    return f"{scheme}://{host}{target}"


def refusal_document(error: SignatureError) -> bytes:
    """The problem+json body of a 401 for a delivery whose signature failed."""
    return json.dumps(
        {
            "type": "about:blank",
            "title": "Unauthorized",
            "status": 401,
            "code": error.reason,
            "detail": str(error),
        }
    ).encode("utf-8")


def missing_framework(adapter: str, framework: str, extra: str) -> ConfigurationError:
    """The error for an adapter used without its framework installed."""
    return ConfigurationError(
        f"{adapter} needs {framework}, which is not installed: pip install 'spool[{extra}]'"
    )
