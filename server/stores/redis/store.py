"""The Redis store, composed of its resources."""

from __future__ import annotations

from .errors import outages_raise_unavailable
from .flow_control import RedisFlowControl
from .limits import RedisLimits
from .messages import RedisMessages
from .queues import RedisQueues
from .schedules import RedisSchedules
from .sessions import RedisSessions
from .streams import RedisStreams

__all__ = ["RedisStore"]


@outages_raise_unavailable
class RedisStore(
    RedisStreams,
    RedisQueues,
    RedisMessages,
    RedisLimits,
    RedisSessions,
    RedisSchedules,
    RedisFlowControl,
):
    """Spool's data in Redis, shareable by several service processes."""

    kind = "redis"
