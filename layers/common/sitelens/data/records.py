"""Collections of records: ids, claims, conditional writes and list pages, on any table.

Records of a collection live in the account's partition (`account`, `id`). Every list
order is the table or a GSI whose sort key is that order; every filter has GSIs whose
partition key is `<account>#<value>`, so a page never reads items it does not return.
Sort keys other than `id` end in the zero-padded id, which keeps every order total.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sitelens.data.clients import client
from sitelens.data.items import (
    Item,
    Write,
    cancel_reasons,
    from_item,
    is_condition_failure,
    to_attr,
    to_item,
)

# Items that are not records share the table under reserved partitions.
COUNTER_PARTITION = "#counter"
CLAIM_PARTITION_PREFIX = "#claim:"
# GSI sort keys are limited to 1,024 bytes; longer values sort by their prefix, then id.
SORT_PREFIX_CHARS = 900


class Conflict(Exception):
    """A conditional write found its claim taken."""


@dataclass(frozen=True)
class Collection:
    """A collection's table and the indexes that serve its list orders and filters."""

    name: str
    table: Callable[[], str]
    # sort_by -> how the sort key is made from a record (the table's own sort key aside)
    orders: dict[str, Callable[[Item], str]]
    # filter -> how the filter's value is read from a record
    filters: dict[str, Callable[[Item], str]] = field(default_factory=dict)
    key: str = "id"  # the table's sort key within the account's partition (a number for id)

    def index(self, order: str, filter_name: str | None) -> tuple[str | None, str, str]:
        """(GSI name or None for the table, partition attribute, sort attribute)."""
        sort_attr = self.key if order == self.key else f"{order}_sort"
        if filter_name is None:
            return (None if order == self.key else f"by_{order}", "account", sort_attr)
        return (f"{filter_name}_by_{order}", f"{filter_name}_key", sort_attr)

    def record_key(self, account: str, value: Any) -> dict[str, Any]:
        return {"account": {"S": account}, self.key: to_attr(value)}

    def with_index_keys(self, item: Item) -> Item:
        """The record plus the attributes its GSIs are keyed on."""
        keyed = dict(item)
        for order, make in self.orders.items():
            keyed[f"{order}_sort"] = make(item)
        for name, value in self.filters.items():
            keyed[f"{name}_key"] = f"{item['account']}#{value(item)}"
        return keyed


def id_suffixed(value: str, item: Item) -> str:
    """A sort key that orders by `value`, then by id (ties broken, order total)."""
    return f"{value[:SORT_PREFIX_CHARS]}#{item['id']:012d}"


def _key(account: str, record_id: int) -> dict[str, Any]:
    return {"account": {"S": account}, "id": {"N": str(record_id)}}


# -- records ----------------------------------------------------------------------------


def allocate_id(collection: Collection) -> int:
    """The next id of the collection, from an atomic counter."""
    answer = client("dynamodb").update_item(
        TableName=collection.table(),
        Key=_key(COUNTER_PARTITION, 0),
        UpdateExpression="ADD last_id :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"]["last_id"]["N"])


def get(collection: Collection, account: str, record_id: int) -> Item | None:
    answer = client("dynamodb").get_item(
        TableName=collection.table(), Key=_key(account, record_id), ConsistentRead=True
    )
    return from_item(answer["Item"]) if "Item" in answer else None


def claim_key(name: str) -> dict[str, Any]:
    return _key(f"{CLAIM_PARTITION_PREFIX}{name}", 0)


def get_claim(collection: Collection, name: str) -> Item | None:
    """The owner of a unique name: `{"owner": account, "record_id": id}` or None."""
    answer = client("dynamodb").get_item(TableName=collection.table(), Key=claim_key(name))
    return from_item(answer["Item"]) if "Item" in answer else None


def _transact(writes: list[Write]) -> None:
    if len(writes) == 1:
        [(kind, args)] = writes[0].items()
        call = {"Put": "put_item", "Update": "update_item", "Delete": "delete_item"}[kind]
        getattr(client("dynamodb"), call)(**args)
    else:
        client("dynamodb").transact_write_items(TransactItems=writes)


def create(
    collection: Collection, record: Item, claim: str | None = None, also: tuple[Write, ...] = ()
) -> None:
    """Write a new record with its unique-name claim and `also` in one transaction.

    Raises Conflict when the claim belongs to another record already.
    """
    table = collection.table()
    writes: list[Write] = []
    if claim is not None:
        claim_item = {
            **claim_key(claim),
            "owner": {"S": record["account"]},
            "record_id": {"N": str(record["id"])},
        }
        writes.append(
            {
                "Put": {
                    "TableName": table,
                    "Item": claim_item,
                    "ConditionExpression": "attribute_not_exists(id)",
                }
            }
        )
    writes.append(
        {
            "Put": {
                "TableName": table,
                "Item": to_item(collection.with_index_keys(record)),
                "ConditionExpression": f"attribute_not_exists({collection.key})",
            }
        }
    )
    try:
        _transact([*writes, *also])
    except Exception as err:
        if claim is not None and cancel_reasons(err)[:1] == ["ConditionalCheckFailed"]:
            raise Conflict(claim) from None
        raise


def update(
    collection: Collection,
    current: Item,
    changes: Item,
    removed: tuple[str, ...] = (),
    also: tuple[Write, ...] = (),
) -> Item | None:
    """Apply changes to a stored record, with `also` in the same transaction.

    None when the record no longer exists, or (with `also`) changed since it was read.
    """
    record = {**{k: v for k, v in current.items() if k not in removed}, **changes}
    keyed = collection.with_index_keys(record)
    # Index attributes follow the record, so they are rewritten with it.
    sets = {k: v for k, v in keyed.items() if k not in ("account", "id") and current.get(k) != v}
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    clauses = []
    for n, (attr, value) in enumerate(sets.items()):
        names[f"#s{n}"] = attr
        values[f":s{n}"] = to_attr(value)
        clauses.append(f"#s{n} = :s{n}")
    expression = "SET " + ", ".join(clauses) if clauses else ""
    gone = [attr for attr in removed if attr in current]
    if gone:
        for n, attr in enumerate(gone):
            names[f"#r{n}"] = attr
        expression += " REMOVE " + ", ".join(f"#r{n}" for n in range(len(gone)))
    if not expression:
        return record
    condition = "attribute_exists(id)"
    if also:
        # Whatever `also` adjusts was computed from `current`: it must still be current.
        names["#u"] = "updated_at"
        values[":u"] = to_attr(current["updated_at"])
        condition += " AND #u = :u"
    write = {
        "Update": {
            "TableName": collection.table(),
            "Key": _key(current["account"], current["id"]),
            "UpdateExpression": expression.strip(),
            "ConditionExpression": condition,
            "ExpressionAttributeNames": names,
            **({"ExpressionAttributeValues": values} if values else {}),
        }
    }
    try:
        _transact([write, *also])
    except Exception as err:
        if is_condition_failure(err):
            return None
        raise
    return record


def delete(
    collection: Collection,
    account: str,
    record_id: int,
    claim: str | None = None,
    also: tuple[Write, ...] = (),
) -> bool:
    """Delete a record with its claim and `also` together; False when there was no record."""
    table = collection.table()
    writes: list[Write] = [
        {
            "Delete": {
                "TableName": table,
                "Key": _key(account, record_id),
                "ConditionExpression": "attribute_exists(id)",
            }
        }
    ]
    if claim is not None:
        writes.append(
            {
                "Delete": {
                    "TableName": table,
                    "Key": claim_key(claim),
                    # A record from before hosts were normalised may have its claim under
                    # another spelling; then there is nothing here to delete.
                    "ConditionExpression": (
                        "attribute_not_exists(id) OR (#owner = :owner AND record_id = :id)"
                    ),
                    "ExpressionAttributeNames": {"#owner": "owner"},
                    "ExpressionAttributeValues": {
                        ":owner": {"S": account},
                        ":id": {"N": str(record_id)},
                    },
                }
            }
        )
    try:
        _transact([*writes, *also])
    except Exception as err:
        if is_condition_failure(err):
            return False
        raise
    return True


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


def page(
    collection: Collection,
    account: str,
    listing: Listing,
    after: dict[str, Any] | None,
    count: int,
) -> tuple[list[Item], dict[str, int]]:
    """Up to `count` records strictly after `after` (a `position`), and what it cost.

    The first filter picks the index; other filters and `search` are filter expressions,
    so only then can a page read more items than it returns.
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
    if after is not None:
        start = collection.record_key(account, after["key"])
        if index:
            start[part_attr] = {"S": part_value}
            start[sort_attr] = to_attr(after["sort"])
        query["ExclusiveStartKey"] = start
    found: list[Item] = []
    cost = {"requests": 0, "items_read": 0}
    for answer in _query_pages(query, count, filtered=bool(conditions)):
        cost["requests"] += 1
        cost["items_read"] += answer.get("ScannedCount", 0)
        found.extend(from_item(item) for item in answer.get("Items", []))
        if len(found) >= count:
            break
    return found[:count], cost


def _query_pages(query: dict[str, Any], count: int, filtered: bool) -> Iterator[dict[str, Any]]:
    # Unfiltered, `Limit` is exact; filtered, it bounds the items read per request.
    query = {**query, "Limit": max(count, 100) if filtered else count}
    while True:
        answer = client("dynamodb").query(**query)
        yield answer
        if "LastEvaluatedKey" not in answer:
            return
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
