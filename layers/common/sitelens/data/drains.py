"""Draining a queue from a scheduled run instead of Lambda's SQS event source (the lean
profile): a quiet queue's event source keeps five pollers long-polling it all month, about
650,000 empty receives ($0.26); a run every few minutes receives only what waits. Written
for any queue (its URL given), so each queue's module names its own (`data.queues`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sitelens.data.clients import client

Receive = Callable[[int], list[dict[str, Any]]]  # up to n messages, as Lambda's records
Delete = Callable[[list[str]], int]  # receipt handles deleted; how many were not
Step = Callable[[dict[str, Any]], dict[str, Any]]  # a Lambda SQS event -> batchItemFailures


def receive(queue_url: str, wanted: int) -> list[dict[str, Any]]:
    """Up to `wanted` (at most 10) messages of a queue, at once (no long poll: a drain runs
    on a schedule, after its messages have waited), as the SQS records of a Lambda event,
    so its function takes them as it takes its trigger's batches."""
    answer = client("sqs").receive_message(
        QueueUrl=queue_url,
        MaxNumberOfMessages=max(1, min(10, wanted)),
        WaitTimeSeconds=0,
        MessageAttributeNames=["All"],
        MessageSystemAttributeNames=["All"],
    )
    return [lambda_record(message, queue_url) for message in answer.get("Messages") or []]


def delete(queue_url: str, receipts: list[str]) -> int:
    """Delete messages done with by receipt handle, 10 a request; how many were not
    deleted (they come back after the visibility timeout: done again, which changes
    nothing, since every consumer here is idempotent)."""
    failed = 0
    for start in range(0, len(receipts), 10):
        entries = [
            {"Id": str(n), "ReceiptHandle": handle}
            for n, handle in enumerate(receipts[start : start + 10])
        ]
        answer = client("sqs").delete_message_batch(QueueUrl=queue_url, Entries=entries)
        failed += len(answer.get("Failed") or [])
    return failed


def drain(
    context: Any, step: Step, take: Receive, done: Delete, batch_size: int, reserve_ms: int
) -> dict[str, int]:
    """A scheduled run's work on a queue instead of Lambda's event source (the lean
    profile): batches of `batch_size` taken (`take`), each handed to `step` as a Lambda SQS
    event, and what it did not report failed deleted (`done`), until the queue is empty or
    `reserve_ms` of the run is left. A failed message stays, comes back after the
    visibility timeout and is dead-lettered after maxReceiveCount, as with the event
    source. What was received, deleted, left for a retry, and done but not deleted."""
    summary = {"received": 0, "deleted": 0, "retried": 0, "undeleted": 0}
    while context.get_remaining_time_in_millis() > reserve_ms:
        batch: list[dict[str, Any]] = []
        while len(batch) < batch_size and (found := take(batch_size - len(batch))):
            batch += found
        if not batch:
            break
        summary["received"] += len(batch)
        answer = step({"Records": batch})
        failed = {item["itemIdentifier"] for item in answer.get("batchItemFailures") or []}
        finished = [r["receiptHandle"] for r in batch if r["messageId"] not in failed]
        undeleted = done(finished)
        summary["deleted"] += len(finished) - undeleted
        summary["undeleted"] += undeleted
        summary["retried"] += len(failed)
        if len(batch) < batch_size:
            break  # the queue had no more
    return summary


def lambda_record(message: dict[str, Any], queue: str) -> dict[str, Any]:
    """The record Lambda's event source mapping passes for a received SQS message (a
    ReceiveMessage `Messages` entry) of `queue` (its URL, ARN or name)."""
    attributes = {
        name: {
            **({"stringValue": value["StringValue"]} if "StringValue" in value else {}),
            "stringListValues": [],
            "binaryListValues": [],
            "dataType": value["DataType"],
        }
        for name, value in (message.get("MessageAttributes") or {}).items()
    }
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": message.get("Attributes", {}),
        "messageAttributes": attributes,
        "md5OfBody": message.get("MD5OfBody", ""),
        "eventSource": "aws:sqs",
        "eventSourceARN": queue if queue.startswith("arn:") else _queue_arn(queue),
        "awsRegion": "local",
    }


def _queue_arn(queue: str) -> str:
    return f"arn:aws:sqs:local:000000000000:{queue.rstrip('/').rsplit('/', 1)[-1]}"
