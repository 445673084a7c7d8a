"""HTTP delivery of messages: what the rest of the service uses of it.

- ``engine.py``: the loop in each process that claims due messages and runs their attempts;
- ``attempt.py``: one HTTP attempt, from the signed request to what came back;
- ``settle.py``: what an attempt's result does to the message (delivered, retried, dead letter)
  and the callbacks it publishes;
- ``settings.py``: the engine's settings, built from the service's in one place;
- ``transport.py``: the HTTP transport, which connects only to addresses the destination policy
  vetted;
- ``retry_delay.py``: ``retry_delay`` expressions and the default backoff.
"""

from .attempt import (
    MAX_CAPTURED_RESPONSE_BYTES,
    MESSAGE_ID_HEADER,
    RESPONSE_EXCERPT_CHARS,
    RETRIED_HEADER,
)
from .engine import DeliveryEngine, DeliveryStore
from .settings import DEFAULT_STOP_TIMEOUT_SECONDS, DeliverySettings
from .settle import CALLBACK_HEADER, SOURCE_MESSAGE_HEADER
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
    "DeliverySettings",
    "DeliveryStore",
    "default_transport",
]
