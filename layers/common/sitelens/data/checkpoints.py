"""Checkpoints: how far a scheduled job has got through work ordered by a name that sorts
as it happens (an hour, `YYYY-MM-DD-HH`): the ClickHouse ingest's last inserted hour.

A checkpoint is an item of the stats table outside any counter's series,
`checkpoint#<job>`, key `#checkpoint`, read consistently. `advance` writes it only
forward (a condition on the value there), so two runs at once never move it back: the
one behind finds its write refused and leaves the other's.
"""

from __future__ import annotations

from typing import Any

from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.items import is_condition_failure

SLOT = "#checkpoint"


def _key(job: str) -> dict[str, Any]:
    return {"series": {"S": f"checkpoint#{job}"}, "slot": {"S": SLOT}}


def last(job: str) -> str | None:
    """The last unit `job` finished; None before its first."""
    found = client("dynamodb").get_item(
        TableName=settings().stats_table, Key=_key(job), ConsistentRead=True
    )
    item = found.get("Item")
    return str(item["done"]["S"]) if item else None


def advance(job: str, done: str) -> bool:
    """Record that `job` finished `done`; False when it had already got that far or
    further (another run): the checkpoint is left as it is."""
    try:
        client("dynamodb").put_item(
            TableName=settings().stats_table,
            Item={**_key(job), "done": {"S": done}},
            ConditionExpression="attribute_not_exists(series) OR done < :done",
            ExpressionAttributeValues={":done": {"S": done}},
        )
    except Exception as err:
        if is_condition_failure(err):
            return False
        raise
    return True
