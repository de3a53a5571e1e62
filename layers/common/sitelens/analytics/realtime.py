"""Realtime: the visitors on a website in the last five minutes, the pages they are on and
where their visits came from (`GET /api/v1/stats/{id}/realtime`), from the small TTL store
the event function writes as it accepts each hit (`note`, `data.realtime`), not from the
warehouse nor the aggregator: cheap to poll every 10 s, and as fresh as the last hit
whatever the aggregator's batching window.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from sitelens.analytics import sources
from sitelens.analytics.hit import Hit
from sitelens.core import errors, metrics
from sitelens.core.log import logger
from sitelens.data import realtime as stored_realtime
from sitelens.data import websites as stored_websites

WINDOW_SECONDS = 300
TOP = 10  # pages and sources listed


def presence(hit: Hit) -> stored_realtime.Presence | None:
    """Who an accepted pageview or custom event shows on the site (None for an engagement:
    the page was left, it shows no one there). A visit's source is written by its landing;
    a later page carries none, so the stored one stands."""
    if hit.engaged_ms is not None:
        return None
    source = sources.source(hit.referrer) if hit.visit else None
    return stored_realtime.Presence(
        hit.website_id, hit.visitor, int(hit.at.timestamp()), hit.page, source
    )


def note(hit: Hit) -> None:
    """Record who an accepted hit shows on its site now: at most one write (two for a
    landing that arrives after a later page of its minute). Never raises: the hit is queued
    and will be counted; a presence not stored is counted (PresencesFailed, alarmed)."""
    seen = presence(hit)
    if seen is None:
        return
    try:
        stored_realtime.put(seen)
    except Exception:
        logger.exception("realtime presence not stored", extra={"website_id": hit.website_id})
        metrics.count("PresencesFailed")


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
    origins = Counter(visit_sources.get(visitor, "") for visitor in current)
    return {
        "visitors": len(current),
        "pages": _top(pages),
        "sources": _top(origins),
    }


def _top(counts: Counter[str]) -> list[dict[str, Any]]:
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:TOP]
    return [{"value": value, "count": count} for value, count in ranked]
