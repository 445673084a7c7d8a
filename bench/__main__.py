"""``python -m bench [NAME ...] [--quick]``: run the benchmarks and print their tables."""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Sequence

from ._report import Report, format_report

__all__ = ["BENCHMARKS", "main"]

BENCHMARKS = ("stores", "facade", "delivery")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the named benchmarks (all by default); 1 if any of them failed."""
    parser = argparse.ArgumentParser(
        prog="python -m bench", description="Run Spool's side-by-side benchmarks."
    )
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"benchmarks to run: {', '.join(BENCHMARKS)} (default: all)",
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes: proves they run")
    arguments = parser.parse_args(argv)
    unknown = [name for name in arguments.names if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
    failed = False
    for name in arguments.names or BENCHMARKS:
        started = time.monotonic()
        module = importlib.import_module(f"bench.{name}")
        try:
            report: Report = module.run(quick=arguments.quick)
        except Exception as error:
            # One broken benchmark should not hide the numbers of the others.
            print(f"{name}: FAILED: {type(error).__name__}: {error}\n", flush=True)
            failed = True
            continue
        print(format_report(report), flush=True)
        print(f"  ({time.monotonic() - started:.0f} s)\n", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
