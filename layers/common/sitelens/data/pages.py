"""List pages of a collection: one Query on the table or the GSI of the order and filter.

The first filter picks the index; other filters and `search` are filter expressions, so
only then can a page read more items than it returns, and then at most MAX_FILTERED_READS
entries in at most MAX_FILTERED_QUERIES Queries: a page that reaches either bound stops
there, with fewer records than asked for, and says where its reading stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sitelens.core import scopes
from sitelens.data import batches
from sitelens.data.clients import client
from sitelens.data.items import Item, from_item, to_attr
from sitelens.data.records import Collection

# A filtered page reads at most this many entries (matching or not), so that searching a
# list of any size answers in bounded time; the rest is read by the pages after it.
MAX_FILTERED_READS = 1_000
# ... in at most this many Queries, each of at most 1 MB (large records count in bytes).
MAX_FILTERED_QUERIES = 10
_FILTERED_QUERY_LIMIT = 100  # a filtered Query's Limit, or per_page + 1 when that is more

# -- lists ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Listing:
    """Which records a list shows, in which order."""

    order: str
    ascending: bool
    filters: dict[str, str]  # filter name -> value, as stored in `<name>_key`
    search: str | None = None  # lower-cased substring of the `search` attribute


def position(collection: Collection, listing: Listing, record: Item) -> dict[str, Any]:
    """Where a record stands in a listing: what a cursor needs to continue after it."""
    keyed = collection.with_index_keys(record)
    _, _, sort_attr = collection.index(listing.order, _index_filter(listing))
    return {"key": record[collection.key], "sort": keyed[sort_attr]}


def _index_filter(listing: Listing) -> str | None:
    return next(iter(listing.filters), None)


@dataclass(frozen=True)
class Found:
    """What a page read: its records, what reading them cost, and, when a filtered page
    reached its read bounds before it had `count` records, the `position` of the last
    entry it read (the next page starts after it; None when the list was read to its end
    or the page is full)."""

    records: list[Item]
    cost: dict[str, int]
    stopped_at: dict[str, Any] | None = None
    entries_read: int = 0  # entries the Queries went through, matching or not


def page(
    collection: Collection,
    account: str,
    listing: Listing,
    after: dict[str, Any] | None,
    count: int,
) -> Found:
    """Up to `count` records strictly after `after` (a `position`; None or empty: from the
    start, in the listing's direction), and what it cost.

    The first filter picks the index; other filters and `search` are filter expressions,
    so only then can a page read more items than it returns, within the read bounds.
    """
    index_filter = _index_filter(listing)
    index, part_attr, sort_attr = collection.index(listing.order, index_filter)
    part_value = account if index_filter is None else f"{account}#{listing.filters[index_filter]}"
    query: dict[str, Any] = {
        "TableName": collection.table(),
        "KeyConditionExpression": "#p = :p",
        "ExpressionAttributeNames": {"#p": part_attr},
        "ExpressionAttributeValues": {":p": {"S": part_value}},
        "ScanIndexForward": listing.ascending,
    }
    if index:
        query["IndexName"] = index
    conditions = []
    for n, (name, value) in enumerate(listing.filters.items()):
        if name != index_filter:
            query["ExpressionAttributeNames"][f"#f{n}"] = f"{name}_key"
            query["ExpressionAttributeValues"][f":f{n}"] = {"S": f"{account}#{value}"}
            conditions.append(f"#f{n} = :f{n}")
    if listing.search:
        query["ExpressionAttributeNames"]["#q"] = "search"
        query["ExpressionAttributeValues"][":q"] = {"S": listing.search}
        conditions.append("contains(#q, :q)")
    if conditions:
        query["FilterExpression"] = " AND ".join(conditions)
    if after:  # an empty position reads from the start
        start = collection.record_key(account, after["key"])
        if index:
            start[part_attr] = {"S": part_value}
            start[sort_attr] = to_attr(after["sort"])
        query["ExclusiveStartKey"] = start
    found: list[Item] = []
    cost = {"requests": 0, "items_read": 0, "index_entries_read": 0}
    # A key limited to some websites or projects sees only their entries (`core.scopes`):
    # a filter like `search`, applied here, within the same read bounds.
    scope = scopes.current()
    filtered = bool(conditions) or scope.limited
    # Unfiltered, `Limit` is exact; filtered, it bounds the items read per request.
    limit = max(count, _FILTERED_QUERY_LIMIT) if filtered else count
    read, stopped_at = 0, None
    while True:
        query["Limit"] = min(limit, MAX_FILTERED_READS - read) if filtered else limit
        answer = client("dynamodb").query(**query)
        cost["requests"] += 1
        read += answer.get("ScannedCount", 0)
        entries = (from_item(item) for item in answer.get("Items", []))
        listed = collection.listed or (lambda _: True)
        found.extend(e for e in entries if scope.admits(collection.name, e) and listed(e))
        last = answer.get("LastEvaluatedKey")
        if len(found) >= count or last is None:
            break
        if filtered and (read >= MAX_FILTERED_READS or cost["requests"] >= MAX_FILTERED_QUERIES):
            stopped_at = _position_of_key(collection, listing, from_item(last))
            break
        query["ExclusiveStartKey"] = last
    cost["index_entries_read" if index and collection.slim_indexes else "items_read"] += read
    found = found[:count]
    if index and collection.slim_indexes and found:
        found = _whole_records(collection, account, found, cost)
    return Found(found, cost, stopped_at, read)


def _position_of_key(collection: Collection, listing: Listing, key: Item) -> dict[str, Any]:
    """The `position` of a Query's LastEvaluatedKey: it holds the table's and the index's
    keys, which is all a position is made of."""
    _, _, sort_attr = collection.index(listing.order, _index_filter(listing))
    return {"key": key[collection.key], "sort": key[sort_attr]}


def _whole_records(
    collection: Collection, account: str, entries: list[Item], cost: dict[str, int]
) -> list[Item]:
    """The records of index entries, in the entries' order (`batches.get`: a page is at
    most 101 entries). A record deleted in between is left out; `batches.Unprocessed` when
    some could not be read."""
    keys = [collection.record_key(account, entry[collection.key]) for entry in entries]
    records: dict[Any, Item] = {}
    for raw in batches.get(collection.table(), keys, consistent=True, cost=cost):
        record = from_item(raw)
        records[record[collection.key]] = record
    return [records[e[collection.key]] for e in entries if e[collection.key] in records]
