"""Data access: the only module that knows table names, key shapes and indexes.

Records of a collection live in the account's partition (`account`, `id`). Every list
order is the table or a GSI whose sort key is that order; every filter has GSIs whose
partition key is `<account>#<value>`, so a page never reads items it does not return.
Sort keys other than `id` end in the zero-padded id, which keeps every order total.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sitelens.aws import client
from sitelens.config import settings

Item = dict[str, Any]

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
        return {"account": {"S": account}, self.key: _to_attr(value)}

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


# -- attribute values -------------------------------------------------------------------


def _to_attr(value: Any) -> dict[str, Any]:
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int | float):
        return {"N": str(value)}
    return {"S": str(value)}


def _from_attr(attr: dict[str, Any]) -> Any:
    if "S" in attr:
        return attr["S"]
    if "N" in attr:
        number = attr["N"]
        return float(number) if "." in number or "e" in number.lower() else int(number)
    if "BOOL" in attr:
        return attr["BOOL"]
    return None


def to_item(values: Item) -> dict[str, Any]:
    return {k: _to_attr(v) for k, v in values.items()}


def from_item(item: dict[str, Any]) -> Item:
    return {k: _from_attr(v) for k, v in item.items()}


def _key(account: str, record_id: int) -> dict[str, Any]:
    return {"account": {"S": account}, "id": {"N": str(record_id)}}


Write = dict[str, Any]  # one TransactWriteItems entry


def _is_condition_failure(err: Exception) -> bool:
    code = getattr(err, "response", {}).get("Error", {}).get("Code", "")
    return code in {"ConditionalCheckFailedException", "TransactionCanceledException"}


def _cancel_reasons(err: Exception) -> list[str]:
    reasons = getattr(err, "response", {}).get("CancellationReasons") or []
    return [r.get("Code", "None") for r in reasons]


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


def claim_key(collection: Collection, name: str) -> dict[str, Any]:
    return _key(f"{CLAIM_PARTITION_PREFIX}{name}", 0)


def get_claim(collection: Collection, name: str) -> Item | None:
    """The owner of a unique name: `{"owner": account, "record_id": id}` or None."""
    answer = client("dynamodb").get_item(
        TableName=collection.table(), Key=claim_key(collection, name)
    )
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
            **claim_key(collection, claim),
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
        if claim is not None and _cancel_reasons(err)[:1] == ["ConditionalCheckFailed"]:
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
        values[f":s{n}"] = _to_attr(value)
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
        values[":u"] = _to_attr(current["updated_at"])
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
        if _is_condition_failure(err):
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
                    "Key": claim_key(collection, claim),
                    "ConditionExpression": "#owner = :owner AND record_id = :id",
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
        if _is_condition_failure(err):
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
            start[sort_attr] = _to_attr(after["sort"])
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


# -- projects ---------------------------------------------------------------------------
# A project row per account and host: how many reports it has and their score total, kept
# in the same transaction as every report write.


def _projects_table() -> str:
    return settings().projects_table


def project_created_sort(created_at: str, project: str) -> str:
    """The projects' `created_at` order: by date, then by name (project names are short)."""
    return f"{created_at}#{project}"


def project_change(account: str, project: str, reports: int, score: int, now: str) -> Write:
    """A transaction entry adding `reports` and `score` to a project (created if new)."""
    return {
        "Update": {
            "TableName": _projects_table(),
            "Key": {"account": {"S": account}, "project": {"S": project}},
            "UpdateExpression": (
                "ADD reports :r, score_total :s "
                "SET created_at = if_not_exists(created_at, :now), "
                "created_at_sort = if_not_exists(created_at_sort, :sort), "
                "#search = :project"
            ),
            "ExpressionAttributeNames": {"#search": "search"},
            "ExpressionAttributeValues": {
                ":r": {"N": str(reports)},
                ":s": {"N": str(score)},
                ":now": {"S": now},
                ":sort": {"S": project_created_sort(now, project)},
                ":project": {"S": project},
            },
        }
    }


def drop_empty_project(account: str, project: str) -> None:
    """Remove a project whose last report is gone (nothing happens while it has reports)."""
    try:
        client("dynamodb").delete_item(
            TableName=_projects_table(),
            Key={"account": {"S": account}, "project": {"S": project}},
            ConditionExpression="reports <= :zero",
            ExpressionAttributeValues={":zero": {"N": "0"}},
        )
    except Exception as err:
        if not _is_condition_failure(err):
            raise


# -- stats ------------------------------------------------------------------------------
# Counters: `series` = `<website id>#<stat name>`, `slot` = `<YYYY-MM-DD>#<value key>`,
# with the value in full in `value` and the sum in `count`, so one stats page is one
# Query on a series between two days. The series `<website id>#retries` holds, per SQS
# message that failed part-way, the keys of the counters its earlier attempts wrote.
# Sort keys are limited to 1,024 bytes: values up to STAT_VALUE_BYTES are their own key;
# longer ones are keyed by a prefix and a hash of the whole value, which makes their keys
# longer than any plain key, so two values never share one.
STAT_VALUE_BYTES = 900
_RETRIES = "retries"
_BATCH_WRITE_ATTEMPTS = 8


def _stats_table() -> str:
    return settings().stats_table


def _value_key(value: str) -> str:
    raw = value.encode()
    if len(raw) <= STAT_VALUE_BYTES:
        return value
    prefix = raw[:STAT_VALUE_BYTES].decode(errors="ignore")  # whole characters only
    return f"{prefix}#{hashlib.sha256(raw).hexdigest()[:32]}"


def stat_slot(day: str, value: str) -> str:
    """The sort key of a counter: its day, then its value (or the value's long-value key)."""
    return f"{day}#{_value_key(value)}"


def stat_key(name: str, day: str, value: str) -> str:
    """A counter's name within its website, as a retry ledger records it."""
    return f"{name}#{stat_slot(day, value)}"


def add_stat(website_id: int, name: str, day: str, value: str, count: int, batch: str) -> bool:
    """Add `count` to a counter in one UpdateItem; False if `batch` already added to it.

    The counter remembers the last batch that wrote it, so the SDK's retry of a write that
    landed but whose answer was lost does not add twice.
    """
    try:
        client("dynamodb").update_item(
            TableName=_stats_table(),
            Key={"series": {"S": f"{website_id}#{name}"}, "slot": {"S": stat_slot(day, value)}},
            UpdateExpression="ADD #count :n SET #value = :value, #batch = :batch",
            ConditionExpression="attribute_not_exists(#batch) OR #batch <> :batch",
            ExpressionAttributeNames={"#count": "count", "#value": "value", "#batch": "batch"},
            ExpressionAttributeValues={
                ":n": {"N": str(count)},
                ":value": {"S": value},
                ":batch": {"S": batch},
            },
        )
    except Exception as err:
        if _is_condition_failure(err):
            return False
        raise
    return True


def stat_counts(
    website_id: int, name: str, first_day: str, last_day: str
) -> tuple[list[tuple[str, int]], dict[str, int]]:
    """(value, count) of every counter of a series from `first_day` to `last_day`, and
    what reading them cost: one Query, continued only past DynamoDB's 1 MB pages."""
    query: dict[str, Any] = {
        "TableName": _stats_table(),
        # `$` follows `#`: every slot of the last day sorts before `<last day>$`.
        "KeyConditionExpression": "#series = :series AND #slot BETWEEN :first AND :last",
        "ProjectionExpression": "#value, #count",
        "ExpressionAttributeNames": {
            "#series": "series",
            "#slot": "slot",
            "#value": "value",
            "#count": "count",
        },
        "ExpressionAttributeValues": {
            ":series": {"S": f"{website_id}#{name}"},
            ":first": {"S": f"{first_day}#"},
            ":last": {"S": f"{last_day}$"},
        },
    }
    found: list[tuple[str, int]] = []
    cost = {"requests": 0, "items_read": 0}
    while True:
        answer = client("dynamodb").query(**query)
        cost["requests"] += 1
        cost["items_read"] += answer.get("ScannedCount", 0)
        found.extend((item["value"]["S"], int(item["count"]["N"])) for item in answer["Items"])
        if "LastEvaluatedKey" not in answer:
            return found, cost
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def _retry_key(website_id: int, message_id: str) -> dict[str, Any]:
    return {"series": {"S": f"{website_id}#{_RETRIES}"}, "slot": {"S": message_id}}


def retry_ledgers(messages: list[tuple[int, str]]) -> dict[str, set[str]]:
    """The counters earlier attempts of these (website id, message id) wrote, by message
    id (`stat_key`s); messages without a ledger are left out."""
    ledgers: dict[str, set[str]] = {}
    unique = list(dict.fromkeys(messages))
    for start in range(0, len(unique), 100):
        pending: dict[str, Any] = {
            _stats_table(): {
                "Keys": [_retry_key(*message) for message in unique[start : start + 100]],
                "ProjectionExpression": "#slot, done",
                "ExpressionAttributeNames": {"#slot": "slot"},
                "ConsistentRead": True,
            }
        }
        for attempt in range(_BATCH_WRITE_ATTEMPTS):
            answer = client("dynamodb").batch_get_item(RequestItems=pending)
            for item in answer["Responses"].get(_stats_table(), []):
                ledgers[item["slot"]["S"]] = set(item.get("done", {}).get("SS", []))
            pending = answer.get("UnprocessedKeys") or {}
            if not pending:
                break
            time.sleep(0.05 * 2**attempt)
        else:
            raise RuntimeError("retry ledgers still unprocessed")
    return ledgers


def record_retry(website_id: int, message_id: str, written: set[str], expires_at: int) -> None:
    """Add counters (`stat_key`s) to what a message's attempts have written; the ledger
    expires (TTL) once SQS can no longer deliver the message."""
    client("dynamodb").update_item(
        TableName=_stats_table(),
        Key=_retry_key(website_id, message_id),
        UpdateExpression="ADD done :written SET expires_at = :expires",
        ExpressionAttributeValues={
            ":written": {"SS": sorted(written)},
            ":expires": {"N": str(expires_at)},
        },
    )


def delete_stats(website_id: int, names: tuple[str, ...]) -> int:
    """Delete every counter of a website's series `names`, and its retry ledgers; returns
    how many items were deleted. Unprocessed deletes are retried with backoff."""
    deleted = 0
    for name in (*names, _RETRIES):
        query: dict[str, Any] = {
            "TableName": _stats_table(),
            "KeyConditionExpression": "#series = :series",
            "ProjectionExpression": "#series, #slot",
            "ExpressionAttributeNames": {"#series": "series", "#slot": "slot"},
            "ExpressionAttributeValues": {":series": {"S": f"{website_id}#{name}"}},
        }
        while True:
            answer = client("dynamodb").query(**query)
            keys = answer["Items"]
            for start in range(0, len(keys), 25):
                _delete_items(keys[start : start + 25])
            deleted += len(keys)
            if "LastEvaluatedKey" not in answer:
                break
            query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    return deleted


def _delete_items(keys: list[dict[str, Any]]) -> None:
    pending: dict[str, Any] = {_stats_table(): [{"DeleteRequest": {"Key": key}} for key in keys]}
    for attempt in range(_BATCH_WRITE_ATTEMPTS):
        answer = client("dynamodb").batch_write_item(RequestItems=pending)
        pending = answer.get("UnprocessedItems") or {}
        if not pending:
            return
        time.sleep(0.05 * 2**attempt)
    raise RuntimeError("stats deletes still unprocessed")
