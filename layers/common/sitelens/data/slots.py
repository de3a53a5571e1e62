"""Paces every crawl worker shares: a slot per host (politeness) and one per account (its
fair share of the workers), items of AuditCrawlsTable outside any run's partition:
`host#<host[:port]>` and `account#<account>`, key `#slot`, with `expires_at` (TTL) a day on.

A slot is a watermark, `next_at` (epoch seconds): the first time not booked yet. `reserve`
books times from `max(now, next_at)` on, spaced as asked, as long as they fall within
`horizon` seconds of now, and moves the watermark past the last one with a write on the
condition that it still holds what was read: two workers never book the same time,
whichever container, crawl or account they serve. A slot contended through every retry
books nothing (the caller puts its steps off), never a time another worker holds.

A step whose time is not booked now is sent again to the crawl queue, delayed
(`send_later`), rather than failed: its message is acknowledged, so putting it off never
counts as a delivery towards the dead-letter queue.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from typing import Any

from sitelens.core.config import settings
from sitelens.data import transactions
from sitelens.data.clients import client

SLOT = "#slot"
KEPT_SECONDS = 86_400  # a slot idle for a day is forgotten (TTL): its watermark is long past
MAX_DELAY = 900  # seconds: SQS's longest DelaySeconds


@dataclass(frozen=True)
class Booked:
    """What a reservation booked: one time per step, in order (the first `len(times)` of
    the steps asked for), and the watermark after them, when the next step could start."""

    times: list[float]
    after: float


def reserve_host(host: str, now: float, spacing: list[float], horizon: float) -> Booked:
    """Book a host's fetch times: one per step, each step's `spacing` before the next,
    those within `horizon` seconds of `now`."""
    return _reserve(f"host#{host}", now, spacing, horizon)


def reserve_account(
    account: str, now: float, count: int, interval: float, horizon: float
) -> Booked:
    """Book `count` of an account's steps `interval` apart, those within `horizon` seconds
    of `now` (a token bucket of `horizon / interval` steps, refilled one per `interval`)."""
    return _reserve(f"account#{account}", now, [interval] * count, horizon)


def _reserve(owner: str, now: float, spacing: list[float], horizon: float) -> Booked:
    dynamodb = client("dynamodb")
    key = {"crawl": {"S": owner}, "key": {"S": SLOT}}
    table = settings().audit_crawls_table
    for _ in transactions.attempts(cap=0.05):
        found = dynamodb.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item", {})
        read = found.get("next_at")  # compared as stored: a float read back may differ
        at = max(now, float(read["N"])) if read else now
        times: list[float] = []
        for gap in spacing:
            if at > now + horizon:
                break
            times.append(at)
            at += gap
        if not times:
            return Booked([], at)
        condition: dict[str, Any] = (
            {"ConditionExpression": "next_at = :read", "ExpressionAttributeValues": {":read": read}}
            if read
            else {
                "ConditionExpression": "attribute_not_exists(next_at)",
                "ExpressionAttributeValues": {},
            }
        )
        condition["ExpressionAttributeValues"] |= {
            ":next": {"N": repr(at)},
            ":expires": {"N": str(int(time.time()) + KEPT_SECONDS)},
        }
        try:
            dynamodb.update_item(
                TableName=table,
                Key=key,
                UpdateExpression="SET next_at = :next, expires_at = :expires",
                **condition,
            )
            return Booked(times, at)
        except dynamodb.exceptions.ConditionalCheckFailedException:
            pass  # another worker booked meanwhile: read its watermark
    return Booked([], now + horizon)


def send_later(step: dict[str, Any], delay: float) -> None:
    """Queue a crawl step again, to be delivered `delay` seconds from now (whole seconds,
    at least 1, at most `MAX_DELAY`: a step put off longer is put off again then)."""
    client("sqs").send_message(
        QueueUrl=settings().audit_queue_url,
        MessageBody=json.dumps(step, separators=(",", ":")),
        DelaySeconds=min(MAX_DELAY, max(1, math.ceil(delay))),
    )
