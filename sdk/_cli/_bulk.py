"""`spool publish --from FILE.jsonl`: a resumable bulk load in batches, with a progress bar.

Lines are cut into fixed windows of `--batch-size` line numbers, and each window's valid lines
go out as one batch whose Idempotency-Key is made of the file's content digest, the target and
the window's line numbers. Running the same load again (after a crash, a Ctrl-C, a lost
connection) sends the same keys: the service answers the batches it already took from its
idempotency records and writes nothing twice, for 24 hours. Another file, or the same one
changed, makes new keys. The summary tells the batches written by this run from those replayed
(`Idempotent-Replayed: true`): written before, by a run that stopped.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)

import sdk

from ._context import State
from ._errors import CliError, ExitCode, exit_code_for
from ._output import error_console, print_json, print_table
from ._targets import MessageTarget, Target

__all__ = ["LoadSummary", "batch_key", "load"]

_CHUNK = 1 << 20
# Why a publish fails for what its batch holds (a body the service refuses, or that cannot be
# encoded): nothing of that batch was written, and the next batch may well go through.
_BATCH_REFUSALS = (
    sdk.BadRequestError,
    sdk.PayloadTooLargeError,
    sdk.UnprocessableEntityError,
    sdk.ConflictError,
    ValueError,
)


@dataclasses.dataclass
class LoadSummary:
    """What a load did: lines published (written now, or replayed: written by an earlier run of
    the same load) and failed, why, and how fast.
    """

    file: str
    target: str
    lines: int = 0
    published: int = 0
    written: int = 0
    replayed: int = 0
    failed: int = 0
    seconds: float = 0.0
    bad_lines: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    failed_batches: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    @property
    def per_second(self) -> float:
        """Lines published per second of the load."""
        return self.published / self.seconds if self.seconds > 0 else 0.0


def _digest_and_count(path: Path) -> tuple[str, int]:
    """The file's SHA-256 and its number of lines, in one pass."""
    digest = hashlib.sha256()
    lines = 0
    last = b"\n"
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return digest.hexdigest(), lines + (last != b"\n")


def batch_key(file_digest: str, target: Target, first: int, last: int) -> str:
    """The Idempotency-Key of the batch of lines `first` to `last` of a file into `target`."""
    where = hashlib.sha256(target.describe().encode()).hexdigest()[:16]
    return f"spool-load:{file_digest[:32]}:{where}:{first}-{last}"


def _windows(
    path: Path, size: int, *, raw: bool
) -> Iterator[tuple[int, int, list[Any], list[tuple[int, str]]]]:
    """Per window of `size` line numbers: first and last line, valid bodies, bad lines."""
    bodies: list[Any] = []
    bad: list[tuple[int, str]] = []
    first = 1
    number = 0
    with path.open("rb") as file:
        for number, line in enumerate(file, start=1):
            text = line.rstrip(b"\r\n")
            if text.strip():
                try:
                    decoded = text.decode("utf-8")
                    bodies.append(decoded if raw else json.loads(decoded))
                except ValueError as error:
                    bad.append((number, str(error)))
            if number - first + 1 == size:
                yield first, number, bodies, bad
                bodies, bad, first = [], [], number + 1
    if number >= first:
        yield first, number, bodies, bad


def load(state: State, path: Path, target: Target, *, batch_size: int, strict: bool) -> None:
    """Publish every line of `path` to `target`, print the summary, and fail if any line did."""
    client = state.client()
    raw = isinstance(target, MessageTarget) and target.raw
    try:
        digest, total = _digest_and_count(path)
    except KeyboardInterrupt:
        raise CliError(
            "interrupted while reading the file, before anything was published",
            code=ExitCode.INTERRUPTED,
        ) from None
    summary = LoadSummary(file=str(path), target=target.describe(), lines=total)
    if strict:
        for _, _, _, bad in _windows(path, batch_size, raw=raw):
            summary.bad_lines += [{"line": n, "error": e} for n, e in bad]
        if summary.bad_lines:
            summary.failed = len(summary.bad_lines)
            _report(state, summary)
            raise CliError(
                f"--strict: {summary.failed} bad line(s), nothing was published",
                code=ExitCode.FAILED,
            )
    started = time.monotonic()
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}/s"),
        TimeElapsedColumn(),
        console=error_console(),
        disable=state.as_json,
    )
    stopped: BaseException | None = None
    try:
        with progress:
            task = progress.add_task(f"{path.name} → {target.describe()}", total=total, rate="0")
            for first, last, bodies, bad in _windows(path, batch_size, raw=raw):
                summary.bad_lines += [{"line": n, "error": e} for n, e in bad]
                summary.failed += len(bad)
                if bodies:
                    key = batch_key(digest, target, first, last)
                    try:
                        target.publish_batch(client, bodies, idempotency_key=key)
                    except (sdk.SpoolError, ValueError) as error:
                        cause = _cause(error)
                        refused = isinstance(error, sdk.PublishError) and isinstance(
                            cause, _BATCH_REFUSALS
                        )
                        if not refused or strict:
                            # Unreachable or not allowed: the batches sent stay, and running
                            # the load again resumes here.
                            stopped = error
                            break
                        summary.failed += len(bodies)
                        summary.failed_batches.append(
                            {"lines": f"{first}-{last}", "count": len(bodies), "error": str(cause)}
                        )
                    else:
                        summary.published += len(bodies)
                        if state.replayed(key):
                            summary.replayed += len(bodies)
                        else:
                            summary.written += len(bodies)
                elapsed = max(time.monotonic() - started, 1e-9)
                progress.update(task, completed=last, rate=f"{summary.published / elapsed:,.0f}")
    except KeyboardInterrupt as interrupt:
        # Anywhere in the loop, a request in flight included: what the service answered stays
        # counted, and a batch sent but not answered is replayed, not written again, on a rerun.
        stopped = interrupt
    summary.seconds = time.monotonic() - started
    _report(state, summary)
    if stopped is not None:
        cause = _cause(stopped)
        interrupted = isinstance(stopped, KeyboardInterrupt)
        done = (
            f"{summary.published} of {summary.lines} line(s) published "
            f"({summary.written} written, {summary.replayed} replayed)"
        )
        raise CliError(
            f"{'interrupted' if interrupted else cause}: {done}; "
            "run the same command again to resume: the batches already published are "
            "replayed, not written twice",
            code=ExitCode.INTERRUPTED if interrupted else exit_code_for(cause),
        ) from stopped
    if summary.failed:
        raise CliError(f"{summary.failed} line(s) were not published", code=ExitCode.FAILED)


def _cause(error: BaseException) -> BaseException:
    return error.__cause__ if isinstance(error, sdk.PublishError) and error.__cause__ else error


def _report(state: State, summary: LoadSummary) -> None:
    if state.as_json:
        print_json({**dataclasses.asdict(summary), "per_second": round(summary.per_second, 1)})
        return
    console = error_console()
    for bad in summary.bad_lines:
        console.print(f"line {bad['line']}: {bad['error']}", style="yellow", markup=False)
    for batch in summary.failed_batches:
        console.print(
            f"lines {batch['lines']} ({batch['count']}) refused: {batch['error']}",
            style="red",
            markup=False,
        )
    print_table(
        ("file", "target", "published", "written", "replayed", "failed", "seconds", "per second"),
        [
            (
                summary.file,
                summary.target,
                summary.published,
                summary.written,
                summary.replayed,
                summary.failed,
                f"{summary.seconds:.2f}",
                f"{summary.per_second:,.0f}",
            )
        ],
    )
