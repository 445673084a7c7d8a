"""The delivery engine's settings (server/delivery/settings.py): built from the service's, and
refused by name when they cannot work.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from server.config import ConfigError, Settings
from server.delivery import DeliverySettings
from server.delivery.retry_delay import default_backoff_ms
from server.destinations import DestinationPolicy
from tests.server.delivery._support import KEYS, LOOPBACK


def test_from_config_takes_the_keys_and_timing_of_the_service() -> None:
    """The signing keys, poll interval and lease margin come from the service's settings, the
    policy is the one given (the publish checks'), and the rest keep the engine's defaults.
    """
    config = Settings.development_mode(
        signing_keys=KEYS, delivery_lease_margin_seconds=7.0, delivery_poll_interval_seconds=0.5
    )
    policy = DestinationPolicy(["127.0.0.1"])
    settings = DeliverySettings.from_config(config, policy=policy)

    assert settings.signing_keys is KEYS
    assert settings.policy is policy
    assert (settings.lease_margin, settings.poll_interval) == (7.0, 0.5)
    defaults = DeliverySettings(signing_keys=KEYS, policy=policy)
    assert (settings.batch, settings.concurrency, settings.default_retry_delay) == (
        defaults.batch,
        defaults.concurrency,
        default_backoff_ms,
    )


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("poll_interval", 0.0, "delivery poll_interval must be > 0, got 0.0"),
        ("poll_interval", math.nan, "delivery poll_interval must be > 0, got nan"),
        ("stop_timeout", -1.0, "delivery stop_timeout must be > 0"),
        ("signature_ttl", math.inf, "delivery signature_ttl must be a finite number > 0"),
        ("lease_margin", -0.5, "delivery lease_margin must be >= 0, got -0.5"),
        ("shutdown_grace", math.nan, "delivery shutdown_grace must be >= 0"),
        ("batch", 0, "delivery batch must be >= 1, got 0"),
        ("concurrency", -3, "delivery concurrency must be >= 1"),
        ("callback_retries", -1, "delivery callback_retries must be >= 0, got -1"),
    ],
)
def test_a_setting_that_cannot_work_is_a_config_error(
    setting: str, value: float, message: str
) -> None:
    """Each bad value is refused on creation with a ConfigError (a ValueError) naming it."""
    options: dict[str, Any] = {setting: value}
    with pytest.raises(ConfigError, match=message) as raised:
        DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, **options)
    assert isinstance(raised.value, ValueError)


def test_zero_margins_are_allowed() -> None:
    """No lease margin and no shutdown grace are legal, if unwise, choices."""
    settings = DeliverySettings(
        signing_keys=KEYS, policy=LOOPBACK, lease_margin=0.0, shutdown_grace=0.0
    )
    assert (settings.lease_margin, settings.shutdown_grace) == (0.0, 0.0)
