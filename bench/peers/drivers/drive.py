"""``python drive.py MODULE ACTION COUNT``: run one workload of the side ``MODULE.SIDE``.

The side's module is imported by its name, as its worker process imports it, so that the jobs
it enqueues name their functions by that module (rq and Celery refuse functions of ``__main__``).
"""

from __future__ import annotations

import importlib
import sys

from _common import main

if __name__ == "__main__":
    main(importlib.import_module(sys.argv[1]).SIDE, sys.argv[2:])
