"""The generated endpoint modules the facade calls, by operation: `_endpoints.append_entry` is
`generated.api.streams.append_entry`.

mypy reads the imports below, so every call the facade makes is checked against the generated
function's arguments and its success model (see `_http.make_call`). At run time nothing is
imported until the facade first asks for an operation, so `import sdk` stays cheap; the module
is then kept here, and every later call finds it with one attribute lookup.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generated.api.messages import (
        cancel_message,
        delete_dead_letter,
        delete_dead_letters,
        delete_schedule,
        delete_url_group,
        get_flow_control,
        get_message,
        get_schedule,
        get_signing_keys,
        get_url_group,
        list_dead_letters,
        list_flow_control_keys,
        list_logs,
        list_messages,
        list_schedules,
        list_url_groups,
        pause_flow_control,
        pause_schedule,
        publish_message,
        publish_messages,
        put_schedule,
        put_url_group,
        reset_flow_control,
        resume_flow_control,
        resume_schedule,
        retry_dead_letter,
        retry_dead_letters,
    )
    from generated.api.queues import (
        ack_job,
        ack_jobs,
        delete_job,
        delete_queue,
        extend_lease,
        get_job,
        get_queue,
        lease_jobs,
        list_jobs,
        list_queues,
        nack_job,
        publish_job,
        publish_jobs,
        put_queue,
        release_job,
        release_jobs,
        retry_job,
    )
    from generated.api.streams import (
        ack_entries,
        append_entries,
        append_entry,
        claim_entries,
        create_group,
        delete_group,
        delete_stream,
        get_stream,
        list_pending,
        list_streams,
        range_entries,
        read_group,
        trim_stream,
    )
    from generated.api.system import get_health, get_token

__all__ = [
    "ack_entries",
    "ack_job",
    "ack_jobs",
    "append_entries",
    "append_entry",
    "cancel_message",
    "claim_entries",
    "create_group",
    "delete_dead_letter",
    "delete_dead_letters",
    "delete_group",
    "delete_job",
    "delete_queue",
    "delete_schedule",
    "delete_stream",
    "delete_url_group",
    "extend_lease",
    "get_flow_control",
    "get_health",
    "get_job",
    "get_message",
    "get_queue",
    "get_schedule",
    "get_signing_keys",
    "get_stream",
    "get_token",
    "get_url_group",
    "lease_jobs",
    "list_dead_letters",
    "list_flow_control_keys",
    "list_jobs",
    "list_logs",
    "list_messages",
    "list_pending",
    "list_queues",
    "list_schedules",
    "list_streams",
    "list_url_groups",
    "nack_job",
    "pause_flow_control",
    "pause_schedule",
    "publish_job",
    "publish_jobs",
    "publish_message",
    "publish_messages",
    "put_queue",
    "put_schedule",
    "put_url_group",
    "range_entries",
    "read_group",
    "release_job",
    "release_jobs",
    "reset_flow_control",
    "resume_flow_control",
    "resume_schedule",
    "retry_dead_letter",
    "retry_dead_letters",
    "retry_job",
    "trim_stream",
]

# The spec's tags: openapi-python-client writes operation `x` of tag `t` to generated/api/t/x.py,
# and operation ids are unique across tags.
_TAGS = ("messages", "queues", "streams", "system")


def __getattr__(name: str) -> object:
    # `object` rather than ModuleType, whose attributes are Any: an operation used but missing
    # from the imports above fails type checking instead of going unchecked.
    if name in __all__:
        for tag in _TAGS:
            qualified = f"generated.api.{tag}.{name}"
            if importlib.util.find_spec(qualified) is not None:
                module = importlib.import_module(qualified)
                globals()[name] = module
                return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
