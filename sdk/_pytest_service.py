"""The service behind the pytest plugin's fixtures, and the clean slate it leaves after each test.

A test session shares one service (started once per session, or per xdist worker), so each test
must leave it as it found it. Queues, URL groups and dead letters are listed and deleted whoever
made them. Streams and messages are removed when the clients this module makes touched them:
those clients record every stream they touch and every message they publish (an httpx event
hook, which costs nothing the service sees), and those streams are deleted and those messages
cancelled. Deleting a few names after a test costs a few loopback requests; a fresh service per
test would cost a second or two.
"""

from __future__ import annotations

import json
import secrets
import threading
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

import httpx

from ._exceptions import APIStatusError, ConfigurationError
from ._http import tls_context
from ._receiver import Receiver

if TYPE_CHECKING:
    from ._async_client import AsyncClient
    from ._client import Client
    from ._embedded import EmbeddedService

__all__ = ["SpoolService"]

# Enough for any test's leftovers in one request, and within the API's limit on `limit`.
_DEAD_LETTER_PAGE = 100
_REDIS_SCHEMES = frozenset({"redis", "rediss", "unix"})


class _Tracker:
    """The stream names and message ids that the plugin's clients touched since the last sweep."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.streams: set[str] = set()
        self.messages: set[str] = set()

    def see_request(self, request: httpx.Request) -> None:
        """Record the stream a request names, if any."""
        segments = request.url.raw_path.split(b"?", 1)[0].split(b"/")
        if len(segments) > 3 and segments[1:3] == [b"v1", b"streams"]:
            with self._lock:
                self.streams.add(unquote(segments[3].decode("ascii")))

    def see_answer(self, request: httpx.Request, content: bytes) -> None:
        """Record the message ids that a publish's answer holds."""
        if request.method != "POST" or b"message_id" not in content:
            return
        try:
            document = json.loads(content)
        except ValueError:
            return
        with self._lock:
            self.messages.update(_message_ids(document))

    def take(self) -> tuple[set[str], set[str]]:
        """What was recorded, which the tracker then forgets."""
        with self._lock:
            taken = (self.streams, self.messages)
            self.streams, self.messages = set(), set()
        return taken


def _message_ids(document: Any) -> list[str]:
    if isinstance(document, dict):
        found = [document["message_id"]] if isinstance(document.get("message_id"), str) else []
        return found + [found_id for value in document.values() for found_id in _message_ids(value)]
    if isinstance(document, list):
        return [found_id for value in document for found_id in _message_ids(value)]
    return []


class SpoolService:
    """A Spool service for a test session: its URL, its token, its signing keys, and clients.

    `start` runs an embedded service (stopped by `close`); `attach` uses one already running.
    `client()` and `async_client()` make clients whose streams and messages `sweep()` removes.
    """

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        embedded: EmbeddedService | None = None,
        redis_url: str | None = None,
    ) -> None:
        self.base_url = base_url
        self.api_key = api_key
        self._embedded = embedded
        self._redis_url = redis_url
        self._tracker = _Tracker()
        self._receiver: Receiver | None = None
        self._admin: Client | None = None

    def __repr__(self) -> str:
        return f"SpoolService(base_url={self.base_url!r})"

    @classmethod
    def start(cls, *, store: str | None = None) -> SpoolService:
        """An embedded service on a temporary SQLite file, or on `store` (a Redis URL).

        On Redis the session gets a key prefix of its own, so parallel sessions (xdist workers)
        never see or sweep each other's data, and `close()` deletes its keys.

        Returns:
            The SpoolService of the running embedded service.

        Raises:
            ConfigurationError: the `server` extra is missing, or the service refused its
                settings (such as an unusable `store`).
            EmbeddedServiceError: the service exited or timed out before it was ready.
        """
        from ._embedded import EmbeddedService

        redis_url = _own_prefix(store) if store is not None else None
        embedded = EmbeddedService.start(store=redis_url or store)
        return cls(
            base_url=embedded.base_url,
            api_key=embedded.token,
            embedded=embedded,
            redis_url=redis_url if _is_plain_redis(redis_url) else None,
        )

    @classmethod
    def attach(cls, base_url: str, *, api_key: str | None) -> SpoolService:
        """A service that is already running; nothing is started or stopped.

        Returns:
            A SpoolService of `base_url`, whose clients use `api_key`.

        Raises:
            ConfigurationError: `api_key` is missing or empty.
        """
        if not api_key:
            raise ConfigurationError(
                "--spool-base-url needs an API key: set $SPOOL_API_KEY (or --spool-api-key)"
            )
        return cls(base_url=base_url.rstrip("/"), api_key=api_key)

    @property
    def environment(self) -> dict[str, str]:
        """`$SPOOL_BASE_URL` and `$SPOOL_API_KEY` for an app under test that reads them."""
        return {"SPOOL_BASE_URL": self.base_url, "SPOOL_API_KEY": self.api_key}

    def receiver(self) -> Receiver:
        """A `Receiver` holding this service's signing keys (asked for once).

        Returns:
            The Receiver, the same one on every call.

        Raises:
            PermissionDeniedError: the API key may not read the signing keys (it needs `admin`
                on every message); any other APIError of the request.
        """
        if self._receiver is None:
            keys = self._admin_client().messages.signing_keys()
            self._receiver = Receiver(current_signing_key=keys.current, next_signing_key=keys.next)
        return self._receiver

    def client(self, **options: Any) -> Client:
        """A `Client` of this service whose streams and messages the sweep removes.

        `options` are `Client`'s own (timeout, max_retries, codec, batching); close it yourself.

        Returns:
            A new `sdk.Client`.

        Raises:
            TypeError: an option `Client` does not take.
        """
        from ._client import Client

        tracker = self._tracker

        def answered(response: httpx.Response) -> None:
            tracker.see_answer(response.request, response.read())

        http = httpx.Client(
            event_hooks={"request": [tracker.see_request], "response": [answered]},
            verify=tls_context(),
        )
        client = Client(self.base_url, self.api_key, http_client=http, **options)
        client.close_with(http.close)
        return client

    def async_client(self, **options: Any) -> AsyncClient:
        """An `AsyncClient` of this service whose streams and messages the sweep removes.

        `options` are `AsyncClient`'s own; close it yourself.

        Returns:
            A new `sdk.AsyncClient`.

        Raises:
            TypeError: an option `AsyncClient` does not take.
        """
        from ._async_client import AsyncClient

        tracker = self._tracker

        async def sent(request: httpx.Request) -> None:
            tracker.see_request(request)

        async def answered(response: httpx.Response) -> None:
            tracker.see_answer(response.request, await response.aread())

        http = httpx.AsyncClient(
            event_hooks={"request": [sent], "response": [answered]}, verify=tls_context()
        )
        client = AsyncClient(self.base_url, self.api_key, http_client=http, **options)
        client.close_with(http.aclose)
        return client

    def sweep(self) -> None:
        """Remove what tests left: every queue, URL group and dead letter; tracked streams
        (with their `.dead` streams) and consumer groups; tracked messages not yet delivered.

        Raises:
            APIError: a request failed for another reason than the thing being gone already
                (404) or delivered already (409), such as an API key without `admin`.
        """
        streams, messages = self._tracker.take()
        admin = self._admin_client()
        # Cancel first, so a message in flight does not land in the dead letters swept below.
        for message_id in sorted(messages):
            _ignore_refusal(admin.messages.cancel, message_id)
        for name in sorted(streams | {f"{stream}.dead" for stream in streams}):
            _ignore_refusal(admin.streams.delete, name)
        for queue in admin.queues.list():
            _ignore_refusal(admin.queues.delete, queue.name)
        for group in admin.url_groups.list():
            _ignore_refusal(admin.url_groups.delete, group.name)
        while dead := admin.dead_letters.list(limit=_DEAD_LETTER_PAGE):
            for letter in dead:
                _ignore_refusal(admin.dead_letters.delete, letter.message_id)
            if len(dead) < _DEAD_LETTER_PAGE:
                break

    def close(self) -> None:
        """Stop the embedded service (if this session started one) and delete its Redis keys."""
        if self._admin is not None:
            self._admin.close()
        if self._embedded is not None:
            self._embedded.stop()
        if self._redis_url is not None:
            _delete_redis_keys(self._redis_url)

    def _admin_client(self) -> Client:
        from ._client import Client

        if self._admin is None:
            self._admin = Client(self.base_url, self.api_key)
        return self._admin


def _ignore_refusal(operation: Any, name: str) -> None:
    # Already gone (404) or already delivered (409): either way there is nothing left to remove.
    try:
        operation(name)
    except APIStatusError as error:
        if error.status_code not in (404, 409):
            raise


def _is_plain_redis(url: str | None) -> bool:
    return url is not None and urlsplit(url).scheme in _REDIS_SCHEMES


def _own_prefix(store: str) -> str:
    """`store` with a key prefix of this session's own, when it is a Redis URL."""
    parts = urlsplit(store)
    if not parts.scheme.startswith(("redis", "rediss", "unix")):
        return store
    query = parse_qsl(parts.query, keep_blank_values=True)
    base = next((value for name, value in query if name == "prefix"), "spool")
    rest = [(name, value) for name, value in query if name != "prefix"]
    prefix = f"{base}-pytest-{secrets.token_hex(4)}"
    return urlunsplit(parts._replace(query=urlencode([*rest, ("prefix", prefix)])))


def _delete_redis_keys(url: str) -> None:
    import redis

    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    prefix = next(value for name, value in query if name == "prefix")
    rest = urlencode([(name, value) for name, value in query if name != "prefix"])
    connection = redis.Redis.from_url(urlunsplit(parts._replace(query=rest)))
    try:
        pattern = "".join(f"\\{char}" if char in "*?[]\\" else char for char in prefix) + "*"
        batch: list[bytes] = []
        for key in connection.scan_iter(match=pattern, count=500):
            batch.append(key)
            if len(batch) >= 500:
                connection.delete(*batch)
                batch.clear()
        if batch:
            connection.delete(*batch)
    finally:
        connection.close()
