"""Messages between functions: hits on their way to the aggregator, websites whose
statistics are to be removed (a kind of task, `data.tasks`)."""

from __future__ import annotations

import json
from typing import Any

from sitelens.core.config import settings
from sitelens.data import tasks
from sitelens.data.clients import client

# How long a hit can travel through its queues, as template.yaml sets them (HitsQueue's and
# HitsDeadLetterQueue's MessageRetentionPeriod; tests/unit/test_template.py holds them equal).
HITS_RETENTION_SECONDS = 4 * 86_400
HITS_DEAD_LETTER_RETENTION_SECONDS = 14 * 86_400
# The longest path a hit's message can take: its queue's retention, the dead-letter queue's,
# and a redrive back to the queue, where it may wait that queue's retention again. A hit
# older than this when it comes (a second redrive) is parked, never counted (`aggregation`).
HIT_LONGEST_PATH_SECONDS = (
    HITS_RETENTION_SECONDS + HITS_DEAD_LETTER_RETENTION_SECONDS + HITS_RETENTION_SECONDS
)
# What says a hit was counted (counting's records and markers, goal conversions' markers)
# is kept a day longer than that path: whatever a hit finds when it comes, it finds them all.
HIT_RECORDS_KEPT_SECONDS = HIT_LONGEST_PATH_SECONDS + 86_400

# The account a hit belongs to travels beside the hit, so the aggregator can check that
# the website still exists with one GetItem on its key.
ACCOUNT_ATTRIBUTE = "account"


def send_hit(account_id: str, hit_json: str) -> None:
    """Queue one hit (`Hit.to_json`) of one of the account's websites for counting."""
    client("sqs").send_message(
        QueueUrl=settings().hits_queue_url,
        MessageBody=hit_json,
        MessageAttributes={ACCOUNT_ATTRIBUTE: {"DataType": "String", "StringValue": account_id}},
    )


def hit_account(record: dict[str, Any]) -> str:
    """The account of a queued hit, from its SQS record in a Lambda event; "" if absent."""
    attribute = (record.get("messageAttributes") or {}).get(ACCOUNT_ATTRIBUTE) or {}
    return str(attribute.get("stringValue") or "")


# A cleanup waits this long, so that hits still in flight for the website are dropped or
# counted before its statistics are removed.
CLEANUP_DELAY_SECONDS = 120


def send_cleanup(website_id: int, delayed: bool = True) -> None:
    """Queue the removal of a deleted website's statistics: after CLEANUP_DELAY_SECONDS, or
    at once (`delayed=False`, the rest of a removal already under way)."""
    client("sqs").send_message(
        QueueUrl=settings().task_queue_url,
        MessageBody=tasks.body(tasks.CLEANUP, {"website_id": website_id}),
        DelaySeconds=CLEANUP_DELAY_SECONDS if delayed else 0,
    )


def cleanup_website(record: dict[str, Any]) -> int:
    """The website id of a cleanup message's SQS record; ValueError if it has none."""
    website_id = json.loads(record["body"]).get("website_id")
    if not isinstance(website_id, int) or isinstance(website_id, bool) or website_id < 1:
        raise ValueError("no website id in the cleanup message")
    return website_id
