"""HTTP delivery of messages: what the rest of the service uses of it.

- ``engine.py``: the engine in each process that claims due messages, sends and settles them;
- ``transport.py``: the HTTP transport, which connects only to addresses the destination policy
  vetted;
- ``retry_delay.py``: ``retry_delay`` expressions and the default backoff.
"""

from .engine import (
    CALLBACK_HEADER,
    DEFAULT_STOP_TIMEOUT_SECONDS,
    MAX_CAPTURED_RESPONSE_BYTES,
    MESSAGE_ID_HEADER,
    RESPONSE_EXCERPT_CHARS,
    RETRIED_HEADER,
    SOURCE_MESSAGE_HEADER,
    DeliveryEngine,
    DeliveryStore,
)
from .transport import default_transport

__all__ = [
    "CALLBACK_HEADER",
    "DEFAULT_STOP_TIMEOUT_SECONDS",
    "MAX_CAPTURED_RESPONSE_BYTES",
    "MESSAGE_ID_HEADER",
    "RESPONSE_EXCERPT_CHARS",
    "RETRIED_HEADER",
    "SOURCE_MESSAGE_HEADER",
    "DeliveryEngine",
    "DeliveryStore",
    "default_transport",
]
