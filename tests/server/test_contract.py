"""Contract tests: schemathesis drives every operation of openapi.yaml against the app.

Checks: no 5xx, documented status codes, content types, response schemas and headers, 405 for
undeclared methods, 401 without the token, invalid requests rejected and schema-valid requests
accepted. The few refusals openapi.yaml states in words because JSON Schema cannot are excused by
``tests/server/schemathesis_hooks.py``, the same module an independent ``schemathesis run`` loads
through ``schemathesis.toml`` (test_independent_contract.py makes that run).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.python import asgi

from server.app import create_app
from server.config import Settings
from tests.conftest import (
    DEV_TOKEN,
    ROOT,
    TEST_DESTINATIONS,
    ServerProcess,
    ServerStarter,
    delete_redis_prefix,
)
from tests.server import schemathesis_hooks

if TYPE_CHECKING:
    # schemathesis names its OpenAPI case type for type checkers only.
    from schemathesis.specs.openapi.schemas import OpenApiCase

# Imported for its global ``filter_failure`` hook.
assert callable(schemathesis_hooks.filter_failure)

# The coverage phase (boundary and type-violating values drawn from each schema) is run by the
# independent run, against a real service on each store with these checks and hooks. Here
# schemathesis would build its cases while collecting, once in every xdist worker: 14 s each.
NO_COVERAGE_PHASE = {"coverage": {"enabled": False}}
CONFIG = SchemathesisConfig.from_dict(
    {
        "auth": {"openapi": {"bearerAuth": {"bearer": DEV_TOKEN}}},
        "checks": {"positive_data_acceptance": {"enabled": True}},
        # Unknown query parameters are ignored (clients may be newer than the service), so
        # requests that add some are not "invalid" for this service.
        "generation": {"allow-extra-parameters": False},
        "phases": NO_COVERAGE_PHASE,
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
def test_every_operation_conforms(case: OpenApiCase) -> None:
    """Generated requests never get a 5xx and every response matches openapi.yaml."""
    case.call_and_validate()


POSITIVE_CONFIG = SchemathesisConfig.from_dict(
    {
        "auth": {"openapi": {"bearerAuth": {"bearer": DEV_TOKEN}}},
        "checks": {"positive_data_acceptance": {"enabled": True}},
        "generation": {"mode": "positive", "allow-extra-parameters": False},
        "phases": NO_COVERAGE_PHASE,
    }
)
positive_schema = schemathesis.openapi.from_asgi("/openapi.yaml", APP, config=POSITIVE_CONFIG)


@positive_schema.parametrize()
@settings(max_examples=_examples(10), deadline=None, suppress_health_check=list(HealthCheck))
def test_schema_valid_requests_are_accepted(case: OpenApiCase) -> None:
    """Every request the document allows gets a 2xx, or a 401 / 403 / 404 / 409 / 429 about the
    state of things, never a 400 or 422 beyond those the document states in words.
    """
    case.call_and_validate()


# The same checks against a real server process on Redis, over TCP.
file_schema = schemathesis.openapi.from_path(ROOT / "openapi.yaml", config=CONFIG)
EVERYTHING = [{"resource": "*", "name": "*", "actions": ["publish", "consume", "admin"]}]


@pytest.fixture(scope="module")
def redis_server(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """One server process for every operation (as in an independent run), on a private Redis
    prefix, with the development token; a process per operation spent most of the time starting.
    """
    config = {
        "tokens": [{"id": "dev", "token": DEV_TOKEN, "permissions": EVERYTHING}],
        "destinations": {"allow": list(TEST_DESTINATIONS)},
    }
    prefix = f"spooltest-{uuid.uuid4().hex[:12]}"
    starter = ServerStarter(tmp_path_factory.mktemp("contract-redis"))
    try:
        yield starter(f"{redis_url}?prefix={prefix}", config=config)
    finally:
        starter.stop_all()
        delete_redis_prefix(redis_url, prefix)


@pytest.mark.slow
@pytest.mark.redis
@file_schema.parametrize()
@settings(max_examples=_examples(10), deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_conforms_on_redis(case: OpenApiCase, redis_server: ServerProcess) -> None:
    """The Redis store behind a real server answers every operation as openapi.yaml says."""
    case.call_and_validate(base_url=redis_server.base_url)


# The stateful phase: schemathesis follows the spec's links (stream → group → read/ack/claim,
# queue → job → lease → ack/nack, message → get/cancel, URL group → get/delete), so requests reach
# resources that exist instead of answering 404.
WorkflowMachine = schema.as_state_machine()


class Workflows(WorkflowMachine):  # type: ignore[misc,valid-type]
    """The spec's workflows, each example on an empty store: what one chain created must not be
    there for the next, or hypothesis, replaying an example, would see a different run.
    """

    def setup(self) -> None:
        super().setup()
        # schemathesis keeps an ASGI app's lifespan, and so its in-memory store, running from the
        # first call until the pytest test ends; ending it here makes this example's first call
        # start a new lifespan on a new store.
        asgi.shutdown_lifespans()


Workflows.TestCase.settings = settings(
    max_examples=_examples(15),
    stateful_step_count=6,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


class TestWorkflows(Workflows.TestCase):  # type: ignore[name-defined,misc]
    """Chains of operations joined by the spec's links conform to openapi.yaml."""
