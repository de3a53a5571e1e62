"""Tracking: which website a hit belongs to, whether it counts, and queueing it.

`POST /api/event` only validates, filters and enqueues (`record_hit`); the aggregator
counts. Websites are looked up by host through the short caches of `data.websites`.
"""

from __future__ import annotations

from typing import Any

from sitelens import clock, errors
from sitelens.analytics import hits
from sitelens.data import queues
from sitelens.data import websites as stored_websites

# What the cross-origin tracking requests need: any page may send hits.
CORS_HEADERS = {"Access-Control-Allow-Origin": "*"}
PREFLIGHT_HEADERS = {
    **CORS_HEADERS,
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Max-Age": "86400",
}


def record_hit(fields: dict[str, Any], headers: dict[str, str], source_ip: str) -> None:
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
    website = stored_websites.by_host(host)
    if website is None:
        raise errors.NotFound()
    try:
        hit = hits.build_hit(website, values, headers, source_ip, clock.now())
    except hits.InvalidHit as invalid:
        raise errors.Invalid.field("page", str(invalid)) from None
    except hits.ExcludedHit:
        raise errors.Forbidden() from None
    queues.send_hit(website["account"], _sqs_text(hit.to_json()))


def _text_fields(fields: dict[str, Any]) -> dict[str, str]:
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
