"""The web console in a real browser: Debian's headless Chromium, driven by Selenium, against the
real service (``python -m server`` in development mode, where the console is on) on each store.

The data is made through the SDK: a stream with a consumer group holding pending entries, a queue
with a dead job, a message that failed into the dead letters, a scheduled message and a URL group.
Each test loads a page, checks the numbers it shows, acts on it and keeps a screenshot of it under
its ``tmp_path``. One service per store and one browser serve the whole module.

Without Chromium and its driver the tests skip, saying so; ``SPOOL_REQUIRE_BROWSER=1`` (as CI sets)
turns the skip into a failure.
"""

from __future__ import annotations

import base64
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

import sdk
from sdk._embedded import EmbeddedService
from tests.e2e._receivers import Answer, ScriptedReceiver

pytestmark = pytest.mark.slow

CHROMIUM = os.environ.get("SPOOL_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SPOOL_CHROMEDRIVER", "/usr/bin/chromedriver")
# The console polls every 3 s; a busy shared machine gets a few polls' grace.
_WAIT_SECONDS = 15.0
_PHONE = (390, 844)
_DESKTOP = (1280, 1000)

T = TypeVar("T")


def _executable(path: str) -> str | None:
    found = shutil.which(path)
    return found if found is not None and os.access(found, os.X_OK) else None


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """Headless Chromium for the whole module; skips (fails with SPOOL_REQUIRE_BROWSER=1)
    without it.
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
    # No background calls of the browser's own (updates, safe browsing) in a test.
    options.add_argument("--disable-background-networking")
    driver = webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))
    driver.set_window_size(*_DESKTOP)
    try:
        yield driver
    finally:
        driver.quit()


@dataclass
class Seeded:
    """A service with the data the pages show, and the client that made it."""

    service: EmbeddedService
    client: sdk.Client
    receiver: ScriptedReceiver
    stream: str
    queue: str
    dead_job_id: str
    dead_message_id: str
    scheduled_message_id: str
    url_group: str


def _until(fetch: Callable[[], T], accept: Callable[[T], bool]) -> T:
    deadline = time.monotonic() + _WAIT_SECONDS
    while True:
        value = fetch()
        if accept(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def _seed(service: EmbeddedService, receiver: ScriptedReceiver) -> Seeded:
    client = sdk.Client(service.base_url, service.token)
    suffix = uuid.uuid4().hex[:8]
    stream = f"orders-{suffix}"
    for number in range(5):
        client.streams.publish(stream, {"order": number, "items": ["tea", "cake"]})
    client.streams.create_group(stream, "billing", start_id="0")
    client.streams.read_group(stream, "billing", consumer="worker-1", count=2)

    queue_name = f"jobs-{suffix}"
    client.queues.create(queue_name, max_attempts=1)
    queue = client.init_queue(queue_name)
    dead = queue.publish("invoice", {"n": 1})
    queue.publish("invoice", {"n": 2}, delay="1h")
    [leased] = queue.lease(consumer="worker-1")
    assert leased.job_id == dead.job_id
    queue.nack(leased, error="printer on fire")
    queue.publish("invoice", {"n": 3})

    failed = client.messages.publish_json(url=receiver.url(), body={"hello": 1}, retries=0)
    scheduled = client.messages.publish_json(url=receiver.url(), body={"later": 1}, delay="1h")
    url_group = f"hooks-{suffix}"
    client.url_groups.upsert(url_group, [receiver.url("/a"), receiver.url("/b")])
    letters = _until(
        client.dead_letters.list,
        lambda found: failed.message_id in [letter.message_id for letter in found],
    )
    assert failed.message_id in [letter.message_id for letter in letters]
    return Seeded(
        service=service,
        client=client,
        receiver=receiver,
        stream=stream,
        queue=queue_name,
        dead_job_id=dead.job_id,
        dead_message_id=failed.message_id,
        scheduled_message_id=scheduled.message_id,
        url_group=url_group,
    )


@pytest.fixture(scope="module", params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def seeded(request: pytest.FixtureRequest, browser: WebDriver) -> Iterator[Seeded]:
    """A service on each store in turn, with data, and the browser signed in to its console."""
    store = None
    prefix = f"spoolconsole-{uuid.uuid4().hex[:12]}"
    if request.param == "redis":
        redis_url: str = request.getfixturevalue("redis_url")
        store = f"{redis_url}?prefix={prefix}"
    service = EmbeddedService.start(store=store)
    try:
        with ScriptedReceiver(Answer(503, b"down for maintenance")) as receiver:
            data = _seed(service, receiver)
            try:
                browser.delete_all_cookies()
                _sign_in(browser, data)
                yield data
            finally:
                data.client.close()
    finally:
        service.stop()
        if request.param == "redis":
            import redis

            connection = redis.Redis.from_url(request.getfixturevalue("redis_url"))
            try:
                for key in connection.scan_iter(match=f"{prefix}*", count=1000):
                    connection.delete(key)
            finally:
                connection.close()


def _sign_in(browser: WebDriver, data: Seeded) -> None:
    browser.get(f"{data.service.base_url}/console")
    assert browser.current_url.startswith(f"{data.service.base_url}/console/sign-in")
    browser.find_element(By.ID, "token").send_keys("not the token")
    _follow(browser, By.CSS_SELECTOR, "form button[type=submit]")
    assert "not known" in browser.find_element(By.CSS_SELECTOR, ".error").text
    browser.find_element(By.ID, "token").send_keys(data.service.token)
    _follow(browser, By.CSS_SELECTOR, "form button[type=submit]")
    assert browser.current_url == f"{data.service.base_url}/console/streams"


def _follow(browser: WebDriver, by: str, target: str) -> None:
    """Click a link or a form's button and wait until the next page has replaced this one and
    finished loading.
    """
    # A mark on this page's window, which the next page's fresh window lacks.
    browser.execute_script("window.spoolLeftPage = true")
    browser.find_element(by, target).click()
    # Chromium may answer a script with an error while one document gives way to the next.
    waiting = WebDriverWait(browser, _WAIT_SECONDS, ignored_exceptions=(WebDriverException,))
    waiting.until(
        lambda _: browser.execute_script(
            "return !window.spoolLeftPage && document.readyState === 'complete'"
        )
    )


def _text(browser: WebDriver, selector: str) -> str:
    return str(browser.find_element(By.CSS_SELECTOR, selector).text).strip()


def _wait_for_text(browser: WebDriver, selector: str, expected: str) -> None:
    WebDriverWait(browser, _WAIT_SECONDS).until(lambda _: _text(browser, selector) == expected)


def _screenshot(browser: WebDriver, shot: Path) -> None:
    """The window at ``shot``, and in $SPOOL_SCREENSHOT_DIR too when that is set."""
    browser.save_screenshot(str(shot))
    if os.environ.get("SPOOL_SCREENSHOT_DIR"):
        kept = Path(os.environ["SPOOL_SCREENSHOT_DIR"])
        kept.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, kept / shot.name)


def _within_screen(browser: WebDriver, selector: str) -> bool:
    """Whether every element matching ``selector`` lies inside the window's width."""
    return bool(
        browser.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0])).every(function (e) {"
            " var r = e.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth; })",
            selector,
        )
    )


def _check_page(
    browser: WebDriver, data: Seeded, shot: Path, *, reachable: tuple[str, ...] = ()
) -> None:
    """Usable at phone width (nothing wider than the screen, and each of ``reachable`` on it),
    and nothing loaded from elsewhere.
    """
    _screenshot(browser, shot.with_name(shot.stem + "-desktop.png"))
    try:
        browser.set_window_size(*_PHONE)
        width = browser.execute_script("return document.documentElement.scrollWidth")
        viewport = browser.execute_script("return window.innerWidth")
        assert width <= viewport, f"the page is {width}px wide at a {viewport}px screen"
        for selector in reachable:
            assert browser.find_elements(By.CSS_SELECTOR, selector), selector
            assert _within_screen(browser, selector), f"{selector} is off the screen"
        _screenshot(browser, shot.with_name(shot.stem + "-phone.png"))
    finally:
        browser.set_window_size(*_DESKTOP)
    loaded = browser.execute_script(
        "return performance.getEntriesByType('resource').map(function (e) { return e.name; })"
    )
    elsewhere = [url for url in loaded if not str(url).startswith(data.service.base_url)]
    assert elsewhere == []


def test_streams_pages_show_groups_lag_and_entries_and_trim(
    browser: WebDriver, seeded: Seeded, tmp_path: Path
) -> None:
    """The stream list and page show length, ends, pending and lag; new entries appear by
    polling; trimming keeps the newest entries.
    """
    base = seeded.service.base_url
    browser.get(f"{base}/console/streams")
    row = browser.find_element(By.CSS_SELECTOR, f'[data-live="length/{seeded.stream}"]')
    assert row.text == "5"
    _check_page(browser, seeded, tmp_path / "streams.png")

    _follow(browser, By.LINK_TEXT, seeded.stream)
    info = seeded.client.streams.info(seeded.stream)
    assert _text(browser, "#stream-length") == "5"
    assert _text(browser, '[data-live="first_id"]') == info.first_id
    assert _text(browser, '[data-live="last_id"]') == info.last_id
    assert _text(browser, '[data-group="billing"] .pending') == "2"
    assert _text(browser, '[data-group="billing"] .lag') == "3"
    entries = browser.find_elements(By.CSS_SELECTOR, ".entry")
    assert len(entries) == 5
    assert '"order": 4' in entries[0].text
    _check_page(browser, seeded, tmp_path / "stream.png")

    seeded.client.streams.publish(seeded.stream, {"order": 5})
    _wait_for_text(browser, "#stream-length", "6")
    _wait_for_text(browser, '[data-group="billing"] .lag', "4")

    maxlen = browser.find_element(By.ID, "maxlen")
    maxlen.clear()
    maxlen.send_keys("2")
    _follow(browser, By.CSS_SELECTOR, "#trim button")
    assert "trimmed 4; 2 left" in _text(browser, ".notice")
    assert _text(browser, "#stream-length") == "2"
    assert seeded.client.streams.length(seeded.stream) == 2
    browser.save_screenshot(str(tmp_path / "stream-trimmed.png"))


def test_queue_pages_show_counts_and_retry_a_dead_job(
    browser: WebDriver, seeded: Seeded, tmp_path: Path
) -> None:
    """The queue list and page count jobs by state; a dead job shows its error and is retried."""
    base = seeded.service.base_url
    browser.get(f"{base}/console/queues")
    row = f'[data-queue="{seeded.queue}"]'
    counts = {
        state: _text(browser, f"{row} .{state}") for state in ("ready", "leased", "delayed", "dead")
    }
    assert counts == {"ready": "1", "leased": "0", "delayed": "1", "dead": "1"}
    _check_page(browser, seeded, tmp_path / "queues.png")

    _follow(browser, By.LINK_TEXT, seeded.queue)
    job = f'[data-job="{seeded.dead_job_id}"]'
    assert "printer on fire" in _text(browser, job)
    assert "1/1" in _text(browser, job)
    _check_page(
        browser, seeded, tmp_path / "queue.png", reachable=(f"{job} button.retry", f"{job} a.id")
    )

    _follow(browser, By.CSS_SELECTOR, f"{job} button.retry")
    assert f"job {seeded.dead_job_id} is ready again" in _text(browser, ".notice")
    assert _text(browser, "#count-dead") == "0"
    assert _text(browser, "#count-ready") == "2"
    assert seeded.client.init_queue(seeded.queue).job(seeded.dead_job_id).state == "ready"
    browser.save_screenshot(str(tmp_path / "queue-retried.png"))


def test_messages_page_shows_attempts_and_dead_letters_and_retries_one(
    browser: WebDriver, seeded: Seeded, tmp_path: Path
) -> None:
    """The messages page shows each attempt and the dead letter; retrying it delivers it once the
    receiver is back, and the counts follow by polling; cancelling stops a scheduled message.
    """
    base = seeded.service.base_url
    browser.get(f"{base}/console/messages")
    assert _text(browser, "#count-failed") == "1"
    assert _text(browser, "#count-scheduled") == "1"
    assert _text(browser, "#count-dead-letters") == "1"
    failed = f'[data-message="{seeded.dead_message_id}"]'
    timeline = _text(browser, f"{failed} .timeline")
    assert "503" in timeline and "down for maintenance" in timeline and " ms" in timeline
    assert seeded.url_group in _text(browser, ".groups")
    _check_page(browser, seeded, tmp_path / "messages.png")

    seeded.receiver.answer_with(Answer(200, b"thanks"))
    letter = f'[data-dead-letter="{seeded.dead_message_id}"]'
    _follow(browser, By.CSS_SELECTOR, f"{letter} button.retry")
    assert f"message {seeded.dead_message_id} is scheduled again" in _text(browser, ".notice")
    assert _text(browser, "#count-dead-letters") == "0"
    _wait_for_text(browser, "#count-delivered", "1")
    assert seeded.client.messages.get(seeded.dead_message_id).state == "delivered"

    browser.get(f"{base}/console/messages?state=scheduled")
    scheduled = f'[data-message="{seeded.scheduled_message_id}"]'
    _follow(browser, By.CSS_SELECTOR, f"{scheduled} button.cancel")
    assert "cancelled" in _text(browser, ".notice")
    assert seeded.client.messages.get(seeded.scheduled_message_id).state == "cancelled"
    browser.save_screenshot(str(tmp_path / "messages-after.png"))


def test_flow_control_page_shows_a_key_and_resumes_it(
    browser: WebDriver, seeded: Seeded, tmp_path: Path
) -> None:
    """A paused key is listed as paused with its waiting message; Resume lets it run."""
    key = f"flow-{seeded.stream}"
    seeded.client.flow_control.pause(key)
    seeded.client.messages.publish_json(
        url=seeded.receiver.url("/flow"),
        body={"flow": 1},
        delay="1h",
        flow_control=sdk.FlowControl(key, rate=5, period="1m"),
    )
    browser.get(f"{seeded.service.base_url}/console/flow-control")
    row = f'[data-flow-key="{key}"]'
    assert "paused" in _text(browser, row)
    assert _text(browser, f"{row} .count-waiting") == "1"
    _check_page(browser, seeded, tmp_path / "flow-control.png")
    _follow(browser, By.XPATH, f'//tr[@data-flow-key="{key}"]//button[text()="Resume"]')
    assert f"flow control key {key} is running" in _text(browser, ".notice")
    assert not seeded.client.flow_control.get(key).paused


def test_signing_out_ends_the_session_the_browser_held(
    browser: WebDriver, seeded: Seeded, tmp_path: Path
) -> None:
    """The cookie is 256 random bits no script can read; after *Sign out*, the same cookie put
    back into the browser (as a tab or a copy that kept it would send it) lands on the sign-in
    form, which says the session has ended.
    """
    base = seeded.service.base_url
    browser.get(f"{base}/console/streams")
    cookie = browser.get_cookie("spool_console")
    assert cookie is not None and cookie["httpOnly"] and cookie["path"] == "/console"
    assert len(base64.urlsafe_b64decode(cookie["value"] + "=")) == 32
    assert seeded.service.token not in cookie["value"]
    assert "spool_console" not in browser.execute_script("return document.cookie")
    _follow(browser, By.CSS_SELECTOR, "form.sign-out button")
    assert browser.current_url == f"{base}/console/sign-in"
    assert browser.get_cookie("spool_console") is None

    browser.add_cookie(
        {"name": "spool_console", "value": cookie["value"], "path": "/console", "httpOnly": True}
    )
    browser.get(f"{base}/console/queues")
    assert browser.current_url.startswith(f"{base}/console/sign-in")
    assert "Your session has ended" in _text(browser, ".notice")
    assert browser.get_cookie("spool_console") is None
    browser.save_screenshot(str(tmp_path / "signed-out.png"))
    _sign_in(browser, seeded)


def test_a_job_whose_lease_ran_out_has_a_page_saying_why(
    browser: WebDriver, seeded: Seeded, tmp_path: Path
) -> None:
    """A job leased by a worker that never answers: found by its id in the search box, its page
    shows the payload and that the lease ran out on its last attempt, usable at 1280 and 390 px
    with its actions on the screen.
    """
    name = f"lost-{uuid.uuid4().hex[:8]}"
    seeded.client.queues.create(name, max_attempts=1)
    queue = seeded.client.init_queue(name)
    published = queue.publish("invoice", {"customer": "c-42", "lines": [{"sku": "tea", "n": 2}]})
    [leased] = queue.lease(consumer="worker-lost", lease=1)
    assert leased.job_id == published.job_id
    job = _until(lambda: queue.job(published.job_id), lambda found: found.state == "dead")
    assert job.last_error == "lease expired after 1 s, attempt 1 of 1"

    base = seeded.service.base_url
    browser.get(f"{base}/console/streams")
    browser.find_element(By.CSS_SELECTOR, "form.search input[name=q]").send_keys(job.job_id)
    _follow(browser, By.CSS_SELECTOR, "form.search button")
    assert browser.current_url == f"{base}/console/queues/{name}/jobs/{job.job_id}"
    assert _text(browser, "#job-state") == "dead"
    assert _text(browser, "#job-attempts") == "1 of 1"
    assert "lease expired after 1 s, attempt 1 of 1" in _text(browser, "#dead-reason")
    assert '"customer": "c-42"' in _text(browser, "#job-payload")
    _check_page(
        browser,
        seeded,
        tmp_path / "job.png",
        reachable=("#dead-reason button.retry", "#dead-reason button.delete", "h1 button.copy"),
    )

    browser.get(f"{base}/console/queues/{name}?state=dead")
    row = f'[data-job="{job.job_id}"]'
    assert "lease expired after 1 s" in _text(browser, row)
    _follow(browser, By.CSS_SELECTOR, f"{row} a.id")
    assert browser.current_url == f"{base}/console/queues/{name}/jobs/{job.job_id}"

    browser.get(f"{base}/console/search?q=no-such-name")
    assert "Not found" in _text(browser, "#not-found")


def test_the_dashboard_charts_the_last_hour(
    browser: WebDriver, seeded: Seeded, tmp_path: Path
) -> None:
    """The dashboard draws publishes and deliveries as inline SVG, fits a phone's screen, and
    counts the seeded publishes in this process's hour.
    """
    base = seeded.service.base_url
    browser.get(f"{base}/console/streams")
    _follow(browser, By.LINK_TEXT, "Dashboard")
    assert browser.current_url == f"{base}/console/dashboard"
    legend = _text(browser, '#chart-published [data-series="entries"]')
    assert int(legend.split(": ", 1)[1].split(" ", 1)[0]) >= 5
    assert browser.find_elements(By.CSS_SELECTOR, "#chart-deliveries svg polyline")
    assert "this page" in _text(browser, "#rates-scope")
    _check_page(browser, seeded, tmp_path / "dashboard.png", reachable=("#chart-published svg",))
