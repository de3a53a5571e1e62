"""Counted hits as the warehouse's rows (`schema.COLUMNS` and the partition keys)."""

from __future__ import annotations

from typing import Any

from sitelens.analytics import sources, vitals
from sitelens.analytics.hit import Hit
from sitelens.analytics.warehouse import schema


def row(hit: Hit, hit_id: str = "") -> dict[str, Any] | None:
    """The row of a pageview, custom event or engagement, carrying its hit id (`hit.id`
    unless given: a hit queued before ids existed is known by its message id); None for
    an excluded hit, which is only counted (under `excluded`)."""
    if hit.excluded:
        return None
    if hit.engaged_ms is not None:
        name = schema.ENGAGEMENT
    elif hit.event_parts is not None:
        name = hit.event_parts[0]
    else:
        name = schema.PAGEVIEW
    _, value, unit = hit.event_parts or ("", "", "")
    at = hit.at.replace(tzinfo=None)  # UTC, as the files' timestamps are
    return {
        "website_id": hit.website_id,
        "hit_id": hit_id or hit.id,
        "day": hit.at.strftime("%Y-%m-%d"),
        "ts": at.replace(microsecond=at.microsecond // 1000 * 1000),
        "visitor": hit.visitor,
        "name": name,
        "page": hit.page,
        "referrer": hit.referrer,
        "source": sources.source(hit.referrer),
        "utm_source": hit.utm_source,
        "utm_medium": hit.utm_medium,
        "utm_campaign": hit.campaign,
        "utm_term": hit.utm_term,
        "utm_content": hit.utm_content,
        "browser": hit.browser,
        "os": hit.os,
        "device": hit.device,
        "country": hit.country,
        "language": hit.language,
        "screen": hit.resolution,
        "event_value": value,
        "event_unit": unit,
        "engagement_ms": hit.engaged_ms or 0,
        "interactive": hit.event_parts is not None and hit.interactive is not False,
        "props": hit.props or None,
        "revenue_amount": hit.revenue_amount or None,
        "revenue_currency": hit.revenue_currency or None,
        "scroll_depth": hit.scroll_depth,
        **{f"vital_{name}": (hit.vitals or {}).get(name) for name in vitals.NAMES},
    }
