"""Cursor pagination: a page of a stored collection, or of rows computed in memory, with
signed cursors to the pages before and after it (the edge renders it as an envelope)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitelens.core import errors
from sitelens.data import pages
from sitelens.data.records import Collection
from sitelens.tokens import signing

if TYPE_CHECKING:
    from sitelens.records.inputs import ListQuery, PageQuery


@dataclass(frozen=True)
class Page:
    """One page of records as the API shows them, and what reading it cost."""

    records: list[dict[str, Any]]
    next_cursor: str | None
    prev_cursor: str | None
    params: dict[str, Any]
    cost: dict[str, int]
    entries_read: int = 0  # entries of the list the page went through, matching or not


def binding(account_id: str, collection: str, params: dict[str, Any]) -> str:
    """What a cursor is bound to: the account, the collection and every list parameter."""
    return json.dumps([account_id, collection, params], sort_keys=True, separators=(",", ":"))


def list_page(
    collection: Collection,
    account_id: str,
    query: ListQuery,
    order: str,
    show: Callable[[dict[str, Any]], dict[str, Any]],
) -> Page:
    """One page of the account's records in `query`'s order, from its cursor if any."""
    params = query.params()
    bound_to = binding(account_id, collection.name, params)
    ascending = query.sort == "asc"
    after, forward = (None, True)
    if query.cursor:
        after, forward = signing.decode_cursor(query.cursor, bound_to)
    listing = pages.Listing(
        order=order,
        # A backwards page reads the same index in the opposite direction.
        ascending=ascending if forward else not ascending,
        filters=query.filters(),
        search=query.search.lower() if query.search else None,
    )
    found = pages.page(collection, account_id, listing, after, query.per_page + 1)
    # A page whose search reached its read bounds is cut short: there is more to read.
    more = len(found.records) > query.per_page or found.stopped_at is not None
    shown = found.records[: query.per_page]
    if not forward:
        shown.reverse()
    first, last = (shown[0], shown[-1]) if shown else (None, None)
    # Going forwards there is a previous page when we came from one; backwards, a next one.
    # (An empty position is the end of the list: the page from it has nothing beyond.)
    came_from = bool(after)
    has_next = more if forward else came_from
    has_prev = came_from if forward else more

    def encoded(position: dict[str, Any], towards_next: bool) -> str:
        return signing.encode_cursor(position, towards_next, bound_to)

    def token(record: dict[str, Any] | None, towards_next: bool) -> str | None:
        if record is not None:
            return encoded(pages.position(collection, listing, record), towards_next)
        # An empty page links back from where its reading stopped, or from the list's end.
        return encoded(found.stopped_at or {}, towards_next)

    next_cursor = token(last, True) if has_next else None
    prev_cursor = token(first, False) if has_prev else None
    if found.stopped_at is not None:  # the reading goes on after the last entry it read
        if forward:
            next_cursor = encoded(found.stopped_at, True)
        else:
            prev_cursor = encoded(found.stopped_at, False)
    return Page(
        records=[show(record) for record in shown],
        next_cursor=next_cursor,
        prev_cursor=prev_cursor,
        params=params,
        cost=found.cost,
        entries_read=found.entries_read,
    )


def rows_page(
    rows: list[dict[str, Any]],
    key: Callable[[dict[str, Any]], list[Any]],
    descending: bool,
    per_page: int,
    token: str | None,
    bound_to: str,
    params: dict[str, Any],
    cost: dict[str, int],
) -> Page:
    """One page of rows computed in memory (sums, say), with the same envelope and signed
    cursors as stored lists. `key` orders the rows totally; a cursor holds the key of the
    row it continues from, so a page follows on whatever rows appear or go in between."""
    ordered = sorted(rows, key=key, reverse=descending)
    keys = [key(row) for row in ordered]
    start, end = 0, min(per_page, len(ordered))
    mark: list[Any] | None = None
    if token:
        position, forward = signing.decode_cursor(token, bound_to)
        mark = position.get("key")
        if not isinstance(mark, list):
            raise errors.Invalid.field("cursor", "The cursor is invalid.")
        try:
            before = sum(1 for k in keys if (k > mark if descending else k < mark))
            after = len(keys) - sum(1 for k in keys if (k < mark if descending else k > mark))
        except TypeError:
            raise errors.Invalid.field("cursor", "The cursor is invalid.") from None
        # Forwards the page starts after the mark; backwards it ends before it.
        if forward:
            start, end = after, min(after + per_page, len(keys))
        else:
            start, end = max(before - per_page, 0), before

    def link(position: list[Any] | None, towards_next: bool) -> str | None:
        return (
            None
            if position is None
            else signing.encode_cursor({"key": position}, towards_next, bound_to)
        )

    first = keys[start] if start < end else mark
    last = keys[end - 1] if start < end else mark
    return Page(
        records=ordered[start:end],
        next_cursor=link(last, True) if end < len(keys) else None,
        prev_cursor=link(first, False) if start > 0 else None,
        params=params,
        cost=cost,
    )


def id_page(rows: list[dict[str, Any]], account_id: str, name: str, query: PageQuery) -> Page:
    """One page of a short list held whole (`rows`, each with an `id` that orders it), with
    the envelope and signed cursors of every list; `name` binds its cursors to this list."""
    params = query.params()
    bound_to = binding(account_id, name, params)
    descending = query.sort == "desc"
    return rows_page(rows, _by_id, descending, query.per_page, query.cursor, bound_to, params, {})


def _by_id(row: dict[str, Any]) -> list[Any]:
    return [row["id"]]


EXPORT_PAGE = 100  # records read per page of an export
# An export reads at most this many entries of its list (its rows, and with a search the
# entries it looked through), well within the list functions' 10 s; past it, 422.
MAX_EXPORT_ENTRIES = 5_000
TOO_MANY = (
    "The export would read more than 5,000 entries; narrow it with filters or read the list"
    " by pages."
)


def every_record(page_at: Callable[[str | None], Page]) -> Iterator[dict[str, Any]]:
    """Every record of a list, page after page from the first (`page_at(cursor)`), for
    exports; the caller stops reading when it has enough. 422 on `format` when the list
    goes on after MAX_EXPORT_ENTRIES entries were read."""
    token: str | None = None
    read = 0
    while True:
        found = page_at(token)
        read += found.entries_read
        if found.next_cursor is not None and read >= MAX_EXPORT_ENTRIES:
            raise errors.Invalid.field("format", TOO_MANY)
        yield from found.records
        token = found.next_cursor
        if token is None:
            return
