"""The minutely `goal.converted` pass: each website whose goals converted in a minute (the
aggregator's per-minute counts, `analytics.converted`) gets one event for that minute,
listing each goal's conversions and, for a revenue goal, its revenue by currency.

A minute is sent once it ended GRACE_SECONDS ago (the aggregator's late writes of it go to
a later minute instead: its counts are conditioned on the minute not being sent); a pass
looks back LOOKBACK_MINUTES, so a missed or failed run is caught up. Claiming a minute is a
conditional write, so two passes, or a pass run again, send each minute at most once.

SITELENS_GOAL_GRACE_SECONDS (0 to 60, default 60) shortens the grace: a test and development
knob for `make serve`, whose aggregator's batching window is one second. A shorter grace
loses nothing (late writes go to a later minute), it only sends the later minutes' events.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from sitelens.core import clock
from sitelens.core.log import logger
from sitelens.data import conversions
from sitelens.data import websites as stored_websites
from sitelens.webhooks import events, registry

EVENT = registry.GOAL_CONVERTED
GRACE_SECONDS = 60  # a minute's hits are counted by then (the aggregator's batching window)
LOOKBACK_MINUTES = 10  # minutes each pass looks at: a run missed is caught up by the next
MINUTE_FORMAT = "%Y-%m-%dT%H:%M"  # as `analytics.converted` stores them
CENT = Decimal("0.01")


def grace_seconds() -> int:
    """GRACE_SECONDS, or SITELENS_GOAL_GRACE_SECONDS when it is set (a local knob, 0 to 60)."""
    raw = os.environ.get("SITELENS_GOAL_GRACE_SECONDS", "").strip()
    if raw.isdigit() and int(raw) <= GRACE_SECONDS:
        return int(raw)
    return GRACE_SECONDS


def _revenue(found: dict[str, Any]) -> dict[str, float] | None:
    """A revenue goal's sum in its currency, rounded to cents; None for other goals."""
    if not found.get("currency"):
        return None
    total = Decimal(found.get("revenue", 0)).quantize(CENT, ROUND_HALF_UP)
    return {str(found["currency"]): float(total)}


@dataclass
class Pass:
    """What a pass did: minutes of websites sent, and those that failed (tried again)."""

    sent: int = 0
    failed: int = 0


def run(now: datetime | None = None) -> Pass:
    """Send every unsent minute of the last LOOKBACK_MINUTES that ended GRACE_SECONDS ago."""
    moment = now or clock.now()
    newest = (moment - timedelta(seconds=grace_seconds())).replace(second=0, microsecond=0)
    newest -= timedelta(minutes=1)  # the last minute that has wholly ended by then
    outcome = Pass()
    for back in range(LOOKBACK_MINUTES):
        minute = (newest - timedelta(minutes=back)).strftime(MINUTE_FORMAT)
        for account, website_id in conversions.websites_of(minute):
            try:
                if _send(account, website_id, minute):
                    outcome.sent += 1
            except Exception:
                logger.exception("goal.converted not sent", extra={"website_id": website_id})
                outcome.failed += 1
    return outcome


def _send(account: str, website_id: int, minute: str) -> bool:
    """Claim the website's minute and queue its event; False when it was sent already."""
    claimed = conversions.claim(account, website_id, minute, clock.now_iso())
    if claimed is not None:
        website = stored_websites.get(account, website_id)
        if website is not None:  # a website deleted since has no events
            events.emit(account, EVENT, payload(website, minute, claimed), website=website_id)
    conversions.done(minute, account, website_id)
    return claimed is not None


def payload(
    website: dict[str, Any], minute: str, counts: dict[int, dict[str, Any]]
) -> dict[str, Any]:
    """The event's `data`: the website, the minute (UTC) and each goal's conversions in it,
    by goal id; `revenue` is `{currency: sum}` for a revenue goal (rounded to cents), null
    for the others."""
    return {
        "website_id": int(website["id"]),
        "domain": website["domain"],
        "minute": f"{minute}:00Z",
        "goals": [
            {
                "id": goal_id,
                "name": found.get("name"),
                "conversions": int(found.get("count", 0)),
                "revenue": _revenue(found),
            }
            for goal_id, found in sorted(counts.items())
            if found.get("count")
        ],
    }
