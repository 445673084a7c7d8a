"""Contract tests: schemathesis drives every operation of openapi.yaml against the app.

Checks: no 5xx, documented status codes, content types, response schemas and headers, 405 for
undeclared methods, 401 without the token, and invalid requests rejected; for the stream
operations, also that every schema-valid request is accepted. The other operations have refusals
that depend on more than the request's shape, each a documented 4xx: where a destination's host
resolves (the SSRF policy), whether a ``retry_delay`` expression compiles, how far ``not_before``
lies ahead of the service's clock, and whether a stream's dead-letter stream name fits.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from server.app import create_app
from server.config import Settings
from tests.conftest import DEV_TOKEN, ROOT, TEST_DESTINATIONS, ServerProcess

CONFIG = SchemathesisConfig.from_dict(
    {
        "auth": {"openapi": {"bearerAuth": {"bearer": DEV_TOKEN}}},
        "checks": {"positive_data_acceptance": {"enabled": False}},
        # Unknown query parameters are ignored (clients may be newer than the service), so
        # requests that add some are not "invalid" for this service.
        "generation": {"allow-extra-parameters": False},
    }
)


def _examples(default: int) -> int:
    """Examples per operation: ``default`` in the suite, ``$SPOOL_CONTRACT_EXAMPLES`` in the long
    run (``make contract`` asks for 100).
    """
    return int(os.environ.get("SPOOL_CONTRACT_EXAMPLES", default))


# Each test's lifespan opens a fresh in-memory database, so operations never see each other's data.
APP = create_app(
    Settings.development_mode(
        store_url="sqlite:///:memory:", allowed_destinations=TEST_DESTINATIONS
    ),
    services=(),
)
# Loaded from the app itself, so the document under test is the one the service serves.
schema = schemathesis.openapi.from_asgi("/openapi.yaml", APP, config=CONFIG)


@schema.parametrize()
@settings(max_examples=_examples(10), deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_conforms(case: schemathesis.Case) -> None:
    """Generated requests never get a 5xx and every response matches openapi.yaml."""
    case.call_and_validate()


# Their schemas state every rule the service applies to them, so a request they allow is accepted.
STREAM_OPERATIONS = [
    "appendEntry",
    "appendEntries",
    "rangeEntries",
    "trimStream",
    "ackEntries",
    "claimEntries",
]
POSITIVE_CONFIG = SchemathesisConfig.from_dict(
    {
        "auth": {"openapi": {"bearerAuth": {"bearer": DEV_TOKEN}}},
        "checks": {"positive_data_acceptance": {"enabled": True}},
        "generation": {"mode": "positive", "allow-extra-parameters": False},
    }
)
positive_schema = schemathesis.openapi.from_asgi(
    "/openapi.yaml", APP, config=POSITIVE_CONFIG
).include(operation_id=STREAM_OPERATIONS)


@positive_schema.parametrize()
@settings(max_examples=_examples(25), deadline=None, suppress_health_check=list(HealthCheck))
def test_schema_valid_stream_requests_are_accepted(case: schemathesis.Case) -> None:
    """Every request the document allows for a stream operation gets a 2xx, or a 404 / 409 about
    the stream's state, never a 400 or 422.
    """
    case.call_and_validate()


# The same checks against a real server process on Redis, over TCP. The document operation is
# left out: it does not touch the store, and over HTTP schemathesis parses the YAML it serves
# before checking it against the spec's `type: string`.
file_schema = schemathesis.openapi.from_path(ROOT / "openapi.yaml", config=CONFIG).exclude(
    operation_id="getOpenapiDocument"
)
EVERYTHING = [{"resource": "*", "name": "*", "actions": ["publish", "consume", "admin"]}]


@pytest.fixture
def redis_server(redis_store_url: str, spool_server: Callable[..., ServerProcess]) -> ServerProcess:
    """A server process on a private Redis prefix, with the development token."""
    config = {
        "tokens": [{"id": "dev", "token": DEV_TOKEN, "permissions": EVERYTHING}],
        "destinations": {"allow": list(TEST_DESTINATIONS)},
    }
    return spool_server(redis_store_url, config=config)


@pytest.mark.slow
@pytest.mark.redis
@file_schema.parametrize()
@settings(max_examples=_examples(10), deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_conforms_on_redis(
    case: schemathesis.Case, redis_server: ServerProcess
) -> None:
    """The Redis store behind a real server answers every operation as openapi.yaml says."""
    case.call_and_validate(base_url=redis_server.base_url)


# The stateful phase: schemathesis follows the spec's links (stream → group → read/ack/claim,
# queue → job → lease → ack/nack, message → get/cancel, URL group → get/delete), so requests reach
# resources that exist instead of answering 404.
WORKFLOW_DIRECTORY = tempfile.TemporaryDirectory(prefix="spool-workflows-")
# A file, not memory: every call runs the app's lifespan, and a chain must find what it created.
WORKFLOW_APP = create_app(
    Settings.development_mode(
        store_url=f"sqlite:///{WORKFLOW_DIRECTORY.name}/workflows.db",
        allowed_destinations=TEST_DESTINATIONS,
    ),
    services=(),
)
# DELETE on a message cancels it, and a cancelled message stays readable with its state
# (openapi.yaml says so), which schemathesis's use-after-free check would count as a failure.
WORKFLOW_CONFIG = SchemathesisConfig.from_dict(
    {
        "auth": {"openapi": {"bearerAuth": {"bearer": DEV_TOKEN}}},
        "checks": {
            "positive_data_acceptance": {"enabled": False},
            "use_after_free": {"enabled": False},
        },
        "generation": {"allow-extra-parameters": False},
    }
)
workflow_schema = schemathesis.openapi.from_asgi(
    "/openapi.yaml", WORKFLOW_APP, config=WORKFLOW_CONFIG
)
WorkflowMachine = workflow_schema.as_state_machine()


class Workflows(WorkflowMachine):  # type: ignore[misc,valid-type]
    """The spec's workflows, each example on an empty store: what one chain created must not be
    there for the next, or hypothesis, replaying an example, would see a different run.
    """

    def teardown(self) -> None:
        super().teardown()
        for leftover in Path(WORKFLOW_DIRECTORY.name).iterdir():
            leftover.unlink()


Workflows.TestCase.settings = settings(
    max_examples=_examples(15),
    stateful_step_count=6,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


class TestWorkflows(Workflows.TestCase):  # type: ignore[name-defined,misc]
    """Chains of operations joined by the spec's links conform to openapi.yaml."""
