"""Helpers for the web-framework receiver tests: signed requests, served apps, and the real
deliveries every adapter must pass (`RealDeliveries`)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import httpx
import uvicorn
from werkzeug.serving import make_server

import sdk
from server.signing import sign

CURRENT = "web_current_key"
NEXT = "web_next_key"
RECEIVER = sdk.Receiver(current_signing_key=CURRENT, next_signing_key=NEXT)
OTHER_RECEIVER = sdk.Receiver(current_signing_key="not_the_key", next_signing_key="nor_this_one")
_OUTCOME_SECONDS = 20.0


def signed(url: str, body: bytes, *, key: str = CURRENT) -> dict[str, str]:
    """Headers with a Spool-Signature for `body` sent to `url`, signed as the service signs."""
    return {
        "Spool-Signature": sign(key, url=url, body=body, now=time.time(), ttl=60),
        "Content-Type": "application/json",
    }


def outcome(client: sdk.Client, message_id: str) -> sdk.Message:
    """The message once its (only) attempt is over: delivered or failed."""
    deadline = time.monotonic() + _OUTCOME_SECONDS
    while (message := client.messages.get(message_id)).state not in ("delivered", "failed"):
        assert time.monotonic() < deadline, f"message {message_id} is still {message.state}"
        time.sleep(0.02)
    return message


@contextmanager
def served_asgi(make_app: Callable[[str], Any]) -> Iterator[str]:
    """`make_app(origin)` on uvicorn, on a free loopback port, in a thread; yields the origin."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    origin = f"http://127.0.0.1:{listener.getsockname()[1]}"
    config = uvicorn.Config(make_app(origin), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=asyncio.run, args=(server.serve([listener]),), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        yield origin
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listener.close()


@contextmanager
def served_wsgi(make_app: Callable[[str], Any]) -> Iterator[str]:
    """`make_app(origin)` on Werkzeug's threaded server, on a free loopback port; yields the
    origin.
    """
    server = make_server("127.0.0.1", 0, _not_ready, threaded=True)
    origin = f"http://127.0.0.1:{server.server_port}"
    # The app learns its origin first, so the port must be bound before the app is made.
    server.app = make_app(origin)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02})
    thread.start()
    try:
        yield origin
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


def _not_ready(environ: Any, start_response: Any) -> list[bytes]:
    raise AssertionError("no request reaches the server before its app is set")


def assert_problem(response: httpx.Response, reason: str) -> None:
    """`response` is the 401 problem+json a receiver refuses with, for `reason`."""
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    document = response.json()
    assert (document["status"], document["code"]) == (401, reason)
    assert reason in document["detail"]


class RealDeliveries:
    """The service delivers to an app guarded by a receiver adapter: its signatures pass, others
    do not. A framework's `TestRealDeliveries` subclasses this with its server, app and proxy.
    """

    def serve(self, make_app: Callable[[str], Any]) -> AbstractContextManager[str]:
        """`make_app(origin)` served on a free loopback port; yields the origin."""
        raise NotImplementedError

    def app(self, seen: list[dict[str, Any]], *, receiver: sdk.Receiver, **options: Any) -> Any:
        """An app whose guarded /hooks/<name> records each request it reads into `seen`."""
        raise NotImplementedError

    def behind_proxy(self, app: Any, *, prefix: str) -> Any:
        """`app` as a reverse proxy shows it requests: `prefix` stripped, another Host."""
        raise NotImplementedError

    def test_a_delivery_passes_and_a_tampered_copy_does_not(
        self, delivering_client: sdk.Client
    ) -> None:
        """A real delivery verifies; its signature on other bytes is refused."""
        seen: list[dict[str, Any]] = []
        keys = delivering_client.messages.signing_keys()
        receiver = sdk.Receiver(current_signing_key=keys.current, next_signing_key=keys.next)
        with self.serve(lambda _: self.app(seen, receiver=receiver)) as origin:
            receipt = delivering_client.messages.publish_json(
                url=f"{origin}/hooks/signup", body={"user": 42}, retries=0
            )
            assert outcome(delivering_client, receipt.message_id).state == "delivered"
            # The same signature on other bytes is refused: what a tampering proxy would send.
            headers = {
                name: value
                for name, value in seen[0]["headers"].items()
                if name.lower() in ("spool-signature", "content-type")
            }
            tampered = httpx.post(
                f"{origin}/hooks/signup", content=b'{"user": 43}', headers=headers
            )
            assert_problem(tampered, "body_mismatch")
        assert seen[0]["json"] == {"user": 42}
        assert len(seen) == 1

    def test_a_receiver_with_other_keys_refuses_it(self, delivering_client: sdk.Client) -> None:
        """The service's attempt gets 401, with the reason in the answer it keeps."""
        with self.serve(lambda _: self.app([], receiver=OTHER_RECEIVER)) as origin:
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
                app = self.app(seen, receiver=receiver, public_url=public_url)
                return self.behind_proxy(app, prefix="/public")

            with self.serve(proxied_app) as origin:
                receipt = delivering_client.messages.publish_json(
                    url=f"{origin}/public/hooks/a", body={"n": 1}, retries=0
                )
                message = outcome(delivering_client, receipt.message_id)
            assert (message.state, message.attempts[-1].status_code) == (state, status)
        assert seen[0]["json"] == {"n": 1}
