"""The `spool` command line (`pip install 'spool[cli]'`): publish, tail, inspect and work queues.

Nothing here is imported by `import sdk`: click and rich are loaded only when the command runs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]

# Usage errors share this code with click's own, so a script can tell "fix the command" apart.
_MISSING_EXTRA_EXIT = 2


def main(argv: Sequence[str] | None = None) -> None:
    """Run `spool` with `argv` (default: the process's arguments) and exit with its status."""
    try:
        import click  # noqa: F401
        import rich  # noqa: F401
    except ImportError as error:
        sys.stderr.write(
            f"The spool command needs the 'cli' extra ({error.name} is missing): "
            "pip install 'spool[cli]'\n"
        )
        raise SystemExit(_MISSING_EXTRA_EXIT) from None
    from ._app import cli

    cli.main(args=list(argv) if argv is not None else None, prog_name="spool")
