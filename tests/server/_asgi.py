"""Raw ASGI calls of the app, for what an HTTP client will not send: a body declared longer than
what arrives, or a connection that closes while the body is on its way.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import DEV_TOKEN

__all__ = ["post_scope", "publish_abandoned_mid_body"]


def post_scope(path: str, *, content_length: int) -> dict[str, Any]:
    """The ASGI scope of a JSON POST to ``path`` with the development token, declaring
    ``content_length`` bytes of body.
    """
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"spool.test"),
            (b"authorization", f"Bearer {DEV_TOKEN}".encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(content_length).encode()),
        ],
        "client": ("127.0.0.1", 1234),
        "server": ("spool.test", 80),
    }


async def publish_abandoned_mid_body(app: Any, stream: str) -> list[dict[str, Any]]:
    """A publish to ``stream`` declaring 1000 bytes whose connection closes after 10: what the
    app sends back.
    """
    arriving: list[dict[str, Any]] = [
        {"type": "http.request", "body": b'{"body": "', "more_body": True},
        {"type": "http.disconnect"},
    ]
    received = iter(arriving)

    async def receive() -> dict[str, Any]:
        return next(received)

    messages: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    await app(post_scope(f"/v1/streams/{stream}/entries", content_length=1000), receive, send)
    return messages
