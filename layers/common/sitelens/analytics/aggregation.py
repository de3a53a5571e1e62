"""Counting batches of queued hits into the statistics counters.

Counting (`aggregate`) runs on SQS batches of up to 1,000 hits. It sums the batch in
memory (`sum_counts`) and writes each distinct counter (website, name, value, day) once,
with one `UpdateItem ADD`, however many hits share it. Partial failures are reported per
message, and exactly so: see `aggregate`.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitelens import initialized
from sitelens.analytics.hits import Hit, counts
from sitelens.data import queues, stats
from sitelens.data import websites as stored_websites
from sitelens.log import logger

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

# A ledger outlives every delivery of its message (SQS keeps hits for 4 days).
RETRY_LEDGER_SECONDS = 5 * 24 * 3600
# Counters are written in parallel; botocore keeps 10 connections per client.
WRITERS = 10

StatKey = tuple[int, str, str, str]  # website id, name, value, day


def sum_counts(hits: Iterable[Hit]) -> dict[StatKey, int]:
    """How much each (website_id, name, value, day) grows by: one entry per key."""
    totals: Counter[StatKey] = Counter()
    for hit in hits:
        totals.update((hit.website_id, name, value, day) for name, value, day in counts(hit))
    return dict(totals)


@dataclass(frozen=True)
class _Message:
    id: str
    account: str
    hit: Hit
    retried: bool


class CountsNotWritten(Exception):
    """Some of a message's counters could not be written; SQS will deliver it again."""


def aggregate(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Count an SQS batch of hits; the partial batch response names the messages to retry.

    The batch is summed in memory (`sum_counts`) and each distinct counter gets exactly
    one `UpdateItem ADD`. When a write fails, the messages that contributed to that
    counter, and only those, are reported as failures. A failed message may have
    contributed to other counters whose writes succeeded, so before it is reported its
    retry ledger (one item per message) records those counters; when SQS delivers it
    again (ApproximateReceiveCount > 1) the ledger is read and the message adds only to
    the counters that are missing. So a retry re-adds only what failed: nothing is lost
    and nothing is counted twice. Fresh messages, the usual case, cost no ledger reads or
    writes. Each write also carries a token of its batch, so the SDK's own retry of a write
    that landed although its answer was lost is ignored.

    Hits of websites that no longer exist are dropped (and reported done).
    """
    from aws_lambda_powertools.utilities.batch import (
        BatchProcessor,
        EventType,
        process_partial_response,
    )

    failed = _count(event.get("Records") or [])

    def check(record: SQSRecord) -> None:
        if record.message_id in failed:
            raise CountsNotWritten(record.message_id)

    # All failed is reported like some failed: Lambda retries exactly the listed messages.
    processor = BatchProcessor(EventType.SQS, raise_on_entire_batch_failure=False)
    response = dict(process_partial_response(event, check, processor, context))
    initialized()
    return response


def _count(records: list[dict[str, Any]]) -> set[str]:
    """Count the records' hits; returns the ids of the messages to be delivered again."""
    failed: set[str] = set()
    messages: list[_Message] = []
    for record in records:
        try:
            messages.append(_message(record))
        except (ValueError, KeyError, TypeError):
            # Kept failing until SQS moves it to the dead-letter queue, for a human to see.
            logger.error("unreadable hit", extra={"message_id": record.get("messageId")})
            failed.add(record.get("messageId", ""))
    live, unchecked = _live(messages)
    written_before, unread = _ledgers(m for m in live if m.retried)
    failed |= unchecked | unread
    counting = [m for m in live if m.id not in unread]

    # Fresh messages are summed whole; redelivered ones add only what is still missing.
    to_write = {m.id: _still_to_write(m, written_before) for m in counting}
    totals = Counter(sum_counts(m.hit for m in counting if m.id not in written_before))
    for m in counting:
        if m.id in written_before:
            totals.update(to_write[m.id])
    failed_keys = _write(totals, _batch_token(m.id for m in counting))

    incomplete = [m for m in counting if to_write[m.id] & failed_keys]
    for m in incomplete:
        _record_progress(m, to_write[m.id] - failed_keys)
    failed |= {m.id for m in incomplete}
    logger.info(
        "aggregated",
        extra={
            "messages": len(records),
            "counted": len(counting),
            "dropped": len(messages) - len(live) - len(unchecked),
            "counters": len(totals),
            "failed_counters": len(failed_keys),
            "failed_messages": len(failed),
        },
    )
    return failed


def _still_to_write(message: _Message, written_before: dict[str, set[str]]) -> set[StatKey]:
    keys = set(_keys(message.hit))
    if message.id not in written_before:
        return keys
    return {key for key in keys if _ledger_key(key) not in written_before[message.id]}


def _message(record: dict[str, Any]) -> _Message:
    account = queues.hit_account(record)
    if not account:
        raise ValueError("hit without an account")
    receives = int((record.get("attributes") or {}).get("ApproximateReceiveCount") or 1)
    return _Message(record["messageId"], account, Hit.from_json(record["body"]), receives > 1)


def _live(messages: list[_Message]) -> tuple[list[_Message], set[str]]:
    """The messages of websites that still exist, and the ids of those that could not be
    checked (to be retried). One cached look-up per distinct website."""
    exists: dict[tuple[str, int], bool | None] = {}
    for website in {(m.account, m.hit.website_id) for m in messages}:
        try:
            exists[website] = stored_websites.exists(*website)
        except Exception:
            logger.exception("website look-up failed", extra={"website_id": website[1]})
            exists[website] = None
    live = [m for m in messages if exists[(m.account, m.hit.website_id)]]
    unknown = {m.id for m in messages if exists[(m.account, m.hit.website_id)] is None}
    return live, unknown


def _ledgers(retried: Iterable[_Message]) -> tuple[dict[str, set[str]], set[str]]:
    """What earlier attempts of redelivered messages wrote; if that cannot be read, the
    messages are retried later rather than risk counting anything twice."""
    retried = list(retried)
    if not retried:
        return {}, set()
    try:
        return stats.retry_ledgers([(m.hit.website_id, m.id) for m in retried]), set()
    except Exception:
        logger.exception("retry ledgers unreadable", extra={"messages": len(retried)})
        return {}, {m.id for m in retried}


def _keys(hit: Hit) -> list[StatKey]:
    return [(hit.website_id, name, value, day) for name, value, day in counts(hit)]


def _ledger_key(key: StatKey) -> str:
    _, name, value, day = key
    return stats.ledger_key(name, day, value)


def _batch_token(message_ids: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(sorted(message_ids)).encode()).hexdigest()[:24]


def _write(totals: Counter[StatKey], batch: str) -> set[StatKey]:
    """One UpdateItem ADD per counter, in parallel; returns the counters not written."""

    def write(key: StatKey) -> StatKey | None:
        website_id, name, value, day = key
        try:
            stats.add(website_id, name, day, value, totals[key], batch)
        except Exception:
            logger.exception("counter not written", extra={"website_id": website_id})
            return key
        return None

    keys = [key for key, count in totals.items() if count > 0]
    if len(keys) <= 1:
        return {key for key in map(write, keys) if key}
    with ThreadPoolExecutor(max_workers=min(WRITERS, len(keys))) as pool:
        return {key for key in pool.map(write, keys) if key}


def _record_progress(message: _Message, written: set[StatKey]) -> None:
    if not written:
        return
    try:
        stats.record_retry(
            message.hit.website_id,
            message.id,
            {_ledger_key(key) for key in written},
            int(time.time()) + RETRY_LEDGER_SECONDS,
        )
    except Exception:
        # The message must be retried for its failed counters either way; this once, its
        # retry will add to these counters again.
        logger.exception("retry ledger not written", extra={"counters": len(written)})
