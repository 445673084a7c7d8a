"""``python -m bench [NAME ...] [--quick]``: run the benchmarks, print their tables and goals, and
write every figure to ``bench/results/latest.json`` so that two runs can be compared.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._report import Report, format_report

__all__ = ["BENCHMARKS", "ON_REQUEST", "RESULTS", "main"]

BENCHMARKS = (
    "stores",
    "facade",
    "delivery",
    "schedules",
    "flow_control",
    "http",
    "client",
    "worker",
)
# Run only when named: "peers" makes virtualenvs of other job queues on first use and takes many
# minutes at full size.
ON_REQUEST = ("peers",)
RESULTS = Path(__file__).resolve().parent / "results" / "latest.json"
# Above this 1-minute load per core, other work competes for the cores and a figure is not trusted:
# the benchmark itself keeps at most about one core busy between rounds.
_BUSY_LOAD_PER_CORE = 0.75


def _load() -> float:
    return os.getloadavg()[0]


def _busy_threshold() -> float:
    return _BUSY_LOAD_PER_CORE * (os.cpu_count() or 1)


def _commit() -> str | None:
    try:
        completed = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=RESULTS.parent.parent,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return completed.stdout.strip()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the named benchmarks (all by default); 1 if any of them failed."""
    parser = argparse.ArgumentParser(
        prog="python -m bench", description="Run Spool's side-by-side benchmarks."
    )
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=(
            f"benchmarks to run: {', '.join(BENCHMARKS + ON_REQUEST)} (default: all but peers, "
            "which runs only when named: it makes virtualenvs of other job queues under "
            "bench/.peers on first use and takes many minutes)"
        ),
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes: proves they run")
    parser.add_argument(
        "--results",
        type=Path,
        default=RESULTS,
        help="where to write the figures as JSON (default: %(default)s)",
    )
    arguments = parser.parse_args(argv)
    known = BENCHMARKS + ON_REQUEST
    unknown = [name for name in arguments.names if name not in known]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(known)}")
    failed = False
    busy = False
    threshold = _busy_threshold()
    runs: list[dict[str, Any]] = []
    print(f"cores: {os.cpu_count()}, load average before: {_load():.2f}\n", flush=True)
    for name in arguments.names or BENCHMARKS:
        load_before = _load()
        started = time.monotonic()
        module = importlib.import_module(f"bench.{name}")
        try:
            report: Report = module.run(quick=arguments.quick)
        except Exception as error:
            # One broken benchmark should not hide the numbers of the others.
            print(f"{name}: FAILED: {type(error).__name__}: {error}\n", flush=True)
            runs.append({"benchmark": name, "failed": f"{type(error).__name__}: {error}"})
            failed = True
            continue
        seconds = time.monotonic() - started
        print(format_report(report), flush=True)
        note = f"  ({seconds:.0f} s, load average {load_before:.2f} before)"
        if load_before > threshold:
            busy = True
            note += f": BUSY (over {threshold:.2f}), do not trust these figures"
        print(note + "\n", flush=True)
        runs.append({**report.as_json(), "seconds": seconds, "load_before": load_before})
    goals = [goal for run in runs for goal in run.get("goals", [])]
    if goals:
        met = sum(goal["met"] for goal in goals)
        print(f"goals met: {met} of {len(goals)}", flush=True)
    if busy:
        print("the machine was busy during the run: repeat on a quiet machine", flush=True)
    document = {
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": _commit(),
        "quick": arguments.quick,
        "cores": os.cpu_count(),
        "busy_threshold": threshold,
        "busy": busy,
        "benchmarks": runs,
    }
    arguments.results.parent.mkdir(parents=True, exist_ok=True)
    arguments.results.write_text(json.dumps(document, indent=2) + "\n")
    print(f"figures written to {arguments.results}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
