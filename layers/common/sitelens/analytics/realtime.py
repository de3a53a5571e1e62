"""Realtime: the visitors on a website in the last five minutes, the pages they are on and
where their visits came from (`GET /api/v1/stats/{id}/realtime`), from the small TTL store
the event function writes as it accepts each hit (`note`, `data.realtime`), not from the
warehouse nor the aggregator: cheap to poll every 10 s, and as fresh as the last hit
whatever the aggregator's batching window.

With HitStream=kinesis the event function writes none: a consumer of the hits stream
(`note_flush`, functions/analytics/presences) writes one item per site and flush (10 to
20 seconds of hits) with the visitors it saw, and the reader takes both shapes alike.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

from sitelens.analytics import sources
from sitelens.analytics.hit import Hit
from sitelens.core import errors, metrics
from sitelens.core.config import settings
from sitelens.core.log import logger
from sitelens.data import clickhouse_counts, hit_stream
from sitelens.data import realtime as stored_realtime
from sitelens.data import websites as stored_websites

WINDOW_SECONDS = 300
TOP = 10  # pages and sources listed


def presence(hit: Hit) -> stored_realtime.Presence | None:
    """Who an accepted pageview or custom event shows on the site (None for an engagement:
    the page was left, it shows no one there). A visit's source is written by its landing;
    a later page carries none, so the stored one stands. A landing without a referrer is a
    direct visit, whose source is named (not ""), so that it replaces the source of a visit
    before it in the same minute, in DynamoDB as in ClickHouse's latest non-empty source."""
    if hit.engaged_ms is not None:
        return None
    source = (sources.source(hit.referrer) or sources.NONE) if hit.visit else None
    return stored_realtime.Presence(
        hit.website_id, hit.visitor, int(hit.at.timestamp()), hit.page, source
    )


def note(hit: Hit) -> None:
    """Record who an accepted hit shows on its site now: at most one write (two for a
    landing that arrives after a later page of its minute). Never raises: the hit is queued
    and will be counted; a presence not stored is counted (PresencesFailed, alarmed).
    Nothing when hits go to a stream: its presence consumer writes them (`note_flush`);
    nor for a website counted in ClickHouse, whose counted hits are its presences."""
    seen = presence(hit)
    if seen is None or settings().hits_stream or clickhouse_counts.counted(hit.website_id):
        return
    try:
        stored_realtime.put(seen)
    except Exception:
        logger.exception("realtime presence not stored", extra={"website_id": hit.website_id})
        metrics.count("PresencesFailed")


def note_stream_batch(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The presence consumer's step: a Kinesis batch of hits noted as one flush, named by
    its first record. Always reported done: a presence is worth nothing a minute later, and
    one not stored is counted (an unreadable hit is the aggregator's to park)."""
    hits = []
    for record in records:
        try:
            hits.append(Hit.from_json(hit_stream.read(record).body))
        except (ValueError, KeyError, TypeError):
            continue
    if records:
        note_flush(hits, str(records[0].get("eventID") or records[0]["kinesis"]["sequenceNumber"]))
    return {"batchItemFailures": []}


def note_flush(hits: Iterable[Hit], flush_id: str) -> int:
    """Record who a flush of streamed hits shows on their sites: per site, each visitor's
    latest page and its visit's source, in one item (`data.realtime.put_flush`) named by
    `flush_id` (the same batch again writes the same items). Never raises: a flush not
    stored is counted (PresencesFailed, alarmed). The number of items written."""
    by_site: dict[int, dict[str, stored_realtime.Presence]] = {}
    for hit in hits:
        seen = presence(hit)
        if seen is None or clickhouse_counts.counted(hit.website_id):
            continue  # counted in ClickHouse: its counted hits are its presences
        visitors = by_site.setdefault(seen.website_id, {})
        held = visitors.get(seen.visitor)
        latest = seen if held is None or seen.at >= held.at else held
        # a landing's source stands whichever of the visitor's hits comes last
        source = seen.source if seen.source is not None else (held.source if held else None)
        visitors[seen.visitor] = stored_realtime.Presence(
            latest.website_id, latest.visitor, latest.at, latest.page, source
        )
    found = [list(visitors.values()) for visitors in by_site.values()]
    try:
        return stored_realtime.put_flush(found, flush_id)
    except Exception:
        logger.exception("realtime presences not stored", extra={"sites": len(found)})
        metrics.count("PresencesFailed", sum(map(len, found)))
        return 0


def now(account_id: str, website_id: int) -> dict[str, Any]:
    """Visitors of the last five minutes, with their pages and sources, most first; 404
    unless the website is the account's."""
    if stored_websites.get(account_id, website_id) is None:
        raise errors.NotFound()
    start = int(time.time()) - WINDOW_SECONDS
    found, _ = stored_realtime.since(website_id, start)
    current: dict[str, stored_realtime.Presence] = {}
    for seen in found:
        if seen.at >= start and (seen.visitor not in current or seen.at > current[seen.visitor].at):
            current[seen.visitor] = seen
    # a visitor seen only in a later minute keeps the source of its visit's first minute
    visit_sources = {
        seen.visitor: seen.source for seen in sorted(found, key=lambda s: s.at) if seen.source
    }
    pages = Counter(seen.page for seen in current.values())
    origins = Counter(visit_sources.get(visitor) or sources.NONE for visitor in current)
    return {
        "visitors": len(current),
        "pages": _top(pages),
        "sources": _top(origins),
    }


def _top(counts: Counter[str]) -> list[dict[str, Any]]:
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:TOP]
    return [{"value": value, "count": count} for value, count in ranked]
