"""An account's audit log in the accounts table: `LOG#<account>`/`<at>#<random>`, one item
an entry (`at`, `action`, `actor_key`, `actor_member`, `target`), newest last by its sort
key, removed by the table's TTL (`expires_at`) after the retention."""

from __future__ import annotations

from typing import Any

from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.items import Item, Write, from_item, to_item


def _table() -> str:
    return settings().accounts_table


def entry_put(account_id: str, position: str, entry: Item) -> Write:
    """The write of one entry at `position` (its sort key), to go in the transaction of
    the change it records."""
    item = {"pk": {"S": f"LOG#{account_id}"}, "sk": {"S": position}, **to_item(entry)}
    return {"Put": {"TableName": _table(), "Item": item}}


def put(account_id: str, position: str, entry: Item) -> None:
    """Write one entry on its own (after a change made elsewhere)."""
    client("dynamodb").put_item(**entry_put(account_id, position, entry)["Put"])


def page(
    account_id: str,
    before: str | None,
    filters: dict[str, str],
    wanted: int,
    max_read: int,
) -> tuple[list[Item], bool]:
    """Up to `wanted` entries of the account, newest first, older than `before` (a sort
    key), matching `filters` (`action`, `actor_member`); reads at most `max_read` entries.
    Also whether the read stopped at that bound with more left to read."""
    query: dict[str, Any] = {
        "TableName": _table(),
        "KeyConditionExpression": "pk = :pk",
        "ExpressionAttributeValues": {":pk": {"S": f"LOG#{account_id}"}},
        "ScanIndexForward": False,
    }
    if before is not None:
        query["KeyConditionExpression"] += " AND sk < :before"
        query["ExpressionAttributeValues"][":before"] = {"S": before}
    if filters:
        query["FilterExpression"] = " AND ".join(f"#{n} = :{n}" for n in filters)
        query["ExpressionAttributeNames"] = {f"#{n}": n for n in filters}
        query["ExpressionAttributeValues"].update(to_item({f":{n}": v for n, v in filters.items()}))
    found: list[Item] = []
    read = 0
    while True:
        query["Limit"] = min(max_read - read, max(wanted - len(found), 1) * 4, 1000)
        answer = client("dynamodb").query(**query)
        read += int(answer.get("ScannedCount", 0))
        for raw in answer["Items"]:
            found.append({**from_item(raw), "position": raw["sk"]["S"]})
        following = answer.get("LastEvaluatedKey")
        if len(found) >= wanted or following is None:
            return found[:wanted], False
        if read >= max_read:
            return found, True
        query["ExclusiveStartKey"] = following
