"""Cursor pagination over a collection, in Laravel's cursor-paginator envelope."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sitelens import cursor, store
from sitelens.http import Request, Response, url_with
from sitelens.models import ListQuery


@dataclass(frozen=True)
class Page:
    records: list[dict[str, Any]]
    next_cursor: str | None
    prev_cursor: str | None
    params: dict[str, Any]
    cost: dict[str, int]

    def response(self, request: Request) -> Response:
        """The list envelope; `links` repeat every list parameter of this request."""
        path = f"{request.base_url}{request.path}"

        def link(token: str | None) -> str | None:
            return url_with(path, {**self.params, "cursor": token}) if token else None

        return Response(
            200,
            {
                "data": self.records,
                "links": {
                    "first": None,
                    "last": None,
                    "prev": link(self.prev_cursor),
                    "next": link(self.next_cursor),
                },
                "meta": {
                    "path": path,
                    "per_page": self.params["per_page"],
                    "next_cursor": self.next_cursor,
                    "prev_cursor": self.prev_cursor,
                },
                "status": 200,
            },
        )


def binding(account_id: str, collection: str, params: dict[str, Any]) -> str:
    """What a cursor is bound to: the account, the collection and every list parameter."""
    return json.dumps([account_id, collection, params], sort_keys=True, separators=(",", ":"))


def list_page(
    collection: store.Collection,
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
        after, forward = cursor.decode(query.cursor, bound_to)
    listing = store.Listing(
        order=order,
        # A backwards page reads the same index in the opposite direction.
        ascending=ascending if forward else not ascending,
        filters=query.filters(),
        search=query.search.lower() if query.search else None,
    )
    found, cost = store.page(collection, account_id, listing, after, query.per_page + 1)
    more = len(found) > query.per_page
    records = found[: query.per_page]
    if not forward:
        records.reverse()
    first, last = (records[0], records[-1]) if records else (None, None)
    # Going forwards there is a previous page when we came from one; backwards, a next one.
    has_next = more if forward else after is not None
    has_prev = (after is not None) if forward else more

    def token(record: dict[str, Any] | None, towards_next: bool) -> str | None:
        if record is None:
            return None
        return cursor.encode(store.position(collection, listing, record), towards_next, bound_to)

    return Page(
        records=[show(record) for record in records],
        next_cursor=token(last, True) if has_next else None,
        prev_cursor=token(first, False) if has_prev else None,
        params=params,
        cost=cost,
    )
