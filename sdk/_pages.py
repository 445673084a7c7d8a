"""Listings the API answers a page at a time, iterated item by item: the pages are fetched as
the iterator reaches them, each from the cursor the one before answered.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Generic, NamedTuple, TypeVar

if TYPE_CHECKING:
    from ._http import Call

__all__ = ["Page", "aiterate_pages", "iterate_pages"]

T = TypeVar("T")


class Page(NamedTuple, Generic[T]):
    """A page's items and the cursor of the next page (None after the last)."""

    items: list[T]
    next_cursor: str | None


def iterate_pages(
    send: Callable[[Call[Page[T]]], Page[T]], page: Callable[[str | None], Call[Page[T]]]
) -> Iterator[T]:
    """Every item of a listing: ``page(cursor)`` builds each page's call (the first one now, so
    bad arguments raise here) and ``send`` sends it when the iterator reaches that page.

    Raises:
        InvalidArgumentError: what ``page(None)`` raises for bad arguments, from this call;
            iterating raises what ``send`` raises.
    """
    return _items(send, page, page(None))


def _items(
    send: Callable[[Call[Page[T]]], Page[T]],
    page: Callable[[str | None], Call[Page[T]]],
    call: Call[Page[T]],
) -> Iterator[T]:
    while True:
        items, cursor = send(call)
        yield from items
        if cursor is None:
            return
        call = page(cursor)


def aiterate_pages(
    send: Callable[[Call[Page[T]]], Awaitable[Page[T]]],
    page: Callable[[str | None], Call[Page[T]]],
) -> AsyncIterator[T]:
    """`iterate_pages` for an async transport: every item, each page awaited when reached.

    Raises:
        InvalidArgumentError: what ``page(None)`` raises for bad arguments, from this call;
            iterating raises what ``send`` raises.
    """
    return _async_items(send, page, page(None))


async def _async_items(
    send: Callable[[Call[Page[T]]], Awaitable[Page[T]]],
    page: Callable[[str | None], Call[Page[T]]],
    call: Call[Page[T]],
) -> AsyncIterator[T]:
    while True:
        items, cursor = await send(call)
        for item in items:
            yield item
        if cursor is None:
            return
        call = page(cursor)
