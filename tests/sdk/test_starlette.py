"""sdk.starlette: the middleware that verifies Spool-Signature for Starlette and FastAPI apps."""

from __future__ import annotations

import json
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
    OTHER_RECEIVER,
    RECEIVER,
    outcome,
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


def _problem(response: httpx.Response, reason: str) -> None:
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    document = response.json()
    assert (document["status"], document["code"]) == (401, reason)
    assert reason in document["detail"]


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
        _problem(await client.post(url, content=BODY), "malformed")


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
        _problem(await client.post("/hooks/a", content=body, headers=headers), reason)
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
        _problem(refused, "url_mismatch")


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
class TestRealDeliveries:
    """The service delivers to a FastAPI app on uvicorn: its signatures pass, others do not."""

    def test_a_delivery_passes(self, delivering_client: sdk.Client) -> None:
        """A real delivery verifies; the endpoint reads its body and the service sees 200."""
        seen: list[dict[str, Any]] = []
        keys = delivering_client.messages.signing_keys()
        receiver = sdk.Receiver(current_signing_key=keys.current, next_signing_key=keys.next)
        with served_asgi(lambda _: fastapi_app(seen, receiver=receiver)) as origin:
            receipt = delivering_client.messages.publish_json(
                url=f"{origin}/hooks/signup", body={"user": 42}, retries=0
            )
            assert outcome(delivering_client, receipt.message_id).state == "delivered"
            # The same signature on other bytes is refused: what a tampering proxy would send.
            headers = {
                name: value
                for name, value in seen[0]["headers"].items()
                if name in ("spool-signature", "content-type")
            }
            tampered = httpx.post(
                f"{origin}/hooks/signup", content=b'{"user": 43}', headers=headers
            )
            _problem(tampered, "body_mismatch")
        assert seen[0]["json"] == {"user": 42}
        assert len(seen) == 1

    def test_a_receiver_with_other_keys_refuses_it(self, delivering_client: sdk.Client) -> None:
        """The service's attempt gets 401, with the reason in the answer it keeps."""
        with served_asgi(lambda _: fastapi_app([], receiver=OTHER_RECEIVER)) as origin:
            receipt = delivering_client.messages.publish_json(
                url=f"{origin}/hooks/a", body={}, retries=0
            )
            message = outcome(delivering_client, receipt.message_id)
        assert message.state == "failed"
        assert message.attempts[-1].status_code == 401
        assert "bad_signature" in (message.attempts[-1].response_excerpt or "")

    def test_the_proxy_case_needs_public_url(self, delivering_client: sdk.Client) -> None:
        """Behind a proxy that strips /public and rewrites Host, only public_url makes it pass."""
        keys = delivering_client.messages.signing_keys()
        receiver = sdk.Receiver(current_signing_key=keys.current, next_signing_key=keys.next)
        for public, state, status in [(False, "failed", 401), (True, "delivered", 200)]:
            seen: list[dict[str, Any]] = []

            def proxied_app(
                origin: str, public: bool = public, seen: list[dict[str, Any]] = seen
            ) -> Any:
                public_url = f"{origin}/public" if public else None
                app = fastapi_app(seen, receiver=receiver, public_url=public_url)
                return behind_proxy(app, prefix="/public")

            with served_asgi(proxied_app) as origin:
                receipt = delivering_client.messages.publish_json(
                    url=f"{origin}/public/hooks/a", body={"n": 1}, retries=0
                )
                message = outcome(delivering_client, receipt.message_id)
            assert (message.state, message.attempts[-1].status_code) == (state, status)
        assert json.loads(seen[0]["raw"]) == {"n": 1}
