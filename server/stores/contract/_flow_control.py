"""The contract of flow control keys: what each public method promises and checks.

A message published with ``flow_control`` is under its key's limits: at most ``rate`` attempts of
the key's messages start in any ``period`` seconds (a sliding window) and at most ``parallelism``
are in flight (``delivering`` under a live lease) at once. ``claim_due_messages`` keeps them, across
every process sharing the store: a due message over a limit is not claimed and waits, ``scheduled``
(none is dropped), until the limit lets it through. Retries count like first attempts. A key's
limits are those of the latest publish that named it. With ``parallelism`` 1 a key's messages are
claimed one at a time in publish order: the oldest one not yet delivered, dead or cancelled (it may
be waiting for its delay or its next retry) holds back the ones published after it.

A paused key's messages are not claimed until it is resumed; publishing with it goes on. Every
public method checks its arguments and then calls its hook, the method of the same name with a
leading underscore, which a backend implements.
"""

from __future__ import annotations

import abc
import re

from ..checks import check_at_least_one
from ..cursors import flow_control_cursor, flow_control_cursor_position
from ..errors import StoreError
from ..records import FlowControlPage, FlowControlState

__all__ = ["FLOW_CONTROL_KEY", "FlowControlContract"]

# openapi.yaml's FlowControlKey.
FLOW_CONTROL_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")


def _check_key(key: str) -> None:
    if not FLOW_CONTROL_KEY.fullmatch(key):
        raise StoreError("validation_failed", f"invalid flow control key {key!r}")


class FlowControlContract(abc.ABC):
    """Flow control keys: their state, pause, resume and reset; the hooks a backend implements."""

    async def list_flow_control_keys(self, *, limit: int, cursor: str | None) -> FlowControlPage:
        """Up to ``limit`` keys, by key, after ``cursor`` (an earlier page's ``next_cursor``; None
        for the first page): every key a message was published with or that was paused, each
        with its state as ``get_flow_control`` answers it. A cursor that is not this listing's is
        ``validation_failed``.
        """
        check_at_least_one(limit, name="limit")
        after = None if cursor is None else flow_control_cursor_position(cursor)
        keys, more = await self._list_flow_control_keys(limit=limit, cursor=after)
        return FlowControlPage(
            keys=keys, next_cursor=flow_control_cursor(keys[-1].key) if more and keys else None
        )

    async def get_flow_control(self, key: str) -> FlowControlState:
        """The key's state; a key nothing was published with reads as idle, without limits."""
        _check_key(key)
        return await self._get_flow_control(key)

    async def pause_flow_control(self, key: str) -> FlowControlState:
        """Claim none of the key's messages until ``resume_flow_control``; attempts in flight
        finish. A key may be paused before anything is published with it. Answers its state.
        """
        _check_key(key)
        return await self._pause_flow_control(key)

    async def resume_flow_control(self, key: str) -> FlowControlState:
        """Let the key's waiting messages be claimed again, within its limits; a key that is not
        paused is left as it is. Answers its state.
        """
        _check_key(key)
        return await self._resume_flow_control(key)

    async def reset_flow_control(self, key: str) -> FlowControlState:
        """Forget the attempts counted against the key's ``rate``, so its waiting messages may be
        claimed at once; its limits, whether it is paused and its attempts in flight (which count
        against ``parallelism`` until they settle or their lease ends) stay. Answers its state.
        """
        _check_key(key)
        return await self._reset_flow_control(key)

    @abc.abstractmethod
    async def _list_flow_control_keys(
        self, *, limit: int, cursor: str | None
    ) -> tuple[list[FlowControlState], bool]:
        """Up to ``limit`` keys after the key ``cursor`` (None: from the first), by key, and whether more
        follow.
        """

    @abc.abstractmethod
    async def _get_flow_control(self, key: str) -> FlowControlState:
        """``get_flow_control`` with a checked key."""

    @abc.abstractmethod
    async def _pause_flow_control(self, key: str) -> FlowControlState:
        """``pause_flow_control`` with a checked key."""

    @abc.abstractmethod
    async def _resume_flow_control(self, key: str) -> FlowControlState:
        """``resume_flow_control`` with a checked key."""

    @abc.abstractmethod
    async def _reset_flow_control(self, key: str) -> FlowControlState:
        """``reset_flow_control`` with a checked key."""
