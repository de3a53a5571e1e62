"""Tracking: which website a hit belongs to, whether it counts, and queueing it.

`POST /api/event` only validates, filters, gives the hit its id, enqueues it and notes
who it shows on the site now (`record_hit`, `realtime.note`); the aggregator counts. It
takes Sitelens' fields and Plausible's format (`plausible`), read here into the one set
of fields a hit is built from. Websites are
looked up by host through the short caches of `data.websites`. Each site gets its fair
share of the container (`fairshare`), so one flooding site cannot use up the method
throttle for all. Excluded hits are not queued one by one: a container sums each
website's exclusions and queues one tally a second (`ExcludedTally`); every accepted,
excluded, dropped and throttled hit is also a metric.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sitelens.analytics import fairshare, hits, plausible, realtime
from sitelens.core import clock, errors, hosts, metrics, properties
from sitelens.core.log import logger
from sitelens.data import queues
from sitelens.data import websites as stored_websites

# What the cross-origin tracking requests need: any page may send hits.
CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "Retry-After",  # the script waits as a 429 says
}
PREFLIGHT_HEADERS = {
    **CORS_HEADERS,
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Max-Age": "86400",
}


@dataclass(frozen=True)
class Recorded:
    """What became of a tracking request that was not refused."""

    plausible: bool  # sent in Plausible's format, to be answered as Plausible answers
    dropped: int = 0  # Plausible's format: sites that did not take it (unknown, excluded)


def record_hit(fields: dict[str, Any], headers: dict[str, str], source_ip: str) -> Recorded:
    """Validate, filter and enrich one tracking request and queue its hit.

    422 for a missing or invalid `page`, 404 when no website has the page's host,
    403 when the website excludes the hit (bot, IP address). In Plausible's format the
    website is the one of `d` (of each, for a list) and an unknown or excluding one only
    drops the hit, as Plausible answers (`Recorded.dropped`). The IP address is used for
    the exclusions and the location only; it never leaves this function.
    """
    sent = plausible.read(fields) if plausible.is_plausible(fields) else None
    values = _text_fields(sent.fields if sent else fields)
    try:
        page_host = hits.page_host(values.get("page", ""))
    except hits.InvalidHit as invalid:
        raise errors.Invalid.field("page", str(invalid)) from None
    if sent is None:
        _record(page_host, values, headers, source_ip)
        return Recorded(plausible=False)
    values.update(sent.flags)
    dropped = 0
    for host in sent.sites or (page_host,):
        try:
            _record(hosts.site(host), values, headers, source_ip)
        except errors.Forbidden:  # counted as excluded already
            dropped += 1
        except (hosts.InvalidHost, errors.NotFound):
            # answered 202 all the same, as Plausible answers: a count is its only record
            metrics.count("HitsDropped", reason="unknown_site")
            dropped += 1
    return Recorded(plausible=True, dropped=dropped)


def _record(host: str, values: dict[str, str], headers: dict[str, str], source_ip: str) -> None:
    """Queue the hit of `values` for the website of `host` (404 for none, 403 excluded)."""
    website = stored_websites.by_host(host)
    if website is None:
        raise errors.NotFound()
    if not fairshare.admit(int(website["id"])):
        metrics.count("HitsThrottled", reason="site_share")
        raise errors.TooManyRequests(fairshare.retry_after(int(website["id"])))
    try:
        hit = hits.build_hit(website, values, headers, source_ip, clock.now())
    except hits.InvalidHit as invalid:
        raise errors.Invalid.field(invalid.field, str(invalid)) from None
    except hits.ExcludedHit as exclusion:
        # counted as excluded (403 all the same): users see what filtering did
        metrics.count("HitsExcluded", reason=exclusion.why)  # a figure: no line of its own
        EXCLUDED.add(website, exclusion.why, clock.now())
        raise errors.Forbidden() from None
    finally:
        EXCLUDED.send_due()
    queues.send_hit(website["account"], _sqs_text(hit.to_json()), hit.id)
    metrics.count("HitsAccepted")  # a figure: the event function writes no line for it
    realtime.note(hit)  # here (or the stream's presence consumer): waits for no batch


class ExcludedTally:
    """A container's excluded hits, summed by website, reason and UTC day, queued as
    weighted hits (`hits.excluded`): at most SENT_AT_ONCE a TALLY_SECONDS per website and
    reason, the rest held and queued as one when that second has passed.

    So a lone bot, or a few, is counted as soon as it comes; a flood costs a few messages a
    second instead of one per hit. A tally that cannot be queued stays for the next
    request, and so does what a flood left held: the next request to the container sends
    it. What a container holds when Lambda retires it is lost to the `excluded` counter
    only: the HitsExcluded metric has every one."""

    TALLY_SECONDS = 1.0
    SENT_AT_ONCE = 10  # tallies a website and reason queue in a second before holding
    MAX_QUIET = 10_000  # websites and reasons remembered as recently sent

    def __init__(self) -> None:
        self.lock = threading.Lock()
        # (account, website id, reason, day) -> [how many, when the last one came]
        self.pending: dict[tuple[str, int, str, str], list[Any]] = {}
        # (website id, reason) -> [when its second began, tallies queued in it]
        self.sent_at: dict[tuple[int, str], list[Any]] = {}

    def forget(self) -> None:
        """Drop what is pending and when tallies were sent (tests)."""
        with self.lock:
            self.pending.clear()
            self.sent_at.clear()

    def add(self, website: dict[str, Any], why: str, now: datetime) -> None:
        key = (str(website["account"]), int(website["id"]), why, now.strftime("%Y-%m-%d"))
        with self.lock:
            found = self.pending.setdefault(key, [0, now])
            found[0] += 1
            found[1] = max(found[1], now)

    def send_due(self) -> None:
        """Queue the tallies whose website and reason have not queued SENT_AT_ONCE in their
        current second."""
        moment = time.monotonic()
        with self.lock:
            due = {}
            for key in list(self.pending):
                second = self.sent_at.get((key[1], key[2]))
                if second is None or moment - second[0] >= self.TALLY_SECONDS:
                    second = self.sent_at[(key[1], key[2])] = [moment, 0]
                if second[1] < self.SENT_AT_ONCE:
                    second[1] += 1
                    due[key] = self.pending.pop(key)
            if len(self.sent_at) > self.MAX_QUIET:
                for old in sorted(self.sent_at, key=lambda k: self.sent_at[k][0])[
                    : self.MAX_QUIET // 2
                ]:
                    del self.sent_at[old]
        for (account, website_id, why, day), (weight, last) in due.items():
            tally = hits.excluded({"id": website_id}, why, last, weight)
            try:
                queues.send_hit(account, tally.to_json(), tally.id)
            except Exception:
                logger.exception("excluded tally kept for later", extra={"hits": weight})
                with self.lock:
                    found = self.pending.setdefault((account, website_id, why, day), [0, last])
                    found[0] += weight


EXCLUDED = ExcludedTally()


# The fields a hit reads; anything else sent is ignored. `engagement_ms` makes the hit an
# engagement (the time on the page when it was hidden or left), and may be a JSON number.
TEXT_FIELDS = ("page", "referrer", "screen_resolution")
NUMBER_FIELDS = ("engagement_ms", "scroll_depth", "lcp", "inp", "cls", "fcp", "ttfb")
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
    values.update(_properties(fields))
    return values


def _properties(fields: dict[str, Any]) -> dict[str, str]:
    """A hit's properties and revenue in their stored forms (`properties`), read from
    `props` (an object, or its JSON text as a form sends it) and `revenue` (an object) or
    `revenue[amount]` and `revenue[currency]`; 422 on the field beyond a bound."""
    sent = fields.get("revenue")
    if sent is not None and not isinstance(sent, dict):
        raise errors.Invalid.field("revenue", "The revenue field must be an object.")
    sent = sent or {}
    try:
        props = properties.props_text(fields.get("props"))
        amount, currency = properties.revenue(
            sent.get("amount", fields.get("revenue[amount]")),
            sent.get("currency", fields.get("revenue[currency]")),
        )
    except properties.InvalidProperties as invalid:
        raise errors.Invalid.field(invalid.field, str(invalid)) from None
    found = {"props": props, "revenue_amount": amount, "revenue_currency": currency}
    return {name: _sqs_text(value) for name, value in found.items() if value}


_FORM_EVENT = tuple(f"event[{part}]" for part in EVENT_PARTS)  # as a form sends them


def _sqs_text(text: str) -> str:
    # JSON may carry lone surrogates, and SQS refuses U+FFFE and U+FFFF: replace them.
    clean = text.encode("utf-8", "replace").decode("utf-8")
    return clean.replace("\ufffe", "\ufffd").replace("\uffff", "\ufffd")
