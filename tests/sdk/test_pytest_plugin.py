"""The pytest plugin, as a user meets it: a project with no conftest that only uses its fixtures.

Each test runs pytest in a subprocess on a small example project. Autoloading is off there and
the plugin is named with `-p`, so the run uses this tree's plugin whether or not the installed
project declares its entry point (and never loads it twice).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

PLUGIN_ARGS = ("-p", "sdk.pytest_plugin", "-p", "pytest_asyncio.plugin", "-p", "no:cacheprovider")

INI = """
[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
filterwarnings = error
"""

EXAMPLE = """
import time

import pytest

import sdk


def test_publish_and_read_a_stream(spool_client: sdk.Client) -> None:
    spool_client.publish("events", {"type": "signup"})
    assert [entry.body for entry in spool_client.streams.range("events")] == [{"type": "signup"}]


def test_the_same_stream_starts_empty_in_the_next_test(spool_client: sdk.Client) -> None:
    with pytest.raises(sdk.NotFoundError):
        spool_client.streams.info("events")
    spool_client.publish("events", {"type": "login"})
    assert [entry.body for entry in spool_client.streams.range("events")] == [{"type": "login"}]


def test_publish_a_job_and_lease_it(spool_client: sdk.Client) -> None:
    spool_client.queues.create("jobs")
    queue = spool_client.init_queue("jobs")
    receipt = queue.publish("email", {"to": "ada"})
    (job,) = queue.lease(consumer="worker-1")
    assert (job.job_id, job.topic, job.payload) == (receipt.job_id, "email", {"to": "ada"})
    assert queue.ack(job).state == "succeeded"


def test_queues_and_url_groups_are_gone_in_the_next_test(spool_client: sdk.Client) -> None:
    assert spool_client.queues.list() == []
    assert spool_client.url_groups.list() == []
    spool_client.url_groups.upsert("partners", ["http://localhost:9/hook"])


def test_a_signed_delivery_reaches_the_receiver(spool_client, spool_receiver) -> None:
    spool_client.messages.publish_json(
        url=spool_receiver.url + "/signup", body={"user": 42}, headers={"X-Tenant": "acme"}
    )
    (delivery,) = spool_receiver.wait_for(1, timeout=10)
    assert delivery.verified
    assert delivery.method == "POST"
    assert delivery.path.endswith("/signup")
    assert delivery.json() == {"user": 42}
    assert delivery.headers["x-tenant"] == "acme"


def test_wait_for_delivery_lists_what_arrived(spool_client, spool_receiver, spool_wait_for_delivery) -> None:
    spool_client.messages.publish_json(url=spool_receiver.url, body={"n": 1})
    spool_wait_for_delivery(1)
    with pytest.raises(AssertionError) as error:
        spool_wait_for_delivery(2, timeout=0.3)
    assert "expected 2 delivery(ies)" in str(error.value)
    assert "got 1" in str(error.value) and "POST" in str(error.value)


def test_a_failed_message_becomes_a_dead_letter(spool_client, spool_receiver) -> None:
    spool_receiver.status = 500
    receipt = spool_client.messages.publish_json(url=spool_receiver.url, body={}, retries=0)
    spool_receiver.wait_for(1, verified=True)
    deadline = time.monotonic() + 10
    while spool_client.messages.get(receipt.message_id).state != "failed":
        assert time.monotonic() < deadline, "the message never failed"
        time.sleep(0.01)
    assert [letter.message_id for letter in spool_client.dead_letters.list()] == [receipt.message_id]


def test_dead_letters_are_gone_in_the_next_test(spool_client: sdk.Client) -> None:
    assert spool_client.dead_letters.list() == []


async def test_the_async_client(spool_async_client: sdk.AsyncClient) -> None:
    with pytest.raises(sdk.NotFoundError):
        await spool_async_client.streams.info("events")
    await spool_async_client.publish("events", {"async": True})
    assert await spool_async_client.streams.length("events") == 1


def test_a_project_test_without_the_plugin_starts_nothing() -> None:
    pass
"""


@pytest.fixture
def example(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project of one test file and an ini file, with this source tree on the path."""
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    for name in [name for name in os.environ if name.startswith("SPOOL_")]:
        monkeypatch.delenv(name)
    pytester.makefile(".ini", pytest=INI)
    pytester.makepyfile(test_example=EXAMPLE)
    return pytester


def test_the_fixtures_serve_a_project_with_no_conftest(example: pytest.Pytester) -> None:
    """Streams, jobs and signed deliveries work, and each test starts from a clean service."""
    result = example.runpytest_subprocess(*PLUGIN_ARGS, "-p", "no:randomly")
    result.assert_outcomes(passed=10)


WORKERS = """
import os
from pathlib import Path


def test_record_the_service(spool_service) -> None:
    with (Path(__file__).parent / "services.txt").open("a") as services:
        services.write(f"{os.environ['PYTEST_XDIST_WORKER']} {spool_service.base_url}\\n")
"""


def test_each_xdist_worker_has_a_service_of_its_own(example: pytest.Pytester) -> None:
    """Under xdist every worker starts its own service, and every test passes on each."""
    example.makepyfile(test_workers=WORKERS)
    result = example.runpytest_subprocess(
        *PLUGIN_ARGS, "-p", "xdist.plugin", "-n", "2", "--dist", "each"
    )
    result.assert_outcomes(passed=22)
    lines = (example.path / "services.txt").read_text().splitlines()
    workers = dict(line.split() for line in lines)
    assert sorted(workers) == ["gw0", "gw1"]
    assert len(set(workers.values())) == 2


@pytest.mark.redis
def test_a_redis_store_gets_a_prefix_of_its_own_and_loses_its_keys(
    example: pytest.Pytester, redis_url: str
) -> None:
    """--spool-store puts the service on Redis under a fresh prefix, deleted when it stops."""
    import redis

    connection = redis.Redis.from_url(redis_url)
    try:
        before = set(connection.scan_iter(match="pluginprobe*"))
        result = example.runpytest_subprocess(
            *PLUGIN_ARGS, "-p", "no:randomly", f"--spool-store={redis_url}?prefix=pluginprobe"
        )
        result.assert_outcomes(passed=10)
        assert set(connection.scan_iter(match="pluginprobe*")) == before
    finally:
        connection.close()


def test_an_unreachable_base_url_fails_the_tests_that_use_it(example: pytest.Pytester) -> None:
    """--spool-base-url uses a running service; without an API key it says what is missing."""
    example.makepyfile(test_example="def test_it(spool_client):\n    pass\n")
    result = example.runpytest_subprocess(*PLUGIN_ARGS, "--spool-base-url=http://127.0.0.1:9")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*--spool-base-url needs an API key*"])


def test_the_project_declares_the_plugin_entry_point() -> None:
    """pytest finds the plugin through the `pytest11` entry point `spool`."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["pytest11"] == {"spool": "sdk.pytest_plugin"}


def test_loading_the_plugin_imports_neither_the_service_nor_a_framework(tmp_path: Path) -> None:
    """The plugin module is light: the embedded service and its clients load when first used."""
    import subprocess
    import sys

    probe = (
        "import sys, sdk.pytest_plugin\n"
        "heavy = ('sdk._embedded', 'sdk._pytest_service', 'sdk._pytest_receiver', 'asyncio',"
        " 'server', 'starlette', 'flask', 'fastapi', 'http.server')\n"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
