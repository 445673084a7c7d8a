"""HTTP/1.1 written by hand on a plain socket, for what no HTTP client sends: ambiguous framing,
bodies cut off, requests pipelined behind others.
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

__all__ = ["connect", "publish_head"]


def connect(base_url: str, *, timeout: float) -> socket.socket:
    """A TCP connection to the service at ``base_url``."""
    parts = urlsplit(base_url)
    assert parts.hostname is not None and parts.port is not None
    return socket.create_connection((parts.hostname, parts.port), timeout=timeout)


def publish_head(stream: str, token: str, *framing: str) -> bytes:
    """The head of a publish to ``stream`` with ``token``, and the ``framing`` header lines in
    that order.
    """
    lines = [
        f"POST /v1/streams/{stream}/entries HTTP/1.1",
        "Host: spool",
        f"Authorization: Bearer {token}",
        "Content-Type: application/json",
        *framing,
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()
