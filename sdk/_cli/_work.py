"""`spool work QUEUE -- CMD ARGS...`: a shell worker for a queue."""

from __future__ import annotations

import signal
import threading
from datetime import timedelta
from types import FrameType
from typing import Any

import click

from sdk._durations import to_timedelta
from sdk._worker_run import default_consumer_name

from ._context import State, common_options, pass_state
from ._errors import CliError, ExitCode
from ._output import error_console, print_json
from ._parsing import DURATION
from ._shell_worker import Outcome, ShellWorker

__all__ = ["work"]

_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@click.command(
    epilog="Exits 0 when it stops by itself or on SIGTERM, 130 after Ctrl-C; failed commands "
    "are the jobs' business, not its."
)
@click.argument("queue")
@click.argument("command", nargs=-1, required=True, metavar="-- CMD [ARGS]...")
@click.option(
    "--topic",
    "topics",
    multiple=True,
    metavar="TOPIC",
    help="Only jobs of this topic (repeat for more) [default: all].",
)
@click.option(
    "-c",
    "--concurrency",
    type=click.IntRange(1, 256),
    default=1,
    show_default=True,
    help="Commands run at once.",
)
@click.option(
    "--lease",
    type=DURATION,
    help="How long a job is held before it is extended [default: the queue's].",
)
@click.option(
    "--retry-delay", type=DURATION, default=0, help="How long a job given back waits: 30s."
)
@click.option(
    "--consumer", metavar="NAME", help="This worker's name in leases [default: <host>-<pid>]."
)
@click.option("--burst", is_flag=True, help="Stop once no job is ready (like `rq worker --burst`).")
@click.option("--max-jobs", type=click.IntRange(min=1), help="Stop after this many jobs.")
@common_options
@pass_state
def work(
    state: State,
    queue: str,
    command: tuple[str, ...],
    topics: tuple[str, ...],
    concurrency: int,
    lease: Any,
    retry_delay: Any,
    consumer: str | None,
    burst: bool,
    max_jobs: int | None,
) -> None:
    """Run a shell command for every job of a queue.

    CMD gets the payload as one line of JSON on stdin, and the job in its environment.

    Exit status 0 acknowledges the job; any other gives it back (nack) with the end of the
    command's stderr as its error, to be retried until the queue's max attempts: a failed last
    attempt is reported as "dead after N attempts" (outcome "dead" in --json). The command
    sees SPOOL_JOB_ID, SPOOL_QUEUE, SPOOL_TOPIC, SPOOL_ATTEMPT, SPOOL_PUBLISHED_AT and
    SPOOL_LEASE_EXPIRES_AT. Leases are extended while a command runs.

    Ctrl-C or SIGTERM stops leasing and lets running commands finish (a job leased as the
    stop came is given back untried, its attempt uncounted); a second one terminates them and
    gives their jobs back. After Ctrl-C the exit status is 130.

    \b
    Examples:
      spool work emails --topic welcome -- ./send-email.sh
      spool work images -c 4 -- python resize.py
      spool work emails --burst -- sh -c 'jq -r .to | xargs ./notify'
    """
    client = state.client()
    handle = client.init_queue(queue)
    held = to_timedelta(lease, name="lease") if lease is not None else handle.info().lease
    worker = ShellWorker(
        handle,
        command,
        topics=topics,
        concurrency=concurrency,
        lease=max(held, timedelta(seconds=1)),
        retry_delay=retry_delay,
        consumer=consumer or default_consumer_name(),
        burst=burst,
        max_jobs=max_jobs,
        # Commands write to our stdout, except under --json, which keeps it for our JSON lines.
        command_stdout=2 if state.as_json else None,
        report=_reporter(state),
    )
    notes = error_console()
    notes.print(
        f"working on queue {queue} ({', '.join(topics) or 'all topics'}), "
        f"{concurrency} at a time; Ctrl-C to stop",
        style="dim",
        markup=False,
    )

    signals: list[int] = []

    def on_signal(number: int, _frame: FrameType | None) -> None:
        signals.append(number)
        if worker.stopping.is_set():
            notes.print("stopping now: giving running jobs back", style="yellow")
            worker.abort()
            return
        notes.print(
            f"{signal.Signals(number).name}: finishing {worker.running} running job(s); "
            "again to give them back",
            style="yellow",
            markup=False,
        )
        worker.stop()

    previous = _install(on_signal)
    try:
        worker.run()
    finally:
        _restore(previous)
    if signal.SIGINT in signals:
        # A graceful stop still tells a script it was interrupted, as every command's Ctrl-C does.
        raise CliError("interrupted", code=ExitCode.INTERRUPTED)


def _reporter(state: State) -> Any:
    lock = threading.Lock()
    counts = {"acked": 0, "nacked": 0, "dead": 0, "released": 0, "lease_lost": 0}

    def report(outcome: Outcome) -> None:
        with lock:
            counts[outcome.outcome] += 1
            if state.as_json:
                print_json(outcome)
                return
            mark = {
                "acked": "[green]✔[/]",
                "nacked": "[red]✘[/]",
                "dead": "[red]✘[/]",
                "released": "[yellow]↩[/]",
            }.get(outcome.outcome, "[yellow]?[/]")
            if outcome.outcome == "released":
                what = "given back untried, as the worker is stopping"
            elif outcome.outcome == "dead":
                what = (
                    f"dead after {outcome.attempt} attempt{'s' if outcome.attempt != 1 else ''} "
                    f"(exit {outcome.exit_code}, {outcome.seconds:.2f}s)"
                )
            else:
                what = f"{outcome.outcome} (exit {outcome.exit_code}, {outcome.seconds:.2f}s)"
            error_console().print(
                f"{mark} {outcome.job_id} {outcome.topic} attempt {outcome.attempt}: {what}",
                highlight=False,
            )

    return report


def _install(handler: Any) -> dict[int, Any]:
    """Install `handler` for SIGINT and SIGTERM when on the main thread; the old handlers."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {number: signal.signal(number, handler) for number in _STOP_SIGNALS}


def _restore(previous: dict[int, Any]) -> None:
    for number, handler in previous.items():
        signal.signal(number, handler)
