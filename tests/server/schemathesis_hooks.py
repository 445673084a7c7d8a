"""The refusals openapi.yaml states in words because JSON Schema cannot, excused by name.

schemathesis's ``positive_data_acceptance`` check holds that every request the schema allows gets
a 2xx (or a 401/403/404/409/429). Seven rules of the service depend on more than one field's
shape, and each is written in the field's description in openapi.yaml:

- ``retry_delay`` must compile and give 0 to 7 days for every retry up to ``retries``
  (``400 invalid_retry_delay``): an arithmetic expression's value is not a pattern;
- ``not_before`` may lie at most 7 days ahead of the service's clock (``422`` at that field): a
  schema has no "now";
- a group with ``max_deliveries`` needs a stream name of at most 123 characters, because its dead
  letters go to ``<stream>.dead`` (``422``): a rule between a path parameter and a body field;
- a listing's ``cursor`` must be one that a page of that listing answered (``422`` at
  ``query.cursor``, or ``body.cursor`` for the dead letters' bulk operations): the pattern only
  says what a cursor looks like;
- the dead letters' bulk operations take ``all`` only as true (``422`` at ``body.all``): a
  ``const`` inside their ``oneOf`` would split the generated models;
- a schedule (``putSchedule``) must have a ``cron`` that cron can read and that fires and a
  ``timezone`` the service knows (``400 invalid_cron``, ``invalid_timezone``), a destination
  whose members are its ``kind``'s (``422`` at ``kind``: the rule would split the generated
  model), that exists (``422 destination_not_found``) and whose message has no ``not_before``
  (``422`` at it), and its message's ``retry_delay`` is the publish's rule above;
- ``GET /openapi.yaml`` is YAML text (``type: string``, what clients read), which schemathesis
  parses before it checks the schema.

One more is schemathesis's own blind spot: a stream comes back into being when an entry is appended
to it or a group is created with ``mkstream``, and its ``use_after_free`` check counts only a
request on the stream's own path as re-creating it; so a read of a stream under
``/v1/streams/`` after its DELETE and such a POST is not a failure.

Only those failures are dropped, recognised by their operation, status and problem ``code``, so a
refusal for any other reason still fails the run.

One more hook saves time, not failures: a long poll (``leaseJobs``, ``readGroup``) on an empty
queue or group answers only once its ``wait_ms`` has passed, and a run that draws the largest
(30 s) several times spends most of its minutes waiting. ``before_call`` sends any ``wait_ms``
the document allows as at most 100 ms; values it refuses are sent as drawn. How long a poll
waits is the routes' tests' business, not the contract's. schemathesis loads this module through
``schemathesis.toml`` (an independent ``schemathesis run``) and ``test_contract.py`` imports it.
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis
from schemathesis.core.failures import Failure
from schemathesis.openapi.checks import JsonSchemaError, RejectedPositiveData, UseAfterFree

__all__ = ["before_call", "filter_failure"]

DEAD_LETTER_SUFFIX = ".dead"
MAX_STREAM_NAME = 128
LONG_POLL_OPERATIONS = {"leaseJobs", "readGroup"}
MAX_WAIT_MS = 30_000
WAIT_MS_SENT = 100


def _problem(response: Any) -> dict[str, Any]:
    """The answer's problem document, or {} when it is none."""
    try:
        document = json.loads(response.content)
    except ValueError:
        return {}
    return document if isinstance(document, dict) else {}


def _operation_id(case: Any) -> str | None:
    operation_id = case.operation.definition.raw.get("operationId")
    return operation_id if isinstance(operation_id, str) else None


def _dead_letter_name_too_long(case: Any) -> bool:
    stream = (case.path_parameters or {}).get("stream", "")
    body = case.body if isinstance(case.body, dict) else {}
    return (
        body.get("max_deliveries") is not None
        and len(stream) + len(DEAD_LETTER_SUFFIX) > MAX_STREAM_NAME
    )


def _only_not_before_refused(problem: dict[str, Any]) -> bool:
    errors = problem.get("errors") or []
    return bool(errors) and all(
        str(error.get("location", "")).endswith(".not_before") for error in errors
    )


def _is_stated_refusal(case: Any, response: Any) -> bool:
    operation = _operation_id(case)
    problem = _problem(response)
    code = problem.get("code")
    if operation in {"publishMessage", "publishMessages"}:
        if response.status_code == 422 and code == "validation_failed":
            return _only_not_before_refused(problem)
        return response.status_code == 400 and code == "invalid_retry_delay"
    if operation in {
        "listStreams",
        "listMessages",
        "listSchedules",
        "listFlowControlKeys",
        "listLogs",
    }:
        errors = problem.get("errors") or []
        return (
            response.status_code == 422
            and code == "validation_failed"
            and bool(errors)
            and all(error.get("location") == "query.cursor" for error in errors)
        )
    if operation in {"retryDeadLetters", "deleteDeadLetters"}:
        errors = problem.get("errors") or []
        return (
            response.status_code == 422
            and code == "validation_failed"
            and bool(errors)
            and all(error.get("location") in {"body.cursor", "body.all"} for error in errors)
        )
    if operation == "putSchedule":
        if response.status_code == 400:
            return code in {"invalid_cron", "invalid_timezone", "invalid_retry_delay"}
        if response.status_code == 422 and code == "destination_not_found":
            return True
        errors = problem.get("errors") or []
        return (
            response.status_code == 422
            and code == "validation_failed"
            and bool(errors)
            and all(
                str(error.get("location", "")).endswith((".kind", ".not_before"))
                for error in errors
            )
        )
    if operation == "createGroup":
        return (
            response.status_code == 422
            and code == "validation_failed"
            and _dead_letter_name_too_long(case)
        )
    return False


@schemathesis.hook
def filter_failure(
    context: schemathesis.HookContext, failure: Failure, case: Any, response: Any
) -> bool:
    """Keep every failure but those the module docstring lists."""
    if isinstance(failure, RejectedPositiveData):
        return not _is_stated_refusal(case, response)
    if isinstance(failure, JsonSchemaError):
        return _operation_id(case) != "getOpenapiDocument"
    if isinstance(failure, UseAfterFree):
        return not failure.free.startswith("DELETE /v1/streams/")
    return True


@schemathesis.hook
def before_call(context: schemathesis.HookContext, case: Any, kwargs: dict[str, Any]) -> None:
    """Send a long poll's allowed ``wait_ms`` as at most 100 ms (see the module docstring)."""
    if _operation_id(case) not in LONG_POLL_OPERATIONS or not isinstance(case.body, dict):
        return
    wait_ms = case.body.get("wait_ms")
    if type(wait_ms) is int and WAIT_MS_SENT < wait_ms <= MAX_WAIT_MS:
        case.body["wait_ms"] = WAIT_MS_SENT
