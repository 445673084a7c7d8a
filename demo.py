"""A short tour of Spool's SDK: `make demo`, or `python demo.py` in the virtual environment.

Everything runs on this machine: `sdk.Client.embedded()` starts the reference service in a child
process (SQLite in a temporary directory, removed at the end), and the HTTP message goes to a small
endpoint the demo serves on 127.0.0.1. The tour takes a few seconds and exits 0.
"""

from __future__ import annotations

import json
import logging
import queue
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import sdk

DELIVERY_WAIT_SECONDS = 15.0


def say(text: str = "") -> None:
    """One line of the tour."""
    print(text, flush=True)


def streams(client: sdk.Client) -> None:
    """Publish to a capped stream and show that the cap holds."""
    say("1. Streams: capped, append-only logs")
    signups = sdk.Stream("signups", maxlen=5)
    for user in range(12):
        entry_id = client.publish(signups, {"type": "signup", "user": user}, approximate=False)
    say(f"   published 12 signups to {signups.name!r} (maxlen=5, exact); last id {entry_id}")
    say(f"   stream length: {client.streams.length(signups)}")
    kept = [entry.body["user"] for entry in client.streams.range(signups)]
    say(f"   the cap kept the newest users: {kept}")
    say()


def queues(client: sdk.Client) -> None:
    """Create a queue, publish jobs to it, and let a worker consume them."""
    say("2. Queues: created first, then jobs, consumed at least once")
    try:
        client.init_queue("emails")
    except sdk.NotFoundError as error:
        say(f"   init_queue('emails') before creating it: NotFoundError ({error.code})")
    client.queues.create("emails", max_attempts=3)
    emails = client.init_queue("emails")
    for user in ("ada", "grace", "linus"):
        receipt = emails.publish("welcome", {"user": user})
        say(f"   published job {receipt.job_id} for {user}")

    @emails.subscribe("welcome")
    def send_welcome(job: dict[str, Any]) -> None:
        say(f"   worker: sending the welcome email to {job['user']}")

    client.run(max_messages=3, stop_after=30)
    stats = emails.info().stats
    say(f"   left in the queue: {stats.ready} ready, {stats.leased} leased, {stats.dead} dead")
    say()


@dataclass(frozen=True)
class Delivery:
    """What the local endpoint received, and whether its signature verified."""

    path: str
    body: bytes
    message_id: str
    verdict: str


@contextmanager
def local_endpoint(receiver: sdk.Receiver) -> Iterator[tuple[str, queue.Queue[Delivery]]]:
    """Serve http://127.0.0.1:<port>/hooks/signup, verifying every request's Spool-Signature."""
    deliveries: queue.Queue[Delivery] = queue.Queue()

    class Hook(BaseHTTPRequestHandler):
        """Verifies a delivery and answers 200, or 401 when the signature does not verify."""

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            # The URL the message was sent to, which the signature also covers.
            url = f"http://{self.headers.get('Host')}{self.path}"
            try:
                receiver.verify(self.headers.get("Spool-Signature", ""), body, url=url)
                verdict, status = "signature verified", 200
            except sdk.SignatureError as error:
                verdict, status = f"signature refused: {error.reason}", 401
            message_id = self.headers.get("Spool-Message-Id", "")
            deliveries.put(Delivery(self.path, body, message_id, verdict))
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            """The tour prints its own lines."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hooks/signup", deliveries
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def messages(client: sdk.Client) -> None:
    """Publish an HTTP message to a local endpoint and show the verified delivery."""
    say("3. Messages: HTTP delivery, signed, retried, recorded")
    keys = client.messages.signing_keys()
    receiver = sdk.Receiver(current_signing_key=keys.current, next_signing_key=keys.next)
    with local_endpoint(receiver) as (url, deliveries):
        receipt = client.messages.publish_json(url=url, body={"hello": "world"}, retries=3)
        say(f"   published message {receipt.message_id} to {url}")
        try:
            delivery = deliveries.get(timeout=DELIVERY_WAIT_SECONDS)
        except queue.Empty:
            message = client.messages.get(receipt.message_id)
            say(
                f"   no delivery within {DELIVERY_WAIT_SECONDS:g} s; the message is {message.state}"
            )
            say()
            return
        say(f"   endpoint: got {json.loads(delivery.body)} at {delivery.path}: {delivery.verdict}")
        message = _settled(client, receipt.message_id)
    statuses = [attempt.status_code for attempt in message.attempts]
    say(f"   the service recorded: {message.state}, attempts answered {statuses}")
    say()


def _settled(client: sdk.Client, message_id: str) -> sdk.Message:
    # The endpoint answered before the service wrote the attempt down: give it a moment.
    deadline = time.monotonic() + DELIVERY_WAIT_SECONDS
    message = client.messages.get(message_id)
    while message.state in ("scheduled", "delivering") and time.monotonic() < deadline:
        time.sleep(0.1)
        message = client.messages.get(message_id)
    return message


def outage() -> None:
    """Show a publish to a service that is not running: PublishError with its cause."""
    say("4. Failures: every publish path raises PublishError, with the cause chained")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with sdk.Client(f"http://127.0.0.1:{port}", api_key="demo-token", max_retries=1) as offline:
        try:
            offline.publish("signups", {"type": "signup"})
        except sdk.PublishError as error:
            say(f"   PublishError: {error}")
            say(f"   __cause__: {type(error.__cause__).__name__}")


def main() -> None:
    """Run the tour."""
    logging.basicConfig(stream=sys.stdout, format="   log: %(message)s")
    # The SDK logs its retries at INFO: show them, they are part of the story.
    logging.getLogger("spool").setLevel(logging.INFO)
    say("Starting the embedded Spool service (SQLite, in a child process)...")
    with sdk.Client.embedded() as client:
        health = client.health()
        say(f"Ready: {client!r}, store {health.store}, version {health.version}")
        say()
        streams(client)
        queues(client)
        messages(client)
    say("Stopped the embedded service.")
    say()
    outage()
    say()
    say("Done. Next: `make test`, and the SDK section of README.md.")


if __name__ == "__main__":
    main()
