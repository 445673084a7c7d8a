"""Verify `Spool-Signature` in Starlette and FastAPI apps: `SpoolSignatureMiddleware`.

```python
from fastapi import FastAPI  # or starlette.applications.Starlette

import sdk
from sdk.starlette import SpoolSignatureMiddleware

app = FastAPI()
app.add_middleware(
    SpoolSignatureMiddleware,
    receiver=sdk.Receiver(current_signing_key="...", next_signing_key="..."),
    paths=["/hooks"],
)
```

The middleware reads the raw body once, verifies it with the URL the request came to (or
`public_url` joined to its path, behind a proxy), and hands the same bytes on, so the endpoint
reads the body as usual. A request that fails is answered `401` with an `application/problem+json`
body whose `code` is the `SignatureError.reason`, and the endpoint never runs. It is plain ASGI:
it imports nothing of Starlette and serves any ASGI app (`pip install 'spool[starlette]'` or
`'spool[fastapi]'` installs the framework itself).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import quote

from ._exceptions import SignatureError
from ._receiver import Receiver
from ._web import (
    PROBLEM_MEDIA_TYPE,
    check_paths,
    check_public_url,
    covers,
    refusal_document,
    request_url,
)

__all__ = ["SpoolSignatureMiddleware"]

Scope = MutableMapping[str, Any]
ASGIMessage = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[ASGIMessage]]
Send = Callable[[ASGIMessage], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class SpoolSignatureMiddleware:
    """ASGI middleware that lets through only requests signed by Spool, on the paths it guards.

    * `receiver` - an `sdk.Receiver` with the service's signing keys.
    * `paths` - path prefixes to guard (`["/hooks"]` guards `/hooks` and `/hooks/...`); every
      path by default. Other requests pass untouched.
    * `public_url` - behind a proxy, the public URL the service delivers to, without the path:
      the request's path and query are joined to it (`"https://hooks.example.com"`).
    * `clock_tolerance` - seconds the signature's validity window may be off.

    Raises:
        ConfigurationError: `paths` is one string or holds something that is not a path starting
            with '/', or `public_url` is not an http(s) URL with a host and neither query nor
            fragment.
        TypeError: `receiver` is not an `sdk.Receiver`.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        receiver: Receiver,
        paths: Iterable[str] = ("/",),
        public_url: str | None = None,
        clock_tolerance: float = 0,
    ) -> None:
        if not isinstance(receiver, Receiver):
            raise TypeError(f"receiver must be an sdk.Receiver, not {type(receiver).__name__}")
        self.app = app
        self._receiver = receiver
        self._paths = check_paths(paths)
        self._public_url = check_public_url(public_url)
        self._clock_tolerance = clock_tolerance

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Verify a guarded HTTP request before the app sees it; pass anything else on.

        A request whose signature fails is answered `401` here and never reaches the app; one
        whose client goes away before the body is read is dropped.
        """
        if scope["type"] != "http" or not covers(self._paths, scope["path"]):
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive)
        if body is None:
            return
        headers = [
            (name.decode("latin-1"), value.decode("latin-1")) for name, value in scope["headers"]
        ]
        try:
            self._receiver.verify_request(
                body=body,
                headers=headers,
                url=_url(scope, headers, self._public_url),
                clock_tolerance=self._clock_tolerance,
            )
        except SignatureError as error:
            await _refuse(send, error)
            return
        await self.app(scope, _replay(body, receive), send)


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, or None when the client went away first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the app the body read already, then waits as the original does."""
    sent = False

    async def replay() -> ASGIMessage:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


def _url(scope: Scope, headers: list[tuple[str, str]], public_url: str | None) -> str:
    raw_path = scope.get("raw_path")
    path = (
        raw_path.decode("latin-1")
        if isinstance(raw_path, bytes)
        else quote(scope.get("root_path", "") + scope["path"], safe="/:@!$&'()*+,;=-._~%")
    )
    query = scope.get("query_string", b"").decode("latin-1")
    target = f"{path}?{query}" if query else path
    host = next((value for name, value in headers if name.lower() == "host"), "")
    if not host and scope.get("server"):
        host = "{}:{}".format(*scope["server"])
    return request_url(public_url, scheme=scope.get("scheme", "http"), host=host, target=target)


async def _refuse(send: Send, error: SignatureError) -> None:
    document = refusal_document(error)
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", PROBLEM_MEDIA_TYPE.encode("ascii")),
                (b"content-length", str(len(document)).encode("ascii")),
            ],
        }
    )
    await send({"type": "http.response.body", "body": document})
