"""Flow control keys: their state, pause, resume and reset, each one script in the messages' slot.

The claims keep the limits (``lua/claim_due_messages.lua`` with ``lua/lib/flow.lua``, which says
how each key's state is kept); these scripts read and change that state.
"""

from __future__ import annotations

from typing import Any

from ..base import FlowControlState
from .arguments import number_text
from .core import RedisCore

__all__ = ["RedisFlowControl"]


def _state(row: list[Any]) -> FlowControlState:
    key, rate, period, parallelism, paused, waiting, in_flight, rate_used = row
    return FlowControlState(
        key=str(key),
        rate=int(rate) if rate != "" else None,
        period=int(period) if period != "" else None,
        parallelism=int(parallelism) if parallelism != "" else None,
        paused=bool(int(paused)),
        waiting=int(waiting),
        in_flight=int(in_flight),
        rate_used=int(rate_used),
    )


class RedisFlowControl(RedisCore):
    """The flow control methods of the Redis store."""

    async def _flow_script(self, name: str, args: list[str | int]) -> Any:
        keys = self._keys.messages
        return await self._run(
            name,
            keys.declared(),
            [keys.message_prefix, number_text(self.clock()), *args],
            details={},
        )

    async def _list_flow_control_keys(
        self, *, limit: int, cursor: str | None
    ) -> tuple[list[FlowControlState], bool]:
        """Keys by name from the set of keys, in one script with their states."""
        more, rows = await self._flow_script("list_flow_control_keys", [cursor or "", limit])
        return [_state(row) for row in rows], bool(int(more))

    async def _get_flow_control(self, key: str) -> FlowControlState:
        """The key's state."""
        return _state(await self._flow_script("flow_control", ["get", key]))

    async def _pause_flow_control(self, key: str) -> FlowControlState:
        """Mark the key paused, listing it even before any publish names it."""
        return _state(await self._flow_script("flow_control", ["pause", key]))

    async def _resume_flow_control(self, key: str) -> FlowControlState:
        """Clear the pause and let the key's parked messages through, within its limits."""
        return _state(await self._flow_script("flow_control", ["resume", key]))

    async def _reset_flow_control(self, key: str) -> FlowControlState:
        """Forget the key's counted starts and let its parked messages through."""
        return _state(await self._flow_script("flow_control", ["reset", key]))
