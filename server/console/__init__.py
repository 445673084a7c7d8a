"""The web console at ``/console``: server-rendered pages over the store contract.

Off unless the settings enable it (``Settings.console``: ``spool-server --console``,
``$SPOOL_CONSOLE=1``, the config file's ``console.enabled``, or development mode). A visitor signs
in with an API token and sees exactly what that token may see through the API: every page and
action authorizes as the API operation it mirrors (see ``_pages.Visit.access``). Everything the
pages use is served from this package; they make no other network call.
"""

from __future__ import annotations

from ._app import console_routes
from ._pages import PREFIX as CONSOLE_PATH

__all__ = ["CONSOLE_PATH", "console_routes"]
