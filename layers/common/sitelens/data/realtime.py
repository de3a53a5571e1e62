"""Who is on a website now: an item per visitor and minute in the stats table, written by
the aggregator and read by the realtime route.

Items: `live#<website id>`, `<minute>#<visitor>` (the minute as a zero-padded Unix minute),
with `at` (the second of the visitor's last hit in that minute), `page` (the page it was
on) and `source` (where its visit came from), expiring (TTL) ten minutes later. A read
asks for the last minutes' slots only, so items TTL has not removed yet are never read.

A visitor's minute is often counted in two batches, in either order (the landing in one,
the next page in the other): the latest hit's page wins, and the source is written only
by a landing, whenever its batch comes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sitelens.core.config import settings
from sitelens.data.clients import client

KEPT_SECONDS = 600  # a presence outlives the realtime window twice over, then TTL takes it
MAX_ITEMS_READ = 20_000  # per answer: 5 minutes of 4,000 visitors a minute


@dataclass(frozen=True)
class Presence:
    website_id: int
    visitor: str
    at: int  # Unix seconds
    page: str
    source: str | None  # None: no landing of the visit in this batch (the stored one stands)


def _series(website_id: int) -> str:
    return f"live#{website_id}"


def record(presences: Iterable[Presence]) -> list[dict[str, Any]]:
    """The UpdateItem requests that record presences (the caller sends them, in parallel)."""
    requests = []
    for seen in presences:
        request: dict[str, Any] = {
            "TableName": settings().stats_table,
            "Key": {
                "series": {"S": _series(seen.website_id)},
                "slot": {"S": f"{seen.at // 60:010d}#{seen.visitor}"},
            },
            # a later hit of the same minute wins; a batch may hold them in any order
            "UpdateExpression": "SET #at = :at, page = :page, expires_at = :expires",
            "ConditionExpression": "attribute_not_exists(#at) OR #at <= :at",
            "ExpressionAttributeNames": {"#at": "at"},
            "ExpressionAttributeValues": {
                ":at": {"N": str(seen.at)},
                ":page": {"S": seen.page},
                ":expires": {"N": str(seen.at + KEPT_SECONDS)},
            },
        }
        if seen.source is not None:
            request["UpdateExpression"] += ", #source = :source"
            request["ExpressionAttributeNames"]["#source"] = "source"
            request["ExpressionAttributeValues"][":source"] = {"S": seen.source}
        requests.append(request)
    return requests


def put(request: dict[str, Any]) -> None:
    """Send one request of `record`; a later hit already there is no failure, and a
    landing's source is still written beside it (unless another landing's is there)."""
    if _updated(request):
        return
    source = request["ExpressionAttributeValues"].get(":source")
    if source is not None:
        _updated(
            {
                "TableName": request["TableName"],
                "Key": request["Key"],
                "UpdateExpression": "SET #source = :source",
                "ConditionExpression": "attribute_exists(#at) AND attribute_not_exists(#source)",
                "ExpressionAttributeNames": {"#at": "at", "#source": "source"},
                "ExpressionAttributeValues": {":source": source},
            }
        )


def _updated(request: dict[str, Any]) -> bool:
    """Whether the conditional update was made (False: its condition did not hold)."""
    try:
        client("dynamodb").update_item(**request)
    except Exception as err:
        if getattr(err, "response", {}).get("Error", {}).get("Code") != (
            "ConditionalCheckFailedException"
        ):
            raise
        return False
    return True


def since(website_id: int, start: int) -> tuple[list[Presence], bool]:
    """The presences of the minutes from `start`'s on (at most MAX_ITEMS_READ), and
    whether some were left unread."""
    query: dict[str, Any] = {
        "TableName": settings().stats_table,
        "KeyConditionExpression": "series = :series AND slot >= :first",
        "ExpressionAttributeValues": {
            ":series": {"S": _series(website_id)},
            ":first": {"S": f"{start // 60:010d}#"},
        },
    }
    found: list[Presence] = []
    while True:
        answer = client("dynamodb").query(**query)
        for item in answer["Items"]:
            found.append(
                Presence(
                    website_id,
                    item["slot"]["S"].split("#", 1)[1],
                    int(item["at"]["N"]),
                    item.get("page", {}).get("S", ""),
                    item.get("source", {}).get("S", ""),
                )
            )
        if "LastEvaluatedKey" not in answer:
            return found, False
        if len(found) >= MAX_ITEMS_READ:
            return found, True
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
