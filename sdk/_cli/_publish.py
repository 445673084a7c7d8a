"""`spool publish`: one body to a stream, a queue or a URL; or a JSON lines file in batches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

import sdk

from ._bulk import load
from ._context import State, common_options, pass_state
from ._errors import CliError, ExitCode
from ._output import print_json, print_table
from ._parsing import DURATION, json_body, parse_headers, read_body
from ._targets import MessageTarget, QueueTarget, StreamTarget, Target

__all__ = ["publish"]

_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
# Which options each kind of target takes; the others are refused rather than ignored.
_ANY = frozenset({"idempotency_key", "source", "batch_size", "strict"})
_FOR_STREAM = _ANY | {"maxlen", "exact", "minid", "no_create"}
_FOR_QUEUE = _ANY | {"queue", "topic", "delay", "deduplication_id"}
_FOR_MESSAGE = _ANY | {
    "labels",
    "url",
    "url_group",
    "delay",
    "not_before",
    "headers",
    "method",
    "content_type",
    "raw",
    "retries",
    "retry_delay",
    "callback",
    "callback_headers",
    "failure_callback",
    "failure_callback_headers",
    "message_timeout",
    "deduplication_id",
    "content_based_deduplication",
    "flow_control",
    "rate",
    "period",
    "parallelism",
    "redact_body",
    "redact_headers",
    "signature_scheme",
}


@click.command(epilog="Prints the entry id, the job's receipt or the message id.")
@click.argument("arguments", nargs=-1, metavar="[STREAM] [BODY|-]")
@click.option("--maxlen", type=click.IntRange(min=0), help="Cap the stream (approximately).")
@click.option("--exact", is_flag=True, help="Trim to exactly --maxlen entries.")
@click.option("--minid", metavar="ID", help="Trim entries with ids below ID.")
@click.option("--no-create", is_flag=True, help="Refuse a stream that does not exist yet.")
@click.option("--queue", metavar="QUEUE", help="Publish a job to this queue (needs --topic).")
@click.option("--topic", metavar="TOPIC", help="The job's topic.")
@click.option("--url", metavar="URL", help="Publish an HTTP message to this URL.")
@click.option("--url-group", metavar="GROUP", help="Publish a message to every URL of a group.")
@click.option("--delay", type=DURATION, help="Deliver (or make the job ready) later: 30, 5m.")
@click.option("--not-before", type=float, metavar="UNIX", help="Deliver at this Unix time.")
@click.option(
    "-H", "--header", "headers", multiple=True, metavar="'K: V'", help="A header to forward."
)
@click.option("--method", type=click.Choice(_METHODS), help="The HTTP method [default: POST].")
@click.option("--content-type", metavar="TYPE", help="The body's content type.")
@click.option("--raw", is_flag=True, help="Send the message body as text, not JSON.")
@click.option(
    "--retries", type=click.IntRange(0, 20), help="Attempts after the first [default: 3]."
)
@click.option(
    "--retry-delay",
    metavar="EXPR",
    help="Milliseconds before retry `retried`: '1000 * pow(2, retried)'.",
)
@click.option("--callback", metavar="URL", help="Where the outcome of a delivery is posted.")
@click.option(
    "--callback-header",
    "callback_headers",
    multiple=True,
    metavar="'K: V'",
    help="A header to send with the callback.",
)
@click.option("--failure-callback", metavar="URL", help="Where the last failure is posted.")
@click.option(
    "--failure-callback-header",
    "failure_callback_headers",
    multiple=True,
    metavar="'K: V'",
    help="A header to send with the failure callback.",
)
@click.option("--timeout", "message_timeout", type=DURATION, help="Per-attempt timeout: 30s.")
@click.option(
    "--deduplication-id",
    metavar="ID",
    help="Publish once per ID (10 minutes; for jobs, the queue's window).",
)
@click.option("--content-based-deduplication", is_flag=True, help="Deduplicate identical messages.")
@click.option(
    "--flow-control", metavar="KEY", help="Share --rate and --parallelism limits under KEY."
)
@click.option(
    "--rate", type=click.IntRange(min=1), help="With --flow-control: attempts per period."
)
@click.option(
    "--period", type=DURATION, help="With --flow-control: the rate's period [default: 1s]."
)
@click.option(
    "--parallelism", type=click.IntRange(min=1), help="With --flow-control: attempts in flight."
)
@click.option("--redact-body", is_flag=True, help="Deliver the body but never show it.")
@click.option(
    "--redact-header",
    "redact_headers",
    multiple=True,
    metavar="NAME",
    help="Deliver this header but never show its value.",
)
@click.option(
    "--label",
    "labels",
    multiple=True,
    metavar="L",
    help="A label to find the message by (repeat for several).",
)
@click.option("--idempotency-key", metavar="KEY", help="Makes this publish safe to repeat.")
@click.option(
    "--from",
    "source",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Publish every line of a JSON lines file, in batches.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(1, 1000),
    default=100,
    show_default=True,
    help="Lines per batch with --from.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="With --from: check every line first; publish nothing if one is bad.",
)
@click.option(
    "--signature-scheme",
    type=click.Choice(["spool", "standard_webhooks"]),
    help="How deliveries are signed [default: spool].",
)
@common_options
@pass_state
def publish(state: State, /, arguments: tuple[str, ...], **options: Any) -> None:
    """Publish to a stream, a queue or a URL.

    A JSON body to STREAM, a job to --queue, or an HTTP message to --url or --url-group.

    BODY is JSON; `-` reads it from standard input.

    \b
    Examples:
      spool publish events '{"type": "signup", "user": 42}' --maxlen 1000
      echo '{"user": 42}' | spool publish --queue jobs --topic email -
      spool publish --url https://example.com/hook -H 'X-Tenant: acme' --delay 5m --retries 3 '{}'
      spool publish events --from signups.jsonl --batch-size 500
    """
    target, rest = _target(arguments, options)
    _refuse_foreign_options(target, options)
    source: Path | None = options["source"]
    if source is not None:
        if rest:
            raise CliError("--from takes no BODY: every line is one", code=ExitCode.USAGE)
        if options["deduplication_id"] or options["idempotency_key"]:
            raise CliError(
                "--from derives an idempotency key per batch and cannot share one "
                "deduplication id: leave out --deduplication-id and --idempotency-key",
                code=ExitCode.USAGE,
            )
        load(
            state,
            source,
            target,
            batch_size=options["batch_size"],
            strict=options["strict"],
        )
        return
    if len(rest) != 1:
        raise CliError("give one BODY (JSON, or - for standard input)", code=ExitCode.USAGE)
    text = read_body(rest[0])
    raw = isinstance(target, MessageTarget) and target.raw
    body = text if raw else json_body(text)
    result = target.publish_one(state.client(), body, idempotency_key=options["idempotency_key"])
    _print_result(state, target, result)


def _target(arguments: tuple[str, ...], options: dict[str, Any]) -> tuple[Target, list[str]]:
    """The target the options name, and the positional arguments left for the body."""
    rest = list(arguments)
    queue, url, url_group = options["queue"], options["url"], options["url_group"]
    if sum(value is not None for value in (queue, url, url_group)) > 1:
        raise CliError("give at most one of --queue, --url and --url-group", code=ExitCode.USAGE)
    if queue is not None:
        if options["topic"] is None:
            raise CliError("--queue needs --topic", code=ExitCode.USAGE)
        return (
            QueueTarget(
                queue,
                options["topic"],
                delay=options["delay"],
                deduplication_id=options["deduplication_id"],
            ),
            rest,
        )
    if url is not None or url_group is not None:
        return MessageTarget(url, url_group, _message_options(options), raw=options["raw"]), rest
    if not rest:
        raise CliError(
            "name a STREAM, or --queue, --url or --url-group (see spool publish --help)",
            code=ExitCode.USAGE,
        )
    return (
        StreamTarget(
            rest.pop(0),
            maxlen=options["maxlen"],
            approximate=not options["exact"],
            minid=options["minid"],
            nomkstream=options["no_create"],
        ),
        rest,
    )


def _refuse_foreign_options(target: Target, options: dict[str, Any]) -> None:
    allowed = (
        _FOR_STREAM
        if isinstance(target, StreamTarget)
        else _FOR_QUEUE
        if isinstance(target, QueueTarget)
        else _FOR_MESSAGE
    )
    for option, value in options.items():
        if option not in allowed and value not in (None, False, ()):
            flag = "--timeout" if option == "message_timeout" else f"--{option.replace('_', '-')}"
            raise CliError(
                f"{flag} does not apply to a {target.describe().split()[0]}", code=ExitCode.USAGE
            )


def _message_options(options: dict[str, Any]) -> dict[str, Any]:
    """What `messages.publish_json` takes, from the options given (None for the others)."""
    chosen = {
        "content_type": options["content_type"],
        "method": options["method"],
        "headers": parse_headers(options["headers"]),
        "delay": options["delay"],
        "not_before": options["not_before"],
        "retries": options["retries"],
        "retry_delay": options["retry_delay"],
        "callback": options["callback"],
        "callback_headers": parse_headers(options["callback_headers"]),
        "failure_callback": options["failure_callback"],
        "failure_callback_headers": parse_headers(options["failure_callback_headers"]),
        "timeout": options["message_timeout"],
        "deduplication_id": options["deduplication_id"],
        "content_based_deduplication": options["content_based_deduplication"],
        "flow_control": _flow_control(options),
        "redact": _redact(options),
        "signature_scheme": options["signature_scheme"],
        "labels": list(options["labels"]) or None,
    }
    return {name: value for name, value in chosen.items() if value is not None}


def _flow_control(options: dict[str, Any]) -> sdk.FlowControl | None:
    limits = {name: options[name] for name in ("rate", "period", "parallelism")}
    if options["flow_control"] is None:
        given = [name for name, value in limits.items() if value is not None]
        if given:
            raise CliError(f"--{given[0]} needs --flow-control KEY", code=ExitCode.USAGE)
        return None
    if limits["rate"] is None and limits["parallelism"] is None:
        raise CliError("--flow-control needs --rate or --parallelism", code=ExitCode.USAGE)
    return sdk.FlowControl(options["flow_control"], **limits)


def _redact(options: dict[str, Any]) -> sdk.Redact | None:
    if not options["redact_body"] and not options["redact_headers"]:
        return None
    return sdk.Redact(body=options["redact_body"], headers=tuple(options["redact_headers"]))


def _print_result(state: State, target: Target, result: Any) -> None:
    if isinstance(target, StreamTarget):
        if state.as_json:
            print_json({"id": result, "stream": target.stream})
        else:
            click.echo(result)
        return
    if state.as_json:
        print_json(result)
        return
    if isinstance(target, QueueTarget):
        note = " (deduplicated)" if result.deduplicated else ""
        click.echo(f"{result.job_id}{note}")
        return
    receipts = result if isinstance(result, list) else [result]
    if target.url is not None:
        note = " (deduplicated)" if receipts[0].deduplicated else ""
        click.echo(f"{receipts[0].message_id}{note}")
        return
    print_table(
        ("message id", "url", "deduplicated"),
        ((r.message_id, r.url, r.deduplicated) for r in receipts),
    )
