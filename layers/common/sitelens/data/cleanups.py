"""Removing a deleted website's statistics in runs that resume.

A run deletes up to its bound of the website's counters and registries, series after
series, in slot order, and after every batch of deletes stores where it stopped: the item
`cleanup#<website id>`, `progress` of the stats table holds the series, the last slot
deleted in it, how many items every run deleted together, and whether all are gone. The
next run, or the retry of a run stopped midway (a timeout, a redelivery), starts there:
a finished series is not read again, nor is any item deleted (they are gone), so no
work is done twice. A finished removal's item stays until its TTL, so a late duplicate
of its message reads one item and deletes nothing.

While a removal is under way, the partition `cleanup` holds an item for it (`slot`: the
website id), so the removals left unfinished can be listed with one Query (`pending`):
`make serve`, whose queue is in memory, queues them again when it starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sitelens.core import clock
from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.stats import write_batch

PAGE = 500  # keys a run reads with one Query
BATCH = 25  # keys deleted with one BatchWriteItem (its most), then the progress is stored
# A finished removal is remembered for as long as its message may come back (the dead-letter
# queue keeps messages 14 days).
KEPT_SECONDS = 14 * 86_400
_PENDING = "cleanup"  # the partition listing the removals under way


@dataclass(frozen=True)
class Progress:
    """Where a website's removal stands: the series it is in (None: before the first), the
    last slot deleted in it, the items deleted so far by every run, and whether it is done."""

    series: str | None = None
    after: str | None = None
    deleted: int = 0
    done: bool = False


def progress(website_id: int) -> Progress:
    """The stored progress of the website's removal (a fresh one when none is stored)."""
    answer = client("dynamodb").get_item(
        TableName=settings().stats_table, Key=_key(website_id), ConsistentRead=True
    )
    item = answer.get("Item")
    if item is None:
        return Progress()
    return Progress(
        series=item["series_name"]["S"] if "series_name" in item else None,
        after=item["after"]["S"] if "after" in item else None,
        deleted=int(item["deleted"]["N"]),
        done=item["done"]["BOOL"],
    )


def remove(website_id: int, names: tuple[str, ...], most: int) -> Progress:
    """Delete up to `most` more of the counters and registries of the website's series
    `names`, from where the runs before stopped; the progress stored after it."""
    now = progress(website_id)
    if now.done:
        return now
    if now == Progress():  # nothing deleted yet: list it as under way first
        client("dynamodb").put_item(TableName=settings().stats_table, Item=_pending_key(website_id))
    resumed = now.series in names  # else from the first (none stored, or one renamed since)
    start = names.index(now.series) if resumed else 0
    after = now.after if resumed else None
    deleted, left = now.deleted, most
    for name in names[start:]:
        while True:
            if left <= 0:
                return now
            answer = _keys(website_id, name, after, min(PAGE, left))
            keys = answer["Items"]
            for first in range(0, len(keys), BATCH):
                batch = keys[first : first + BATCH]
                write_batch([{"DeleteRequest": {"Key": key}} for key in batch])
                after = batch[-1]["slot"]["S"]
                deleted, left = deleted + len(batch), left - len(batch)
                now = _store(website_id, Progress(name, after, deleted))
            if "LastEvaluatedKey" not in answer:
                break
        after = None
    finished = _store(website_id, Progress(deleted=deleted, done=True))
    client("dynamodb").delete_item(TableName=settings().stats_table, Key=_pending_key(website_id))
    return finished


def pending(most: int = 1_000) -> list[int]:
    """The websites whose removal began and has not finished (up to `most` of them)."""
    answer = client("dynamodb").query(
        TableName=settings().stats_table,
        KeyConditionExpression="#series = :pending",
        ExpressionAttributeNames={"#series": "series"},
        ExpressionAttributeValues={":pending": {"S": _PENDING}},
        ConsistentRead=True,
        Limit=most,
    )
    return [int(item["slot"]["S"]) for item in answer["Items"]]


def _pending_key(website_id: int) -> dict[str, Any]:
    return {"series": {"S": _PENDING}, "slot": {"S": str(website_id)}}


def _key(website_id: int) -> dict[str, Any]:
    return {"series": {"S": f"cleanup#{website_id}"}, "slot": {"S": "progress"}}


def _keys(website_id: int, name: str, after: str | None, limit: int) -> dict[str, Any]:
    """A Query for the next `limit` keys of a series after the slot `after`."""
    condition = "#series = :series"
    values: dict[str, Any] = {":series": {"S": f"{website_id}#{name}"}}
    if after is not None:
        condition += " AND #slot > :after"
        values[":after"] = {"S": after}
    return dict(
        client("dynamodb").query(
            TableName=settings().stats_table,
            KeyConditionExpression=condition,
            ProjectionExpression="#series, #slot",
            ExpressionAttributeNames={"#series": "series", "#slot": "slot"},
            ExpressionAttributeValues=values,
            # what a stopped run deleted is not listed again
            ConsistentRead=True,
            Limit=limit,
        )
    )


def _store(website_id: int, now: Progress) -> Progress:
    item: dict[str, Any] = {
        **_key(website_id),
        "deleted": {"N": str(now.deleted)},
        "done": {"BOOL": now.done},
        "expires_at": {"N": str(int(clock.now().timestamp()) + KEPT_SECONDS)},
    }
    if now.series is not None:
        item["series_name"] = {"S": now.series}
    if now.after is not None:
        item["after"] = {"S": now.after}
    client("dynamodb").put_item(TableName=settings().stats_table, Item=item)
    return now
