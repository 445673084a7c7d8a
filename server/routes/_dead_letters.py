"""Dead letters in bulk: what retryDeadLetters and deleteDeadLetters (and the console's bulk
actions) do with a selection of ids, a filter or all, one bounded page per request.

The page is read first and filtered by the token's permission, then the letters it may act on
are retried or deleted in one store call that is atomic per letter: one that another request took
meanwhile is passed over, so a letter is never retried twice and never lost.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Literal

from generated.pydantic_models import DeadLetterFilter as FilterModel

from ..stores.base import DeadLetterFilter, DeadLetterRecord, Store
from ._operations import Access

__all__ = [
    "DeadLetterBulk",
    "DeadLetterSelection",
    "act_on_dead_letters",
    "dead_letter_filter",
    "may_act_on",
]

Action = Literal["retry", "delete"]
_DONE: dict[Action, str] = {"retry": "retried", "delete": "deleted"}


@dataclasses.dataclass(frozen=True, slots=True)
class DeadLetterSelection:
    """The dead letters one bulk request acts on: those named by ``ids``, or else one page of
    ``limit`` of those ``matching`` after ``cursor``.
    """

    ids: list[str] | None = None
    matching: DeadLetterFilter = DeadLetterFilter()
    limit: int = 100
    cursor: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class DeadLetterBulk:
    """What one bulk request did: the ids acted on (oldest letter first, or as named), where the
    next request goes on, and for named ids what became of each (``(message_id, outcome)``).
    """

    acted: list[str]
    next_cursor: str | None
    results: list[tuple[str, str]] | None = None


def dead_letter_filter(model: FilterModel | None) -> DeadLetterFilter:
    """The store's filter of the request's ``filter`` (None: every dead letter). The one place
    that maps the API's filter to the store's, so a field added to both is read here.
    """
    if model is None:
        return DeadLetterFilter()
    return DeadLetterFilter(
        url=model.url,
        url_group=None if model.url_group is None else model.url_group.root,
        label=None if model.label is None else model.label.root,
        schedule=None if model.schedule is None else model.schedule.root,
        flow_control_key=None if model.flow_control_key is None else model.flow_control_key.root,
        filed_from=None if model.from_ is None else model.from_.timestamp(),
        filed_to=None if model.to is None else model.to.timestamp(),
    )


def may_act_on(access: Access, letter: DeadLetterRecord) -> bool:
    """Whether the stated permission holds on the letter's URL or its URL group."""
    names = [letter.url] if letter.url_group is None else [letter.url, letter.url_group]
    return any(access.covers(name) for name in names)


async def act_on_dead_letters(
    store: Store,
    access: Access,
    action: Action,
    chosen: DeadLetterSelection,
    *,
    headers: Mapping[str, str] | None = None,
) -> DeadLetterBulk:
    """Retry (with ``headers`` set) or delete the ``chosen`` dead letters that ``access``
    covers.
    """
    if chosen.ids is not None:
        named = list(dict.fromkeys(chosen.ids))
        found = await store.find_dead_letters(named)
        allowed = {letter.message_id for letter in found if may_act_on(access, letter)}
        denied = {letter.message_id for letter in found} - allowed
        acted = await _act(store, action, [i for i in named if i in allowed], headers)
        done = set(acted)
        results = [
            (
                message_id,
                _DONE[action]
                if message_id in done
                else "permission_denied"
                if message_id in denied
                else "not_found",
            )
            for message_id in named
        ]
        return DeadLetterBulk(acted=acted, next_cursor=None, results=results)
    page = await store.list_dead_letters(
        limit=chosen.limit, selection=chosen.matching, cursor=chosen.cursor
    )
    allowed_ids = [letter.message_id for letter in page.dead_letters if may_act_on(access, letter)]
    acted = await _act(store, action, allowed_ids, headers)
    return DeadLetterBulk(acted=acted, next_cursor=page.next_cursor)


async def _act(
    store: Store, action: Action, message_ids: list[str], headers: Mapping[str, str] | None
) -> list[str]:
    if action == "retry":
        return await store.retry_dead_letters(message_ids, headers=headers)
    return await store.delete_dead_letters(message_ids)
