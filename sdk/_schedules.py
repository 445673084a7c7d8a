"""Cron schedules: a message, a job or a stream entry published on every tick of a timetable.

`client.schedules.set(name, cron=..., destination=...)` puts a schedule; the destination is a
`MessageDestination`, a `JobDestination` or a `StreamDestination`, whose options mean what they
mean for the matching publish. What each call sends and reads is built once, in `_ScheduleCalls`,
for the sync and async twins.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, Unpack, get_args

from . import _endpoints
from ._arguments import FlowControl, HttpMethod, Redact, SignatureScheme
from ._checks import check_count, check_resource_name, check_topic
from ._codec import Codec, json_value
from ._config import RequestOptions
from ._durations import Duration, to_seconds
from ._exceptions import InvalidArgumentError
from ._http import AsyncTransport, Call, SyncTransport, make_call, optional
from ._keywords import takes_request_options, unexpected_keyword
from ._limits import COUNT_MAX, DELAY_MAX_SECONDS
from ._message_calls import MessageCalls
from ._message_options import MessageOptions
from ._message_reading import read_redact
from ._pages import Page, aiterate_pages, iterate_pages

if TYPE_CHECKING:
    from generated.models import (
        FlowControl as GeneratedFlowControl,
        Schedule as GeneratedSchedule,
        ScheduleDestination as GeneratedDestination,
        ScheduleList as GeneratedScheduleList,
    )

    from ._types import Schedule

__all__ = [
    "AsyncSchedules",
    "JobDestination",
    "MessageDestination",
    "ScheduleCatchUp",
    "ScheduleOptions",
    "Schedules",
    "StreamDestination",
]

ScheduleCatchUp: TypeAlias = Literal["once", "skip"]
_CATCH_UPS: tuple[str, ...] = get_args(ScheduleCatchUp)


@dataclass(frozen=True, slots=True)
class MessageDestination:
    """An HTTP message each tick publishes: to `url` or to every endpoint of `url_group` (give
    exactly one). A `str` or `bytes` body is sent as is, any other as JSON. The options mean what
    they mean for `messages.publish_json`; `delay` counts from each tick, and there is no
    `not_before`, which would be one fixed time.
    """

    body: Any
    url: str | None = field(default=None, kw_only=True)
    url_group: str | None = field(default=None, kw_only=True)
    content_type: str | None = field(default=None, kw_only=True)
    method: HttpMethod | None = field(default=None, kw_only=True)
    headers: dict[str, str] | None = field(default=None, kw_only=True)
    delay: Duration | None = field(default=None, kw_only=True)
    retries: int | None = field(default=None, kw_only=True)
    retry_delay: str | timedelta | None = field(default=None, kw_only=True)
    callback: str | None = field(default=None, kw_only=True)
    callback_headers: dict[str, str] | None = field(default=None, kw_only=True)
    failure_callback: str | None = field(default=None, kw_only=True)
    failure_callback_headers: dict[str, str] | None = field(default=None, kw_only=True)
    timeout: Duration | None = field(default=None, kw_only=True)
    deduplication_id: str | None = field(default=None, kw_only=True)
    content_based_deduplication: bool = field(default=False, kw_only=True)
    redact: Redact | Mapping[str, Any] | None = field(default=None, kw_only=True)
    flow_control: FlowControl | Mapping[str, Any] | None = field(default=None, kw_only=True)
    signature_scheme: SignatureScheme | None = field(default=None, kw_only=True)
    labels: Sequence[str] | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class JobDestination:
    """A job each tick publishes to `queue` (which must exist), as `Queue.publish` would."""

    queue: str
    topic: str
    payload: Any
    delay: Duration | None = field(default=None, kw_only=True)
    deduplication_id: str | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class StreamDestination:
    """An entry each tick appends to `stream`, trimmed as `Stream.publish` trims (at most one of
    `maxlen` and `minid`; `nomkstream` refuses a stream that does not exist).
    """

    stream: str
    body: Any
    maxlen: int | None = field(default=None, kw_only=True)
    approximate: bool | None = field(default=None, kw_only=True)
    minid: str | None = field(default=None, kw_only=True)
    nomkstream: bool = field(default=False, kw_only=True)


Destination: TypeAlias = MessageDestination | JobDestination | StreamDestination


class ScheduleOptions(RequestOptions, total=False):
    """Options of `schedules.set`: `timezone`, the IANA time zone the cron expression is read in
    (UTC when not given), and `catch_up`, what to do with ticks missed while the service was
    down: `"once"` (the default) publishes once for them all, `"skip"` publishes none; and the
    call's own request options (`RequestOptions`: `timeout`, `max_retries`, `extra_headers`).
    """

    timezone: str
    catch_up: ScheduleCatchUp


_OPTION_NAMES = frozenset(ScheduleOptions.__annotations__)


def _check_options(options: Mapping[str, Any], method: str) -> None:
    """Refuse a keyword that is not an option, as Python refuses keywords, suggesting the
    closest: `**options` is checked by type checkers only.

    Raises:
        TypeError: a name is not an option.
    """
    for name in options:
        if name not in _OPTION_NAMES:
            raise unexpected_keyword(f"schedules.{method}", name, _OPTION_NAMES)


class _ScheduleCalls:
    """Builds every schedule call; shared by the sync and async resources."""

    def __init__(self, codec: Codec) -> None:
        self._codec = codec
        self._messages = MessageCalls(codec)

    def set(
        self, name: str, cron: str, destination: Destination, options: ScheduleOptions
    ) -> Call[Schedule]:
        """One putSchedule call.

        Raises:
            TypeError: an option that is not `timezone` or `catch_up`.
            InvalidNameError: `name`, a queue, stream or URL group name is not valid.
            InvalidArgumentError: `cron` or `timezone` is not a string, `catch_up` is not
                `"once"` or `"skip"`, a destination that is none of the three, or an invalid
                option of it.
            InvalidDurationError: a `delay` or `timeout` is malformed or out of range.
            PublishError: a body or payload cannot be encoded by the client's codec.
        """
        from generated.models import ScheduleSettings
        from generated.types import UNSET

        _check_options(options, "set")
        timezone, catch_up = options.get("timezone"), options.get("catch_up")
        if not isinstance(cron, str):
            raise InvalidArgumentError(f"cron must be a string such as '*/5 * * * *', got {cron!r}")
        if timezone is not None and not isinstance(timezone, str):
            raise InvalidArgumentError(f"timezone must be an IANA name, got {timezone!r}")
        if catch_up is not None and catch_up not in _CATCH_UPS:
            raise InvalidArgumentError(f"catch_up must be 'once' or 'skip', got {catch_up!r}")
        return make_call(
            _endpoints.put_schedule,
            _schedule,
            check_resource_name(name, what="schedule"),
            body=ScheduleSettings(
                cron=cron,
                destination=self._destination(destination),
                timezone=UNSET if timezone is None else timezone,
                catch_up=UNSET if catch_up is None else catch_up,
            ),
        )

    def _destination(self, destination: Destination) -> GeneratedDestination:
        from generated.models import (
            AppendEntryRequest,
            PublishJobRequest,
            ScheduleDestination,
        )
        from generated.types import UNSET

        if isinstance(destination, MessageDestination):
            body = destination.body
            as_json = not isinstance(body, str | bytes)
            target = "a schedule's message"
            message = self._messages.request(
                json_value(self._codec, body, target=target) if as_json else body,
                url=destination.url,
                url_group=destination.url_group,
                options=MessageOptions(
                    content_type=destination.content_type,
                    method=destination.method,
                    headers=destination.headers,
                    delay=destination.delay,
                    retries=destination.retries,
                    retry_delay=destination.retry_delay,
                    callback=destination.callback,
                    callback_headers=destination.callback_headers,
                    failure_callback=destination.failure_callback,
                    failure_callback_headers=destination.failure_callback_headers,
                    timeout=destination.timeout,
                    deduplication_id=destination.deduplication_id,
                    content_based_deduplication=destination.content_based_deduplication,
                    redact=destination.redact,
                    flow_control=destination.flow_control,
                    signature_scheme=destination.signature_scheme,
                    labels=destination.labels,
                ),
                as_json=as_json,
                target=target,
            )
            return ScheduleDestination(kind="message", message=message)
        if isinstance(destination, JobDestination):
            queue = check_resource_name(destination.queue, what="queue")
            topic = check_topic(destination.topic, publishing=True)
            job = PublishJobRequest(
                topic=topic,
                payload=json_value(self._codec, destination.payload, target=f"{queue}/{topic}"),
                delay=UNSET
                if destination.delay is None
                else to_seconds(
                    destination.delay, name="delay", minimum=0, maximum=DELAY_MAX_SECONDS
                ),
                deduplication_id=UNSET
                if destination.deduplication_id is None
                else destination.deduplication_id,
            )
            return ScheduleDestination(kind="job", queue=queue, job=job)
        if isinstance(destination, StreamDestination):
            stream = check_resource_name(destination.stream, what="stream")
            if destination.maxlen is not None and destination.minid is not None:
                raise InvalidArgumentError("give at most one of maxlen and minid")
            entry = AppendEntryRequest(
                body=json_value(self._codec, destination.body, target=stream),
                maxlen=UNSET if destination.maxlen is None else destination.maxlen,
                approximate=UNSET if destination.approximate is None else destination.approximate,
                minid=UNSET if destination.minid is None else destination.minid,
                nomkstream=destination.nomkstream or UNSET,
            )
            return ScheduleDestination(kind="stream", stream=stream, entry=entry)
        raise InvalidArgumentError(
            "destination must be a MessageDestination, JobDestination or StreamDestination, got "
            f"{destination!r}"
        )

    @staticmethod
    def get(name: str) -> Call[Schedule]:
        """One getSchedule call.

        Raises:
            InvalidNameError: `name` is not a valid schedule name.
        """
        return make_call(
            _endpoints.get_schedule, _schedule, check_resource_name(name, what="schedule")
        )

    @staticmethod
    def list_page(limit: int, cursor: str | None) -> Call[Page[Schedule]]:
        """One listSchedules page.

        Raises:
            InvalidArgumentError: `limit` is not between 1 and 1000.
        """
        from generated.types import UNSET

        return make_call(
            _endpoints.list_schedules,
            _schedule_page,
            limit=check_count(limit, name="limit", minimum=1, maximum=COUNT_MAX),
            cursor=UNSET if cursor is None else cursor,
        )

    @staticmethod
    def delete(name: str) -> Call[None]:
        """One deleteSchedule call.

        Raises:
            InvalidNameError: `name` is not a valid schedule name.
        """
        return make_call(
            _endpoints.delete_schedule, lambda _: None, check_resource_name(name, what="schedule")
        )

    @staticmethod
    def pause(name: str) -> Call[Schedule]:
        """One pauseSchedule call.

        Raises:
            InvalidNameError: `name` is not a valid schedule name.
        """
        return make_call(
            _endpoints.pause_schedule, _schedule, check_resource_name(name, what="schedule")
        )

    @staticmethod
    def resume(name: str) -> Call[Schedule]:
        """One resumeSchedule call.

        Raises:
            InvalidNameError: `name` is not a valid schedule name.
        """
        return make_call(
            _endpoints.resume_schedule, _schedule, check_resource_name(name, what="schedule")
        )


class Schedules:
    """Cron schedules of a `Client` (`client.schedules`): a message, a job or a stream entry
    published on every tick of a cron timetable, exactly once per tick.

    Usage:

    ```python
    client.schedules.set(
        "nightly-report",
        cron="0 3 * * *",
        timezone="Europe/Berlin",
        destination=sdk.JobDestination("reports", "reports.nightly", {"report": "sales"}),
    )
    client.schedules.pause("nightly-report")
    ```

    Every method that sends a request also takes the per-call `timeout=`, `max_retries=` and
    `extra_headers=` (`RequestOptions`), which apply to its requests alone; a bad one is a
    ConfigurationError, raised before anything is sent.

    Each method names its own errors below. Invalid arguments raise InvalidArgumentError (or its
    subclasses InvalidNameError and InvalidDurationError) before any request is sent. Any request
    may also fail with AuthenticationError (401), PermissionDeniedError (403) and, once the
    client's retries are used up, RateLimitError (429), InternalServerError (5xx) or
    APIConnectionError.
    """

    def __init__(self, transport: SyncTransport, *, codec: Codec) -> None:
        self._transport = transport
        self._calls = _ScheduleCalls(codec)

    def set(
        self,
        name: str,
        *,
        cron: str,
        destination: MessageDestination | JobDestination | StreamDestination,
        **options: Unpack[ScheduleOptions],
    ) -> Schedule:
        """Create the schedule `name`, or replace it: each tick of `cron` (five fields, read in
        `timezone`) publishes `destination` once. A replaced schedule keeps its creation time,
        whether it is paused and its recent runs; its next tick is computed from now.

        Options, keyword-only (see `ScheduleOptions`): `timezone` (default UTC) and `catch_up`
        (`"once"`, the default, or `"skip"`), and the call's own `timeout`, `max_retries` and
        `extra_headers`. Any other keyword is a TypeError.

        Returns:
            The Schedule as it now is, with its next tick.

        Raises:
            TypeError: a keyword that is not one of the options above.
            InvalidNameError: `name`, or a queue, stream or URL group name, is not valid.
            InvalidArgumentError: an invalid argument or destination option.
            InvalidDurationError: a `delay` or `timeout` is malformed or out of range.
            PublishError: a body or payload cannot be encoded by the client's codec.
            BadRequestError: a `cron` the service cannot read or that never fires
                (`invalid_cron`), an unknown `timezone` (`invalid_timezone`), or a message
                `retry_delay` it refuses.
            UnprocessableEntityError: the destination's queue, URL group or (with `nomkstream`)
                stream does not exist (`destination_not_found`).
            PermissionDeniedError: the token lacks `admin` on the schedule or `publish` on its
                destination, or the destination is not allowed (`destination_not_allowed`).
        """
        return self._transport.send(self._calls.set(name, cron, destination, options), options)

    @takes_request_options
    def get(self, name: str, **options: Unpack[RequestOptions]) -> Schedule:
        """The schedule, its next tick and its recent runs (newest first).

        Returns:
            The Schedule.

        Raises:
            InvalidNameError: `name` is not a valid schedule name.
            NotFoundError: there is no such schedule.
        """
        return self._transport.send(self._calls.get(name), options)

    @takes_request_options
    def list(
        self, *, page_size: int = 100, **options: Unpack[RequestOptions]
    ) -> Iterator[Schedule]:
        """Every schedule the token may see, by name, fetched `page_size` at a time as the
        iterator reaches them.

        Returns:
            An iterator of Schedule.

        Raises:
            InvalidArgumentError: `page_size` is not between 1 and 1000.
            PermissionDeniedError: the token has no permission on any schedule (when iterated).
        """
        return iterate_pages(
            partial(self._transport.send, options=options),
            lambda cursor: self._calls.list_page(page_size, cursor),
        )

    @takes_request_options
    def delete(self, name: str, **options: Unpack[RequestOptions]) -> None:
        """Delete the schedule; it fires no more, and what it published stays.

        Raises:
            InvalidNameError: `name` is not a valid schedule name.
            NotFoundError: there is no such schedule.
        """
        self._transport.send(self._calls.delete(name), options)

    @takes_request_options
    def pause(self, name: str, **options: Unpack[RequestOptions]) -> Schedule:
        """Stop the schedule firing until it is resumed; pausing twice changes nothing.

        Returns:
            The Schedule, paused, with no next tick.

        Raises:
            InvalidNameError: `name` is not a valid schedule name.
            NotFoundError: there is no such schedule.
        """
        return self._transport.send(self._calls.pause(name), options)

    @takes_request_options
    def resume(self, name: str, **options: Unpack[RequestOptions]) -> Schedule:
        """Let a paused schedule fire again, from the first tick after now (the ticks it slept
        through are not made up); resuming one that is not paused changes nothing.

        Returns:
            The Schedule, with its next tick.

        Raises:
            InvalidNameError: `name` is not a valid schedule name.
            NotFoundError: there is no such schedule.
        """
        return self._transport.send(self._calls.resume(name), options)


class AsyncSchedules:
    """Cron schedules of an `AsyncClient` (`aclient.schedules`), awaited; see `Schedules`.

    Usage:

    ```python
    await aclient.schedules.set(
        "ticks", cron="*/5 * * * *", destination=sdk.StreamDestination("ticks", {"tick": True})
    )
    ```

    Every method that sends a request also takes the per-call `timeout=`, `max_retries=` and
    `extra_headers=` (`RequestOptions`), which apply to its requests alone; a bad one is a
    ConfigurationError, raised before anything is sent.

    Each method names its own errors below. Invalid arguments raise InvalidArgumentError (or its
    subclasses InvalidNameError and InvalidDurationError) before any request is sent. Any request
    may also fail with AuthenticationError (401), PermissionDeniedError (403) and, once the
    client's retries are used up, RateLimitError (429), InternalServerError (5xx) or
    APIConnectionError.
    """

    def __init__(self, transport: AsyncTransport, *, codec: Codec) -> None:
        self._transport = transport
        self._calls = _ScheduleCalls(codec)

    async def set(
        self,
        name: str,
        *,
        cron: str,
        destination: MessageDestination | JobDestination | StreamDestination,
        **options: Unpack[ScheduleOptions],
    ) -> Schedule:
        """Create the schedule `name`, or replace it: each tick of `cron` (five fields, read in
        `timezone`) publishes `destination` once. A replaced schedule keeps its creation time,
        whether it is paused and its recent runs; its next tick is computed from now.

        Options, keyword-only (see `ScheduleOptions`): `timezone` (default UTC) and `catch_up`
        (`"once"`, the default, or `"skip"`), and the call's own `timeout`, `max_retries` and
        `extra_headers`. Any other keyword is a TypeError.

        Returns:
            The Schedule as it now is, with its next tick.

        Raises:
            TypeError: a keyword that is not one of the options above.
            InvalidNameError: `name`, or a queue, stream or URL group name, is not valid.
            InvalidArgumentError: an invalid argument or destination option.
            InvalidDurationError: a `delay` or `timeout` is malformed or out of range.
            PublishError: a body or payload cannot be encoded by the client's codec.
            BadRequestError: a `cron` the service cannot read or that never fires
                (`invalid_cron`), an unknown `timezone` (`invalid_timezone`), or a message
                `retry_delay` it refuses.
            UnprocessableEntityError: the destination's queue, URL group or (with `nomkstream`)
                stream does not exist (`destination_not_found`).
            PermissionDeniedError: the token lacks `admin` on the schedule or `publish` on its
                destination, or the destination is not allowed (`destination_not_allowed`).
        """
        return await self._transport.send(
            self._calls.set(name, cron, destination, options), options
        )

    @takes_request_options
    async def get(self, name: str, **options: Unpack[RequestOptions]) -> Schedule:
        """The schedule, its next tick and its recent runs (newest first).

        Returns:
            The Schedule.

        Raises:
            InvalidNameError: `name` is not a valid schedule name.
            NotFoundError: there is no such schedule.
        """
        return await self._transport.send(self._calls.get(name), options)

    @takes_request_options
    def list(
        self, *, page_size: int = 100, **options: Unpack[RequestOptions]
    ) -> AsyncIterator[Schedule]:
        """Every schedule the token may see, by name, fetched `page_size` at a time as the
        iterator reaches them: `async for schedule in aclient.schedules.list()`.

        Returns:
            An async iterator of Schedule.

        Raises:
            InvalidArgumentError: `page_size` is not between 1 and 1000.
            PermissionDeniedError: the token has no permission on any schedule (when iterated).
        """
        return aiterate_pages(
            partial(self._transport.send, options=options),
            lambda cursor: self._calls.list_page(page_size, cursor),
        )

    @takes_request_options
    async def delete(self, name: str, **options: Unpack[RequestOptions]) -> None:
        """Delete the schedule; it fires no more, and what it published stays.

        Raises:
            InvalidNameError: `name` is not a valid schedule name.
            NotFoundError: there is no such schedule.
        """
        await self._transport.send(self._calls.delete(name), options)

    @takes_request_options
    async def pause(self, name: str, **options: Unpack[RequestOptions]) -> Schedule:
        """Stop the schedule firing until it is resumed; pausing twice changes nothing.

        Returns:
            The Schedule, paused, with no next tick.

        Raises:
            InvalidNameError: `name` is not a valid schedule name.
            NotFoundError: there is no such schedule.
        """
        return await self._transport.send(self._calls.pause(name), options)

    @takes_request_options
    async def resume(self, name: str, **options: Unpack[RequestOptions]) -> Schedule:
        """Let a paused schedule fire again, from the first tick after now (the ticks it slept
        through are not made up); resuming one that is not paused changes nothing.

        Returns:
            The Schedule, with its next tick.

        Raises:
            InvalidNameError: `name` is not a valid schedule name.
            NotFoundError: there is no such schedule.
        """
        return await self._transport.send(self._calls.resume(name), options)


def _read_flow_control(flow_control: GeneratedFlowControl | None) -> FlowControl | None:
    from generated.types import Unset

    if flow_control is None:
        return None
    period = flow_control.period
    return FlowControl(
        flow_control.key,
        rate=optional(flow_control.rate),
        period=None if isinstance(period, Unset) else period,
        parallelism=optional(flow_control.parallelism),
    )


def _read_destination(destination: GeneratedDestination) -> Destination:
    from generated.types import Unset

    message, job, entry = destination.message, destination.job, destination.entry
    queue, stream = optional(destination.queue), optional(destination.stream)
    if not isinstance(job, Unset) and queue is not None:
        return JobDestination(
            queue,
            job.topic,
            job.payload,
            delay=optional(job.delay),
            deduplication_id=optional(job.deduplication_id),
        )
    if not isinstance(entry, Unset) and stream is not None:
        return StreamDestination(
            stream,
            entry.body,
            maxlen=optional(entry.maxlen),
            approximate=optional(entry.approximate),
            minid=optional(entry.minid),
            nomkstream=bool(optional(entry.nomkstream)),
        )
    if isinstance(message, Unset):
        raise InvalidArgumentError(f"a schedule's destination has no {destination.kind} member")
    headers = optional(message.headers)
    callback_headers = optional(message.callback_headers)
    failure_callback_headers = optional(message.failure_callback_headers)
    labels = optional(message.labels)
    return MessageDestination(
        message.body,
        url=optional(message.url),
        url_group=optional(message.url_group),
        content_type=optional(message.content_type),
        method=optional(message.method),
        headers=None if headers is None else dict(headers.additional_properties),
        delay=optional(message.delay),
        retries=optional(message.retries),
        retry_delay=optional(message.retry_delay),
        callback=optional(message.callback),
        callback_headers=None
        if callback_headers is None
        else dict(callback_headers.additional_properties),
        failure_callback=optional(message.failure_callback),
        failure_callback_headers=None
        if failure_callback_headers is None
        else dict(failure_callback_headers.additional_properties),
        timeout=optional(message.timeout),
        deduplication_id=optional(message.deduplication_id),
        content_based_deduplication=bool(optional(message.content_based_deduplication)),
        redact=read_redact(optional(message.redact)),
        flow_control=_read_flow_control(optional(message.flow_control)),
        signature_scheme=optional(message.signature_scheme),
        labels=None if labels is None else tuple(labels),
    )


def _schedule(schedule: GeneratedSchedule) -> Schedule:
    from ._types import Schedule, ScheduleRun, ScheduleRunError

    return Schedule(
        name=schedule.name,
        cron=schedule.cron,
        timezone=schedule.timezone,
        catch_up=schedule.catch_up,
        destination=_read_destination(schedule.destination),
        paused=schedule.paused,
        created_at=schedule.created_at,
        updated_at=schedule.updated_at,
        last_run_at=schedule.last_run_at,
        next_run_at=schedule.next_run_at,
        recent_runs=[
            ScheduleRun(
                tick_at=run.tick_at,
                fired_at=run.fired_at,
                outcome=run.outcome,
                ids=builtins.list(optional(run.ids) or []),
                error=None
                if (error := optional(run.error)) is None
                else ScheduleRunError(code=error.code, detail=error.detail),
            )
            for run in schedule.recent_runs
        ],
    )


def _schedule_page(result: GeneratedScheduleList) -> Page[Schedule]:
    return Page([_schedule(schedule) for schedule in result.schedules], result.next_cursor)
