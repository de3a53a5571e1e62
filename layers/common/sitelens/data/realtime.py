"""Who is on a website now: an item per visitor and minute in the stats table, written by
the event function as it accepts each hit (or, from a hits stream, an item per site and
flush: `put_flush`) and read by the realtime route.

Items: `live#<website id>`, `<minute>#<visitor>` (the minute as a zero-padded Unix minute),
with `at` (the second of the visitor's last hit in that minute), `page` (the page it was
on) and `source` (where its visit came from), expiring (TTL) ten minutes later. A read
asks for the last minutes' slots only, so items TTL has not removed yet are never read.

A write is keyed by what the presence is (website, minute, the day's visitor digest) and
sets, never adds: the same hit sent twice writes the same item. Two hits of a visitor's
minute may reach two containers and land in either order (the landing's write after the
next page's): the latest hit's page wins, and the source is written only by a landing,
whichever comes last.

A flush item (`<minute>#~<flush id>#<part>`, the minute of its latest presence) holds
the flush's presences as JSON in `visitors` ([visitor, at, page, source or null] each,
one per visitor, its latest); the reader takes the latest per visitor over all items, so
the two shapes answer alike. Put unconditionally: the same flush again is the same item.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sitelens.core.config import settings
from sitelens.data import batches, clickhouse_counts
from sitelens.data.clients import client
from sitelens.data.items import is_condition_failure

KEPT_SECONDS = 600  # a presence outlives the realtime window twice over, then TTL takes it
MAX_ITEMS_READ = 20_000  # per answer: 5 minutes of 4,000 visitors a minute
FLUSH_ITEM_BYTES = 300_000  # a flush item's presences, well under DynamoDB's 400 KB an item


@dataclass(frozen=True)
class Presence:
    website_id: int
    visitor: str
    at: int  # Unix seconds
    page: str
    source: str | None  # None: not a visit's landing (a stored source stands)


def put(seen: Presence) -> None:
    """Record a presence: one conditional UpdateItem (a later hit of the minute already
    stored is no failure), and a second only for a landing that came after a later page of
    its minute, to write its source beside that page."""
    key = {
        "series": {"S": f"live#{seen.website_id}"},  # spelled out: IAM's LeadingKeys reads it
        "slot": {"S": f"{seen.at // 60:010d}#{seen.visitor}"},
    }
    request: dict[str, Any] = {
        "TableName": settings().stats_table,
        "Key": key,
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
    if _updated(request) or seen.source is None:
        return
    _updated(
        {
            "TableName": request["TableName"],
            "Key": key,
            "UpdateExpression": "SET #source = :source",
            "ConditionExpression": "attribute_exists(#at) AND attribute_not_exists(#source)",
            "ExpressionAttributeNames": {"#at": "at", "#source": "source"},
            "ExpressionAttributeValues": {":source": {"S": seen.source}},
        }
    )


def put_flush(sites: Sequence[Sequence[Presence]], flush_id: str) -> int:
    """Record a flush's presences, each site's (one per visitor) in one item, or a few when
    they outgrow FLUSH_ITEM_BYTES: BatchWriteItem puts; raises when some were not written.
    The number of items written."""
    requests = []
    for presences in sites:
        for part, chunk in enumerate(_chunks(presences)):
            latest = max(seen.at for seen in chunk)
            item = {
                "series": {"S": f"live#{chunk[0].website_id}"},
                "slot": {"S": f"{latest // 60:010d}#~{flush_id}#{part}"},
                "visitors": {"S": json.dumps([_entry(seen) for seen in chunk])},
                "at": {"N": str(latest)},
                "expires_at": {"N": str(latest + KEPT_SECONDS)},
            }
            requests.append({"PutRequest": {"Item": item}})
    if requests:
        batches.write(settings().stats_table, requests)
    return len(requests)


def _entry(seen: Presence) -> list[Any]:
    return [seen.visitor, seen.at, seen.page, seen.source]


def _chunks(presences: Sequence[Presence]) -> list[list[Presence]]:
    chunks: list[list[Presence]] = [[]]
    size = 0
    for seen in presences:
        entry = len(json.dumps(_entry(seen)))
        if chunks[-1] and size + entry > FLUSH_ITEM_BYTES:
            chunks.append([])
            size = 0
        chunks[-1].append(seen)
        size += entry
    return [chunk for chunk in chunks if chunk]


def _updated(request: dict[str, Any]) -> bool:
    """Whether the conditional update was made (False: its condition did not hold)."""
    try:
        client("dynamodb").update_item(**request)
    except Exception as err:
        if not is_condition_failure(err):
            raise
        return False
    return True


def since(website_id: int, start: int) -> tuple[list[Presence], bool]:
    """The presences of the minutes from `start`'s on (at most MAX_ITEMS_READ), and
    whether some were left unread. A website counted in ClickHouse (`clickhouse_counts`)
    reads its materialised presences there, every one."""
    if clickhouse_counts.counted(website_id):
        return [
            Presence(website_id, visitor, at, page, source)
            for visitor, at, page, source in clickhouse_counts.presences(website_id, start)
        ], False
    query: dict[str, Any] = {
        "TableName": settings().stats_table,
        "KeyConditionExpression": "series = :series AND slot >= :first",
        "ExpressionAttributeValues": {
            ":series": {"S": f"live#{website_id}"},
            ":first": {"S": f"{start // 60:010d}#"},
        },
    }
    found: list[Presence] = []
    while True:
        answer = client("dynamodb").query(**query)
        for item in answer["Items"]:
            if "visitors" in item:  # a flush's item
                found.extend(
                    Presence(website_id, visitor, int(at), page, source or "")
                    for visitor, at, page, source in json.loads(item["visitors"]["S"])
                )
                continue
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
