"""The console's wiring (server/console/_app.py, server/app.py): off unless enabled, its own static
files, and headers that keep a page to what the service itself serves.
"""

from __future__ import annotations

import pytest

from tests.conftest import assert_problem
from tests.server._console import ADMIN_TOKEN, console_app, sign_in


@pytest.mark.parametrize("path", ["/console", "/console/sign-in", "/console/static/console.css"])
async def test_the_console_is_404_when_disabled(sqlite_store_url: str, path: str) -> None:
    """Without the setting nothing is served under /console: the API's 404 problem."""
    async with console_app(sqlite_store_url, console=False) as running:
        assert_problem(await running.console.get(path), 404, "not_found")
        signing_in = await running.console.post("/console/sign-in", data={"token": ADMIN_TOKEN})
        assert_problem(signing_in, 404, "not_found")


async def test_the_console_serves_its_own_css_and_script(sqlite_store_url: str) -> None:
    """The stylesheet and the polling script come from the package, with their types."""
    async with console_app(sqlite_store_url) as running:
        css = await running.console.get("/console/static/console.css")
        assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
        script = await running.console.get("/console/static/console.js")
        assert script.status_code == 200 and "data-poll" in script.text
        assert "http" not in css.text and "http" not in script.text


async def test_pages_forbid_anything_from_elsewhere(sqlite_store_url: str) -> None:
    """Every page carries a policy allowing only the service's own files, and links only those;
    it fits a phone's width.
    """
    async with console_app(sqlite_store_url) as running:
        form = await running.console.get("/console/sign-in")
        await sign_in(running.console, ADMIN_TOKEN)
        page = await running.console.get("/console/streams")
        for response in (form, page):
            policy = response.headers["content-security-policy"]
            assert "default-src 'none'" in policy and "script-src 'self'" in policy
            assert response.headers["x-content-type-options"] == "nosniff"
            assert response.headers["cache-control"] == "no-store"
            assert '<meta name="viewport"' in response.text
            assert "https://" not in response.text and "http://" not in response.text


async def test_the_console_root_goes_to_the_streams_once_signed_in(sqlite_store_url: str) -> None:
    """/console and /console/ lead to the streams page for a signed-in visitor."""
    async with console_app(sqlite_store_url) as running:
        await sign_in(running.console, ADMIN_TOKEN)
        for path in ("/console", "/console/"):
            response = await running.console.get(path)
            assert response.status_code == 303
            assert response.headers["location"] == "/console/streams"


async def test_page_text_is_escaped(sqlite_store_url: str) -> None:
    """What the store holds is shown as text, never as markup."""
    async with console_app(sqlite_store_url) as running:
        await running.api.post(
            "/v1/streams/orders/entries", json={"body": {"html": "<script>alert(1)</script>"}}
        )
        await sign_in(running.console, ADMIN_TOKEN)
        page = await running.console.get("/console/streams/orders")
        assert "<script>alert(1)</script>" not in page.text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
