"""The contract of console sessions: what each public method promises and checks.

The console keeps its sign-ins in the store so that every process serving it, and the same
process after a restart, knows them alike, and so that signing out ends a session everywhere.
Every public method checks its arguments (``..checks``) and then calls its hook, the method of the
same name with a leading underscore, which a backend implements.
"""

from __future__ import annotations

import abc

from ..checks import check_session_key, check_session_lifetime
from ..records import ConsoleSession

__all__ = ["SessionsContract"]


class SessionsContract(abc.ABC):
    """Console sessions: the public methods with their checks, and their hooks."""

    async def create_console_session(
        self, key: str, *, token_id: str, token_check: str, lifetime: float, idle: float
    ) -> ConsoleSession:
        """Keep a session under ``key`` (replacing any there) and answer it: made now by the
        store's clock, it ends ``lifetime`` seconds from now, or ``idle`` seconds after its last
        touching visit if that comes first. ``key`` is what the caller derives from the secret it
        hands the visitor, never that secret; ``check_session_key`` says what is refused, as are
        an empty ``token_id`` and a ``lifetime`` or ``idle`` that is not a number above 0.
        """
        check_session_key(key)
        check_session_lifetime(token_id, lifetime, idle)
        return await self._create_console_session(
            key, token_id=token_id, token_check=token_check, lifetime=lifetime, idle=idle
        )

    async def get_console_session(self, key: str, *, touch: bool) -> ConsoleSession | None:
        """The live session under ``key``, or None when there is none: never made, deleted, past
        its ``expires_at``, or idle for its ``idle_seconds``. With ``touch`` a visit is counted:
        the session's idle time starts again from now (it still ends at ``expires_at``).
        Atomic across processes: a session deleted by one is None to every other from then on.
        """
        check_session_key(key)
        return await self._get_console_session(key, touch=touch)

    async def delete_console_session(self, key: str) -> None:
        """End the session under ``key`` for every process; nothing happens when there is none."""
        check_session_key(key)
        await self._delete_console_session(key)

    # Hooks ---------------------------------------------------------------------------------

    @abc.abstractmethod
    async def _create_console_session(
        self, key: str, *, token_id: str, token_check: str, lifetime: float, idle: float
    ) -> ConsoleSession:
        """``create_console_session`` with checked arguments."""

    @abc.abstractmethod
    async def _get_console_session(self, key: str, *, touch: bool) -> ConsoleSession | None:
        """``get_console_session`` with a checked key."""

    @abc.abstractmethod
    async def _delete_console_session(self, key: str) -> None:
        """``delete_console_session`` with a checked key."""
