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
        raise errors.Invalid.field(invalid.field, str(invalid)) from None
    except hits.ExcludedHit as exclusion:
        # counted as excluded (403 all the same): users see what filtering did
        queues.send_hit(
            website["account"], hits.excluded(website, exclusion.why, clock.now()).to_json()
        )
        raise errors.Forbidden() from None
    queues.send_hit(website["account"], _sqs_text(hit.to_json()))


# The fields a hit reads; anything else sent is ignored. `engagement_ms` makes the hit an
# engagement (the time on the page when it was hidden or left), and may be a JSON number.
TEXT_FIELDS = ("page", "referrer", "screen_resolution")
NUMBER_FIELDS = ("engagement_ms",)
EVENT_PARTS = ("name", "value", "unit")


def _text_fields(fields: dict[str, Any]) -> dict[str, str]:
    """The fields a hit reads, as text: `{"event": {"name": ...}}` becomes `event[name]`,
    whose parts may be JSON numbers (counted as their text); 422 when `page`, `referrer` or
    `screen_resolution` is not a string, or an event part is a list, an object, a boolean
    or null."""
    values: dict[str, str] = {}
    event = fields.get("event")
    if isinstance(event, dict):
        parts = {f"event[{part}]": event[part] for part in EVENT_PARTS if part in event}
    elif "event" not in fields:
        parts = {}
    else:
        raise errors.Invalid.field("event", "The event field must be an object.")
    sent = {
        name: fields[name]
        for name in (*TEXT_FIELDS, *NUMBER_FIELDS, *_FORM_EVENT)
        if name in fields
    }
    for name, value in {**sent, **parts}.items():
        textual = isinstance(value, str) or (
            name not in TEXT_FIELDS
            and isinstance(value, int | float)
            and not isinstance(value, bool)
        )
        if not textual:
            raise errors.Invalid.field(name, f"The {name} field must be text.")
        values[name] = _sqs_text(str(value))
    return values


_FORM_EVENT = tuple(f"event[{part}]" for part in EVENT_PARTS)  # as a form sends them


def _sqs_text(text: str) -> str:
    # JSON may carry lone surrogates, and SQS refuses U+FFFE and U+FFFF: replace them.
    clean = text.encode("utf-8", "replace").decode("utf-8")
    return clean.replace("\ufffe", "\ufffd").replace("\uffff", "\ufffd")
