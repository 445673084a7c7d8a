"""The delivery engine's settings: one frozen value, checked when it is made.

``DeliverySettings.from_config`` is the one place the service's settings (server/config.py) turn
into the engine's; the defaults of the rest are the engine's own. A value that cannot work raises
``ConfigError`` (a ``ValueError``) naming the setting.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from ..config import (
    DEFAULT_LEASE_MARGIN_SECONDS,
    DEFAULT_POLL_INTERVAL_SECONDS,
    ConfigError,
    Settings,
)
from ..destinations import DestinationPolicy
from ..signing import DEFAULT_TTL_SECONDS, SigningKeys
from .retry_delay import default_backoff_ms

__all__ = [
    "CALLBACK_RETRIES",
    "DEFAULT_BATCH",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_SHUTDOWN_GRACE_SECONDS",
    "DEFAULT_STOP_TIMEOUT_SECONDS",
    "DeliverySettings",
]

DEFAULT_BATCH = 50
DEFAULT_CONCURRENCY = 50
CALLBACK_RETRIES = 3
DEFAULT_SHUTDOWN_GRACE_SECONDS = 10.0
# How long stop() waits for the loop's store call in progress to return, and then again once it is
# cancelled: a claim normally takes milliseconds, a Redis reconnect up to its 5 s connect timeout.
DEFAULT_STOP_TIMEOUT_SECONDS = 5.0


@dataclasses.dataclass(frozen=True, slots=True)
class DeliverySettings:
    """How the engine claims, sends, signs and settles messages.

    ``concurrency`` bounds attempts in flight; ``batch`` bounds one claim. ``poll_interval`` is the
    longest the engine sleeps before looking for due messages that other processes scheduled. Each
    claim lasts the message's ``timeout`` plus ``lease_margin``, which must cover publishing its
    callback and recording the attempt. ``policy`` is checked before every attempt (and vets every
    connection of the default transport); requests are signed with ``signing_keys.current``, valid
    for ``signature_ttl`` seconds. Callbacks get ``callback_retries`` retries;
    ``default_retry_delay`` gives the milliseconds before retry ``retried`` of a message without
    ``retry_delay``. ``shutdown_grace`` is how long ``stop`` lets attempts in flight finish,
    ``stop_timeout`` how long it waits for a store call before giving up on it.
    """

    signing_keys: SigningKeys
    policy: DestinationPolicy
    poll_interval: float = DEFAULT_POLL_INTERVAL_SECONDS
    lease_margin: float = DEFAULT_LEASE_MARGIN_SECONDS
    batch: int = DEFAULT_BATCH
    concurrency: int = DEFAULT_CONCURRENCY
    callback_retries: int = CALLBACK_RETRIES
    signature_ttl: float = DEFAULT_TTL_SECONDS
    shutdown_grace: float = DEFAULT_SHUTDOWN_GRACE_SECONDS
    stop_timeout: float = DEFAULT_STOP_TIMEOUT_SECONDS
    default_retry_delay: Callable[[int], float] = default_backoff_ms

    def __post_init__(self) -> None:
        # Written as "not above" so that NaN, which compares false with everything, is refused too.
        for name in ("poll_interval", "stop_timeout"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"delivery {name} must be > 0, got {getattr(self, name)!r}")
        for name in ("lease_margin", "shutdown_grace"):
            if not getattr(self, name) >= 0:
                raise ConfigError(f"delivery {name} must be >= 0, got {getattr(self, name)!r}")
        for name in ("batch", "concurrency"):
            if getattr(self, name) < 1:
                raise ConfigError(f"delivery {name} must be >= 1, got {getattr(self, name)!r}")
        if not (math.isfinite(self.signature_ttl) and self.signature_ttl > 0):
            # Checked here, as signing checks it, rather than failing every attempt later.
            raise ConfigError(
                f"delivery signature_ttl must be a finite number > 0, got {self.signature_ttl!r}"
            )
        if self.callback_retries < 0:
            raise ConfigError(
                f"delivery callback_retries must be >= 0, got {self.callback_retries}"
            )

    @classmethod
    def from_config(cls, settings: Settings, *, policy: DestinationPolicy) -> DeliverySettings:
        """The settings a served app's engine runs with: keys and timing from ``settings``, and
        ``policy``, the same destination policy the publish checks use.
        """
        return cls(
            signing_keys=settings.signing_keys,
            policy=policy,
            poll_interval=settings.delivery_poll_interval_seconds,
            lease_margin=settings.delivery_lease_margin_seconds,
        )
