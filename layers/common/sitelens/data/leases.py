"""Leases: one holder at a time for a job that must never overlap itself (the warehouse
compaction), whatever its function's concurrency setting says.

A lease is an item of the stats table outside any counter's series: `lease#<name>`, key
`#lease`, with its holder (a random token) and `expires_at` (epoch seconds, also the
table's TTL). `acquire` writes it on the condition that there is none or the one there
has expired, so of two runs at once exactly one holds it; a run that was killed holds
it only until it expires. `release` deletes it on the condition that the caller still
holds it, so a run that outlived its lease never removes its successor's.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from sitelens.core.config import settings
from sitelens.data.clients import client
from sitelens.data.items import is_condition_failure

SLOT = "#lease"


def _key(name: str) -> dict[str, Any]:
    return {"series": {"S": f"lease#{name}"}, "slot": {"S": SLOT}}


def acquire(name: str, seconds: int) -> str | None:
    """Hold the lease `name` for `seconds`: its holder's token, or None when another run
    holds it (and it has not expired)."""
    holder = secrets.token_hex(16)
    now = int(time.time())
    try:
        client("dynamodb").put_item(
            TableName=settings().stats_table,
            Item={
                **_key(name),
                "holder": {"S": holder},
                "expires_at": {"N": str(now + seconds)},
            },
            ConditionExpression="attribute_not_exists(series) OR expires_at <= :now",
            ExpressionAttributeValues={":now": {"N": str(now)}},
        )
    except Exception as err:
        if is_condition_failure(err):
            return None
        raise
    return holder


def release(name: str, holder: str) -> bool:
    """Give the lease back; False when `holder` no longer held it (it expired, and another
    run may hold it now: that one's lease is left alone)."""
    try:
        client("dynamodb").delete_item(
            TableName=settings().stats_table,
            Key=_key(name),
            ConditionExpression="holder = :holder",
            ExpressionAttributeValues={":holder": {"S": holder}},
        )
    except Exception as err:
        if is_condition_failure(err):
            return False
        raise
    return True
