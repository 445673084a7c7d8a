"""The API reference at /docs and the front page at / (server/docs/), its switch in the settings,
and the page in a real browser: Debian's headless Chromium, driven by Selenium, against a real
``python -m server``.

The browser test skips without Chromium and its driver, saying so; ``SPOOL_REQUIRE_BROWSER=1`` (as
CI sets) turns the skip into a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import jinja2
import pytest
import yaml
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from server.app import create_app, lifespan
from server.config import ConfigError, Settings, load_settings
from server.docs import ASSETS_DIRECTORY, ASSETS_PATH, DOCS_PATH, SWAGGER_UI_VERSION
from tests.conftest import ROOT, ServerProcess

CHROMIUM = os.environ.get("SPOOL_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SPOOL_CHROMEDRIVER", "/usr/bin/chromedriver")
# Swagger UI parses the whole document before it shows anything; a busy shared machine gets time.
_WAIT_SECONDS = 60.0
_MEDIA_TYPES = {
    ".js": {"text/javascript", "application/javascript"},
    ".css": {"text/css"},
    ".png": {"image/png"},
}
OPS_ONLY = {"tokens": [{"id": "ops", "token": "ops-secret", "permissions": []}]}


def _operation_ids() -> list[str]:
    """Every operationId under the document's paths, in document order."""
    document = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    return [
        operation["operationId"]
        for item in document["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    ]


@contextlib.asynccontextmanager
async def _served(sqlite_store_url: str, **options: Any) -> AsyncIterator[httpx.AsyncClient]:
    """A development-mode app with ``options`` and a client that sends no token."""
    settings = Settings.development_mode(store_url=sqlite_store_url, **options)
    app = create_app(settings, services=())
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://spool.test") as client:
            yield client


class _Page(HTMLParser):
    """What a page loads (scripts, stylesheets, icons), what its scripts hold, and its links."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.loads: list[str] = []
        self.script_bodies: list[str] = []
        self.links: list[str] = []
        self.document: str | None = None
        self._in_script = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script":
            self._in_script = True
            self.script_bodies.append("")
            self.loads.append(values.get("src") or "")
        elif tag == "link":
            self.loads.append(values.get("href") or "")
        elif tag == "a":
            self.links.append(values.get("href") or "")
        if "data-document" in values:
            self.document = values["data-document"]

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script_bodies[-1] += data


def _policy(header: str) -> dict[str, list[str]]:
    directives = (part.split() for part in header.split(";") if part.strip())
    return {name: sources for name, *sources in directives}


# The page and its assets -----------------------------------------------------------------------


async def test_the_reference_is_html_that_loads_only_the_services_own_files(
    sqlite_store_url: str,
) -> None:
    """GET /docs needs no token and answers an HTML page whose scripts are files of the service
    (no inline script), read from /openapi.yaml, under a policy that allows this service alone.
    """
    async with _served(sqlite_store_url) as client:
        response = await client.get(DOCS_PATH)
        head = await client.head(DOCS_PATH)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert (head.status_code, head.content) == (200, b"")
    page = _Page(response.text)
    assert page.document == "/openapi.yaml"
    assert page.loads and all(load.startswith(f"{ASSETS_PATH}/") for load in page.loads)
    assert page.script_bodies and all(not body.strip() for body in page.script_bodies)
    assert "http://" not in response.text and "https://" not in response.text
    policy = _policy(response.headers["content-security-policy"])
    assert policy["default-src"] == ["'none'"]
    for directive in ("script-src", "style-src", "connect-src"):
        assert policy[directive] == ["'self'"], directive
    # Swagger UI's stylesheet draws its icons as data: images, which fetch nothing.
    assert policy["img-src"] == ["'self'", "data:"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_the_assets_are_served_as_they_are_kept_with_their_media_types(
    sqlite_store_url: str,
) -> None:
    """Every file the page loads is served from server/docs/assets/, byte for byte, with the media
    type a browser runs or applies it as.
    """
    async with _served(sqlite_store_url) as client:
        page = _Page((await client.get(DOCS_PATH)).text)
        answers = {load: await client.get(load) for load in page.loads}
        missing = await client.get(f"{ASSETS_PATH}/swagger-ui/no-such-file.js")
    assert {Path(load).suffix for load in answers} == set(_MEDIA_TYPES)
    for load, answer in answers.items():
        assert answer.status_code == 200, load
        media_type = answer.headers["content-type"].partition(";")[0]
        assert media_type in _MEDIA_TYPES[Path(load).suffix], (load, media_type)
        kept = ASSETS_DIRECTORY / load.removeprefix(f"{ASSETS_PATH}/")
        assert answer.content == kept.read_bytes(), load
    assert missing.status_code == 404
    assert missing.json()["code"] == "not_found"


def test_the_kept_swagger_ui_is_the_recorded_release_and_fetches_nothing_itself() -> None:
    """The bundle is the release SWAGGER_UI_VERSION and the README.md beside it name, its licence
    is kept with it, and its stylesheet loads no font or image from anywhere (data: only).
    """
    folder = ASSETS_DIRECTORY / "swagger-ui"
    bundle = (folder / "swagger-ui-bundle.js").read_text(encoding="utf-8")
    assert f'PACKAGE_VERSION:"{SWAGGER_UI_VERSION}"' in bundle
    assert f"version **{SWAGGER_UI_VERSION}**" in (folder / "README.md").read_text(encoding="utf-8")
    assert "Apache License" in (folder / "LICENSE").read_text(encoding="utf-8")
    assert (folder / "swagger-ui-bundle.js.LICENSE.txt").is_file()
    stylesheet = (folder / "swagger-ui.css").read_text(encoding="utf-8")
    assert "@import" not in stylesheet and "@font-face" not in stylesheet
    assert re.findall(r"url\(\s*(?![\"']?data:)", stylesheet) == []


async def test_turned_off_the_reference_and_its_assets_are_404_and_unlinked(
    sqlite_store_url: str,
) -> None:
    """With ``docs`` off, /docs (any method) and its assets are unserved paths, and the front
    page does not link to them.
    """
    async with _served(sqlite_store_url, docs=False) as client:
        answers = [
            await client.get(DOCS_PATH),
            await client.post(DOCS_PATH),
            await client.get(f"{ASSETS_PATH}/reference.js"),
            await client.get(f"{ASSETS_PATH}/swagger-ui/swagger-ui-bundle.js"),
        ]
        front = await client.get("/")
        document = await client.get("/openapi.yaml")
    for answer in answers:
        assert answer.status_code == 404, answer.request.url
        assert answer.json()["code"] == "not_found"
    assert DOCS_PATH not in _Page(front.text).links
    assert document.status_code == 200


# The front page and the console's layout --------------------------------------------------------


@pytest.mark.parametrize(
    ("docs", "console", "expected"),
    [
        (True, True, ["/docs", "/openapi.yaml", "/console", "/v1/health"]),
        (True, False, ["/docs", "/openapi.yaml", "/v1/health"]),
        (False, True, ["/openapi.yaml", "/console", "/v1/health"]),
    ],
)
async def test_the_front_page_links_to_what_is_served(
    sqlite_store_url: str, docs: bool, console: bool, expected: list[str]
) -> None:
    """GET / is a page of links, the reference and the console among them only when served,
    under a policy that lets it load nothing.
    """
    async with _served(sqlite_store_url, docs=docs, console=console) as client:
        front = await client.get("/")
        # The console's own page sends a visitor to sign in first.
        answers = {link: (await client.get(link)).status_code for link in expected}
    assert answers == {link: 303 if link == "/console" else 200 for link in expected}
    assert front.status_code == 200
    assert front.headers["content-type"] == "text/html; charset=utf-8"
    assert _Page(front.text).links == expected
    assert _policy(front.headers["content-security-policy"])["default-src"] == ["'none'"]


@pytest.mark.parametrize(
    ("values", "linked"),
    [({"docs_path": "/docs"}, True), ({"docs_path": None}, False), ({}, False)],
)
def test_the_console_layout_links_to_the_reference_when_given_its_path(
    values: dict[str, str | None], linked: bool
) -> None:
    """The console's layout shows an "API reference" link to ``docs_path`` when the page is given
    one, and none when it is None or not given.
    """
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(ROOT / "server" / "console" / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    text = environment.get_template("sign_in.html").render(
        prefix="/console",
        session=None,
        csrf_field="csrf",
        notice="",
        path="/console/sign-in",
        status=200,
        error="",
        next_page="/console/streams",
        development=False,
        development_token=None,
        **values,
    )
    assert ("/docs" in _Page(text).links) is linked
    assert ("API reference" in text) is linked


# The switch -------------------------------------------------------------------------------------


def test_the_reference_is_on_unless_turned_off(tmp_path: Path) -> None:
    """Development mode and a configured service both serve the reference by default."""
    config = tmp_path / "spool.json"
    config.write_text(json.dumps(OPS_ONLY))
    assert Settings(tokens=()).docs
    assert load_settings(environ={}).docs
    assert load_settings(config_path=config, environ={}).docs
    assert not load_settings(environ={"SPOOL_DOCS": "0"}).docs


@pytest.mark.parametrize(
    ("switch", "section", "environ", "expected"),
    [
        (None, {}, {}, True),
        (None, {"enabled": False}, {}, False),
        (None, {"enabled": False}, {"SPOOL_DOCS": "1"}, True),
        (None, {"enabled": True}, {"SPOOL_DOCS": "off"}, False),
        (True, {"enabled": False}, {"SPOOL_DOCS": "0"}, True),
        (False, {"enabled": True}, {"SPOOL_DOCS": "1"}, False),
    ],
)
def test_the_flag_the_environment_or_the_file_turns_the_reference_off(
    tmp_path: Path,
    switch: bool | None,
    section: dict[str, object],
    environ: dict[str, str],
    expected: bool,
) -> None:
    """``docs`` (a command line's choice) wins, then ``$SPOOL_DOCS``, then ``docs.enabled``."""
    config = tmp_path / "spool.json"
    config.write_text(json.dumps({**OPS_ONLY, "docs": section}))
    assert load_settings(config_path=config, docs=switch, environ=environ).docs is expected


@pytest.mark.parametrize(
    ("section", "environ", "message"),
    [
        ({"enabled": "no"}, {}, "docs.enabled"),
        ({"enabled": True, "path": "/reference"}, {}, "docs.path"),
        ({}, {"SPOOL_DOCS": "maybe"}, "$SPOOL_DOCS must be 1 or 0"),
    ],
)
def test_a_bad_docs_setting_is_a_config_error(
    tmp_path: Path, section: dict[str, object], environ: dict[str, str], message: str
) -> None:
    """Each mistake in the docs section, or in $SPOOL_DOCS, names itself."""
    config = tmp_path / "spool.json"
    config.write_text(json.dumps({**OPS_ONLY, "docs": section}))
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_settings(config_path=config, environ=environ)


# In a real browser ------------------------------------------------------------------------------


def _executable(path: str) -> str | None:
    found = shutil.which(path)
    return found if found is not None and os.access(found, os.X_OK) else None


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    """Headless Chromium that keeps its console and network logs; skips (fails with
    SPOOL_REQUIRE_BROWSER=1) without it.
    """
    chromium, chromedriver = _executable(CHROMIUM), _executable(CHROMEDRIVER)
    if chromium is None or chromedriver is None:
        reason = (
            f"needs Chromium at {CHROMIUM} and its driver at {CHROMEDRIVER} "
            "(apt-get install chromium chromium-driver; or set SPOOL_CHROMIUM/SPOOL_CHROMEDRIVER)"
        )
        if os.environ.get("SPOOL_REQUIRE_BROWSER") == "1":
            pytest.fail(f"SPOOL_REQUIRE_BROWSER=1 but no browser: {reason}")
        pytest.skip(reason)
    options = Options()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    # No background calls of the browser's own (updates, safe browsing): every request the
    # network log shows is the page's.
    options.add_argument("--disable-background-networking")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))
    driver.set_window_size(1280, 1000)
    try:
        yield driver
    finally:
        driver.quit()


def _log(browser: webdriver.Chrome, kind: str) -> list[dict[str, Any]]:
    """The entries of Chrome's ``kind`` log ("browser": the console; "performance": DevTools
    events) since the last read.
    """
    entries: list[dict[str, Any]] = browser.get_log(kind)  # type: ignore[no-untyped-call]
    return entries


def _requested(browser: webdriver.Chrome) -> list[str]:
    """Every URL the page asked for so far, from Chrome's network log (data: URLs fetch nothing
    and are left out).
    """
    urls = []
    for entry in _log(browser, "performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            url = str(message["params"]["request"]["url"])
            if not url.startswith("data:"):
                urls.append(url)
    return urls


def _screenshot(browser: WebDriver, shot: Path) -> None:
    """The window at ``shot``, and in $SPOOL_SCREENSHOT_DIR too when that is set."""
    browser.save_screenshot(str(shot))
    if os.environ.get("SPOOL_SCREENSHOT_DIR"):
        kept = Path(os.environ["SPOOL_SCREENSHOT_DIR"])
        kept.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, kept / shot.name)


def _shown_operations(browser: WebDriver) -> list[str]:
    # Swagger UI gives each operation's block the id operations-<tag>-<operationId>.
    blocks = browser.find_elements(By.CSS_SELECTOR, ".opblock[id^='operations-']")
    return [str(block.get_attribute("id")).split("-", 2)[2] for block in blocks]


@pytest.mark.slow
def test_a_browser_renders_every_operation_without_asking_any_other_address(
    browser: webdriver.Chrome,
    spool_server: Callable[..., ServerProcess],
    sqlite_store_url: str,
    tmp_path: Path,
) -> None:
    """/docs from a real server shows one block per operation of openapi.yaml, the page's
    policy refuses nothing it needs, every request it makes goes to the server, and "Try it out"
    reaches the server that served the page.
    """
    server = spool_server(sqlite_store_url)
    expected = _operation_ids()
    browser.get(f"{server.base_url}{DOCS_PATH}")
    waiting = WebDriverWait(browser, _WAIT_SECONDS)
    waiting.until(lambda _: len(_shown_operations(browser)) >= len(expected))
    shown = _shown_operations(browser)
    assert len(shown) == len(expected)
    assert sorted(shown) == sorted(expected)
    _screenshot(browser, tmp_path / "docs.png")

    health = browser.find_element(By.ID, "operations-system-getHealth")
    health.find_element(By.CSS_SELECTOR, ".opblock-summary-control").click()
    waiting.until(lambda _: health.find_elements(By.CSS_SELECTOR, ".try-out__btn"))
    health.find_element(By.CSS_SELECTOR, ".try-out__btn").click()
    health.find_element(By.CSS_SELECTOR, ".execute").click()
    answered = ".live-responses-table tbody .response-col_status"
    waiting.until(lambda _: health.find_elements(By.CSS_SELECTOR, answered))
    assert health.find_element(By.CSS_SELECTOR, answered).text.strip() == "200"
    called = health.find_element(By.CSS_SELECTOR, ".request-url pre").text.strip()
    assert called == f"{server.base_url}/v1/health"
    _screenshot(browser, tmp_path / "docs-try-it-out.png")

    requested = _requested(browser)
    origin = urlsplit(server.base_url).netloc
    assert f"{server.base_url}/openapi.yaml" in requested
    assert f"{server.base_url}/v1/health" in requested
    assert [url for url in requested if urlsplit(url).netloc != origin] == []
    problems = [entry["message"] for entry in _log(browser, "browser")]
    assert [problem for problem in problems if "Content Security Policy" in problem] == []


@pytest.mark.parametrize("docs", [True, False])
async def test_the_console_links_to_the_reference_only_when_it_is_served(
    sqlite_store_url: str, docs: bool
) -> None:
    """The console's pages (its sign-in form here) link to /docs exactly when it is served."""
    async with _served(sqlite_store_url, docs=docs, console=True) as client:
        page = await client.get("/console/sign-in")
    assert page.status_code == 200
    assert (DOCS_PATH in _Page(page.text).links) is docs
