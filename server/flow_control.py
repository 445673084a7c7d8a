"""A publish's ``flow_control`` as the store keeps it: the checks JSON Schema leaves to the service.

openapi.yaml's ``FlowControl`` states that at least one of ``rate`` and ``parallelism`` is given
but, for the reason given at its ``TrimRequest``, cannot make the generated model refuse one that
has neither; and its ``period`` is seconds or a text with a unit. This module reads both.
"""

from __future__ import annotations

from generated.pydantic_models import FlowControl

from .stores.base import FlowControlLimits

__all__ = ["DEFAULT_PERIOD_SECONDS", "FlowControlError", "flow_control_limits", "period_seconds"]

DEFAULT_PERIOD_SECONDS = 1
_UNITS = {"s": 1, "m": 60, "h": 3600}


def period_seconds(period: int | str) -> int:
    """A ``period`` in seconds: a number already is; ``"30s"``, ``"1m"``, ``"1h"`` are read by
    their unit (the spec's pattern has already bounded them).
    """
    if isinstance(period, int):
        return period
    return int(period[:-1]) * _UNITS[period[-1]]


class FlowControlError(ValueError):
    """A ``flow_control`` the schema admits and the service does not; its text says why."""


def flow_control_limits(flow_control: FlowControl) -> FlowControlLimits:
    """The store's limits of a publish item's ``flow_control`` (``FlowControlError`` when it
    gives neither ``rate`` nor ``parallelism``).
    """
    if flow_control.rate is None and flow_control.parallelism is None:
        raise FlowControlError("give at least one of rate and parallelism")
    period = flow_control.period
    return FlowControlLimits(
        key=flow_control.key.root,
        rate=flow_control.rate,
        period=DEFAULT_PERIOD_SECONDS if period is None else period_seconds(period.root),
        parallelism=flow_control.parallelism,
    )
