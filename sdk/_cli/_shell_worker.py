"""The engine of `spool work`: lease jobs, run a command per job, ack or give back.

Each of `concurrency` threads leases one job at a time, so a job is never held by a worker that
is busy with another. A command gets the job's payload as JSON on stdin and the job's details
in `SPOOL_JOB_ID`, `SPOOL_QUEUE`, `SPOOL_TOPIC`, `SPOOL_ATTEMPT`, `SPOOL_PUBLISHED_AT` and
`SPOOL_LEASE_EXPIRES_AT`; exit status 0 acknowledges the job, anything else gives it back with
the end of the command's stderr as its error (on its last attempt the job is then dead). While a
command runs its lease is extended every half lease, so a long job is not handed to another
worker. A job whose lease arrives after a stop is released untried, its attempt uncounted.

The SDK's `run()` hands handlers the payload alone; this needs the job's id and attempt, so it
drives `lease`, `ack`, `nack`, `release` and `extend` itself.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import IO, Any

import sdk

__all__ = ["Outcome", "ShellWorker"]

# How long one lease request waits for a job: also how quickly a stop is noticed.
_LEASE_WAIT_SECONDS = 1
# The end of a failed command's stderr kept as the job's error (the API keeps 2000 characters).
_STDERR_TAIL = 1500
# How long a command given SIGTERM on a forced stop has before it is killed.
_TERMINATE_GRACE_SECONDS = 5.0
_CHECK_SECONDS = 0.05


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one job: acked, nacked (given back, to be retried), dead (given back on
    its last attempt: moved to the dead jobs), released (leased as the worker stopped and given
    back untried, its attempt uncounted), or its lease lost meanwhile.
    """

    job_id: str
    queue: str
    topic: str
    attempt: int
    exit_code: int | None
    seconds: float
    outcome: str
    error: str | None = None


@dataclasses.dataclass
class _Budget:
    """How many jobs may still be leased (`--max-jobs`), shared by the threads."""

    left: int | None
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def take(self) -> bool:
        with self.lock:
            if self.left is None:
                return True
            if self.left <= 0:
                return False
            self.left -= 1
            return True

    def give_back(self) -> None:
        with self.lock:
            if self.left is not None:
                self.left += 1


class ShellWorker:
    """Runs `command` for every job of `queue` (of `topics`) on `concurrency` threads."""

    def __init__(
        self,
        queue: sdk.Queue,
        command: Sequence[str],
        *,
        topics: Sequence[str],
        concurrency: int,
        lease: timedelta,
        retry_delay: Any,
        consumer: str,
        burst: bool,
        max_jobs: int | None,
        command_stdout: int | None,
        report: Callable[[Outcome], None],
    ) -> None:
        self._queue = queue
        self._command = list(command)
        self._topics = list(topics)
        self._concurrency = concurrency
        self._lease = lease
        self._retry_delay = retry_delay
        self._consumer = consumer
        self._burst = burst
        self._budget = _Budget(max_jobs)
        self._command_stdout = command_stdout
        self._report = report
        self._lock = threading.Lock()
        self._running = 0
        self._errors: list[BaseException] = []
        self.stopping = threading.Event()
        self.aborting = threading.Event()

    @property
    def running(self) -> int:
        """How many commands are running now."""
        return self._running

    def stop(self) -> None:
        """Lease nothing more; running commands finish and their jobs are settled."""
        self.stopping.set()

    def abort(self) -> None:
        """Stop now: running commands are terminated and their jobs given back."""
        self.stopping.set()
        self.aborting.set()

    def run(self) -> None:
        """Work until stopped, out of jobs in burst mode, or out of `--max-jobs`."""
        threads = [
            threading.Thread(target=self._loop, name=f"spool-work-{n}", daemon=True)
            for n in range(self._concurrency)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            # Joined in slices so the main thread keeps handling SIGINT and SIGTERM.
            while thread.is_alive():
                thread.join(0.1)
        if self._errors:
            raise self._errors[0]

    def _loop(self) -> None:
        try:
            while not self.stopping.is_set():
                if not self._budget.take():
                    return
                jobs = self._queue.lease(
                    consumer=self._consumer,
                    topics=self._topics,
                    max_jobs=1,
                    lease=self._lease,
                    wait=0 if self._burst else _LEASE_WAIT_SECONDS,
                )
                if not jobs:
                    self._budget.give_back()
                    if self._burst:
                        return
                    continue
                if self.stopping.is_set():
                    # The stop came while the lease was on its way: this job was never run.
                    self._budget.give_back()
                    self._report(self._release(jobs[0]))
                    return
                self._report(self._handle(jobs[0]))
        except BaseException as error:  # handed to the main thread, which raises it
            self._errors.append(error)
            self.abort()

    def _handle(self, job: sdk.LeasedJob) -> Outcome:
        started = time.monotonic()
        with self._lock:
            self._running += 1
        try:
            exit_code, stderr_tail = self._execute(job)
        finally:
            with self._lock:
                self._running -= 1
        seconds = round(time.monotonic() - started, 3)
        outcome = functools.partial(
            Outcome, job.job_id, job.queue, job.topic, job.attempt, exit_code, seconds
        )
        try:
            if exit_code == 0:
                self._queue.ack(job)
                return outcome("acked")
            error = _failure_text(exit_code, stderr_tail, aborted=self.aborting.is_set())
            settled = self._queue.nack(job, retry_delay=self._retry_delay, error=error)
            return outcome("dead" if settled.state == "dead" else "nacked", error)
        except sdk.ConflictError as conflict:
            # The lease ended first: the job is someone else's now, or will be delivered again.
            return outcome("lease_lost", str(conflict))

    def _release(self, job: sdk.LeasedJob) -> Outcome:
        """Give back a job leased but not run: ready again at once, its attempt uncounted."""
        outcome = functools.partial(
            Outcome, job.job_id, job.queue, job.topic, job.attempt, None, 0.0
        )
        try:
            self._queue.release(job)
        except sdk.ConflictError as conflict:
            return outcome("lease_lost", str(conflict))
        return outcome("released")

    def _execute(self, job: sdk.LeasedJob) -> tuple[int | None, str]:
        """Run the command for `job`; its exit status (None if it could not start), stderr's end."""
        environment = {
            **os.environ,
            "SPOOL_JOB_ID": job.job_id,
            "SPOOL_QUEUE": job.queue,
            "SPOOL_TOPIC": job.topic,
            "SPOOL_ATTEMPT": str(job.attempt),
            "SPOOL_PUBLISHED_AT": job.published_at.isoformat(),
            "SPOOL_LEASE_EXPIRES_AT": job.lease_expires_at.isoformat(),
        }
        try:
            process = subprocess.Popen(
                self._command,
                stdin=subprocess.PIPE,
                stdout=self._command_stdout,
                stderr=subprocess.PIPE,
                env=environment,
                # A group of its own: Ctrl-C in the terminal stops the worker gracefully, and the
                # worker decides what happens to the commands it runs.
                process_group=0,
            )
        except OSError as error:
            return None, f"could not run {self._command[0]!r}: {error}"
        assert process.stdin is not None and process.stderr is not None
        tail: collections.deque[str] = collections.deque()
        threads = [
            threading.Thread(
                target=_feed,
                args=(process.stdin, (json.dumps(job.payload) + "\n").encode()),
                daemon=True,
            ),
            threading.Thread(target=_drain, args=(process.stderr, tail), daemon=True),
        ]
        for thread in threads:
            thread.start()
        self._wait(process, job)
        for thread in threads:
            thread.join()
        return process.returncode, "".join(tail)[-_STDERR_TAIL:]

    def _wait(self, process: subprocess.Popen[bytes], job: sdk.LeasedJob) -> None:
        extend_every = self._lease.total_seconds() / 2
        next_extension = time.monotonic() + extend_every
        while process.poll() is None:
            if self.aborting.is_set():
                process.terminate()
                try:
                    process.wait(_TERMINATE_GRACE_SECONDS)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
                return
            if time.monotonic() >= next_extension:
                self._queue.extend(job, lease=self._lease)
                next_extension = time.monotonic() + extend_every
            time.sleep(_CHECK_SECONDS)


def _feed(pipe: IO[bytes], data: bytes) -> None:
    try:
        pipe.write(data)
    except BrokenPipeError:
        pass  # the command did not read its input; its exit status still decides
    finally:
        try:
            pipe.close()
        except BrokenPipeError:
            pass


def _drain(pipe: IO[bytes], tail: collections.deque[str]) -> None:
    """Forward the command's stderr to ours, keeping its end for the job's error."""
    kept = 0
    for raw in pipe:
        line = raw.decode("utf-8", errors="replace")
        sys.stderr.write(line)
        sys.stderr.flush()
        tail.append(line)
        kept += len(line)
        while kept > _STDERR_TAIL and len(tail) > 1:
            kept -= len(tail.popleft())
    pipe.close()


def _failure_text(exit_code: int | None, stderr_tail: str, *, aborted: bool) -> str:
    if exit_code is None:
        return stderr_tail
    reason = "stopped by spool work" if aborted else f"exit status {exit_code}"
    tail = stderr_tail.strip()
    return f"{reason}: {tail}" if tail else reason
