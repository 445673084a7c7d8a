"""Where `spool publish` sends: a stream, a queue's topic, or a URL or URL group."""

from __future__ import annotations

import dataclasses
from typing import Any

import sdk

__all__ = ["MessageTarget", "QueueTarget", "StreamTarget", "Target"]


@dataclasses.dataclass(frozen=True, slots=True)
class StreamTarget:
    """A stream, with the trim options of every publish to it."""

    stream: str
    maxlen: int | None = None
    approximate: bool = True
    minid: str | None = None
    nomkstream: bool = False

    def describe(self) -> str:
        """How the target is named in progress lines and in load keys."""
        return f"stream {self.stream}"

    def publish_one(self, client: sdk.Client, body: Any, *, idempotency_key: str | None) -> Any:
        """Append one body; the new entry id."""
        return client.publish(self.stream, body, idempotency_key=idempotency_key, **self._trim())

    def publish_batch(
        self, client: sdk.Client, bodies: list[Any], *, idempotency_key: str
    ) -> list[Any]:
        """Append the bodies in one request, all or none; their entry ids."""
        return client.publish_many(
            self.stream, bodies, idempotency_key=idempotency_key, **self._trim()
        )

    def _trim(self) -> dict[str, Any]:
        return {
            "maxlen": self.maxlen,
            "approximate": self.approximate,
            "minid": self.minid,
            "nomkstream": self.nomkstream,
        }


@dataclasses.dataclass(slots=True)
class QueueTarget:
    """A topic of an existing queue."""

    queue: str
    topic: str
    delay: Any = None
    deduplication_id: str | None = None
    _handle: sdk.Queue | None = dataclasses.field(default=None, repr=False, compare=False)

    def describe(self) -> str:
        """How the target is named in progress lines and in load keys."""
        return f"queue {self.queue} topic {self.topic}"

    def publish_one(self, client: sdk.Client, body: Any, *, idempotency_key: str | None) -> Any:
        """Submit one job; its receipt."""
        return self._queue(client).publish(
            self.topic,
            body,
            delay=self.delay,
            deduplication_id=self.deduplication_id,
            idempotency_key=idempotency_key,
        )

    def publish_batch(
        self, client: sdk.Client, bodies: list[Any], *, idempotency_key: str
    ) -> list[Any]:
        """Submit the jobs in one request, all or none; their receipts."""
        jobs = [sdk.JobRequest(self.topic, body, delay=self.delay) for body in bodies]
        return self._queue(client).publish_many(jobs, idempotency_key=idempotency_key)

    def _queue(self, client: sdk.Client) -> sdk.Queue:
        # init_queue asks the service once (404 queue_not_found for a queue never created).
        if self._handle is None:
            self._handle = client.init_queue(self.queue)
        return self._handle


@dataclasses.dataclass(frozen=True, slots=True)
class MessageTarget:
    """A URL or a URL group, with the message options of every publish to it."""

    url: str | None
    url_group: str | None
    options: dict[str, Any]
    raw: bool = False

    def describe(self) -> str:
        """How the target is named in progress lines and in load keys."""
        return f"url {self.url}" if self.url is not None else f"url group {self.url_group}"

    def publish_one(self, client: sdk.Client, body: Any, *, idempotency_key: str | None) -> Any:
        """Publish one message; its receipt, or one receipt per URL of a group."""
        destination: dict[str, Any] = (
            {"url": self.url} if self.url is not None else {"url_group": self.url_group}
        )
        publish = client.messages.publish if self.raw else client.messages.publish_json
        return publish(body=body, idempotency_key=idempotency_key, **destination, **self.options)

    def publish_batch(
        self, client: sdk.Client, bodies: list[Any], *, idempotency_key: str
    ) -> list[Any]:
        """Publish the messages in one request, all or none; each one's receipts."""
        requests = [
            sdk.MessageRequest(body, url=self.url, url_group=self.url_group, **self.options)
            for body in bodies
        ]
        return client.messages.batch(requests, idempotency_key=idempotency_key)


Target = StreamTarget | QueueTarget | MessageTarget
