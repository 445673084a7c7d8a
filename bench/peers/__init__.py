"""Spool beside the job queues and stream frameworks a user would pick instead (``bench peers``):
see ``_suite`` for the method and ``bench/README.md`` for the figures.
"""

from ._suite import run

__all__ = ["run"]
