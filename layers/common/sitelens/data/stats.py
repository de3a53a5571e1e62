"""Statistics counters, the aggregator's retry ledgers, and removing a website's counters.

Counters: `series` = `<website id>#<stat name>`, `slot` = `<YYYY-MM-DD>#<value key>`, with
the value in full in `value` and the sum in `count`, so one stats page is one Query on a
series between two days. The series `<website id>#retries` holds, per SQS message that
failed part-way, the keys of the counters its earlier attempts wrote.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from sitelens.config import settings
from sitelens.data.clients import client
from sitelens.data.items import is_condition_failure

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


def slot(day: str, value: str) -> str:
    """The sort key of a counter: its day, then its value (or the value's long-value key)."""
    return f"{day}#{_value_key(value)}"


def ledger_key(name: str, day: str, value: str) -> str:
    """A counter's name within its website, as a retry ledger records it."""
    return f"{name}#{slot(day, value)}"


def add(website_id: int, name: str, day: str, value: str, count: int, batch: str) -> bool:
    """Add `count` to a counter in one UpdateItem; False if `batch` already added to it.

    The counter remembers the last batch that wrote it, so the SDK's retry of a write that
    landed but whose answer was lost does not add twice.
    """
    try:
        client("dynamodb").update_item(
            TableName=_stats_table(),
            Key={"series": {"S": f"{website_id}#{name}"}, "slot": {"S": slot(day, value)}},
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
        if is_condition_failure(err):
            return False
        raise
    return True


def counts(
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
    id (`ledger_key`s); messages without a ledger are left out."""
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
    """Add counters (`ledger_key`s) to what a message's attempts have written; the ledger
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


def delete_all(website_id: int, names: tuple[str, ...]) -> int:
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
