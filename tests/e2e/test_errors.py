"""Typed errors from the real service, PublishError with its cause, and codecs end to end."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

import sdk
from sdk._embedded import EmbeddedService
from tests.conftest import ServerProcess
from tests.e2e._support import closed_port_url
from tests.e2e.conftest import AnyClient
from tests.sdk._support import resolve

pytestmark = pytest.mark.slow

EVERYTHING = [{"resource": "*", "name": "*", "actions": ["publish", "consume", "admin"]}]


@pytest.fixture(params=["sync", "async"])
def flavour(request: pytest.FixtureRequest) -> str:
    """Each client kind in turn."""
    return str(request.param)


@pytest.fixture
async def make_client(flavour: str) -> AsyncIterator[Callable[..., AnyClient]]:
    """Builds clients of the test's kind for any service, closing them afterwards."""
    made: list[AnyClient] = []

    def make(base_url: str, api_key: str, **options: Any) -> AnyClient:
        client_class = sdk.Client if flavour == "sync" else sdk.AsyncClient
        made.append(client_class(base_url, api_key, **options))
        return made[-1]

    yield make
    for client in made:
        await resolve(client.close())


def _check_publish_error(error: pytest.ExceptionInfo[sdk.PublishError], target: str) -> None:
    assert str(error.value).startswith(f"could not publish to {target}: ")
    assert error.value.target == target


async def test_every_publish_path_raises_publish_error_when_the_service_is_down(
    make_client: Callable[..., AnyClient], name: Callable[[str], str]
) -> None:
    """Streams, publishers, batches, queues and messages: PublishError from APIConnectionError."""
    service = EmbeddedService.start()
    try:
        client = make_client(service.base_url, service.token, max_retries=0)
        jobs = name("jobs")
        await resolve(client.queues.create(jobs))
        queue = await resolve(client.init_queue(jobs))
    finally:
        service.stop()
    publishing: dict[str, Callable[[], object]] = {
        "events": lambda: client.publish("events", {"type": "signup"}),
        "audit": lambda: client.publisher("audit").publish({"type": "audit"}),
        "batch": lambda: client.publish_many("batch", [{"n": 1}]),
        f"{jobs}/email-jobs": lambda: queue.publish("email-jobs", {"userId": "12345"}),
        "https://example.com/hook": lambda: client.messages.publish_json(
            url="https://example.com/hook", body={"hello": "world"}
        ),
    }
    for target, publish in publishing.items():
        with pytest.raises(sdk.PublishError) as caught:
            await resolve(publish())
        assert isinstance(caught.value.__cause__, sdk.APIConnectionError), target
        assert target in str(caught.value)


async def test_a_closed_port_is_a_publish_error_with_the_connection_error(
    make_client: Callable[..., AnyClient],
) -> None:
    """A client pointed where nothing listens: PublishError chained to APIConnectionError."""
    client = make_client(closed_port_url(), "some-token", max_retries=0)
    with pytest.raises(sdk.PublishError) as caught:
        await resolve(client.publish("events", {"type": "signup"}))
    _check_publish_error(caught, "events")
    assert isinstance(caught.value.__cause__, sdk.APIConnectionError)
    with pytest.raises(sdk.APIConnectionError):
        await resolve(client.health())


async def test_a_wrong_token_is_an_authentication_error_that_hides_it(
    make_client: Callable[..., AnyClient], sqlite_service: EmbeddedService
) -> None:
    """401: AuthenticationError, directly or as a publish's cause; the token shows nowhere."""
    secret = "wrong-token-0123456789"
    client = make_client(sqlite_service.base_url, secret)
    with pytest.raises(sdk.AuthenticationError) as direct:
        await resolve(client.queues.list())
    assert direct.value.status_code == 401 and direct.value.code == "unauthenticated"
    with pytest.raises(sdk.PublishError) as caught:
        await resolve(client.publish("events", {}))
    assert isinstance(caught.value.__cause__, sdk.AuthenticationError)
    for text in (str(direct.value), str(caught.value), repr(client)):
        assert secret not in text


async def test_a_restricted_token_gets_permission_errors(
    make_client: Callable[..., AnyClient],
    spool_server: Callable[..., ServerProcess],
    store_url: str,
) -> None:
    """403 from a token file: PermissionDeniedError, directly or as a publish's cause."""
    server = spool_server(
        store_url,
        config={
            "tokens": [
                {
                    "id": "limited",
                    "token": "limited-token",
                    "permissions": [
                        {"resource": "stream", "name": "allowed-*", "actions": ["publish"]}
                    ],
                },
                {"id": "admin", "token": "admin-token", "permissions": EVERYTHING},
            ]
        },
    )
    admin = make_client(server.base_url, "admin-token")
    await resolve(admin.queues.create("jobs"))
    limited = make_client(server.base_url, server.token, max_retries=0)

    assert await resolve(limited.publish("allowed-events", {"a": 1}))
    with pytest.raises(sdk.PublishError) as caught:
        await resolve(limited.publish("events", {"a": 1}))
    cause = caught.value.__cause__
    assert isinstance(cause, sdk.PermissionDeniedError)
    assert (cause.status_code, cause.code) == (403, "permission_denied") and cause.request_id
    with pytest.raises(sdk.PermissionDeniedError):
        await resolve(limited.init_queue("jobs"))
    with pytest.raises(sdk.PermissionDeniedError):
        await resolve(limited.streams.length("allowed-events"))


async def test_a_used_up_quota_is_quota_exceeded_and_not_retried(
    make_client: Callable[..., AnyClient],
    spool_server: Callable[..., ServerProcess],
    store_url: str,
) -> None:
    """429 quota_exceeded with a quota of 2: the third publish, of any kind, is refused."""
    server = spool_server(
        store_url,
        config={
            "tokens": [{"id": "small", "token": "small", "quota": 2, "permissions": EVERYTHING}],
            "destinations": {"allow": ["127.0.0.1"]},
        },
    )
    client = make_client(server.base_url, server.token)
    await resolve(client.queues.create("jobs"))
    queue = await resolve(client.init_queue("jobs"))
    await resolve(client.publish("events", {"n": 1}))
    await resolve(queue.publish("email-jobs", {"n": 2}))
    over_quota: dict[str, Callable[[], object]] = {
        "events": lambda: client.publish("events", {"n": 3}),
        "jobs/email-jobs": lambda: queue.publish("email-jobs", {"n": 3}),
        "http://127.0.0.1:9/hook": lambda: client.messages.publish_json(
            url="http://127.0.0.1:9/hook", body={"n": 3}
        ),
    }
    for target, publish in over_quota.items():
        with pytest.raises(sdk.PublishError) as caught:
            await resolve(publish())
        _check_publish_error(caught, target)
        cause = caught.value.__cause__
        assert isinstance(cause, sdk.QuotaExceededError), target
        assert not isinstance(cause, sdk.RateLimitError)
        assert (cause.status_code, cause.code) == (429, "quota_exceeded")
    assert await resolve(client.streams.length("events")) == 1


async def test_a_body_over_the_size_limit_is_payload_too_large(client: AnyClient) -> None:
    """413: a PublishError caused by PayloadTooLargeError."""
    with pytest.raises(sdk.PublishError) as caught:
        await resolve(client.publish("events", {"blob": "x" * (1024 * 1024 + 1)}))
    assert isinstance(caught.value.__cause__, sdk.PayloadTooLargeError)


async def test_an_existing_group_is_a_conflict(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """409 group_exists: ConflictError with the problem's code and detail."""
    events = name("events")
    await resolve(client.streams.create_group(events, "billing", mkstream=True))
    with pytest.raises(sdk.ConflictError) as caught:
        await resolve(client.streams.create_group(events, "billing"))
    assert caught.value.code == "group_exists" and caught.value.detail


async def test_a_body_that_cannot_be_encoded_sends_nothing(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """NaN cannot be JSON: PublishError chained to the ValueError, and no stream is created."""
    events = name("events")
    with pytest.raises(sdk.PublishError, match="could not be encoded") as caught:
        await resolve(client.publish(events, {"value": float("nan")}))
    assert isinstance(caught.value.__cause__, ValueError)
    with pytest.raises(sdk.NotFoundError):
        await resolve(client.streams.length(events))


class _Envelope:
    """A custom codec: wraps every body in an envelope."""

    def encode(self, value: Any) -> Any:
        return {"v": 1, "data": value}

    def decode(self, value: Any) -> Any:
        return value["data"]


async def test_custom_codecs_of_the_client_and_the_stream(
    make_client: Callable[..., AnyClient],
    sqlite_service: EmbeddedService,
    name: Callable[[str], str],
) -> None:
    """A codec given to the client or to a Stream encodes what is published there."""
    client = make_client(sqlite_service.base_url, sqlite_service.token, codec=_Envelope())
    events = name("events")
    await resolve(client.publish(events, {"a": 1}))
    plain = make_client(sqlite_service.base_url, sqlite_service.token)
    [entry] = await resolve(plain.streams.range(events))
    assert entry.body == {"v": 1, "data": {"a": 1}}
    enveloped = sdk.Stream(name("enveloped"), codec=_Envelope())
    await resolve(plain.publish(enveloped, "hello"))
    [entry] = await resolve(plain.streams.range(enveloped.name))
    assert entry.body == {"v": 1, "data": "hello"}
