"""Messages between functions: hits on their way to the aggregator (on the hits queue, or
the hits stream: `data.hit_stream`), hits parked, websites whose statistics are to be
removed (a kind of task, `data.tasks`). The only code that talks to SQS."""

from __future__ import annotations

import json
from typing import Any

from sitelens.core.config import settings
from sitelens.data import drains, hit_stream, tasks
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


def send_hit(account_id: str, hit_json: str, hit_id: str = "") -> None:
    """Queue one hit (`Hit.to_json`) of one of the account's websites for counting: on the
    hits stream when there is one (`hit_id` its partition key), else on the hits queue.
    Raises when it was not taken (the event function answers 500)."""
    if settings().hits_stream:
        hit_stream.put(account_id, hit_json, hit_id)
    else:
        _queue_hit(account_id, hit_json)


def _queue_hit(account_id: str, hit_json: str) -> None:
    client("sqs").send_message(
        QueueUrl=settings().hits_queue_url,
        MessageBody=hit_json,
        MessageAttributes={ACCOUNT_ATTRIBUTE: {"DataType": "String", "StringValue": account_id}},
    )


def hit_account(record: dict[str, Any]) -> str:
    """The account of a queued hit, from its SQS record in a Lambda event; "" if absent."""
    attribute = (record.get("messageAttributes") or {}).get(ACCOUNT_ATTRIBUTE) or {}
    return str(attribute.get("stringValue") or "")


def park_hit(account_id: str, body: str, reason: str) -> None:
    """Keep a streamed hit the aggregator gives up on in the parking queue (the hits
    dead-letter queue), as a message the hits queue would have held, for a human to see
    and redrive (docs/pipeline.md): the stream itself keeps it 24 hours only."""
    attributes = {"reason": {"DataType": "String", "StringValue": reason}}
    if account_id:
        attributes[ACCOUNT_ATTRIBUTE] = {"DataType": "String", "StringValue": account_id}
    client("sqs").send_message(
        QueueUrl=settings().hits_parking_queue_url,
        MessageBody=body,
        MessageAttributes=attributes,
    )


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


def send_export(account: str, export_id: int) -> None:
    """Queue the making of an export's file (`analytics.exports.run`)."""
    client("sqs").send_message(
        QueueUrl=settings().task_queue_url,
        MessageBody=tasks.body(tasks.EXPORT, {"account": account, "export_id": export_id}),
    )


def export_task(record: dict[str, Any]) -> tuple[str, int]:
    """The account and export id of an export message's SQS record; ValueError if none."""
    data = json.loads(record["body"])
    account, export_id = data.get("account"), data.get("export_id")
    if not isinstance(account, str) or not isinstance(export_id, int) or export_id < 1:
        raise ValueError("no export in the export message")
    return account, export_id


def send_import(account: str, import_id: int) -> None:
    """Queue the reading of an import's file (`analytics.imports.jobs.run`)."""
    client("sqs").send_message(
        QueueUrl=settings().task_queue_url,
        MessageBody=tasks.body(tasks.IMPORT, {"account": account, "import_id": import_id}),
    )


def import_task(record: dict[str, Any]) -> tuple[str, int]:
    """The account and import id of an import message's SQS record; ValueError if none."""
    data = json.loads(record["body"])
    account, import_id = data.get("account"), data.get("import_id")
    if not isinstance(account, str) or not isinstance(import_id, int) or import_id < 1:
        raise ValueError("no import in the import message")
    return account, import_id


def send_search_console_import(account: str, website_id: int, delay_seconds: int = 0) -> None:
    """Queue a website's Search Console import (`analytics.searchconsole.imports.run`), at
    once or after `delay_seconds` (at most SQS's 900: a quota's wait)."""
    client("sqs").send_message(
        QueueUrl=settings().task_queue_url,
        MessageBody=tasks.body(
            tasks.SEARCH_CONSOLE, {"account": account, "website_id": website_id}
        ),
        DelaySeconds=max(0, min(900, int(delay_seconds))),
    )


def search_console_task(record: dict[str, Any]) -> tuple[str, int]:
    """The account and website id of a Search Console import's SQS record; ValueError if none."""
    data = json.loads(record.get("body") or "{}")
    account, website_id = data.get("account"), data.get("website_id")
    if not isinstance(account, str) or not isinstance(website_id, int) or website_id < 1:
        raise ValueError("no website in the search console message")
    return account, website_id


def cleanup_website(record: dict[str, Any]) -> int:
    """The website id of a cleanup message's SQS record; ValueError if it has none."""
    website_id = json.loads(record["body"]).get("website_id")
    if not isinstance(website_id, int) or isinstance(website_id, bool) or website_id < 1:
        raise ValueError("no website id in the cleanup message")
    return website_id


def receive_hits(wanted: int) -> list[dict[str, Any]]:
    """Up to `wanted` (at most 10) queued hits, for a drain (`drains.receive`)."""
    return drains.receive(settings().hits_queue_url, wanted)


def delete_hits(receipts: list[str]) -> int:
    """Delete counted hits (`drains.delete`)."""
    return drains.delete(settings().hits_queue_url, receipts)


def receive_tasks(wanted: int) -> list[dict[str, Any]]:
    """Up to `wanted` (at most 10) queued tasks, for a drain (`drains.receive`)."""
    return drains.receive(settings().task_queue_url, wanted)


def delete_tasks(receipts: list[str]) -> int:
    """Delete tasks done (`drains.delete`)."""
    return drains.delete(settings().task_queue_url, receipts)


lambda_record = drains.lambda_record  # the record Lambda passes for a received message
