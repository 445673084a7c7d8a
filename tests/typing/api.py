"""A user program written against the public API, type-checked (never run) by test_api_types.py.

Every call a user would write appears here with the type mypy must infer for it, so a change that
weakens the public types (an Any leaking out, a lost overload) fails the typing test.
"""

from __future__ import annotations

import datetime
from typing import Any, assert_type

import httpx

import sdk

EVENTS = sdk.Stream("events", maxlen=1000)
ORDERS = sdk.Stream("orders", group="billing", codec=sdk.JsonCodec())


class Upper:
    """A codec of the user's own, accepted wherever a Codec is."""

    def encode(self, value: Any) -> Any:
        """Upper-case."""
        return str(value).upper()

    def decode(self, value: Any) -> Any:
        """Lower-case."""
        return str(value).lower()


def sync_program() -> None:
    """Everything a synchronous application does."""
    client = sdk.Client(
        "http://127.0.0.1:8321",
        "dev-token",
        timeout=5.0,
        max_retries=2,
        codec=Upper(),
        http_client=httpx.Client(),
    )
    with client:
        assert_type(client.publish("events", {"type": "signup", "user": 42}), str)
        assert_type(client.publish(EVENTS, {"type": "login"}, maxlen=500, approximate=False), str)
        assert_type(client.publish_many(EVENTS, [{"n": 1}, {"n": 2}]), list[str])
        audit = client.publisher("events", maxlen=10_000)
        assert_type(audit, sdk.Publisher)
        assert_type(audit.publish({"type": "audit"}), str)
        assert_type(audit.stream, sdk.Stream)

        assert_type(client.streams.length("events"), int)
        info = client.streams.info(EVENTS)
        assert_type(info, sdk.StreamInfo)
        assert_type(info.first_id, str | None)
        assert_type(client.streams.range("events", count=10), list[sdk.Entry])
        assert_type(client.streams.trim("events", maxlen=100), sdk.TrimResult)
        assert_type(client.streams.pending(ORDERS), list[sdk.PendingEntry])
        assert_type(client.streams.claim(ORDERS, consumer="w", min_idle="1m"), sdk.ClaimResult)

        @client.subscribe(ORDERS, redeliver_after="10s")
        @client.publisher("events")
        @client.publisher("notifications")
        def handle(order: dict[str, Any]) -> dict[str, Any]:
            return {"order": order["id"]}

        assert_type(handle({"id": 1}), dict[str, Any])

        assert_type(client.queues.create("jobs", max_attempts=5, lease="30s"), sdk.QueueInfo)
        queue = client.init_queue("jobs")
        assert_type(queue, sdk.Queue)
        receipt = queue.publish("email-jobs", {"userId": "12345"}, delay=datetime.timedelta(1))
        assert_type(receipt, sdk.JobReceipt)
        assert_type(receipt.deduplicated, bool)
        assert_type(
            queue.publish_many([("email-jobs", {}), sdk.JobRequest("email-jobs", {})]),
            list[sdk.JobReceipt],
        )
        assert_type(queue.jobs(state="dead"), list[sdk.Job])

        @queue.subscribe("email-jobs", retry_delay=5)
        def send(job: dict[str, str]) -> None:
            return None

        res = client.messages.publish_json(
            url="https://my-api.example.com/hook",
            body={"hello": "world"},
            headers={"test-header": "test-value"},
            delay="3s",
            retries=3,
            callback="https://my-api.example.com/ok",
            failure_callback="https://my-api.example.com/failed",
            method="POST",
            timeout="30s",
            deduplication_id=None,
            content_based_deduplication=False,
        )
        assert_type(res, sdk.MessageReceipt)
        assert_type(res.message_id, str)
        group = client.messages.publish_json(url_group="partners", body={"hello": "world"})
        assert_type(group, list[sdk.MessageReceipt])
        html = client.messages.publish(
            url="https://my-api.example.com/page", body="<h1>Hi</h1>", content_type="text/html"
        )
        assert_type(html, sdk.MessageReceipt)
        batch = client.messages.batch([sdk.MessageRequest({"a": 1}, url="https://x.example")])
        assert_type(batch, list[list[sdk.MessageReceipt]])
        assert_type(client.messages.get(res.message_id), sdk.Message)
        assert_type(client.messages.cancel(res.message_id).state, sdk.MessageState)
        assert_type(
            client.url_groups.upsert(
                "partners", ["https://a.example", sdk.UrlEndpoint("https://b")]
            ),
            sdk.UrlGroup,
        )
        assert_type(client.dead_letters.list(limit=5), list[sdk.DeadLetter])
        assert_type(client.health(), sdk.Health)

        client.run(max_messages=10, stop_after="1m", poll_wait=0.5)
        client.stop()

        try:
            client.publish("events", {})
        except sdk.PublishError as error:
            cause = error.__cause__
            if isinstance(cause, sdk.APIStatusError):
                assert_type(cause.status_code, int)
                assert_type(cause.code, str | None)
                assert_type(cause.request_id, str | None)
        except sdk.InvalidNameError as error:
            assert_type(error, sdk.InvalidNameError)


async def async_program() -> None:
    """Everything an asyncio application does, with the same names."""
    async with sdk.AsyncClient(http_client=httpx.AsyncClient()) as client:
        assert_type(await client.publish("events", {"type": "signup"}), str)
        assert_type(await client.publish_many("events", [1, 2]), list[str])
        audit = client.publisher(EVENTS)
        assert_type(audit, sdk.AsyncPublisher)
        assert_type(await audit.publish({}), str)
        assert_type(await client.streams.length("events"), int)

        @client.subscribe(ORDERS)
        @client.publisher("invoices")
        async def bill(order: dict[str, Any]) -> dict[str, Any]:
            return order

        queue = await client.init_queue("jobs")
        assert_type(queue, sdk.AsyncQueue)
        assert_type(await queue.publish("email-jobs", {}), sdk.JobReceipt)

        @queue.subscribe("email-jobs")
        async def send(job: dict[str, str]) -> None:
            return None

        res = await client.messages.publish_json(url="https://a.example", body={}, delay=3)
        assert_type(res, sdk.MessageReceipt)
        many = await client.messages.publish_json(url_group="partners", body={})
        assert_type(many, list[sdk.MessageReceipt])
        assert_type(await client.health(), sdk.Health)
        await client.run(max_messages=1)
        client.stop()


def embedded_program() -> None:
    """A local service for development and tests, and checking delivery signatures."""
    with sdk.Client.embedded(path="dev.db") as client:
        assert_type(client, sdk.Client)
        keys = client.messages.signing_keys()
        receiver = sdk.Receiver(current_signing_key=keys.current, next_signing_key=keys.next)
        try:
            receiver.verify("token", b"{}", url="https://example.com/hook", clock_tolerance=5)
        except sdk.SignatureError as error:
            assert_type(error.reason, sdk.SignatureFailure)
        except sdk.EmbeddedServiceError as error:
            assert_type(error.exit_code, int | None)


async def async_embedded_program() -> None:
    """The awaitable embedded service."""
    async with await sdk.AsyncClient.embedded() as client:
        assert_type(client, sdk.AsyncClient)
