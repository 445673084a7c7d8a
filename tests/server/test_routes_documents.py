"""Response documents (server/routes/_documents.py): each builder's documents follow the generated
pydantic model of its schema, with every field of it written by some case, and every JSON response
schema of openapi.yaml has its builder.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, RootModel

from generated import pydantic_models
from server.auth import Principal
from server.config import Permission, RateLimit
from server.routes import _documents as documents
from server.signing import SigningKeys
from server.stores.base import (
    DeadLetterRecord,
    DeliveredEntry,
    DeliveryAttemptRecord,
    Entry,
    FlowControlLimits,
    FlowControlState,
    GroupInfo,
    JobReceipt,
    JobRecord,
    LeasedJob,
    LogEventRecord,
    MessageReceipt,
    MessageRecord,
    PendingEntry,
    QueueRecord,
    QueueSettings,
    QueueStats,
    ScheduleRecord,
    ScheduleRun,
    ScheduleSettings,
    StreamInfo,
    StreamSummary,
    UrlEndpoint,
    UrlGroupRecord,
)
from server.stores.records import JobAttemptRecord
from tests.generated._spec import load_spec

NOW = 1796472000.25
TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

FULL_GROUP = GroupInfo("billing", consumers=2, pending=1, last_delivered_id="1-0", max_deliveries=3)
BARE_GROUP = GroupInfo("audit", consumers=0, pending=0, last_delivered_id="0-0")
DELIVERED = [
    DeliveredEntry("1-0", {"id": 1}, delivery_count=2, traceparent=TRACEPARENT),
    DeliveredEntry("1-1", "text", delivery_count=1),
]
QUEUE = QueueRecord("jobs", QueueSettings(), NOW, QueueStats(ready=1, delayed=2, leased=3, dead=4))
FULL_JOB = JobRecord(
    job_id="job_1",
    queue="jobs",
    topic="email",
    payload={"to": "a@example.com"},
    state="leased",
    attempts=1,
    max_attempts=5,
    published_at=NOW,
    available_at=NOW,
    lease_expires_at=NOW + 30,
    leased_by="worker-1",
    last_error="SMTP timeout",
    deduplication_id="welcome-42",
    traceparent=TRACEPARENT,
    leased_at=NOW,
    finished_at=NOW + 60,
    attempt_history=(
        JobAttemptRecord(1, NOW - 60, "worker-1", NOW - 30, "failed", "SMTP timeout"),
        JobAttemptRecord(2, NOW),
    ),
)
BARE_JOB = JobRecord(
    job_id="job_2",
    queue="jobs",
    topic="email",
    payload=None,
    state="ready",
    attempts=0,
    max_attempts=5,
    published_at=NOW,
    available_at=NOW,
)
LEASED = [
    LeasedJob("job_1", "jobs", "email", [1], 1, "lease_1", NOW + 30, NOW, TRACEPARENT),
    LeasedJob("job_2", "jobs", "email", {}, 2, "lease_2", NOW + 30, NOW),
]
RECEIPTS = [
    MessageReceipt("msg_1", "https://a.test/hook", deduplicated=False, item=0),
    MessageReceipt("msg_2", "https://b.test/hook", deduplicated=True, item=2),
]
FULL_MESSAGE = MessageRecord(
    message_id="msg_1",
    url="https://a.test/hook",
    body=b"{}",
    content_type="application/json",
    method="POST",
    headers={"X-Tenant": "acme"},
    state="delivering",
    retries=3,
    timeout=30,
    created_at=NOW,
    not_before=NOW,
    attempts=[
        DeliveryAttemptRecord(1, NOW, 41, status_code=500, response_excerpt="oops", error="5xx"),
        DeliveryAttemptRecord(2, NOW, 12),
    ],
    retries_used=2,
    next_attempt_at=NOW + 10,
    url_group="partners",
    retry_delay="1000 * pow(2, retried)",
    callback="https://a.test/ok",
    failure_callback="https://a.test/failed",
    deduplication_id="order-7",
    lease_id="lease_9",
    traceparent=TRACEPARENT,
    callback_headers={"Authorization": "Bearer ok"},
    failure_callback_headers={"Authorization": "Bearer ko"},
    redact_body=True,
    redact_headers=("x-api-key",),
    flow_control=FlowControlLimits(key="acme", rate=10, period=60, parallelism=2),
    signature_scheme="standard_webhooks",
    labels=("signup", "tenant:acme"),
    schedule="nightly",
)
FULL_EVENT = LogEventRecord(
    message_id="msg_1",
    state="failed",
    at=NOW,
    url="https://a.test/hook",
    labels=("signup",),
    url_group="partners",
    schedule="nightly",
    flow_control_key="acme",
    attempt=3,
    status_code=503,
    error="unavailable",
)
BARE_EVENT = LogEventRecord(message_id="msg_2", state="created", at=NOW, url="https://b.test/hook")
BARE_MESSAGE = MessageRecord(
    message_id="msg_2",
    url="https://b.test/hook",
    body=b"hi",
    content_type="text/plain",
    method="PUT",
    headers={},
    state="scheduled",
    retries=0,
    timeout=15,
    created_at=NOW,
    not_before=NOW,
    attempts=[],
    retries_used=0,
)
URL_GROUP = UrlGroupRecord(
    "partners",
    [UrlEndpoint("https://a.test/hook", name="a"), UrlEndpoint("https://b.test/hook")],
    created_at=NOW,
    updated_at=NOW + 1,
)

# The builder hands the destination back as it was put; this one names every member the model
# has (the service would refuse it: the members are one kind's each), so every field is written.
EVERY_DESTINATION_FIELD = {
    "kind": "message",
    "message": {
        "url": "https://a.test/hook",
        "url_group": "partners",
        "body": {"n": 1},
        "content_type": "application/json",
        "method": "PUT",
        "headers": {"X-Tenant": "acme"},
        "delay": 5,
        "not_before": "2026-11-29T12:00:00Z",
        "retries": 2,
        "retry_delay": "1000",
        "callback": "https://a.test/ok",
        "failure_callback": "https://a.test/failed",
        "callback_headers": {"Authorization": "Bearer ok"},
        "failure_callback_headers": {"Authorization": "Bearer ko"},
        "timeout": 10,
        "deduplication_id": "tick",
        "content_based_deduplication": True,
        "redact": {"body": True, "headers": ["x-api-key"]},
        "flow_control": {"key": "acme", "rate": 10, "period": "1m", "parallelism": 2},
        "signature_scheme": "standard_webhooks",
        "labels": ["signup"],
    },
    "queue": "jobs",
    "job": {"topic": "email", "payload": [1], "delay": 1, "deduplication_id": "tick"},
    "stream": "ticks",
    "entry": {"body": 1, "maxlen": 10, "approximate": False, "minid": "1-0", "nomkstream": True},
}
FULL_SCHEDULE = ScheduleRecord(
    name="nightly",
    settings=ScheduleSettings("0 3 * * *", "Europe/Berlin", "skip", EVERY_DESTINATION_FIELD),
    revision="rev_1",
    paused=False,
    created_at=NOW,
    updated_at=NOW + 1,
    next_run_at=NOW + 60,
    last_run_at=NOW - 60,
    recent_runs=[
        ScheduleRun(NOW - 60, NOW - 59.9, "published", ids=("msg_1", "msg_2")),
        ScheduleRun(
            NOW - 120, NOW - 119.9, "failed", error_code="queue_not_found", error_detail="x"
        ),
        ScheduleRun(NOW - 180, NOW - 90, "skipped"),
    ],
)
BARE_SCHEDULE = ScheduleRecord(
    name="paused",
    settings=ScheduleSettings(
        "* * * * *", "UTC", "once", {"kind": "stream", "stream": "s", "entry": {"body": None}}
    ),
    revision="rev_2",
    paused=True,
    created_at=NOW,
    updated_at=NOW,
    next_run_at=None,
    last_run_at=None,
    recent_runs=[],
)

# Each builder's cases: the first gives every optional field (and non-empty lists), the others
# leave them out.
FULL_FLOW_KEY = FlowControlState(
    key="acme",
    rate=10,
    period=60,
    parallelism=2,
    paused=True,
    waiting=4,
    in_flight=2,
    rate_used=7,
)
IDLE_FLOW_KEY = FlowControlState(
    key="idle",
    rate=None,
    period=None,
    parallelism=None,
    paused=False,
    waiting=0,
    in_flight=0,
    rate_used=0,
)

CASES: dict[str, list[tuple[Any, ...]]] = {
    "health": [("redis", "1.0.0"), ("sqlite", "1.0.0")],
    "token_info": [
        (
            Principal(
                "billing",
                (Permission("queue", "billing-*", frozenset({"publish", "consume"})),),
                quota=10,
                rate_limit=RateLimit(per_second=1.5, burst=3),
            ),
            False,
        ),
        (Principal("dev", ()), True),
    ],
    "group_info": [(FULL_GROUP,), (BARE_GROUP,)],
    "stream_info": [
        (StreamInfo("orders", 2, "1-0", "1-1", [FULL_GROUP, BARE_GROUP]),),
        (StreamInfo("empty", 0, None, None, []),),
    ],
    "stream_list": [
        ([StreamSummary("orders", 2, "1-0", "1-1", 1)], "b3JkZXJz"),
        ([StreamSummary("empty", 0, None, None, 0)], None),
    ],
    "append_entry_result": [("1-0", "orders", 1, 0)],
    "append_entries_result": [("orders", ["1-0", "1-1"], 2, 1)],
    "entry_list": [
        ("orders", [Entry("1-0", {"id": 1}, TRACEPARENT), Entry("1-1", [1, 2])]),
        ("orders", []),
    ],
    "trim_result": [("orders", 10, 2)],
    "delivered_entry_list": [("orders", "billing", DELIVERED), ("orders", "billing", [])],
    "ack_result": [(2,)],
    "claim_result": [
        ("orders", "billing", "1-2", DELIVERED, ["0-5"], ["0-6"]),
        ("orders", "billing", "0-0", [], [], []),
    ],
    "pending_list": [("orders", "billing", [PendingEntry("1-0", "worker-1", 1500, 2)])],
    "queue": [(QUEUE,)],
    "queue_list": [([QUEUE],), ([],)],
    "job_receipt": [(JobReceipt("job_1", "jobs", "email", deduplicated=True),)],
    "job_receipt_list": [([JobReceipt("job_1", "jobs", "email", deduplicated=False)],)],
    "job": [(FULL_JOB,), (BARE_JOB,)],
    "job_ack_results": [(["job_1", "job_2", "job_3"], ["acked", "lease_expired", "job_not_found"])],
    "job_release_results": [
        (["job_1", "job_2", "job_3"], ["released", "lease_expired", "job_not_found"])
    ],
    "job_list": [([FULL_JOB, BARE_JOB],), ([],)],
    "leased_job_list": [(LEASED,), ([],)],
    "message_receipt": [("msg_1", "https://a.test/hook", False)],
    "message_receipt_list": [(RECEIPTS,)],
    "message_batch_result": [(3, RECEIPTS), (1, [])],
    "message": [(FULL_MESSAGE,), (BARE_MESSAGE,)],
    "message_list": [([FULL_MESSAGE, BARE_MESSAGE], "bXNnXzI"), ([], None)],
    "log_list": [([FULL_EVENT, BARE_EVENT], "bDo0Mg"), ([], None)],
    "url_group": [(URL_GROUP,)],
    "url_group_list": [([URL_GROUP],), ([],)],
    "dead_letter_list": [
        (
            [
                DeadLetterRecord("msg_1", "https://a.test/hook", 4, NOW, "HTTP 500", 500),
                DeadLetterRecord("msg_2", "https://b.test/hook", 1, NOW),
            ],
        )
    ],
    "dead_letter_bulk_result": [
        (["msg_1"], None, [("msg_1", "retried"), ("msg_2", "not_found")]),
        (["msg_1", "msg_2"], "ZDoxLjA6MQ"),
    ],
    "signing_keys": [(SigningKeys(current="sig_current", next="sig_next"),)],
    "schedule": [(FULL_SCHEDULE,), (BARE_SCHEDULE,)],
    "schedule_list": [([FULL_SCHEDULE, BARE_SCHEDULE], "aDpuaWdodGx5"), ([], None)],
    "flow_control_state": [(FULL_FLOW_KEY,), (IDLE_FLOW_KEY,)],
    "flow_control_list": [([FULL_FLOW_KEY, IDLE_FLOW_KEY], "ZjphY21l"), ([], None)],
}


def _builder(name: str) -> Callable[..., dict[str, object]]:
    builder: Callable[..., dict[str, object]] = getattr(documents, name)
    return builder


def _model(name: str) -> type[BaseModel]:
    model: type[BaseModel] = getattr(pydantic_models, documents.SCHEMAS[name])
    return model


def _keys(value: Any) -> Any:
    """The shape of a JSON value: its objects' keys, nested, without the scalar values."""
    if isinstance(value, dict):
        return {key: _keys(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_keys(item) for item in value]
    return None


def _fields(model: Any, path: str, declared: set[str], written: set[str]) -> None:
    """Add the field paths of ``model`` and the models it holds (lists' items as ``[]``) to
    ``declared``, and those it was given to ``written``.
    """
    if isinstance(model, RootModel):
        _fields(model.root, path, declared, written)
    elif isinstance(model, list):
        for item in model:
            _fields(item, f"{path}[].", declared, written)
    elif isinstance(model, BaseModel):
        declared.update(f"{path}{name}" for name in type(model).model_fields)
        for name in model.model_fields_set:
            written.add(f"{path}{name}")
            _fields(getattr(model, name), f"{path}{name}.", declared, written)


def _unwritten(model: BaseModel) -> set[str]:
    """The fields of ``model`` and of the models within it that no part of it was given."""
    declared: set[str] = set()
    written: set[str] = set()
    _fields(model, "", declared, written)
    return declared - written


def test_every_builder_has_a_schema_and_cases() -> None:
    """A builder added without its schema or its cases fails here."""
    builders = set(documents.__all__) - {"SCHEMAS"}
    assert set(documents.SCHEMAS) == builders
    assert set(CASES) == builders


def test_every_json_response_of_the_spec_has_its_builder() -> None:
    """The schemas the builders follow are exactly those of the spec's JSON 2xx responses."""
    spec = load_spec()
    schemas = set()
    for item in spec["paths"].values():
        for operation in item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for status, response in operation["responses"].items():
                if "$ref" in response:
                    response = spec["components"]["responses"][response["$ref"].split("/")[-1]]
                media = (response.get("content") or {}).get("application/json")
                if str(status).startswith("2") and media is not None:
                    schemas.add(media["schema"]["$ref"].split("/")[-1])
    assert set(documents.SCHEMAS.values()) == schemas


@pytest.mark.parametrize(
    ("name", "case"), [(name, i) for name, cases in CASES.items() for i in range(len(cases))]
)
def test_documents_follow_the_generated_model(name: str, case: int) -> None:
    """Each document validates against its model and holds nothing the model does not know;
    a builder's first case writes every field of the model and of the models within it (in
    one item of a list or another).
    """
    document = _builder(name)(*CASES[name][case])
    validated = _model(name).model_validate(document)
    dumped = validated.model_dump(mode="json", by_alias=True, exclude_unset=True)
    assert _keys(dumped) == _keys(document)
    if case == 0:
        assert _unwritten(validated) == set()


def test_a_stream_info_record_is_written_as_the_spec_shows_it() -> None:
    """The store's StreamInfo record on the wire: the ends of an empty stream are left out, as are
    a group's unlimited deliveries.
    """
    record = StreamInfo("orders", 0, None, None, [BARE_GROUP])
    assert documents.stream_info(record) == {
        "stream": "orders",
        "length": 0,
        "groups": [{"group": "audit", "consumers": 0, "pending": 0, "last_delivered_id": "0-0"}],
    }
