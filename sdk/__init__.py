"""Spool's Python SDK: publish to streams, queues and HTTP messages, and consume them.

```python
import sdk

with sdk.Client() as client:  # $SPOOL_BASE_URL and $SPOOL_API_KEY
    client.publish("events", {"type": "signup", "user": 42})

with sdk.Client.embedded() as client:  # a local service in a child process, for development
    client.publish("events", {"type": "signup", "user": 42})
```
"""

import importlib as _importlib
import typing as _typing

from ._aiohttp import *
from ._arguments import *
from ._async_client import *
from ._batching import Batching
from ._client import *
from ._codec import *
from ._config import RequestOptions
from ._dead_letters import *
from ._durations import *
from ._exceptions import *
from ._flow_control import *
from ._message_options import MessageOptions
from ._messages import *
from ._publisher import *
from ._queues import *
from ._receiver import Receiver
from ._response import RawResponse
from ._schedules import *
from ._stream import *
from ._streams import *
from ._url_groups import *

if _typing.TYPE_CHECKING:
    from ._types import *

__all__ = [
    "AioHttpClient",
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncClient",
    "AsyncDeadLetters",
    "AsyncFlowControlKeys",
    "AsyncMessages",
    "AsyncPublisher",
    "AsyncQueue",
    "AsyncQueues",
    "AsyncSchedules",
    "AsyncStreams",
    "AsyncUrlGroups",
    "AuthenticationError",
    "BadRequestError",
    "Batching",
    "ClaimResult",
    "Client",
    "Codec",
    "ConfigurationError",
    "ConflictError",
    "DeadLetter",
    "DeadLetterResult",
    "DeadLetters",
    "DeliveredEntry",
    "DeliveryAttempt",
    "Duration",
    "EmbeddedServiceError",
    "Entry",
    "FieldError",
    "FlowControl",
    "FlowControlKeys",
    "FlowControlState",
    "GroupInfo",
    "Health",
    "HttpMethod",
    "InternalServerError",
    "InvalidArgumentError",
    "InvalidDurationError",
    "InvalidNameError",
    "InvalidTopicError",
    "Job",
    "JobAckResult",
    "JobAttempt",
    "JobDestination",
    "JobReceipt",
    "JobReleaseResult",
    "JobRequest",
    "JobState",
    "JsonCodec",
    "LeasedJob",
    "LogEvent",
    "LogState",
    "Message",
    "MessageDestination",
    "MessageOptions",
    "MessageReceipt",
    "MessageRequest",
    "Messages",
    "MessageState",
    "NotFoundError",
    "PayloadTooLargeError",
    "PendingEntry",
    "PermissionDeniedError",
    "Publisher",
    "PublishError",
    "Queue",
    "QueueInfo",
    "Queues",
    "QueueStats",
    "QuotaExceededError",
    "RateLimitError",
    "RawResponse",
    "Receiver",
    "Redact",
    "RequestOptions",
    "ReservedTopicError",
    "Schedule",
    "ScheduleCatchUp",
    "ScheduleOptions",
    "ScheduleRun",
    "ScheduleRunError",
    "Schedules",
    "SignatureError",
    "SignatureFailure",
    "SignatureScheme",
    "SigningKeys",
    "SpoolError",
    "StandardWebhooksSecrets",
    "StoreFullError",
    "Stream",
    "StreamDestination",
    "StreamInfo",
    "Streams",
    "StreamSummary",
    "Timestamp",
    "TokenInfo",
    "TokenPermission",
    "TokenRateLimit",
    "TrimResult",
    "UnprocessableEntityError",
    "UnsupportedMediaTypeError",
    "UrlEndpoint",
    "UrlGroup",
    "UrlGroups",
]

# What the SDK returns is loaded with the first answer or the first `sdk.<name>`: see sdk/_types.py.
_RESULTS = frozenset(
    (
        "ClaimResult",
        "DeadLetter",
        "DeadLetterResult",
        "DeliveredEntry",
        "DeliveryAttempt",
        "Entry",
        "FlowControlState",
        "GroupInfo",
        "Health",
        "Job",
        "JobAckResult",
        "JobAttempt",
        "JobReceipt",
        "JobReleaseResult",
        "LeasedJob",
        "LogEvent",
        "Message",
        "MessageReceipt",
        "PendingEntry",
        "QueueInfo",
        "QueueStats",
        "Schedule",
        "ScheduleRun",
        "ScheduleRunError",
        "SigningKeys",
        "StandardWebhooksSecrets",
        "StreamInfo",
        "StreamSummary",
        "TokenInfo",
        "TokenPermission",
        "TokenRateLimit",
        "TrimResult",
        "UrlGroup",
    )
)


def __getattr__(name: str) -> object:
    if name not in _RESULTS:
        raise AttributeError(f"module 'sdk' has no attribute {name!r}")
    value = getattr(_importlib.import_module("sdk._types"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_RESULTS})


# Show `sdk.Client` rather than `sdk._client.Client` in reprs, tracebacks and docs. Type aliases
# (Duration, JobState, ...) are not classes and keep their own module.
for _name in __all__:
    _member = globals().get(_name)
    if isinstance(_member, type):
        _member.__module__ = "sdk"
del _name, _member
