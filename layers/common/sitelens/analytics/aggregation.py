"""Counting batches of queued hits into the statistics counters: delivered at least once
by SQS, counted exactly once.

A batch (up to 5,000 hits) is summed in memory (`sum_counts`) and each distinct counter
(website, stat, value, day) gets one write per batch, however many hits share it.

Exactly once. Lambda runs a message again after a partial batch failure, and also after a
timeout or a crash, when the invocation was killed part-way and left no response. So:

1. A batch writes its counters in chunks of at most 99, each chunk one TransactWriteItems
   together with a commit marker for (batch, chunk): the chunk's counts land with the
   marker or not at all. A counter's chunk follows from its key (a hash of the key modulo
   the batch's number of chunks).
2. Before it writes any counter, the batch records the messages it counts: an item per
   second of their first receipt (ApproximateFirstReceiveTimestamp, the same on every
   delivery of a message) holding their digests and the batch's number of chunks.
3. A redelivered message (ApproximateReceiveCount > 1) reads the records of its second,
   finds the earlier batches that counted it and their committed chunks, and adds only to
   the counters whose chunk did not commit in any of them.

A message is reported done only once every chunk holding its counters has committed. This
relies on an invocation having ended before its messages can be delivered again: the
queue's visibility timeout (180 s) is six times the function's timeout (30 s).

Distinct values. Each website, stat and day has a counter of its own for at most
MAX_VALUES distinct values, together at most MAX_VALUE_BYTES long; hits with any further
value that day count under OTHER (except for the UNCAPPED stats). The admitted values are
kept in a registry item per website, stat and day, read once per batch and added to with
a conditional ADD, so that concurrent batches together never take it past either limit.
A value goes to its own counter, or to OTHER, alike on every delivery: a value is sent to
OTHER only when it does not fit what is registered, and registries only grow.
"""

from __future__ import annotations

import secrets
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from sitelens import initialized
from sitelens.analytics import realtime
from sitelens.analytics.hits import Hit, counts
from sitelens.analytics.warehouse import rows
from sitelens.data import queues, stats, warehouse
from sitelens.data import realtime as realtime_store
from sitelens.data import websites as stored_websites
from sitelens.log import logger

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

# Per website, stat and day: values with a counter of their own, and their total length.
MAX_VALUES = 500
MAX_VALUE_BYTES = 32_000
OTHER = "(other)"
# Stats whose values are few by construction (the day, the hour, four device types) need
# no registry.
UNCAPPED = frozenset({"pageviews", "visitors", "pageviews_hour", "visitors_hour", "device"})
# Delivery records and commit markers outlive every delivery of their messages (SQS keeps
# hits for 4 days).
RECORDS_KEPT_SECONDS = 5 * 24 * 3600
# Requests run in parallel; botocore keeps 10 connections per client.
WORKERS = 10
_REGISTER_ATTEMPTS = 5

StatKey = tuple[int, str, str, str]  # website id, name, value, day
_T = TypeVar("_T")
_R = TypeVar("_R")


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
    redelivered: bool
    first_received: int  # the second of its first receipt, the same on every delivery


class CountsNotWritten(Exception):
    """Some of a message's counters could not be written; SQS will deliver it again."""


def aggregate(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Count an SQS batch of hits; the partial batch response names the messages to retry.

    A message is reported as failed when a counter of it may be missing: its chunk did not
    commit, or its website, registry or earlier deliveries could not be read. When it comes
    back it adds only what is missing (see the module's docstring). Hits of websites that
    no longer exist are dropped (and reported done).
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
    failed |= unchecked

    stored = _admit(live)
    keys: dict[str, set[StatKey]] = {}
    for message in live:
        wanted = _keys(message.hit)
        if all(key in stored for key in wanted):
            keys[message.id] = {stored[key] for key in wanted}
        else:
            failed.add(message.id)  # its registry could not be read or written
    redelivered = [m for m in live if m.redelivered and m.id in keys]
    done, unread = _counted_before(redelivered, keys)
    failed |= unread
    # What is still to add; a message whose counters are all there is done.
    to_add = {
        message_id: remaining
        for message_id, wanted in keys.items()
        if message_id not in unread and (remaining := wanted - done.get(message_id, set()))
    }
    firsts = {m.id: m.first_received for m in live}
    failed |= _add(to_add, firsts)
    # Each hit's row goes to the warehouse once its counters are in: now, unless an earlier
    # delivery counted all of them (and sent the row then).
    counted = [m.hit for m in live if m.id not in failed and (m.id in to_add or not m.redelivered)]
    stored_rows = _store_rows(counted)
    _store_presences(counted)
    logger.info(
        "aggregated",
        extra={
            "messages": len(records),
            "counted": len(to_add),
            "dropped": len(messages) - len(live) - len(unchecked),
            "redelivered": len(redelivered),
            "already_counted": len(keys) - len(unread) - len(to_add),
            "failed_messages": len(failed),
            "rows": stored_rows,
        },
    )
    return failed


def _store_presences(counted: list[Hit]) -> None:
    """Who is on each website now, for the realtime route; best effort, as rows are."""
    requests = realtime_store.record(realtime.presences(counted))
    try:
        _parallel(realtime_store.put, requests)
    except Exception:
        logger.exception("realtime presences lost", extra={"presences": len(requests)})


def _store_rows(counted: Iterable[Hit]) -> int:
    """Send the hits' rows to the warehouse. Never fails the batch: the counters are in,
    and a message delivered again would not send its row again; rows that cannot be sent
    are logged as lost."""
    found = [row for hit in counted if (row := rows.row(hit)) is not None]
    if not found:
        return 0
    try:
        return warehouse.put(found)
    except Exception:
        logger.exception("warehouse rows lost", extra={"rows": len(found)})
        return 0


def _message(record: dict[str, Any]) -> _Message:
    account = queues.hit_account(record)
    if not account:
        raise ValueError("hit without an account")
    attributes = record.get("attributes") or {}
    receives = int(attributes.get("ApproximateReceiveCount") or 1)
    first_received = int(attributes["ApproximateFirstReceiveTimestamp"]) // 1000
    hit = Hit.from_json(record["body"])
    return _Message(record["messageId"], account, hit, receives > 1, first_received)


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


def _keys(hit: Hit) -> list[StatKey]:
    return [(hit.website_id, name, value, day) for name, value, day in counts(hit)]


def _parallel(call: Callable[[_T], _R], items: list[_T]) -> list[_R]:
    if len(items) <= 1:
        return [call(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(WORKERS, len(items))) as pool:
        return list(pool.map(call, items))


# -- distinct values -------------------------------------------------------------------------


def _admit(messages: list[_Message]) -> dict[StatKey, StatKey]:
    """The counter each key of these messages adds to: its own, or OTHER's once its
    website, stat and day is full. Keys whose registry could not be read or written are
    left out."""
    stored: dict[StatKey, StatKey] = {}
    hits: dict[stats.Group, Counter[str]] = defaultdict(Counter)
    for message in messages:
        for key in _keys(message.hit):
            website_id, name, value, day = key
            if name in UNCAPPED:
                stored[key] = key
            else:
                hits[(website_id, name, day)][value] += 1
    if not hits:
        return stored
    groups = list(hits)
    try:
        registries = stats.registries(groups)
    except Exception:
        logger.exception("registries unreadable", extra={"groups": len(groups)})
        return stored

    def admit(group: stats.Group) -> set[str] | None:
        try:
            return _admit_values(group, hits[group], registries[group])
        except Exception:
            logger.exception("values not admitted", extra={"website_id": group[0]})
            return None

    for (website_id, name, day), own in zip(groups, _parallel(admit, groups), strict=True):
        if own is not None:
            for value in hits[(website_id, name, day)]:
                counter = value if value in own else OTHER
                stored[(website_id, name, value, day)] = (website_id, name, counter, day)
    return stored


def _admit_values(group: stats.Group, hits: Counter[str], registry: stats.Registry) -> set[str]:
    """The values of `hits` that have a counter of their own, registering new ones (the
    most hit first) while there is room."""
    for _ in range(_REGISTER_ATTEMPTS):
        own = {value for value in hits if stats.digest(value) in registry.digests}
        new = sorted(set(hits) - own - {OTHER}, key=lambda value: (-hits[value], value))
        room, room_bytes = MAX_VALUES - len(registry.digests), MAX_VALUE_BYTES - registry.size
        admitted: list[str] = []
        size = 0
        for value in new:
            length = len(value.encode())
            if len(admitted) < room and size + length <= room_bytes:
                admitted.append(value)
                size += length
        if not admitted:
            return own
        digests = {stats.digest(value) for value in admitted}
        if stats.register(group, digests, size, MAX_VALUES, MAX_VALUE_BYTES):
            return own | set(admitted)
        # Another batch registered values meanwhile: decide again on what is stored now.
        registry = stats.registries([group])[group]
    raise RuntimeError("registry kept changing")


# -- earlier deliveries ----------------------------------------------------------------------


def _counted_before(
    redelivered: list[_Message], keys: dict[str, set[StatKey]]
) -> tuple[dict[str, set[StatKey]], set[str]]:
    """The counters earlier deliveries of these messages added to, by message id, and the
    ids of messages whose earlier deliveries could not be read (retried later rather than
    risk counting anything twice)."""
    if not redelivered:
        return {}, set()
    by_digest = {stats.digest(m.id): m.id for m in redelivered}
    try:
        seconds = sorted({m.first_received for m in redelivered})
        earlier: dict[str, list[stats.Delivery]] = defaultdict(list)
        for found in _parallel(stats.deliveries, seconds):
            for delivery in found:
                for digest in delivery.messages.intersection(by_digest):
                    earlier[by_digest[digest]].append(delivery)
        batches = sorted({d.batch for deliveries in earlier.values() for d in deliveries})
        committed = dict(zip(batches, _parallel(stats.committed, batches), strict=True))
    except Exception:
        logger.exception("earlier deliveries unreadable", extra={"messages": len(redelivered)})
        return {}, {m.id for m in redelivered}
    # A counter is there if any earlier batch that counted the message committed its chunk;
    # a later batch only took on counters that no earlier one had committed.
    done = {
        message_id: {
            key
            for key in keys[message_id]
            if any(_chunk(key, d.chunks) in committed[d.batch] for d in deliveries)
        }
        for message_id, deliveries in earlier.items()
    }
    return done, set()


# -- writing ---------------------------------------------------------------------------------


def _add(to_add: dict[str, set[StatKey]], first_received: dict[str, int]) -> set[str]:
    """Add each message's counters, in chunks; returns the ids of the messages with a
    counter in a chunk that did not commit (all of them if the deliveries were not
    recorded, as then nothing is written)."""
    if not to_add:
        return set()
    totals = Counter(key for wanted in to_add.values() for key in wanted)
    batch = secrets.token_hex(12)
    chunks = _chunk_count(list(totals))
    expires_at = int(time.time()) + RECORDS_KEPT_SECONDS
    by_second: dict[int, list[bytes]] = defaultdict(list)
    for message_id in to_add:
        by_second[first_received[message_id]].append(stats.digest(message_id))
    try:
        stats.record_deliveries(batch, chunks, by_second, expires_at)
    except Exception:
        logger.exception("deliveries not recorded", extra={"messages": len(to_add)})
        return set(to_add)

    by_chunk: dict[int, list[stats.Count]] = defaultdict(list)
    for (website_id, name, value, day), count in totals.items():
        by_chunk[_chunk((website_id, name, value, day), chunks)].append(
            (website_id, name, day, value, count)
        )

    def commit(chunk: int) -> int | None:
        try:
            stats.add_chunk(batch, chunk, by_chunk[chunk], expires_at)
        except Exception:
            logger.exception("chunk not written", extra={"counters": len(by_chunk[chunk])})
            return chunk
        return None

    # One after another: a realistic batch of 5,000 hits makes about 8 transactions, and
    # moto (tests, `make serve`) cannot run transactions concurrently.
    failed_chunks = {c for c in map(commit, sorted(by_chunk)) if c is not None}
    if failed_chunks:
        logger.warning("chunks failed", extra={"chunks": chunks, "failed": len(failed_chunks)})
    return {
        message_id
        for message_id, wanted in to_add.items()
        if any(_chunk(key, chunks) in failed_chunks for key in wanted)
    }


def _key_hash(key: StatKey) -> int:
    website_id, name, value, day = key
    return int.from_bytes(stats.digest(f"{website_id}#{name}#{day}#{value}"), "big")


def _chunk(key: StatKey, chunks: int) -> int:
    return _key_hash(key) % chunks


def _chunk_count(keys: list[StatKey]) -> int:
    """How many chunks to hash the counters into: enough for each to be about 80% of a
    transaction, and more while hashing fills one past what a transaction holds."""
    hashes = [_key_hash(key) for key in keys]
    chunks = max(1, -(-len(keys) * 5 // (stats.CHUNK_COUNTERS * 4)))
    while max(Counter(h % chunks for h in hashes).values()) > stats.CHUNK_COUNTERS:
        chunks += 1
    return chunks
