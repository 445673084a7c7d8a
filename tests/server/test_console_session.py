"""Signing in to the console (server/console/_session.py and the sign-in routes of _app.py): the
cookie, the refusals, the form token every POST needs, and the session the service keeps: ended by
signing out, by its lifetime and idle time on the service's clock, and by its token leaving the
configuration. On SQLite only: the store's own suite runs the sessions on every backend
(tests/server/stores/test_console_sessions.py).
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import sqlite3
import time
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from server.app import create_app, lifespan
from server.config import Settings
from tests.server._console import (
    ADMIN_TOKEN,
    BILLING_TOKEN,
    CONSOLE_TOKENS,
    ConsoleApp,
    console_app,
    csrf_of,
    sign_in,
)
from tests.server.stores._support import FakeClock


@pytest.mark.parametrize(
    "path",
    ["/console", "/console/streams", "/console/queues/jobs", "/console/messages?state=failed"],
)
async def test_without_a_session_a_page_sends_the_visitor_to_sign_in(
    sqlite_store_url: str, path: str
) -> None:
    """No cookie: 303 to the sign-in form, which brings the visitor back afterwards."""
    async with console_app(sqlite_store_url) as running:
        response = await running.console.get(path)
        assert response.status_code == 303
        assert response.headers["location"].startswith("/console/sign-in")
        form = await running.console.get(response.headers["location"])
        assert form.status_code == 200
        assert 'name="token"' in form.text and 'type="password"' in form.text


async def test_signing_in_keeps_the_token_in_a_strict_http_only_cookie(
    sqlite_store_url: str,
) -> None:
    """A known token: 303 to the page asked for, with an HttpOnly SameSite=Strict cookie scoped to
    /console, not Secure over plain http.
    """
    async with console_app(sqlite_store_url) as running:
        response = await running.console.post(
            "/console/sign-in", data={"token": ADMIN_TOKEN, "next": "/console/queues"}
        )
        assert response.status_code == 303
        assert response.headers["location"] == "/console/queues"
        cookie = response.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/console" in cookie
        assert "secure" not in cookie
        assert ADMIN_TOKEN not in cookie.partition(";")[0]
        page = await running.console.get("/console/queues")
        assert page.status_code == 200 and "admin" in page.text


async def test_over_https_the_cookie_is_secure(sqlite_store_url: str) -> None:
    """Served over https, the cookie is Secure as well."""
    async with console_app(sqlite_store_url, base_url="https://spool.test") as running:
        response = await running.console.post("/console/sign-in", data={"token": ADMIN_TOKEN})
        assert "secure" in response.headers["set-cookie"].lower()


@pytest.mark.parametrize("token", ["wrong-secret", "", "   "])
async def test_a_wrong_token_is_refused(sqlite_store_url: str, token: str) -> None:
    """An unknown or empty token: 401 with the form again, and no cookie."""
    async with console_app(sqlite_store_url) as running:
        response = await running.console.post("/console/sign-in", data={"token": token})
        assert response.status_code == 401
        assert "not known" in response.text
        assert "set-cookie" not in response.headers
        assert (await running.console.get("/console/streams")).status_code == 303


async def test_a_forged_or_stale_cookie_is_no_session(sqlite_store_url: str) -> None:
    """A cookie that does not decode, or names a token the service does not know, is ignored."""
    async with console_app(sqlite_store_url) as running:
        for value in ("garbage", "abc.!!!", "abc.d3Jvbmc="):
            running.console.cookies.set("spool_console", value, domain="spool.test")
            response = await running.console.get("/console/streams")
            assert response.status_code == 303, value
            running.console.cookies.clear()


@pytest.mark.parametrize("next_page", ["https://evil.example/", "//evil.example/x", "/v1/streams"])
async def test_sign_in_never_sends_the_visitor_elsewhere(
    sqlite_store_url: str, next_page: str
) -> None:
    """Only console pages are followed after signing in; anything else goes to the streams."""
    async with console_app(sqlite_store_url) as running:
        response = await running.console.post(
            "/console/sign-in", data={"token": ADMIN_TOKEN, "next": next_page}
        )
        assert response.headers["location"] == "/console/streams"


@pytest.mark.parametrize("presented", [None, "", "0" * 64])
async def test_a_post_without_the_session_form_token_is_refused(
    sqlite_store_url: str, presented: str | None
) -> None:
    """A missing or wrong form token: 403 and nothing done (here: no trim)."""
    async with console_app(sqlite_store_url) as running:
        await running.api.post("/v1/streams/orders/entries", json={"body": 1})
        await sign_in(running.console, ADMIN_TOKEN)
        data = {"maxlen": "0"} if presented is None else {"maxlen": "0", "csrf": presented}
        response = await running.console.post("/console/streams/orders/trim", data=data)
        assert response.status_code == 403
        assert "another site" in response.text
        length = (await running.api.get("/v1/streams/orders")).json()["length"]
        assert length == 1


async def test_the_form_token_belongs_to_one_sign_in(sqlite_store_url: str) -> None:
    """Each sign-in has its own form token; an earlier one no longer works."""
    async with console_app(sqlite_store_url) as running:
        await running.api.post("/v1/streams/orders/entries", json={"body": 1})
        first = await sign_in(running.console, ADMIN_TOKEN)
        second = await sign_in(running.console, ADMIN_TOKEN)
        assert first != second
        stale = await running.console.post(
            "/console/streams/orders/trim", data={"maxlen": "0", "csrf": first}
        )
        assert stale.status_code == 403
        fresh = await running.console.post(
            "/console/streams/orders/trim", data={"maxlen": "0", "csrf": second}
        )
        assert fresh.status_code == 303


async def test_a_post_without_a_session_is_refused(sqlite_store_url: str) -> None:
    """No cookie at all: 401 and nothing done; the live numbers are 401 too."""
    async with console_app(sqlite_store_url) as running:
        response = await running.console.post(
            "/console/streams/orders/trim", data={"maxlen": "0", "csrf": "x"}
        )
        assert response.status_code == 401
        live = await running.console.get("/console/live/queues")
        assert (live.status_code, live.json()) == (401, {"error": "unauthenticated"})


async def test_only_a_url_encoded_form_carries_the_form_token(sqlite_store_url: str) -> None:
    """The form token in a JSON body is not read: 403."""
    async with console_app(sqlite_store_url) as running:
        await running.api.post("/v1/streams/orders/entries", json={"body": 1})
        csrf = await sign_in(running.console, ADMIN_TOKEN)
        response = await running.console.post(
            "/console/streams/orders/trim", json={"maxlen": "0", "csrf": csrf}
        )
        assert response.status_code == 403


async def test_signing_out_needs_the_form_token_and_forgets_the_session(
    sqlite_store_url: str,
) -> None:
    """Sign-out with a wrong form token is refused; with the right one the cookie goes."""
    async with console_app(sqlite_store_url) as running:
        csrf = await sign_in(running.console, BILLING_TOKEN)
        refused = await running.console.post("/console/sign-out", data={"csrf": "nope"})
        assert refused.status_code == 403
        assert (await running.console.get("/console/streams")).status_code == 200
        page = await running.console.get("/console/streams")
        assert csrf_of(page) == csrf
        signed_out = await running.console.post("/console/sign-out", data={"csrf": csrf})
        assert signed_out.status_code == 303
        assert signed_out.headers["location"] == "/console/sign-in"
        assert (await running.console.get("/console/streams")).status_code == 303


async def test_a_form_posted_from_another_site_is_refused(sqlite_store_url: str) -> None:
    """An Origin naming another host: 403 for the sign-in form and for an action, even with the
    right form token; the service's own host (any scheme, as behind a TLS proxy) is accepted.
    """
    async with console_app(sqlite_store_url) as running:
        await running.api.post("/v1/streams/orders/entries", json={"body": 1})
        for origin in ("https://evil.example", "null"):
            refused = await running.console.post(
                "/console/sign-in", data={"token": ADMIN_TOKEN}, headers={"Origin": origin}
            )
            assert refused.status_code == 403 and "set-cookie" not in refused.headers
        signed_in = await running.console.post(
            "/console/sign-in",
            data={"token": ADMIN_TOKEN},
            headers={"Origin": "https://spool.test"},
        )
        assert signed_in.status_code == 303
        csrf = csrf_of(await running.console.get("/console/streams"))
        forged = await running.console.post(
            "/console/streams/orders/trim",
            data={"maxlen": "0", "csrf": csrf},
            headers={"Origin": "https://evil.example"},
        )
        assert forged.status_code == 403
        assert (await running.api.get("/v1/streams/orders")).json()["length"] == 1
        own = await running.console.post(
            "/console/streams/orders/trim",
            data={"maxlen": "0", "csrf": csrf},
            headers={"Origin": "http://spool.test"},
        )
        assert own.status_code == 303


# Sessions kept by the service ------------------------------------------------------------------


def _cookie_of(client: httpx.AsyncClient) -> str:
    value = client.cookies.get("spool_console")
    assert value is not None
    return value


def _stolen(running: ConsoleApp, cookie: str) -> httpx.AsyncClient:
    """Another client of the same app, holding a copy of ``cookie``."""
    return httpx.AsyncClient(
        transport=running.transport,
        base_url="http://spool.test",
        cookies={"spool_console": cookie},
    )


async def _length(running: ConsoleApp, stream: str = "orders") -> int:
    length: int = (await running.api.get(f"/v1/streams/{stream}")).json()["length"]
    return length


def _sent_to_sign_in(response: httpx.Response) -> None:
    """A 303 to the sign-in form saying the session has ended, clearing the cookie."""
    assert response.status_code == 303, response.text
    location = urlsplit(response.headers["location"])
    assert location.path == "/console/sign-in"
    assert parse_qs(location.query)["notice"] == ["Your session has ended; sign in again."]
    cleared = response.headers["set-cookie"]
    assert cleared.startswith('spool_console="";') and "Max-Age=0" in cleared


async def test_the_cookie_is_random_and_holds_no_token(sqlite_store_url: str) -> None:
    """The cookie is 256 random bits in base64url and nothing else; two sign-ins with one token
    get unrelated cookies, and the store keeps neither the cookie nor the secret.
    """
    async with console_app(sqlite_store_url) as running:
        await sign_in(running.console, ADMIN_TOKEN)
        first = _cookie_of(running.console)
        await sign_in(running.console, ADMIN_TOKEN)
        second = _cookie_of(running.console)
        for cookie in (first, second):
            assert len(base64.urlsafe_b64decode(cookie + "=")) == 32
            assert ADMIN_TOKEN not in cookie
            assert base64.urlsafe_b64encode(ADMIN_TOKEN.encode()).decode().rstrip("=") not in cookie
        assert first != second
        assert await running.store.get_console_session(second, touch=False) is None
    path = sqlite_store_url.removeprefix("sqlite:///")
    with contextlib.closing(sqlite3.connect(path)) as connection:
        rows = connection.execute("SELECT * FROM console_sessions").fetchall()
    assert len(rows) == 1, "signing in again ended the first session"
    kept = " ".join(str(value) for value in rows[0])
    assert ADMIN_TOKEN not in kept and first not in kept and second not in kept
    assert "admin" in kept


async def test_after_signing_out_the_old_cookie_reads_and_does_nothing(
    sqlite_store_url: str,
) -> None:
    """Replayed after sign-out, the cookie is sent to sign in for a page and for an action (the
    trim does not happen, even with the form token it had), and the live numbers are 401.
    """
    async with console_app(sqlite_store_url) as running:
        await running.api.post("/v1/streams/orders/entries", json={"body": 1})
        csrf = await sign_in(running.console, ADMIN_TOKEN)
        cookie = _cookie_of(running.console)
        signed_out = await running.console.post("/console/sign-out", data={"csrf": csrf})
        assert signed_out.status_code == 303
        async with _stolen(running, cookie) as replay:
            _sent_to_sign_in(await replay.get("/console/streams/orders"))
            trim = await replay.post(
                "/console/streams/orders/trim", data={"maxlen": "0", "csrf": csrf}
            )
            _sent_to_sign_in(trim)
            live = await replay.get("/console/live/queues")
            assert (live.status_code, live.json()) == (401, {"error": "unauthenticated"})
        assert await _length(running) == 1


async def test_a_stolen_cookie_ends_when_its_owner_signs_out(sqlite_store_url: str) -> None:
    """A copy of the cookie works in another client until the visitor signs out; from then on
    neither the copy nor the visitor's own client reads or acts.
    """
    async with console_app(sqlite_store_url) as running:
        await running.api.post("/v1/streams/orders/entries", json={"body": 1})
        csrf = await sign_in(running.console, ADMIN_TOKEN)
        async with _stolen(running, _cookie_of(running.console)) as thief:
            assert (await thief.get("/console/streams/orders")).status_code == 200
            await running.console.post("/console/sign-out", data={"csrf": csrf})
            _sent_to_sign_in(await thief.get("/console/streams/orders"))
            trim = await thief.post(
                "/console/streams/orders/trim", data={"maxlen": "0", "csrf": csrf}
            )
            _sent_to_sign_in(trim)
        assert (await running.console.get("/console/streams")).status_code == 303
        assert await _length(running) == 1


async def test_a_session_ends_after_eight_hours_on_the_service_clock(
    sqlite_store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Visited every half hour, a session lasts eight hours from signing in, whatever the cookie's
    Max-Age: then pages and actions send the visitor to sign in.
    """
    async with console_app(sqlite_store_url) as running:
        clock = FakeClock(time.time())
        monkeypatch.setattr(running.store, "clock", clock)
        await running.api.post("/v1/streams/orders/entries", json={"body": 1})
        signing_in = await running.console.post("/console/sign-in", data={"token": ADMIN_TOKEN})
        assert "Max-Age=28800" in signing_in.headers["set-cookie"]
        csrf = csrf_of(await running.console.get("/console/streams"))
        cookie = _cookie_of(running.console)
        for _ in range(15):
            clock.now += 1800
            assert (await running.console.get("/console/streams")).status_code == 200
        clock.now += 1799
        assert (await running.console.get("/console/streams")).status_code == 200
        clock.now += 1
        async with _stolen(running, cookie) as browser:
            _sent_to_sign_in(await browser.get("/console/streams"))
            trim = await browser.post(
                "/console/streams/orders/trim", data={"maxlen": "0", "csrf": csrf}
            )
            _sent_to_sign_in(trim)
        assert await _length(running) == 1


async def test_a_session_ends_after_an_hour_without_a_visit(
    sqlite_store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page or an action is a visit; the numbers a page polls are not. An hour after the last
    visit the session has ended, however often the page polled meanwhile.
    """
    async with console_app(sqlite_store_url) as running:
        clock = FakeClock(time.time())
        monkeypatch.setattr(running.store, "clock", clock)
        await running.api.post("/v1/streams/orders/entries", json={"body": 1})
        csrf = await sign_in(running.console, ADMIN_TOKEN)
        clock.now += 3000
        trim = await running.console.post(
            "/console/streams/orders/trim", data={"maxlen": "5", "csrf": csrf}
        )
        assert trim.status_code == 303 and "notice" in trim.headers["location"]
        for _ in range(59):
            clock.now += 60
            assert (await running.console.get("/console/live/queues")).status_code == 200
        clock.now += 60
        live = await running.console.get("/console/live/queues")
        assert live.status_code == 401
        _sent_to_sign_in(await running.console.get("/console/streams"))


async def test_a_removed_or_changed_token_ends_its_sessions(sqlite_store_url: str) -> None:
    """Served again without the token, or with another secret under its id, the service sends
    the cookie to sign in; the session stays ended when the old secret comes back.
    """
    async with console_app(sqlite_store_url) as running:
        await sign_in(running.console, BILLING_TOKEN)
        billing_cookie = _cookie_of(running.console)
        await sign_in(running.console, ADMIN_TOKEN)
        admin_cookie = _cookie_of(running.console)
    billing, rest = CONSOLE_TOKENS[1], (CONSOLE_TOKENS[0], CONSOLE_TOKENS[2])
    rotated = dataclasses.replace(billing, secret="billing-secret-2")
    async with console_app(sqlite_store_url, tokens=(*rest, rotated)) as running:
        async with _stolen(running, admin_cookie) as admin:
            assert (await admin.get("/console/streams")).status_code == 200
        async with _stolen(running, billing_cookie) as visitor:
            _sent_to_sign_in(await visitor.get("/console/streams"))
    async with console_app(sqlite_store_url) as running:
        async with _stolen(running, billing_cookie) as visitor:
            _sent_to_sign_in(await visitor.get("/console/streams"))
    async with console_app(sqlite_store_url) as running:
        await sign_in(running.console, BILLING_TOKEN)
        billing_cookie = _cookie_of(running.console)
    async with console_app(sqlite_store_url, tokens=rest) as running:
        async with _stolen(running, billing_cookie) as visitor:
            _sent_to_sign_in(await visitor.get("/console/streams"))


async def test_a_session_made_by_one_app_serves_another_on_the_store(
    sqlite_store_url: str,
) -> None:
    """Two apps on one store file, as two worker processes: a session made by one reads and acts
    on the other, and signing out on the other ends it on the first.
    """
    async with (
        console_app(sqlite_store_url) as first,
        console_app(sqlite_store_url) as second,
    ):
        await first.api.post("/v1/streams/orders/entries", json={"body": 1})
        csrf = await sign_in(first.console, ADMIN_TOKEN)
        cookie = _cookie_of(first.console)
        async with _stolen(second, cookie) as other:
            assert (await other.get("/console/streams/orders")).status_code == 200
            trim = await other.post(
                "/console/streams/orders/trim", data={"maxlen": "0", "csrf": csrf}
            )
            assert trim.status_code == 303 and "notice" in trim.headers["location"]
            assert (await other.post("/console/sign-out", data={"csrf": csrf})).status_code == 303
        _sent_to_sign_in(await first.console.get("/console/streams"))


@pytest.mark.parametrize(
    "value", ["A" * 43, "A" * 42 + "!", "x" * 44, "x.y", base64.b64encode(ADMIN_TOKEN.encode())]
)
async def test_a_cookie_naming_no_session_sends_the_visitor_to_sign_in(
    sqlite_store_url: str, value: str | bytes
) -> None:
    """Any cookie the service did not hand out, or no longer knows, is sent to sign in: pages and
    actions alike, the action doing nothing.
    """
    text = value.decode() if isinstance(value, bytes) else value
    async with console_app(sqlite_store_url) as running:
        await running.api.post("/v1/streams/orders/entries", json={"body": 1})
        async with _stolen(running, text) as visitor:
            _sent_to_sign_in(await visitor.get("/console/queues"))
            _sent_to_sign_in(
                await visitor.post("/console/streams/orders/trim", data={"maxlen": "0"})
            )
        assert await _length(running) == 1


async def test_the_configured_lifetime_sets_the_cookie_and_the_session(
    sqlite_store_url: str,
) -> None:
    """``console_session_seconds`` is the cookie's Max-Age and the session's lifetime, and
    ``console_idle_seconds`` its idle time, as the store keeps them.
    """
    settings = Settings(
        tokens=CONSOLE_TOKENS,
        store_url=sqlite_store_url,
        console=True,
        console_session_seconds=600.5,
        console_idle_seconds=30,
    )
    app = create_app(settings, services=())
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://spool.test") as client:
            response = await client.post("/console/sign-in", data={"token": ADMIN_TOKEN})
            assert "Max-Age=601" in response.headers["set-cookie"]
            path = sqlite_store_url.removeprefix("sqlite:///")
            with contextlib.closing(sqlite3.connect(path)) as connection:
                created, expires, idle = connection.execute(
                    "SELECT created_at, expires_at, idle_seconds FROM console_sessions"
                ).fetchone()
            assert (expires - created, idle) == (600.5, 30)


@pytest.mark.parametrize(
    ("token", "shown"),
    [("spool-dev-token", "spool-dev-token"), ("a-secret-dev-token", "$SPOOL_DEV_TOKEN")],
)
async def test_in_development_mode_the_form_says_which_token_signs_in(
    sqlite_store_url: str, token: str, shown: str
) -> None:
    """The default development token is public, so the form names it; one the operator chose is
    not shown, only where it comes from. Both sign in, and a wrong token gets the hint again.
    """
    settings = Settings.development_mode(token=token, store_url=sqlite_store_url)
    app = create_app(settings, services=())
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://spool.test") as client:
            form = await client.get("/console/sign-in")
            assert "Development mode" in form.text and shown in form.text
            if token != shown:
                assert token not in form.text
            refused = await client.post("/console/sign-in", data={"token": "wrong"})
            assert refused.status_code == 401 and shown in refused.text
            signed_in = await client.post("/console/sign-in", data={"token": token})
            assert signed_in.status_code == 303


async def test_outside_development_mode_the_form_names_no_token(sqlite_store_url: str) -> None:
    """With configured tokens the form gives no hint at all."""
    async with console_app(sqlite_store_url) as running:
        form = await running.console.get("/console/sign-in")
        assert "Development mode" not in form.text and "SPOOL_DEV_TOKEN" not in form.text
