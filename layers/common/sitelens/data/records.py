"""Collections of records: ids, unique-name claims and versioned writes, on any table.

Records of a collection live in the account's partition (`account`, `id`). Every list
order is the table or a GSI whose sort key is that order; every filter has GSIs whose
partition key is `<account>#<value>`, so a page never reads items it does not return.
Sort keys other than `id` end in the zero-padded id, which keeps every order total.

Every record carries a `version`. A change is written whole, on the condition that the
stored version is still the one it was computed from; when another write came first, the
record is read again and the change applied again (`update`), so the stored record is
always exactly what one request answered, in some serial order. `write_id` marks who wrote
a version, so a write whose answer was lost is recognised as ours when retried.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sitelens.core import errors, scopes
from sitelens.data import transactions
from sitelens.data.clients import client
from sitelens.data.items import Item, Write, from_item, to_attr, to_item
from sitelens.data.transactions import ConditionFailed, Contended

# Items that are not records share the table under reserved partitions.
COUNTER_PARTITION = "#counter"
CLAIM_PARTITION_PREFIX = "#claim:"
# GSI sort keys are limited to 1,024 bytes; longer values sort by their prefix, then id.
SORT_PREFIX_BYTES = 900
# A change re-applied after version conflicts for this long is answered 409 instead: far
# below the functions' 10 s timeout; fifty writers on one record settle in about a second.
VERSION_RETRY_SECONDS = 6.0
# A version conflict means another write just landed: retry soon, not as after throttling.
VERSION_BACKOFF_CAP_SECONDS = 0.1


class Conflict(Exception):
    """A conditional write found its claim taken."""


class Busy(errors.Conflict):
    """Other writes kept changing the record, or DynamoDB kept refusing; nothing written."""


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
    # GSIs project only keys and filter attributes; list pages fetch the records by key.
    slim_indexes: bool = False
    # whether a stored record is listed now (None: every one); read after the Query, as a
    # key's scope is
    listed: Callable[[Item], bool] | None = None

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
    return f"{cut_bytes(value, SORT_PREFIX_BYTES)}#{item['id']:012d}"


def cut_bytes(text: str, limit: int) -> str:
    """The longest prefix of `text` of at most `limit` UTF-8 bytes, in whole characters."""
    raw = text.encode()
    return text if len(raw) <= limit else raw[:limit].decode(errors="ignore")


def _key(account: str, record_id: int) -> dict[str, Any]:
    return {"account": {"S": account}, "id": {"N": str(record_id)}}


# -- records ----------------------------------------------------------------------------


def allocate_id(collection: Collection, count: int = 1) -> int:
    """The next id of the collection, from an atomic counter; with `count`, the last of that
    many new ones (a bulk load takes its ids in one write)."""
    answer = client("dynamodb").update_item(
        TableName=collection.table(),
        Key=_key(COUNTER_PARTITION, 0),
        UpdateExpression="ADD last_id :count",
        ExpressionAttributeValues={":count": {"N": str(count)}},
        ReturnValues="UPDATED_NEW",
    )
    return int(answer["Attributes"]["last_id"]["N"])


def get(collection: Collection, account: str, record_id: int) -> Item | None:
    """The account's record, or None; None too when the request's key may not see it
    (`core.scopes`), so reads, updates and deletes answer 404 as for another account's."""
    scope = scopes.current()  # outside any scope: Undeclared, before anything is read
    record = stored(collection, account, record_id)
    return record if record is not None and scope.admits(collection.name, record) else None


def stored(collection: Collection, account: str, record_id: int) -> Item | None:
    """The account's record as stored, whatever the scope: only for a cache of this
    container, which holds what is stored and applies the scope to what it hands out
    (`websites.by_host`); everything else reads with `get`."""
    answer = client("dynamodb").get_item(
        TableName=collection.table(), Key=_key(account, record_id), ConsistentRead=True
    )
    return from_item(answer["Item"]) if "Item" in answer else None


def claim_key(name: str) -> dict[str, Any]:
    return _key(f"{CLAIM_PARTITION_PREFIX}{name}", 0)


def get_claim(collection: Collection, name: str, consistent: bool = False) -> Item | None:
    """The owner of a unique name: `{"owner": account, "record_id": id}` or None;
    `consistent` reads a claim written a moment ago too."""
    answer = client("dynamodb").get_item(
        TableName=collection.table(), Key=claim_key(name), ConsistentRead=consistent
    )
    return from_item(answer["Item"]) if "Item" in answer else None


def _put(collection: Collection, record: Item, condition: str, values: Item) -> Write:
    request: dict[str, Any] = {
        "TableName": collection.table(),
        "Item": to_item(collection.with_index_keys(record)),
        "ConditionExpression": condition,
    }
    if values:
        request["ExpressionAttributeValues"] = to_item(values)
    return {"Put": request}


def _version_condition(current: Item) -> tuple[str, Item]:
    """The condition that the stored record is still `current` (records from before
    versions have none)."""
    if "version" not in current:
        return "attribute_exists(id) AND attribute_not_exists(version)", {}
    return "version = :version", {":version": current["version"]}


def claim_entry(collection: Collection, name: str, record: Item) -> Write:
    """A transaction entry claiming `name` for the record, on the condition it is free."""
    return {
        "Put": {
            "TableName": collection.table(),
            "Item": {
                **claim_key(name),
                "owner": {"S": record["account"]},
                "record_id": {"N": str(record["id"])},
            },
            "ConditionExpression": "attribute_not_exists(id)",
        }
    }


def release_entry(collection: Collection, name: str, record: Item) -> Write:
    """A transaction entry giving up the record's claim of `name`."""
    return {
        "Delete": {
            "TableName": collection.table(),
            "Key": claim_key(name),
            # A record from before hosts were normalised may have its claim under
            # another spelling; then there is nothing here to delete.
            "ConditionExpression": (
                "attribute_not_exists(id) OR (#owner = :owner AND record_id = :id)"
            ),
            "ExpressionAttributeNames": {"#owner": "owner"},
            "ExpressionAttributeValues": {
                ":owner": {"S": record["account"]},
                ":id": {"N": str(record["id"])},
            },
        }
    }


def create(
    collection: Collection, record: Item, claim: str | None = None, also: tuple[Write, ...] = ()
) -> Item:
    """Write a new record (version 1) with its unique-name claim and `also`, all or none.

    Raises Conflict when the claim belongs to another record already, Busy when DynamoDB
    kept refusing; 403 when the request's key is limited to records this is not one of.
    """
    if not scopes.current().admits(collection.name, record):
        raise errors.Forbidden()
    record = {**record, "version": 1, "write_id": uuid.uuid4().hex}
    writes = [_put(collection, record, f"attribute_not_exists({collection.key})", {})]
    if claim is not None:
        writes.insert(0, claim_entry(collection, claim, record))
    try:
        transactions.write([*writes, *also])
    except ConditionFailed as failed:
        if claim is not None and 0 in failed.indexes:
            raise Conflict(claim) from None
        raise
    except Contended:
        raise Busy() from None
    return record


Change = Callable[[Item], Item]  # the new record, computed from the stored one
Effects = Callable[[Item, Item], tuple[Write, ...]]  # writes that go with (current, new)


def update(
    collection: Collection,
    account: str,
    record_id: int,
    change: Change,
    also: Effects | None = None,
) -> Item | None:
    """Read the record, apply `change`, and write the result whole, conditional on the
    version read, with `also(current, new)` in the same transaction; on a version
    conflict, read again and apply again. The record written, or None when there is none;
    Busy when other writes kept coming first."""
    written = None  # the write_id of our last attempt, in case it landed unanswered
    for _ in version_attempts():
        current = get(collection, account, record_id)
        if current is None:
            return None
        if written is not None and current.get("write_id") == written:
            return current
        new = {
            **change(current),
            "version": int(current.get("version", 0)) + 1,
            "write_id": uuid.uuid4().hex,
        }
        condition, values = _version_condition(current)
        writes = [_put(collection, new, condition, values), *(also(current, new) if also else ())]
        written = new["write_id"]
        try:
            transactions.write(writes)
            return new
        except ConditionFailed as failed:
            if 0 not in failed.indexes:
                raise
        except Contended:
            raise Busy() from None
    raise Busy()


def delete(
    collection: Collection,
    account: str,
    record_id: int,
    claim: Callable[[Item], str] | None = None,
    also: Callable[[Item], tuple[Write, ...]] | None = None,
) -> Item | None:
    """Delete the record as read, with its claim and `also(record)`, all or none; if it
    changed in between, read again. The record deleted, or None when there was none."""
    for _ in version_attempts():
        current = get(collection, account, record_id)
        if current is None:
            return None
        writes: list[Write] = [delete_entry(collection, current)]
        if claim is not None:
            writes.append(release_entry(collection, claim(current), current))
        try:
            transactions.write([*writes, *(also(current) if also else ())])
            return current
        except ConditionFailed as failed:
            if 0 not in failed.indexes:
                raise
        except Contended:
            raise Busy() from None
    raise Busy()


def delete_entry(collection: Collection, current: Item) -> Write:
    """A transaction entry deleting the record, on the condition that it is still
    `current` (its version)."""
    condition, values = _version_condition(current)
    request: dict[str, Any] = {
        "TableName": collection.table(),
        "Key": collection.record_key(current["account"], current[collection.key]),
        "ConditionExpression": condition,
    }
    if values:
        request["ExpressionAttributeValues"] = to_item(values)
    return {"Delete": request}


def version_attempts() -> Iterator[int]:
    """`transactions.attempts` for as long as re-applying a change is worth it, backing
    off as after a version conflict."""
    return transactions.attempts(seconds=VERSION_RETRY_SECONDS, cap=VERSION_BACKOFF_CAP_SECONDS)
