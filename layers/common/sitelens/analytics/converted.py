"""Goal conversions of the aggregator's counted hits, kept per website and minute for the
`goal.converted` webhook event (`sitelens.webhooks.goals` sends each minute once).

Only accounts with an enabled endpoint subscribed to `goal.converted` pay anything: for
the others this reads one Query of their endpoints a minute per container and writes
nothing. A hit of such an account that completes goals of its website (matched as the
warehouse matches them: a custom event by name and properties, a pageview by its path
pattern; a revenue goal's amount when the event came in its currency) is counted in the
minute it was counted in, with a marker of its hit id in the same transaction (one per
website and up to 98 hits of a batch): a hit delivered again (SQS, a redrive) adds nothing,
so each conversion is counted exactly once. A write that fails returns its hits' ids, and
their messages come back as a failed count's do.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any

from sitelens.analytics.hit import Hit
from sitelens.analytics.warehouse.goals import path_regex
from sitelens.core import clock
from sitelens.core.log import logger
from sitelens.data import conversions, goals, webhooks
from sitelens.data import websites as stored_websites

EVENT = "goal.converted"
CACHE_SECONDS = 60.0  # a new subscription or goal is counted within a minute
# make serve sets 1 s (one process: a Query an account a second is nothing), so a test that
# subscribes or adds a goal right after its first hits has them counted at once.
CACHE_VARIABLE = "SITELENS_GOAL_CACHE_SECONDS"
MINUTE_FORMAT = "%Y-%m-%dT%H:%M"
_MAX_CACHED = 10_000
_cache: dict[tuple[str, Any], tuple[float, Any]] = {}
_cache_lock = threading.Lock()

Conversion = conversions.Conversion


def note(counted: list[tuple[str, str, Hit]]) -> set[str]:
    """Count the goal conversions of these counted hits (account, hit id, hit) of accounts
    that subscribe to `goal.converted`; the hit ids whose conversions were not written."""
    by_website: dict[tuple[str, int], list[tuple[str, list[Conversion]]]] = {}
    failed = set()
    for account, hit_id, hit in counted:
        try:
            if hit.excluded or not _subscribes(account):
                continue
            found = matches(_goals(account, hit.website_id), hit)
        except Exception:
            logger.exception("goal conversions not matched", extra={"hit_id": hit_id})
            failed.add(hit_id)
            continue
        if found:
            by_website.setdefault((account, hit.website_id), []).append((hit_id, found))
    # One website after another, a transaction per CHUNK_HITS of its hits: they all add to
    # the website's minute, so at once they would only conflict (and moto runs none at once).
    for (account, website_id), converting in by_website.items():
        for start in range(0, len(converting), conversions.CHUNK_HITS):
            chunk = converting[start : start + conversions.CHUNK_HITS]
            if not _add(account, website_id, chunk):
                failed.update(hit_id for hit_id, _ in chunk)
    return failed


def _add(account: str, website_id: int, hits: list[tuple[str, list[Conversion]]]) -> bool:
    """Write these hits' conversions in this minute (or the next, when this one was sent
    already), leaving out hits counted before; False when they could not be written."""
    minute = clock.now().strftime(MINUTE_FORMAT)
    try:
        # each round leaves out a hit counted before or moves to a later minute
        for _ in range(len(hits) + 3):
            try:
                conversions.add(account, website_id, minute, hits, int(time.time()))
                return True
            except conversions.Counted as counted:
                hits = [hit for hit in hits if hit[0] not in counted.hit_ids]
                if not hits:
                    return True
            except conversions.MinuteSent:
                minute = _next(minute)
    except Exception:
        logger.exception("goal conversions not written", extra={"website_id": website_id})
    return False


def _next(minute: str) -> str:
    later = datetime.strptime(minute, MINUTE_FORMAT) + timedelta(minutes=1)
    return max(later.strftime(MINUTE_FORMAT), clock.now().strftime(MINUTE_FORMAT))


def matches(stored: list[dict[str, Any]], hit: Hit) -> list[Conversion]:
    """The goals (as stored, `data.goals`) the hit completes, with a revenue goal's amount
    when the event came in its currency."""
    if hit.engaged_ms is not None:
        return []
    found: list[Conversion] = []
    for goal in stored:
        if goal.get("page_path") is not None:
            if hit.event_parts is None and _page(goal["page_path"]).match(hit.page):
                found.append((int(goal["id"]), goal["display_name"], None, None))
            continue
        if hit.event_parts is None or hit.event_parts[0] != goal.get("event_name"):
            continue
        wanted = goal.get("custom_props") or {}
        if wanted and not _has_props(hit.props, wanted):
            continue
        currency = goal.get("currency")
        found.append((int(goal["id"]), goal["display_name"], currency, _amount(hit, currency)))
    return found


@cache
def _page(pattern: str) -> re.Pattern[str]:
    return re.compile(path_regex(pattern))


def _has_props(props: str, wanted: dict[str, str]) -> bool:
    try:
        given = json.loads(props) if props else {}
    except ValueError:
        return False
    return isinstance(given, dict) and all(given.get(k) == v for k, v in wanted.items())


def _amount(hit: Hit, currency: str | None) -> Decimal | None:
    """A revenue goal's amount of this event: in the goal's currency only (never converted)."""
    if currency is None:
        return None
    if hit.revenue_currency != currency or not hit.revenue_amount:
        return Decimal(0)
    try:
        return Decimal(hit.revenue_amount)
    except InvalidOperation:
        return Decimal(0)


def _cached(key: tuple[str, Any], read: Any) -> Any:
    now = time.monotonic()
    with _cache_lock:
        found = _cache.get(key)
        if found and found[0] > now:
            return found[1]
    value = read()
    with _cache_lock:
        if len(_cache) >= _MAX_CACHED:
            _cache.clear()
        _cache[key] = (now + cache_seconds(), value)
    return value


def cache_seconds() -> float:
    """CACHE_SECONDS, or SITELENS_GOAL_CACHE_SECONDS when it is set and shorter."""
    raw = os.environ.get(CACHE_VARIABLE, "").strip()
    try:
        given = float(raw) if raw else CACHE_SECONDS
    except ValueError:
        given = CACHE_SECONDS
    return given if 0 <= given <= CACHE_SECONDS else CACHE_SECONDS


def _subscribes(account: str) -> bool:
    """Whether an enabled endpoint of the account subscribes to `goal.converted` (which
    websites it reaches is the sender's business: `webhooks.events.emit`)."""

    def read() -> bool:
        return any(
            e.get("enabled") and EVENT in str(e.get("events", "")).split(",")
            for e in webhooks.endpoints(account)
        )

    return bool(_cached(("subscribes", account), read))


def _goals(account: str, website_id: int) -> list[dict[str, Any]]:
    def read() -> list[dict[str, Any]]:
        website = stored_websites.get(account, website_id)
        return goals.of(website) if website else []

    found: list[dict[str, Any]] = _cached(("goals", (account, website_id)), read)
    return found


def forget() -> None:
    """Forget the cached subscriptions and goals (tests)."""
    with _cache_lock:
        _cache.clear()
