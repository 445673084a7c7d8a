"""The app as a whole (server/app.py): request ids, problems for unknown routes and failures,
body limits, the lifespan and its background services.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from server.app import create_app, lifespan
from server.config import Settings
from server.routes._context import AppContext
from tests.conftest import RunningApp, assert_problem
from tests.server._asgi import post_scope, publish_abandoned_mid_body

AppFactory = Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]]
LIMIT = 1024 * 1024


async def test_every_response_carries_a_request_id(api: RunningApp) -> None:
    """Successes, problems and unknown routes all carry X-Request-Id, fresh for each request."""
    responses = [
        await api.client.get("/v1/health"),
        await api.client.get("/v1/streams/missing"),
        await api.client.get("/nowhere"),
        await api.client.get("/v1/health"),
    ]
    ids = [response.headers["x-request-id"] for response in responses]
    assert all(request_id.startswith("req_") for request_id in ids)
    assert len(set(ids)) == len(ids)


async def test_a_plain_incoming_request_id_is_kept(api: RunningApp) -> None:
    """A caller's short, plain X-Request-Id is echoed; anything else is replaced."""
    kept = await api.client.get("/v1/health", headers={"X-Request-Id": "trace-42.a:b"})
    assert kept.headers["x-request-id"] == "trace-42.a:b"
    replaced = await api.client.get("/v1/health", headers={"X-Request-Id": "has space"})
    assert replaced.headers["x-request-id"].startswith("req_")


async def test_unknown_route_is_a_not_found_problem(api: RunningApp) -> None:
    """A path the service does not serve is 404 not_found as problem+json."""
    problem = assert_problem(await api.client.get("/v1/nothing/here"), 404, "not_found")
    assert "/v1/nothing/here" in problem["detail"]


async def test_wrong_method_is_a_method_not_allowed_problem(api: RunningApp) -> None:
    """A method a path does not serve is 405 method_not_allowed listing every allowed method."""
    response = await api.client.patch("/v1/queues/jobs", json={})
    problem = assert_problem(response, 405, "method_not_allowed")
    allowed = {method.strip() for method in response.headers["allow"].split(",")}
    assert {"GET", "PUT", "DELETE"} <= allowed
    assert "PATCH" in problem["detail"]


async def test_problem_instance_is_the_path_as_sent(api: RunningApp) -> None:
    """``instance`` keeps the client's percent-encoding, so it names the request exactly."""
    response = await api.client.post("/v1/streams/bad%20name/entries", json={"body": 1})
    problem = assert_problem(response, 400, "invalid_name")
    assert problem["instance"] == "/v1/streams/bad%20name/entries"
    assert "'bad name'" in problem["detail"]


async def test_unexpected_failure_is_a_logged_internal_error(
    api: RunningApp, caplog: pytest.LogCaptureFixture
) -> None:
    """An exception nobody expected becomes 500 internal_error, logged with the request id."""

    async def exploding_stream_info(stream: str) -> Any:
        raise RuntimeError("disk on fire")

    api.store.stream_info = exploding_stream_info
    with caplog.at_level(logging.ERROR, logger="spool.server"):
        response = await api.client.get("/v1/streams/events")
    problem = assert_problem(response, 500, "internal_error")
    assert "disk on fire" not in problem["detail"]
    assert response.headers["x-request-id"] in caplog.text
    assert "disk on fire" in caplog.text


async def test_malformed_json_is_a_400(api: RunningApp) -> None:
    """A body that is not JSON is 400 malformed_request, and nothing is written."""
    response = await api.client.post(
        "/v1/streams/events/entries",
        content=b'{"body": ',
        headers={"Content-Type": "application/json"},
    )
    assert_problem(response, 400, "malformed_request")
    assert_problem(await api.client.get("/v1/streams/events"), 404, "stream_not_found")


async def test_an_empty_body_is_a_400(api: RunningApp) -> None:
    """An operation that needs a body and gets none answers 400 malformed_request."""
    response = await api.client.post("/v1/streams/events/entries", content=b"")
    problem = assert_problem(response, 400, "malformed_request")
    assert "empty" in problem["detail"]


async def test_invalid_utf8_is_a_400(api: RunningApp) -> None:
    """Bytes that are not UTF-8 are malformed JSON, not a server error."""
    response = await api.client.post("/v1/streams/events/entries", content=b'{"body": "\xff"}')
    assert_problem(response, 400, "malformed_request")


async def test_a_json_array_where_an_object_belongs_is_a_422(api: RunningApp) -> None:
    """Well-formed JSON of the wrong shape is 422 validation_failed located at the body."""
    problem = assert_problem(
        await api.client.post("/v1/streams/events/entries", json=[1, 2]), 422, "validation_failed"
    )
    assert problem["errors"][0]["location"] == "body"


async def test_schema_violations_name_their_location(api: RunningApp) -> None:
    """Each invalid field is listed with a ``body.<field>`` location and a message."""
    response = await api.client.post(
        "/v1/streams/events/entries", json={"body": 1, "maxlen": -1, "surprise": True}
    )
    problem = assert_problem(response, 422, "validation_failed")
    locations = {error["location"] for error in problem["errors"]}
    assert locations == {"body.maxlen", "body.surprise"}
    assert problem["detail"] == "2 fields are invalid"


async def test_strings_are_not_quietly_numbers(api: RunningApp) -> None:
    """Validation is strict: ``"5"`` is not an integer and ``1`` is not a boolean."""
    for body in ({"body": 1, "maxlen": "5"}, {"body": 1, "nomkstream": 1}):
        response = await api.client.post("/v1/streams/events/entries", json=body)
        assert_problem(response, 422, "validation_failed")


async def test_non_finite_numbers_are_refused(api: RunningApp) -> None:
    """NaN and Infinity parse, but JSON cannot carry them back out: 422, nothing written."""
    for raw in (b'{"body": NaN}', b'{"body": {"deep": [1e999]}}'):
        response = await api.client.post("/v1/streams/events/entries", content=raw)
        assert_problem(response, 422, "validation_failed")
    assert_problem(await api.client.get("/v1/streams/events"), 404, "stream_not_found")


async def test_an_oversized_declared_body_is_refused_before_reading(api: RunningApp) -> None:
    """A Content-Length over 1 MiB is 413 without reading a single byte of the body."""
    reads = 0

    async def receive() -> dict[str, Any]:
        nonlocal reads
        reads += 1
        return {"type": "http.request", "body": b"x" * 65536, "more_body": True}

    messages: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    scope = post_scope("/v1/streams/events/entries", content_length=LIMIT + 1)
    await api.app(scope, receive, send)
    assert reads == 0
    assert messages[0]["status"] == 413
    body = json.loads(b"".join(message.get("body", b"") for message in messages[1:]))
    assert body["code"] == "payload_too_large"


async def test_an_oversized_streamed_body_is_cut_off(api: RunningApp) -> None:
    """A chunked body is counted as it arrives and refused as soon as it passes 1 MiB."""
    sent = 0
    chunk = b"x" * 65536

    async def chunks() -> Any:
        nonlocal sent
        while sent < 4 * LIMIT:
            sent += len(chunk)
            yield chunk

    response = await api.client.post("/v1/streams/events/entries", content=chunks())
    assert_problem(response, 413, "payload_too_large")
    assert sent < 2 * LIMIT
    assert_problem(await api.client.get("/v1/streams/events"), 404, "stream_not_found")


async def test_a_body_just_under_the_limit_is_read(api: RunningApp) -> None:
    """A body of almost 1 MiB is accepted, so the limit is the spec's and not lower."""
    padding = "x" * (LIMIT - 100)
    response = await api.client.post("/v1/streams/events/entries", json={"body": padding})
    assert response.status_code == 201, response.text


async def test_a_non_numeric_content_length_is_a_400(api: RunningApp) -> None:
    """A Content-Length that is not a number is a malformed request, not a crash."""
    request = api.client.build_request("POST", "/v1/streams/events/entries", content=b"{}")
    request.headers["Content-Length"] = "lots"
    assert_problem(await api.client.send(request), 400, "malformed_request")


async def test_requests_before_the_lifespan_fail_cleanly(store_url: str) -> None:
    """An app whose lifespan has not run answers 500 internal_error instead of hanging."""
    app = create_app(Settings.development_mode(store_url=store_url), services=())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://spool.test") as client:
        response = await client.get("/v1/health")
    assert response.status_code == 500


class _RecordingService:
    """A background service that records when it starts and stops."""

    def __init__(self, events: list[str], name: str, context: AppContext) -> None:
        self.events = events
        self.name = name
        self.context = context

    async def start(self) -> None:
        """Record the start, checking the store is already open."""
        assert await self.context.store.ping()
        self.events.append(f"start {self.name}")

    async def stop(self) -> None:
        """Record the stop."""
        self.events.append(f"stop {self.name}")


async def test_lifespan_starts_services_after_the_store_and_stops_them_in_reverse(
    store_url: str,
) -> None:
    """Background services start once the store is open and stop, last first, before it closes."""
    events: list[str] = []
    app = create_app(
        Settings.development_mode(store_url=store_url),
        services=[
            lambda context: _RecordingService(events, "a", context),
            lambda context: _RecordingService(events, "b", context),
        ],
    )
    async with lifespan(app):
        assert isinstance(app.state.context, AppContext)
        events.append("serving")
    assert events == ["start a", "start b", "serving", "stop b", "stop a"]
    assert app.state.context is None


async def test_a_service_that_fails_to_start_closes_the_store(store_url: str) -> None:
    """When a background service cannot start, those already started stop and startup fails."""
    events: list[str] = []

    class _Broken(_RecordingService):
        async def start(self) -> None:
            raise RuntimeError("cannot start")

    app = create_app(
        Settings.development_mode(store_url=store_url),
        services=[
            lambda context: _RecordingService(events, "a", context),
            lambda context: _Broken(events, "b", context),
        ],
    )
    with pytest.raises(RuntimeError, match="cannot start"):
        async with lifespan(app):
            pytest.fail("the app must not serve when a service failed to start")
    assert events == ["start a", "stop a"]


async def test_head_answers_like_get_without_a_body(api: RunningApp) -> None:
    """HEAD on a GET operation answers its status and headers with an empty body."""
    response = await api.client.head("/v1/health")
    assert response.status_code == 200
    assert response.content == b""


async def test_an_unreachable_store_is_a_503_problem_with_retry_after(
    api: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store that cannot be reached answers 503 unavailable with Retry-After, never a 500."""
    from server.stores.base import StoreUnavailableError

    async def unreachable(*args: Any, **kwargs: Any) -> None:
        raise StoreUnavailableError("store does not answer: connection refused")

    monkeypatch.setattr(api.store, "stream_info", unreachable)
    response = await api.client.get("/v1/streams/events")
    assert_problem(response, 503, "unavailable")
    assert response.headers["retry-after"] == "1"


async def test_a_client_gone_mid_body_is_logged_at_info_and_answered_nothing(
    api: RunningApp, caplog: pytest.LogCaptureFixture
) -> None:
    """A connection that closes before the body arrived whole is no failure of the service: one
    INFO line with the request id and no traceback, no answer, nothing written.
    """
    with caplog.at_level(logging.DEBUG, logger="spool.server"):
        messages = await publish_abandoned_mid_body(api.app, "abandoned")
    assert messages == []
    records = [record for record in caplog.records if record.name == "spool.server"]
    assert [record.levelno for record in records] == [logging.INFO], caplog.text
    assert records[0].exc_info is None
    assert "POST /v1/streams/abandoned/entries (request req_" in records[0].getMessage()
    assert_problem(await api.client.get("/v1/streams/abandoned"), 404, "stream_not_found")
