"""A forwarding HTTP proxy on loopback, for the tests of the clients' proxy settings.

It takes absolute-form requests (``GET http://host:port/path HTTP/1.1``), as a client sends them
to a plain-HTTP proxy, forwards each to its origin and answers with what the origin answered,
recording every request line and its headers. ``CONNECT`` (https through the proxy) is refused:
the services under test are plain HTTP on loopback.
"""

from __future__ import annotations

import http.client
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

__all__ = ["ForwardingProxy", "ProxiedRequest"]

# Headers about one hop (RFC 9110, 7.6.1): the proxy's own business, never forwarded.
_HOP_BY_HOP = frozenset(
    (
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    )
)


@dataclass(frozen=True, slots=True)
class ProxiedRequest:
    """One request the proxy forwarded: its method, absolute URL and headers as received."""

    method: str
    url: str
    headers: dict[str, str]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _forward(self) -> None:
        target = urlsplit(self.path)
        if target.scheme != "http" or not target.hostname:
            self.send_error(400, "a forwarding proxy takes absolute http:// URLs only")
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.record(
            ProxiedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()})
        )
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
        origin = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=30)
        try:
            path = target.path + (f"?{target.query}" if target.query else "")
            origin.request(self.command, path or "/", body=body, headers=headers)
            answer = origin.getresponse()
            content = answer.read()
            self.send_response(answer.status, answer.reason)
            for name, value in answer.getheaders():
                if name.lower() not in _HOP_BY_HOP and name.lower() != "content-length":
                    self.send_header(name, value)
        finally:
            origin.close()
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _forward

    def do_CONNECT(self) -> None:
        self.send_error(405, "no tunnels: this proxy forwards plain http:// requests")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[ProxiedRequest] = []
        self._lock = threading.Lock()

    def record(self, request: ProxiedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def recorded(self) -> list[ProxiedRequest]:
        with self._lock:
            return list(self.requests)


class ForwardingProxy:
    """``with ForwardingProxy() as proxy:`` a proxy at ``proxy.url``; ``proxy.requests`` lists
    what it forwarded, in order.
    """

    def __init__(self) -> None:
        self._server = _Server()
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The proxy's URL, as HTTP_PROXY or ``proxy=`` takes it."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def requests(self) -> list[ProxiedRequest]:
        """Every request forwarded so far."""
        return self._server.recorded()

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
