"""sdk.starlette: the middleware that verifies Spool-Signature for Starlette and FastAPI apps."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

import sdk
from sdk.starlette import SpoolSignatureMiddleware
from tests.sdk._receiving import (
    NEXT,
    RECEIVER,
    RealDeliveries,
    assert_problem,
    served_asgi,
    signed,
)

BODY = b'{"user": 42}'


def fastapi_app(
    seen: list[dict[str, Any]], *, receiver: sdk.Receiver = RECEIVER, **options: Any
) -> FastAPI:
    """A FastAPI app whose /hooks/* endpoints record the body they read; /health is unguarded."""
    app = FastAPI()
    app.add_middleware(SpoolSignatureMiddleware, receiver=receiver, paths=["/hooks"], **options)

    @app.post("/hooks/{name}")
    async def hook(name: str, request: Request) -> dict[str, str]:
        seen.append(
            {
                "name": name,
                "raw": await request.body(),
                "json": await request.json(),
                "headers": dict(request.headers),
            }
        )
        return {"ok": name}

    @app.post("/health")
    async def health() -> dict[str, bool]:
        return {"ok": True}

    return app


def behind_proxy(app: Any, *, prefix: str) -> Any:
    """`app` as a reverse proxy shows it requests: `prefix` stripped, another Host."""

    async def proxied(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            path = scope["path"].removeprefix(prefix) or "/"
            headers = [
                (name, b"internal:8000" if name == b"host" else value)
                for name, value in scope["headers"]
            ]
            scope = {**scope, "path": path, "raw_path": path.encode(), "headers": headers}
        await app(scope, receive, send)

    return proxied


def asgi_client(app: Any) -> httpx.AsyncClient:
    """A client calling `app` in-process, as the suite tests the service's own app."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")


async def test_a_signed_request_reaches_the_endpoint_with_its_body() -> None:
    """The endpoint reads the same raw bytes, and its JSON, after the middleware verified them."""
    seen: list[dict[str, Any]] = []
    url = "http://testserver/hooks/signup?tenant=acme"
    async with asgi_client(fastapi_app(seen)) as client:
        response = await client.post(url, content=BODY, headers=signed(url, BODY))
    assert response.json() == {"ok": "signup"}
    assert (seen[0]["raw"], seen[0]["json"]) == (BODY, {"user": 42})


async def test_a_plain_starlette_app_is_guarded_alike() -> None:
    """Starlette's own add_middleware takes it the same way."""

    async def hook(request: Request) -> JSONResponse:
        return JSONResponse({"body": (await request.body()).decode()})

    app = Starlette(routes=[Route("/hook", hook, methods=["POST"])])
    app.add_middleware(SpoolSignatureMiddleware, receiver=RECEIVER)
    url = "http://testserver/hook"
    async with asgi_client(app) as client:
        response = await client.post(url, content=BODY, headers=signed(url, BODY))
        assert response.json() == {"body": BODY.decode()}
        assert_problem(await client.post(url, content=BODY), "malformed")


@pytest.mark.parametrize(
    ("body", "key", "signed_for", "reason"),
    [
        (BODY + b" ", "web_current_key", "http://testserver/hooks/a", "body_mismatch"),
        (BODY, "somebody_elses_key", "http://testserver/hooks/a", "bad_signature"),
        (BODY, "web_current_key", "http://testserver/hooks/b", "url_mismatch"),
    ],
    ids=["tampered body", "wrong key", "wrong url"],
)
async def test_refused_requests_get_a_401_problem_and_never_reach_the_endpoint(
    body: bytes, key: str, signed_for: str, reason: str
) -> None:
    """A tampered body, another key or another URL: 401 problem+json whose code says which."""
    seen: list[dict[str, Any]] = []
    headers = signed(signed_for, BODY, key=key)
    async with asgi_client(fastapi_app(seen)) as client:
        assert_problem(await client.post("/hooks/a", content=body, headers=headers), reason)
    assert seen == []


async def test_the_next_key_is_accepted_too() -> None:
    """A signature made with the next key (during a rotation) passes."""
    url = "http://testserver/hooks/a"
    async with asgi_client(fastapi_app([])) as client:
        response = await client.post(url, content=BODY, headers=signed(url, BODY, key=NEXT))
    assert response.status_code == 200


async def test_paths_outside_the_guarded_ones_pass_untouched() -> None:
    """/health is not under /hooks: no signature needed; /hooksmith is not under /hooks either."""
    async with asgi_client(fastapi_app([])) as client:
        assert (await client.post("/health")).json() == {"ok": True}
        assert (await client.post("/hooksmith")).status_code == 404


async def test_public_url_is_joined_to_the_path_and_query() -> None:
    """Behind a proxy the signature names the public URL: public_url gives its start."""
    public = "https://hooks.example.com/hooks/a?x=1"
    local = "http://testserver/hooks/a?x=1"
    async with asgi_client(fastapi_app([], public_url="https://hooks.example.com/")) as client:
        response = await client.post("/hooks/a?x=1", content=BODY, headers=signed(public, BODY))
        assert response.status_code == 200
        refused = await client.post("/hooks/a?x=1", content=BODY, headers=signed(local, BODY))
        assert_problem(refused, "url_mismatch")


async def test_a_body_in_chunks_is_read_whole_and_handed_on_whole() -> None:
    """The body arrives in several messages; the app gets it as one, then waits as before."""
    url = "http://spool.test/hook"
    received: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        received.append(await receive())
        received.append(await receive())

    messages = [
        {"type": "http.request", "body": BODY[:5], "more_body": True},
        {"type": "http.request", "body": BODY[5:], "more_body": False},
        {"type": "http.disconnect"},
    ]

    async def receive() -> Any:
        return messages.pop(0)

    async def send(message: Any) -> None:
        raise AssertionError(f"nothing is refused here: {message}")

    scope = {
        "type": "http",
        "path": "/hook",
        "raw_path": b"/hook",
        "query_string": b"",
        "scheme": "http",
        "headers": [
            (name.lower().encode(), value.encode()) for name, value in signed(url, BODY).items()
        ]
        + [(b"host", b"spool.test")],
    }
    await SpoolSignatureMiddleware(app, receiver=RECEIVER)(scope, receive, send)
    assert received == [
        {"type": "http.request", "body": BODY, "more_body": False},
        {"type": "http.disconnect"},
    ]


async def test_a_client_gone_before_its_body_ends_is_not_answered() -> None:
    """A disconnect while the body is read: nothing to verify, nobody to answer."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the app never runs")

    async def receive() -> Any:
        return {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        raise AssertionError("nothing is sent")

    scope = {"type": "http", "path": "/", "headers": [], "query_string": b""}
    await SpoolSignatureMiddleware(app, receiver=RECEIVER)(scope, receive, send)


def test_bad_settings_fail_when_the_middleware_is_made() -> None:
    """A public URL with a query, one string for paths, or keys instead of a Receiver."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        pass

    with pytest.raises(sdk.ConfigurationError, match="public_url"):
        SpoolSignatureMiddleware(app, receiver=RECEIVER, public_url="https://x.example/?a=1")
    with pytest.raises(sdk.ConfigurationError, match="public_url"):
        SpoolSignatureMiddleware(app, receiver=RECEIVER, public_url="hooks.example.com")
    with pytest.raises(sdk.ConfigurationError, match="not one string"):
        SpoolSignatureMiddleware(app, receiver=RECEIVER, paths="/hooks")
    with pytest.raises(sdk.ConfigurationError, match="starting with '/'"):
        SpoolSignatureMiddleware(app, receiver=RECEIVER, paths=["hooks"])
    with pytest.raises(TypeError, match="sdk.Receiver"):
        SpoolSignatureMiddleware(app, receiver="key")  # type: ignore[arg-type]


@pytest.mark.slow
class TestRealDeliveries(RealDeliveries):
    """The service delivers to a FastAPI app on uvicorn: its signatures pass, others do not."""

    def serve(self, make_app: Callable[[str], Any]) -> AbstractContextManager[str]:
        return served_asgi(make_app)

    def app(self, seen: list[dict[str, Any]], *, receiver: sdk.Receiver, **options: Any) -> Any:
        return fastapi_app(seen, receiver=receiver, **options)

    def behind_proxy(self, app: Any, *, prefix: str) -> Any:
        return behind_proxy(app, prefix=prefix)
