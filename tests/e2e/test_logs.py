"""The message log end to end: a real service delivering to a real endpoint logs every change
of state, and the SDK reads it back by label (both clients).
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest

import sdk
from tests.e2e._receivers import Answer, ScriptedReceiver
from tests.e2e._support import eventually
from tests.e2e.conftest import AnyClient
from tests.sdk._support import collect, resolve

pytestmark = pytest.mark.slow


async def _states(client: AnyClient, **filters: Any) -> list[str]:
    return [event.state for event in await collect(client.logs(**filters))]


async def test_a_retried_then_failed_message_logs_each_step(client: AnyClient) -> None:
    """A 500 and a 503 with one retry: created, retry, failed and dead_lettered, newest first,
    each delivery event with its attempt and status; messages.list finds it by label too.
    """
    label = f"e2e-{uuid.uuid4().hex[:8]}"
    with ScriptedReceiver(Answer(500), Answer(503)) as failing:
        receipt = await resolve(
            client.messages.publish_json(
                url=failing.url(),
                body={"n": 1},
                retries=1,
                retry_delay=timedelta(0),
                labels=[label],
            )
        )
        states = await eventually(
            lambda: _states(client, label=label),
            lambda found: found == ["dead_lettered", "failed", "retry", "created"],
        )
    assert states[0] == "dead_lettered"
    events = await collect(client.logs(message_ids=[receipt.message_id], state="retry"))
    assert [(event.attempt, event.status_code) for event in events] == [(1, 500)]
    [message] = await collect(client.messages.list(label=label, state="failed"))
    assert (message.message_id, message.labels) == (receipt.message_id, (label,))


async def test_a_delivered_message_logs_its_delivery(
    client: AnyClient,
) -> None:
    """A 200 at once: created then delivered, with the attempt's status."""
    label = f"e2e-{uuid.uuid4().hex[:8]}"
    with ScriptedReceiver(Answer(200)) as endpoint:
        await resolve(client.messages.publish_json(url=endpoint.url(), body={}, labels=[label]))
        await eventually(
            lambda: _states(client, label=label),
            lambda found: found == ["delivered", "created"],
        )
    [delivered] = await collect(client.logs(label=label, state="delivered"))
    assert isinstance(delivered, sdk.LogEvent)
    assert (delivered.attempt, delivered.status_code, delivered.labels) == (1, 200, (label,))
