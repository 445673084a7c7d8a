"""``MessageFilter`` as the conditions of one statement over ``messages`` (as ``m``)."""

from __future__ import annotations

from ..message_filter import MessageFilter

__all__ = ["filter_conditions"]


def filter_conditions(
    where: MessageFilter, *, state_column: str, time_column: str
) -> tuple[list[str], list[object]]:
    """The conditions ``where`` puts on a statement and their values, in order: ``state`` on
    ``state_column`` and the times on ``time_column`` (the message's or its event's), the rest on
    the message ``m``.
    """
    conditions: list[str] = []
    values: list[object] = []
    if where.message_ids:
        conditions.append(f"m.message_id IN ({', '.join('?' * len(where.message_ids))})")
        values += where.message_ids
    for column, value in (
        (state_column, where.state),
        ("m.url", where.url),
        ("m.url_group", where.url_group),
        ("m.flow_key", where.flow_control_key),
        ("json_extract(m.options, '$.schedule')", where.schedule),
    ):
        if value is not None:
            conditions.append(f"{column} = ?")
            values.append(value)
    if where.label is not None:
        conditions.append(
            "EXISTS (SELECT 1 FROM json_each(m.options, '$.labels') WHERE json_each.value = ?)"
        )
        values.append(where.label)
    if where.since is not None:
        conditions.append(f"{time_column} >= ?")
        values.append(where.since)
    if where.until is not None:
        conditions.append(f"{time_column} < ?")
        values.append(where.until)
    return conditions, values
