"""The delivery ledger of the exactly-once counting (`analytics.counting`): which hits each
batch of the aggregator took on, and which chunks of its counters it committed.

Items of the stats table, by `series` (partition) and `slot` (sort key):

- delivery: `delivery#<bucket>`, `<batch>`; the digests of the hit ids a batch took on
  whose hit time fell in that bucket (ten seconds), how many chunks the batch wrote its
  counters in, when it recorded them, and the hits it left to a later delivery.
- commit: `commit#<batch>`, `<chunk>`; written by `stats.add_chunk` in the same
  transaction as the chunk's counters, so it exists exactly when they were added.

Deliveries and commits expire (TTL) after the dead-letter queue's 14 days, so a redrive
finds them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sitelens.core.config import settings
from sitelens.data import stats
from sitelens.data.clients import client


def _stats_table() -> str:
    return settings().stats_table


@dataclass(frozen=True)
class Delivery:
    """The hits a batch took on in one bucket of hit time (their digests), how many chunks
    it wrote its counters in, when it recorded them, and the hits it then left for a
    later delivery (`skipped`: none of their counters are in its chunks)."""

    batch: str
    chunks: int
    hits: frozenset[bytes]
    recorded_at: int  # Unix seconds
    skipped: frozenset[bytes] = frozenset()


def record_deliveries(
    batch: str, chunks: int, hits: dict[int, list[bytes]], recorded_at: int, expires_at: int
) -> None:
    """Before counting: which hits (digests, by bucket of hit time) `batch` takes on, in
    `chunks` chunks. BatchWriteItem, 25 items a request, unprocessed ones retried."""
    puts = [
        {
            "PutRequest": {
                "Item": {
                    "series": {"S": f"delivery#{bucket}"},
                    "slot": {"S": batch},
                    "chunks": {"N": str(chunks)},
                    "hits": {"B": b"".join(sorted(digests))},
                    "recorded_at": {"N": str(recorded_at)},
                    "expires_at": {"N": str(expires_at)},
                }
            }
        }
        for bucket, digests in hits.items()
    ]
    for start in range(0, len(puts), 25):
        stats.write_batch(puts[start : start + 25])


def record_skipped(batch: str, skipped: dict[int, list[bytes]]) -> None:
    """Before any chunk of `batch` commits: the hits of its records it leaves to a later
    delivery, so no reader takes its chunks for theirs."""
    for bucket, digests in skipped.items():
        client("dynamodb").update_item(
            TableName=_stats_table(),
            Key={"series": {"S": f"delivery#{bucket}"}, "slot": {"S": batch}},
            UpdateExpression="SET #skipped = :skipped",
            ExpressionAttributeNames={"#skipped": "skipped"},
            ExpressionAttributeValues={":skipped": {"B": b"".join(sorted(digests))}},
        )


def deliveries(bucket: int) -> list[Delivery]:
    """Every batch that took on hits of `bucket` (strongly consistent)."""
    found = _query_all(
        {
            "KeyConditionExpression": "#series = :series",
            "ExpressionAttributeNames": {"#series": "series"},
            "ExpressionAttributeValues": {":series": {"S": f"delivery#{bucket}"}},
            "ConsistentRead": True,
        }
    )
    return [
        Delivery(
            item["slot"]["S"],
            int(item["chunks"]["N"]),
            frozenset(_split_digests(item["hits"]["B"])),
            int(item["recorded_at"]["N"]),
            frozenset(_split_digests(item["skipped"]["B"])) if "skipped" in item else frozenset(),
        )
        for item in found
    ]


def _split_digests(joined: bytes) -> Iterable[bytes]:
    return (joined[start : start + 8] for start in range(0, len(joined), 8))


def committed(batch: str) -> set[int]:
    """The chunks of `batch` whose counters were added (strongly consistent)."""
    found = _query_all(
        {
            "KeyConditionExpression": "#series = :series",
            "ExpressionAttributeNames": {"#series": "series"},
            "ExpressionAttributeValues": {":series": {"S": f"commit#{batch}"}},
            "ConsistentRead": True,
        }
    )
    return {int(item["slot"]["S"]) for item in found}


def _query_all(query: dict[str, Any]) -> list[dict[str, Any]]:
    query = {"TableName": _stats_table(), **query}
    found: list[dict[str, Any]] = []
    while True:
        answer = client("dynamodb").query(**query)
        found.extend(answer["Items"])
        if "LastEvaluatedKey" not in answer:
            return found
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
