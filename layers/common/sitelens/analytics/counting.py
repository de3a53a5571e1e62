"""Counters of hits, added exactly once per hit id however often a hit is delivered.

SQS delivers at least once: a message comes back after a partial batch failure, a
timeout or a crash; a standard queue may deliver a duplicate; a redrive from the
dead-letter queue sends the same body under a new message id. So effects are keyed on the
hit's id (minted at the edge, `hit.new_id`), never on the message:

1. A batch sums its hits in memory; each distinct daily counter (website, stat, value,
   day) gets one write per batch, in chunks of at most 99 counters, each chunk one
   TransactWriteItems with a commit marker for (batch, chunk): its counts land with the
   marker or not at all. A counter's chunk follows from its key (a hash modulo the
   batch's number of chunks). Month roll-ups are a daily job's (`months`): a chunk with
   counters of a month that has closed also marks that month's roll-up changed, one
   action per website and month (counted in the 99).
2. Before it writes any counter, the batch records the hits it takes on: an item per
   bucket of hit time (BUCKET_SECONDS) holding their id digests, its number of chunks
   and when it recorded them. Then it reads every record of its buckets (strongly
   consistent), so of two batches holding the same hit at once, at least one sees the
   other.
3. A hit another batch recorded is counted only for the counters whose chunk that batch
   committed (and did not skip the hit); the rest are added now. When the other batch may
   still be running (recorded less than RUNNING_SECONDS ago, three times the function's
   timeout) and has not finished the hit, the hit is skipped: recorded as such before any
   chunk commits, and reported for retry, which comes after the queue's visibility timeout
   (480 s), when the other batch has ended either way.

Records and markers are kept RECORDS_KEPT_SECONDS (23 days), a day longer than the longest
path a hit's message can take (`queues.HIT_LONGEST_PATH_SECONDS`: the queue's retention, the
dead-letter queue's (14 days), and a redrive back to the queue), so a redrive finds them. A
hit older than that path when it comes is parked by the aggregator, never counted
(`aggregation`): its records may be gone.

Distinct values. Each website, stat and period has a counter of its own for at most
MAX_VALUES distinct values, together at most MAX_VALUE_BYTES long; hits with any further
value count under OTHER (except for the UNCAPPED stats). The admitted values are kept in a
registry item per website, stat and period, read once per batch and added to with a
conditional ADD, so that concurrent batches together never take it past either limit. A
value goes to its own counter, or to OTHER, alike on every delivery: a value is sent to
OTHER only when it does not fit what is registered, and registries only grow.
"""

from __future__ import annotations

import secrets
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from sitelens.analytics import counted_hits
from sitelens.analytics.hit import Hit, counts
from sitelens.core import metrics, scopes
from sitelens.core.log import logger
from sitelens.data import ledger, queues, stats

# Per website, stat and period: values with a counter of their own, and their total length.
MAX_VALUES = 500
MAX_VALUE_BYTES = 32_000
OTHER = "(other)"
# Stats whose values are few by construction (the day, the hour, four device types) need
# no registry.
UNCAPPED = frozenset({"pageviews", "visitors", "pageviews_hour", "visitors_hour", "device"})
BUCKET_SECONDS = 10  # hit time per delivery record: few records a batch, small reads
RUNNING_SECONDS = 90  # a batch recorded this recently may still be running (timeout 30 s)
RECORDS_KEPT_SECONDS = queues.HIT_RECORDS_KEPT_SECONDS  # beyond a hit's longest path
COUNTABLE_SECONDS = queues.HIT_LONGEST_PATH_SECONDS  # an older hit is parked, not counted
# Requests run in parallel; botocore keeps 10 connections per client.
WORKERS = 10
_REGISTER_ATTEMPTS = 5

StatKey = tuple[int, str, str, str]  # website id, name, value, period
_T = TypeVar("_T")
_R = TypeVar("_R")


def keys(hit: Hit) -> list[StatKey]:
    """The counters a hit adds to, before distinct values are capped."""
    return [(hit.website_id, name, value, day) for name, value, day in counts(hit)]


def sum_counts(hits: Iterable[Hit]) -> dict[StatKey, int]:
    """How much each (website_id, name, value, period) grows by: one entry per key."""
    totals: Counter[StatKey] = Counter()
    for hit in hits:
        for key in keys(hit):
            totals[key] += hit.weight
    return dict(totals)


@dataclass
class Outcome:
    """What counting a batch of hits did, by hit id."""

    counted: set[str] = field(default_factory=set)  # every counter of the hit is in
    retry: dict[str, str] = field(default_factory=dict)  # hit id -> why it is to come back
    already_counted: int = 0  # hits found counted by an earlier delivery
    committed: int = 0  # counter updates that landed


def count(hits: dict[str, Hit], in_clickhouse: bool = False) -> Outcome:
    """Add each hit's counters once (see the module's docstring); `hits` by hit id. Those
    of websites counted in ClickHouse (`in_clickhouse`) go there (`counted_hits`), with no
    cap on distinct values: one chunk, inserted then marked."""
    outcome = Outcome()
    wanted: dict[str, set[StatKey]] = {}
    if in_clickhouse:
        stored = {key: key for hit in hits.values() for key in keys(hit)}
    else:
        stored = _admit(list(hits.values()))
    for hit_id, hit in hits.items():
        found = keys(hit)
        if not all(key in stored for key in found):
            outcome.retry[hit_id] = "registry"  # its registry could not be read or written
        elif found:
            wanted[hit_id] = {stored[key] for key in found}
        else:
            outcome.counted.add(hit_id)  # an engagement: a row, no counter
    if not wanted:
        return outcome

    batch = secrets.token_hex(12)
    now = _now()
    month = _month(now)
    found_keys = list({key for found in wanted.values() for key in found})
    chunks = 1 if in_clickhouse else _chunk_count(found_keys, month)
    buckets = {hit_id: _bucket(hits[hit_id]) for hit_id in wanted}
    try:
        ledger.record_deliveries(
            batch, chunks, _by_bucket(buckets), now, now + RECORDS_KEPT_SECONDS
        )
        to_add, skipped = _still_to_add(batch, wanted, buckets, now, outcome)
        if skipped:
            ledger.record_skipped(batch, _by_bucket({h: buckets[h] for h in skipped}))
    except Exception:
        logger.exception("deliveries not recorded or read", extra={"hits": len(wanted)})
        outcome.retry.update(dict.fromkeys(wanted, "ledger"))
        return outcome

    if in_clickhouse:
        failed, added = counted_hits.add(batch, {h: hits[h] for h in to_add}, now)
        outcome.committed += added
    else:
        weights = {hit_id: hits[hit_id].weight for hit_id in to_add}
        failed = _add(batch, chunks, to_add, weights, outcome, month)
    for hit_id in to_add:
        if hit_id in failed:
            outcome.retry[hit_id] = "chunk"
        else:
            outcome.counted.add(hit_id)
    return outcome


def _now() -> int:
    """Unix seconds; the one clock of the records (tests move it)."""
    return int(time.time())


def _month(now: int) -> str:
    return time.strftime("%Y-%m", time.gmtime(now))


def _closed(key: StatKey, month: str) -> tuple[int, str] | None:
    """(website id, month) of a counter of a month that closed before `month`, whose
    roll-up its chunk marks changed (`months`); None for the open month's."""
    day = key[3]
    return (key[0], day[:7]) if day[:7] < month else None


def _bucket(hit: Hit) -> int:
    return int(hit.at.timestamp()) // BUCKET_SECONDS


def _by_bucket(buckets: dict[str, int]) -> dict[int, list[bytes]]:
    found: dict[int, list[bytes]] = defaultdict(list)
    for hit_id, bucket in buckets.items():
        found[bucket].append(stats.digest(hit_id))
    return found


def _still_to_add(
    batch: str,
    wanted: dict[str, set[StatKey]],
    buckets: dict[str, int],
    now: int,
    outcome: Outcome,
) -> tuple[dict[str, set[StatKey]], set[str]]:
    """The counters each hit still needs, and the hits to skip (another batch that may
    still be running holds them). Hits already counted in full go to `outcome`."""
    ordered = sorted(set(buckets.values()))
    records = dict(zip(ordered, parallel(ledger.deliveries, ordered), strict=True))
    others: dict[str, list[ledger.Delivery]] = {}
    for hit_id, bucket in buckets.items():
        digest = stats.digest(hit_id)
        found = [d for d in records[bucket] if d.batch != batch and digest in d.hits]
        if found:
            others[hit_id] = found
    finished = sorted(
        {
            d.batch
            for found in others.values()
            for d in found
            if now - d.recorded_at >= RUNNING_SECONDS
        }
    )
    committed = dict(zip(finished, parallel(ledger.committed, finished), strict=True))

    to_add: dict[str, set[StatKey]] = {}
    skipped: set[str] = set()
    for hit_id, needed in wanted.items():
        digest = stats.digest(hit_id)
        earlier = others.get(hit_id, [])
        done = {
            key
            for key in needed
            if any(
                d.batch in committed
                and digest not in d.skipped
                and _chunk(key, d.chunks) in committed[d.batch]
                for d in earlier
            )
        }
        if done == needed:
            outcome.counted.add(hit_id)
            outcome.already_counted += 1
        elif any(d.batch not in committed for d in earlier):
            skipped.add(hit_id)
            outcome.retry[hit_id] = "running"
        else:
            to_add[hit_id] = needed - done
    return to_add, skipped


def parallel(call: Callable[[_T], _R], items: list[_T]) -> list[_R]:
    """`call` on each item, up to WORKERS at once (boto3 clients are thread-safe)."""
    if len(items) <= 1:
        return [call(item) for item in items]
    with scopes.ThreadPool(max_workers=min(WORKERS, len(items))) as pool:
        return list(pool.map(call, items))


# -- distinct values -------------------------------------------------------------------------


def _capped(name: str) -> bool:
    return name not in UNCAPPED


def _admit(hits: list[Hit]) -> dict[StatKey, StatKey]:
    """The counter each key of these hits adds to: its own, or OTHER's once its website,
    stat and period is full. Keys whose registry could not be read or written are left
    out."""
    stored: dict[StatKey, StatKey] = {}
    by_group: dict[stats.Group, Counter[str]] = defaultdict(Counter)
    for hit in hits:
        for key in keys(hit):
            website_id, name, value, period = key
            if _capped(name):
                by_group[(website_id, name, period)][value] += hit.weight
            else:
                stored[key] = key
    if not by_group:
        return stored
    groups = list(by_group)
    try:
        registries = stats.registries(groups)
    except Exception:
        logger.exception("registries unreadable", extra={"groups": len(groups)})
        return stored

    def admit(group: stats.Group) -> set[str] | None:
        try:
            return _admit_values(group, by_group[group], registries[group])
        except Exception:
            logger.exception("values not admitted", extra={"website_id": group[0]})
            return None

    for (website_id, name, period), own in zip(groups, parallel(admit, groups), strict=True):
        if own is not None:
            for value in by_group[(website_id, name, period)]:
                counter = value if value in own else OTHER
                stored[(website_id, name, value, period)] = (website_id, name, counter, period)
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


# -- writing ---------------------------------------------------------------------------------


def _add(
    batch: str,
    chunks: int,
    to_add: dict[str, set[StatKey]],
    weights: dict[str, int],
    outcome: Outcome,
    month: str,
) -> set[str]:
    """Add each hit's counters, in chunks; returns the ids of the hits with a counter in a
    chunk that did not commit."""
    totals: Counter[StatKey] = Counter()
    for hit_id, needed in to_add.items():
        for key in needed:
            totals[key] += weights[hit_id]
    expires_at = _now() + RECORDS_KEPT_SECONDS
    by_chunk: dict[int, list[stats.Count]] = defaultdict(list)
    closed: dict[int, set[tuple[int, str]]] = defaultdict(set)
    for (website_id, name, value, period), total in totals.items():
        key = (website_id, name, value, period)
        by_chunk[_chunk(key, chunks)].append((website_id, name, period, value, total))
        if (late := _closed(key, month)) is not None:
            closed[_chunk(key, chunks)].add(late)

    def commit(chunk: int) -> int | None:
        try:
            stats.add_chunk(batch, chunk, by_chunk[chunk], expires_at, sorted(closed[chunk]))
        except Exception:
            logger.exception("chunk not written", extra={"counters": len(by_chunk[chunk])})
            return chunk
        outcome.committed += len(by_chunk[chunk])
        return None

    # One after another: a realistic batch of 5,000 hits makes about 16 transactions, and
    # moto (tests, `make serve`) cannot run transactions concurrently.
    failed_chunks = {c for c in map(commit, sorted(by_chunk)) if c is not None}
    if not failed_chunks:
        return set()
    metrics.count("CounterChunksFailed", len(failed_chunks))
    return {
        hit_id
        for hit_id, needed in to_add.items()
        if any(_chunk(key, chunks) in failed_chunks for key in needed)
    }


def _key_hash(key: StatKey) -> int:
    website_id, name, value, period = key
    return int.from_bytes(stats.digest(f"{website_id}#{name}#{period}#{value}"), "big")


def _chunk(key: StatKey, chunks: int) -> int:
    return _key_hash(key) % chunks


def _chunk_count(found: list[StatKey], month: str) -> int:
    """How many chunks to hash the counters into: enough for each to be about 80% of a
    transaction, and more while hashing fills one past what a transaction holds (its
    counters, and a mark for each closed month among them)."""
    hashes = [(_key_hash(key), _closed(key, month)) for key in found]
    chunks = max(1, -(-len(found) * 5 // (stats.CHUNK_COUNTERS * 4)))
    while True:
        sizes: Counter[int] = Counter()
        marks: dict[int, set[tuple[int, str]]] = defaultdict(set)
        for h, late in hashes:
            sizes[h % chunks] += 1
            if late is not None:
                marks[h % chunks].add(late)
        if max(sizes[c] + len(marks[c]) for c in sizes) <= stats.CHUNK_COUNTERS:
            return chunks
        chunks += 1
