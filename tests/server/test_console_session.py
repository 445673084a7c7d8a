"""Signing in to the console (server/console/_session.py and the sign-in routes of _app.py): the
cookie, the refusals, and the form token every POST needs. On SQLite only: none of it depends on
the store.
"""

from __future__ import annotations

import pytest

from tests.server._console import ADMIN_TOKEN, BILLING_TOKEN, console_app, csrf_of, sign_in


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
