"""Realtime: the visitors on a website in the last five minutes, the pages they are on and
where their visits came from (`GET /api/v1/stats/{id}/realtime`), from the small TTL store
the aggregator keeps (`data.realtime`), not from the warehouse: cheap to poll every 10 s.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

from sitelens.analytics import sources
from sitelens.analytics.hit import Hit
from sitelens.core import errors
from sitelens.data import realtime as stored_realtime
from sitelens.data import websites as stored_websites

WINDOW_SECONDS = 300
TOP = 10  # pages and sources listed


def presences(hits: Iterable[Hit]) -> list[stored_realtime.Presence]:
    """Who each counted pageview or custom event shows on the site, the latest per visitor
    and minute. A visit's source is the page it landed from; later pages keep it: those
    whose landing is not among `hits` (another batch counted it) carry no source, so the
    stored one stands."""
    latest: dict[tuple[int, str, int], stored_realtime.Presence] = {}
    for hit in sorted(hits, key=lambda h: h.at):
        if hit.excluded or hit.engaged_ms is not None or not hit.visitor:
            continue
        at = int(hit.at.timestamp())
        key = (hit.website_id, hit.visitor, at // 60)
        before = latest.get(key)
        source = sources.source(hit.referrer) if hit.visit else (before.source if before else None)
        latest[key] = stored_realtime.Presence(hit.website_id, hit.visitor, at, hit.page, source)
    return list(latest.values())


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
