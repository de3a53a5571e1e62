"""Tracking: which website a hit belongs to, whether it counts, and queueing it.

`POST /api/event` only validates, filters and enqueues (`record_hit`); the aggregator
counts. Both look websites up through short caches in the warm container, which
`forget` clears when this process deletes a website.
"""

from __future__ import annotations

import time
from typing import Any

from sitelens import clock, errors, queues, store, websites
from sitelens.analytics import hits
from sitelens.http import Form

# What the cross-origin tracking requests need: any page may send hits.
CORS_HEADERS = {"Access-Control-Allow-Origin": "*"}
PREFLIGHT_HEADERS = {
    **CORS_HEADERS,
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Max-Age": "86400",
}

# A deleted website stops being counted everywhere within 60 s: 30 s for a cached lookup
# here, 30 s for the aggregator's cached existence check.
WEBSITE_CACHE_SECONDS = 30.0
# Unknown domains are remembered briefly too, so a flood of hits costs few reads.
UNKNOWN_CACHE_SECONDS = 5.0
_MAX_CACHED = 10_000

_by_host: dict[str, tuple[float, dict[str, Any] | None]] = {}
_exists: dict[tuple[str, int], tuple[float, bool]] = {}


def record_hit(fields: Form, headers: dict[str, str], source_ip: str) -> None:
    """Validate, filter and enrich one tracking request and queue its hit.

    422 for a missing or invalid `page`, 404 when no website has the page's host,
    403 when the website excludes the hit (bot, IP address). The IP address is used for
    the exclusions and the location only; it never leaves this function.
    """
    values = _text_fields(fields)
    try:
        host = hits.page_host(values.get("page", ""))
    except hits.InvalidHit as invalid:
        raise errors.Invalid.field("page", str(invalid)) from None
    website = _website(host)
    if website is None:
        raise errors.NotFound()
    try:
        hit = hits.build_hit(website, values, headers, source_ip, clock.now())
    except hits.InvalidHit as invalid:
        raise errors.Invalid.field("page", str(invalid)) from None
    except hits.ExcludedHit:
        raise errors.Forbidden() from None
    queues.send_hit(website["account"], _sqs_text(hit.to_json()))


def website_exists(account_id: str, website_id: int) -> bool:
    """Whether the website is still there (for the aggregator), cached 30 s."""
    key = (account_id, website_id)
    now = time.monotonic()
    cached = _exists.get(key)
    if cached and cached[0] > now:
        return cached[1]
    exists = store.get(websites.COLLECTION, account_id, website_id) is not None
    _remember(_exists, key, (now + WEBSITE_CACHE_SECONDS, exists))
    return exists


def forget(website: dict[str, Any]) -> None:
    """Drop a created, changed or deleted website from this container's caches."""
    _by_host.pop(websites.domain_key(website["domain"]), None)
    _exists.pop((website["account"], int(website["id"])), None)


def forget_all() -> None:
    """Empty this container's website caches (tests)."""
    _by_host.clear()
    _exists.clear()


def _website(host: str) -> dict[str, Any] | None:
    now = time.monotonic()
    cached = _by_host.get(host)
    if cached and cached[0] > now:
        return cached[1]
    website = None
    claim = store.get_claim(websites.COLLECTION, host)
    if claim is not None:
        website = store.get(websites.COLLECTION, claim["owner"], int(claim["record_id"]))
    seconds = WEBSITE_CACHE_SECONDS if website else UNKNOWN_CACHE_SECONDS
    _remember(_by_host, host, (now + seconds, website))
    return website


def _remember(cache: dict[Any, Any], key: Any, entry: Any) -> None:
    if len(cache) >= _MAX_CACHED:  # many hosts (or an attack): start afresh, stay small
        cache.clear()
    cache[key] = entry


def _text_fields(fields: Form) -> dict[str, str]:
    """The fields as text: JSON numbers become text, `{"event": {"name": ...}}` becomes
    `event[name]`, lists and other structures are ignored."""
    values: dict[str, str] = {}
    for name, value in fields.items():
        if name == "event" and isinstance(value, dict):
            for part, text in value.items():
                if isinstance(text, str | int | float) and not isinstance(text, bool):
                    values[f"event[{part}]"] = _sqs_text(str(text))
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            values[name] = _sqs_text(str(value))
    return values


def _sqs_text(text: str) -> str:
    # JSON may carry lone surrogates, and SQS refuses U+FFFE and U+FFFF: replace them.
    clean = text.encode("utf-8", "replace").decode("utf-8")
    return clean.replace("\ufffe", "\ufffd").replace("\uffff", "\ufffd")
