"""The aggregator's step: a batch of queued hits counted once (`counting`) and each counted
hit sent to the warehouse as its row (`warehouse.rows`). Who is on each site now is not
written here but by the event function (`realtime.note`), so it waits for no batch.

A message is reported done only once its hit's counters are all in and its row was
accepted by the warehouse's stream; otherwise SQS delivers it again, and the next delivery
adds only what is missing (counting is idempotent by hit id) and sends the row again (rows
are deduplicated by hit id at compaction and at query time). So a crash at any point
neither loses nor doubles a count or a row, and nothing is logged and dropped: what is
retried, failed or already counted is a metric (`metrics`).

A hit older than the longest path its message can take (`counting.COUNTABLE_SECONDS`: its
queue's retention, the dead-letter queue's and one redrive) may have been counted already
and its records be gone since (they are kept a day longer than that path): it is parked,
never counted. Its message is given back (HitsParked, alarmed) until SQS moves it to the
dead-letter queue, where it stays for a human to see.

From a Kinesis stream (HitStream=kinesis) the batch is the same step; a record to retry
is reported by its sequence number (Lambda reads the shard again from the first one).
A stream keeps records 24 hours, so what cannot succeed is parked at once in the hits
dead-letter queue (unreadable, too old: `PARK_AT_ONCE`), and what keeps failing is
parked there once it has waited PARK_AFTER_SECONDS; parked, it is reported done
(HitsParked, alarmed). Nothing is left to the stream's expiry.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sitelens import initialized
from sitelens.analytics import converted, counting, months
from sitelens.analytics.hit import Hit
from sitelens.analytics.warehouse import rows
from sitelens.core import clock, metrics
from sitelens.core.log import logger
from sitelens.data import clickhouse_counts, hit_stream, queues, traffic, warehouse
from sitelens.data import websites as stored_websites

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord


@dataclass(frozen=True)
class _Message:
    id: str
    account: str
    hit: Hit
    hit_id: str  # the hit's id, or the message id of a hit queued before ids existed


class CountsNotWritten(Exception):
    """Some of a message's counters or its row could not be written; SQS will deliver it
    again."""


# A streamed hit that keeps failing is parked once it is this old (the function's
# MaximumRecordAgeInSeconds in template.yaml, an hour, gives up later: parked first).
PARK_AFTER_SECONDS = 900
PARK_AT_ONCE = frozenset({"unreadable", "too_old"})  # retrying cannot help


def aggregate(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Count an SQS or Kinesis batch of hits; the partial batch response names the
    messages to retry (the first record to retry, from a stream).

    Hits of websites that no longer exist are dropped (and reported done)."""
    from aws_lambda_powertools.utilities.batch import (
        BatchProcessor,
        EventType,
        process_partial_response,
    )

    records = event.get("Records") or []
    if hit_stream.is_stream_batch(records):
        try:
            return _aggregate_stream([hit_stream.read(record) for record in records])
        finally:
            metrics.flush()
            initialized()
    try:
        messages, unreadable = _read_queued(records)
        failed = _step(messages, unreadable, len(records))
    finally:
        metrics.flush()

    def check(record: SQSRecord) -> None:
        if record.message_id in failed:
            raise CountsNotWritten(record.message_id)

    # All failed is reported like some failed: Lambda retries exactly the listed messages.
    processor = BatchProcessor(EventType.SQS, raise_on_entire_batch_failure=False)
    response = dict(process_partial_response(event, check, processor, context))
    initialized()
    return response


def _aggregate_stream(streamed: list[hit_stream.StreamedHit]) -> dict[str, Any]:
    """Count a Kinesis batch: park what `PARK_AT_ONCE` or `PARK_AFTER_SECONDS` say to
    park, and name the first record still to retry (Lambda reads on from it)."""
    messages: list[_Message] = []
    unreadable: dict[str, str] = {}
    for found in streamed:
        try:
            hit = Hit.from_json(found.body)
            if not found.account:
                raise ValueError("hit without an account")
        except (ValueError, KeyError, TypeError):
            logger.error("unreadable hit", extra={"sequence": found.sequence})
            unreadable[found.sequence] = "unreadable"
            continue
        messages.append(_Message(found.sequence, found.account, hit, hit.id or found.sequence))
    retry = _step(messages, unreadable, len(streamed))
    now = clock.now().timestamp()
    parked: Counter[str] = Counter()
    first_failed = None
    for found in streamed:
        why = retry.get(found.sequence)
        if why is None:
            continue
        if why in PARK_AT_ONCE or now - found.arrived >= PARK_AFTER_SECONDS:
            try:
                queues.park_hit(found.account, found.body, why)
                parked[why] += 1
                continue
            except Exception:
                logger.exception("hit not parked", extra={"sequence": found.sequence})
        first_failed = found.sequence  # Lambda retries from here; later records come again
        break
    for why, total in parked.items():
        if why != "too_old":  # counted as parked already (`_countable`)
            metrics.count("HitsParked", total, reason=why)
    failures = [{"itemIdentifier": first_failed}] if first_failed else []
    return {"batchItemFailures": failures}


def _read_queued(records: list[dict[str, Any]]) -> tuple[list[_Message], dict[str, str]]:
    """The SQS records' hits, and the ids of the unreadable ones (to retry)."""
    retry: dict[str, str] = {}
    messages: list[_Message] = []
    for record in records:
        try:
            messages.append(_message(record))
        except (ValueError, KeyError, TypeError):
            # Kept failing until SQS moves it to the dead-letter queue, for a human to see.
            logger.error("unreadable hit", extra={"message_id": record.get("messageId")})
            retry[record.get("messageId", "")] = "unreadable"
    return messages, retry


def _step(messages: list[_Message], unreadable: dict[str, str], received: int) -> dict[str, str]:
    """Count the messages' hits and send their rows; the ids of the messages to retry (the
    `unreadable` ones among them), with why."""
    retry = dict(unreadable)
    messages, parked = _countable(messages)
    retry.update(dict.fromkeys(parked, "too_old"))
    live, unchecked = _live(messages)
    retry.update(dict.fromkeys(unchecked, "website"))

    by_hit: dict[str, list[_Message]] = defaultdict(list)
    for message in live:
        by_hit[message.hit_id].append(message)  # the same hit twice in a batch counts once
    outcome = _count({hit_id: found[0].hit for hit_id, found in by_hit.items()})
    for hit_id, why in outcome.retry.items():
        retry.update(dict.fromkeys((m.id for m in by_hit[hit_id]), why))

    counted = [by_hit[hit_id][0] for hit_id in outcome.counted]
    unsent = _send_rows(counted)
    for hit_id in unsent:
        retry.update(dict.fromkeys((m.id for m in by_hit[hit_id]), "rows"))
    _note_traffic(counted)
    months.note((m.account, m.hit.website_id, m.hit.at) for m in counted)  # for the roll-ups
    # goal.converted webhooks: each counted hit's conversions, once by hit id (`converted`)
    for hit_id in converted.note([(m.account, m.hit_id, m.hit) for m in counted]):
        retry.update(dict.fromkeys((m.id for m in by_hit[hit_id]), "conversions"))

    duplicates = len(live) - len(by_hit) + outcome.already_counted
    metrics.count("HitsCounted", len(outcome.counted) - outcome.already_counted)
    metrics.count("HitsDuplicate", duplicates)
    metrics.count("CountersCommitted", outcome.committed)
    for why, total in Counter(retry.values()).items():
        metrics.count("MessagesRetried", total, reason=why)
    logger.info(
        "aggregated",
        extra={
            "messages": received,
            "hits": len(by_hit),
            "dropped": len(messages) - len(live) - len(unchecked),
            "already_counted": outcome.already_counted,
            "counters": outcome.committed,
            "retried": len(retry),
        },
    )
    return retry


def _count(hits: dict[str, Hit]) -> counting.Outcome:
    """Count the hits: in DynamoDB, and those of websites counted in ClickHouse there."""
    listed = {h: hit for h, hit in hits.items() if clickhouse_counts.counted(hit.website_id)}
    outcome = counting.count({h: hit for h, hit in hits.items() if h not in listed})
    if listed:
        elsewhere = counting.count(listed, in_clickhouse=True)
        outcome.counted |= elsewhere.counted
        outcome.retry.update(elsewhere.retry)
        outcome.already_counted += elsewhere.already_counted
        outcome.committed += elsewhere.committed
    return outcome


def _send_rows(counted: list[_Message]) -> set[str]:
    """Send the counted hits' rows to the warehouse; the hit ids whose rows were not
    accepted (their messages come back, and only the rows are sent again)."""
    found = {m.hit_id: row for m in counted if (row := rows.row(m.hit, m.hit_id)) is not None}
    if not found:
        return set()
    hit_ids = list(found)
    try:
        warehouse.put(list(found.values()))
    except warehouse.RowsRefused as refused:  # the rows of the records refused, no others
        unsent = {hit_ids[n] for n in refused.positions}
        logger.error("warehouse rows not accepted", extra={"rows": len(unsent)})
    except Exception:
        logger.exception("warehouse rows not accepted", extra={"rows": len(found)})
        unsent = set(found)
    else:
        unsent = set()
    if unsent:
        metrics.count("RowsFailed", len(unsent))
    metrics.count("RowsDelivered", len(found) - len(unsent))
    return unsent


# (account, website id, UTC day) noted by this container: a website is noted once a day
# here, not once a batch. Bounded: cleared when it grows past _NOTED_MAX.
_noted: set[tuple[str, int, str]] = set()
_NOTED_MAX = 100_000


def _note_traffic(counted: list[_Message]) -> None:
    """Note the websites that had hits counted today, which the hourly traffic alerts read
    (`data.traffic`). Not retried: a failure is counted, and the next batch notes them."""
    day = clock.now().date().isoformat()
    fresh = {(m.account, m.hit.website_id, day) for m in counted} - _noted
    if not fresh:
        return
    try:
        expires = int(clock.now().timestamp()) + traffic.ACTIVITY_KEPT_SECONDS
        traffic.note_active(day, [(account, website) for account, website, _ in fresh], expires)
    except Exception:
        logger.exception("traffic activity not noted", extra={"websites": len(fresh)})
        metrics.count("TrafficActivityFailed", len(fresh))
        return
    if len(_noted) > _NOTED_MAX:
        _noted.clear()
    _noted.update(fresh)


def _message(record: dict[str, Any]) -> _Message:
    account = queues.hit_account(record)
    if not account:
        raise ValueError("hit without an account")
    hit = Hit.from_json(record["body"])
    return _Message(record["messageId"], account, hit, hit.id or record["messageId"])


def _countable(messages: list[_Message]) -> tuple[list[_Message], set[str]]:
    """The messages young enough to count, and the ids of those parked (too old: see the
    module's docstring), counted as HitsParked."""
    oldest = clock.now().timestamp() - counting.COUNTABLE_SECONDS
    parked = {m.id for m in messages if m.hit.at.timestamp() < oldest}
    if parked:
        logger.warning("hits parked: older than their dedupe records", extra={"hits": len(parked)})
        metrics.count("HitsParked", len(parked), reason="too_old")
    return [m for m in messages if m.id not in parked], parked


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
