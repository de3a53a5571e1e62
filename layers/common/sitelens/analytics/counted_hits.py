"""Counting a batch's hits in ClickHouse, for the websites counted there
(`data.clickhouse_counts`): `counting.count` records and checks the deliveries as for any
hit, then `add` inserts the hits still to add, with their counters and presences, where
DynamoDB's counters would take a transaction per chunk. A batch is one chunk: the insert,
then its commit mark, so a delivery that finds the mark knows the hits are in, and one that
finds none inserts them again, which the insert's own check makes harmless."""

from __future__ import annotations

from sitelens.analytics import realtime
from sitelens.analytics.hit import Hit, counts
from sitelens.core import metrics
from sitelens.core.log import logger
from sitelens.data import clickhouse_counts, stats
from sitelens.data.queues import HIT_RECORDS_KEPT_SECONDS


def row(hit_id: str, hit: Hit) -> clickhouse_counts.CountedHit:
    """What ClickHouse keeps of a counted hit: its counters, and who it shows now."""
    seen = realtime.presence(hit) if not hit.excluded else None
    return clickhouse_counts.CountedHit(
        website_id=hit.website_id,
        hit_id=hit_id,
        at=int(hit.at.timestamp()),
        visitor=hit.visitor if seen else "",
        page=seen.page if seen else "",
        source=(seen.source or "") if seen else "",
        counters=tuple(counts(hit)),
        weight=hit.weight,
    )


def add(batch: str, to_add: dict[str, Hit], now: int) -> tuple[set[str], int]:
    """Insert the hits, then mark the batch's one chunk committed; the ids of the hits not
    in (all or none), and how many counter updates went in."""
    rows = [row(hit_id, hit) for hit_id, hit in to_add.items()]
    try:
        clickhouse_counts.insert(rows)
        stats.mark_committed(batch, 0, now + HIT_RECORDS_KEPT_SECONDS)
    except Exception:
        logger.exception("counted hits not inserted", extra={"hits": len(rows)})
        metrics.count("CounterChunksFailed")
        return set(to_add), 0
    return set(), sum(len(found.counters) for found in rows)
