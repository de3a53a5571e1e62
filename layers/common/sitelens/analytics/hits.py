"""Hits: the rules that turn one tracking request into a `Hit` (validated, filtered,
enriched and given its id).

`build_hit` runs in the event function; the resulting `Hit` (`analytics.hit`, the queue's
contract) travels through SQS as JSON, never with the visitor's IP address.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from typing import Any, Literal
from urllib.parse import SplitResult, parse_qsl, unquote, unquote_plus, urlsplit
from zoneinfo import ZoneInfo

from sitelens.analytics import datacenters, visitors, vitals
from sitelens.analytics.hit import Hit, new_id
from sitelens.core import hosts
from sitelens.core.config import settings

# the campaign parameters counted; utm_campaign keeps its historical name, `campaign`
UTM_NAMES = ("utm_source", "utm_medium", "utm_term", "utm_content")
MAX_UTM_LENGTH = 200  # characters of a counted campaign value

# Removed from every counted page, whatever the website excludes: they identify an ad
# click or a mail recipient, not a page, and would split one page into many rows (the
# click identifiers of Google, Microsoft, Meta, TikTok, X, LinkedIn, Yandex, Mailchimp,
# HubSpot, Marketo and Instagram, as Firefox's and Brave's query stripping lists them).
TRACKING_PARAMS = frozenset(
    {
        "gclid",
        "gclsrc",
        "gbraid",
        "wbraid",
        "dclid",
        "gad_source",
        "msclkid",
        "fbclid",
        "ttclid",
        "twclid",
        "li_fat_id",
        "igshid",
        "yclid",
        "mc_cid",
        "mc_eid",
        "_hsenc",
        "_hsmi",
        "mkt_tok",
        "_openstat",
    }
)
TRACKING_PREFIXES = ("utm_",)  # every campaign parameter; the five known ones are counted

MAX_URL_LENGTH = 2048
MAX_EVENT_PART_LENGTH = 100  # each of name, value and unit: keeps stat keys small


class InvalidHit(Exception):
    """A field of the request is missing or unusable (422 on `field`, `page` unless said);
    the message is for users."""

    def __init__(self, message: str, field: str = "page") -> None:
        super().__init__(message)
        self.field = field


class ExcludedHit(Exception):
    """The website excludes this hit (403); `why` is "bot", "ip" or "datacenter"."""

    def __init__(self, why: Literal["bot", "ip", "datacenter"]) -> None:
        super().__init__(f"Excluded: {why}.")
        self.why = why


def excluded(website: Mapping[str, Any], why: str, now: datetime, weight: int = 1) -> Hit:
    """The record of `weight` excluded hits: nothing of the visitor, only the day and the
    reason, so that `excluded` shows what filtering did."""
    at = now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)
    return Hit(
        website_id=int(website["id"]),
        at=at,
        page="",
        visit=False,
        excluded=why,
        id=new_id(at),
        weight=weight,
    )


def _site(host: str) -> str:
    """The site key of a URL's host (`hosts.site`); "" when it is not a host."""
    try:
        return hosts.site(host)
    except hosts.InvalidHost:
        return ""


def page_host(page: str) -> str:
    """The page URL's site key (`hosts.site`); InvalidHit if unusable."""
    if not page or not page.strip():
        raise InvalidHit("The page field is required.")
    parts = hosts.split_url(page.strip()) if len(page) <= MAX_URL_LENGTH else None
    host = _site(parts.hostname or "") if parts and parts.hostname else ""
    if not parts or parts.scheme not in ("http", "https") or not host:
        raise InvalidHit("The page must be a valid http or https URL.")
    return host


def _referrer_host(referrer: str) -> str:
    # Any scheme with a host counts, so app referrers (android-app://...) are kept.
    too_long = not referrer or len(referrer) > MAX_URL_LENGTH
    parts = None if too_long else hosts.split_url(referrer.strip())
    return _site(parts.hostname) if parts and parts.hostname else ""


def _lines(text: str | None) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def _ip_excluded(source_ip: str, exclude_ips: str | None) -> bool:
    address = visitors.client_address(source_ip)
    if address is None:
        return False
    for line in _lines(exclude_ips):
        try:
            network = ipaddress.ip_network(line, strict=False)
        except ValueError:
            continue  # a stored typo must not stop counting
        if address in network:
            return True
    return False


def _from_datacenter(source_ip: str) -> bool:
    """Whether the optional data-centre rule is on and the address is in its ranges."""
    path = settings().datacenter_ranges
    address = visitors.client_address(source_ip) if path else None
    return address is not None and address in datacenters.load(path)


def _strip_params(query: str, exclude_params: str | None) -> str:
    names = set(_lines(exclude_params)) | TRACKING_PARAMS
    if "&" in names:
        return ""

    def kept(name: str) -> bool:
        return name not in names and not name.lower().startswith(TRACKING_PREFIXES)

    # Work on the raw pairs so the kept ones stay exactly as the page sent them.
    return "&".join(
        pair for pair in query.split("&") if pair and kept(unquote_plus(pair.split("=", 1)[0]))
    )


def counted_page(url: SplitResult, exclude_params: str | None) -> str:
    """The page a hit of `url` is counted under: its path as people read it (`readable`)
    and the query left after the tracking parameters and the website's excluded ones
    (`/pricing?id=3`), as sent."""
    query = _strip_params(url.query, exclude_params)
    return readable(url.path or "/") + (f"?{query}" if query else "")


# A run of percent-escapes (`%C3%BC`): the bytes of one or more characters.
_ESCAPES = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
# What stays escaped: `?` and `#` would read as the start of a query or a fragment, white
# space as two words (a goal's path has none), and control characters are not read at all.
_KEPT_ESCAPED = re.compile(r"[?#\s\x00-\x1f\x7f-\x9f]")


def readable(path: str) -> str:
    """A URL path with its percent-escapes of UTF-8 decoded, as Plausible shows pages and
    as a browser's address bar does: `/%C3%BCber` is `/über` (a browser sends every page
    escaped). Escapes of `?`, `#`, white space and control characters stay (`/a%20b`), and
    so does a run of escapes that spells no UTF-8."""

    def decoded(run: re.Match[str]) -> str:
        try:
            text = unquote(run[0], errors="strict")
        except UnicodeDecodeError:
            return run[0]
        return _KEPT_ESCAPED.sub(lambda c: "".join(f"%{b:02X}" for b in c[0].encode()), text)

    return _ESCAPES.sub(decoded, path) if "%" in path else path


def _resolution(value: str) -> str:
    width, x, height = value.strip().partition("x")
    ok = x and all(
        part.isascii() and part.isdigit() and 2 <= len(part) <= 5 for part in (width, height)
    )
    return f"{width}x{height}" if ok else ""


def _event_parts(fields: Mapping[str, str]) -> tuple[str, str, str]:
    name, value, unit = (
        fields.get(f"event[{key}]", "").strip()[:MAX_EVENT_PART_LENGTH]
        for key in ("name", "value", "unit")
    )
    return name, value, unit


def _event(fields: Mapping[str, str]) -> str:
    return ":".join(_event_parts(fields))


# Time on a page longer than a day is a tab left open, not reading: it is cut to a day.
MAX_ENGAGED_MS = 24 * 3600 * 1000


def _engaged_ms(text: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        raise InvalidHit(
            "The engagement_ms field must be a whole number of milliseconds.", "engagement_ms"
        )
    return min(int(text), MAX_ENGAGED_MS)


def _scroll_depth(text: str | None) -> int | None:
    if text is None:
        return None
    if not text.isascii() or not text.isdigit() or int(text) > 100:
        raise InvalidHit(
            "The scroll_depth field must be a whole percent from 0 to 100.", "scroll_depth"
        )
    return int(text)


def build_hit(
    website: Mapping[str, Any],
    fields: Mapping[str, str],
    headers: Mapping[str, str],
    source_ip: str,
    now: datetime,
) -> Hit:
    """The hit a tracking request makes for a stored website record.

    Raises InvalidHit for a missing or invalid `page`, ExcludedHit("ip") when the
    source address is in `exclude_ips`, ExcludedHit("bot") for a bot when
    `exclude_bots` is 1, and then ExcludedHit("datacenter") for an address in the optional
    data-centre ranges (`analytics.datacenters`). `headers` have lower-case names.
    """

    def salted(day: date) -> str:  # the day's salted hash (`visitors.visitor_id`)
        user_agent = headers.get("user-agent", "")
        return visitors.visitor_id(int(website["id"]), source_ip, user_agent, day)

    return _build(website, fields, headers, source_ip, now, salted, None)


def backfilled_hit(
    website: Mapping[str, Any],
    fields: Mapping[str, str],
    headers: Mapping[str, str],
    at: datetime,
    visitor: str,
    hit_id: str,
) -> Hit:
    """A backfilled event's hit (`analytics.backfill`), by the tracker's rules, without an
    address: its `visitor` is the caller's, hashed (a past day's salt is gone and never
    made again), and its `hit_id` derived from what the caller sent."""
    return _build(website, fields, headers, "", at, lambda _day: visitor, hit_id)


def _build(
    website: Mapping[str, Any],
    fields: Mapping[str, str],
    headers: Mapping[str, str],
    source_ip: str,
    now: datetime,
    visitor_of: Callable[[date], str],
    given_id: str | None,
) -> Hit:
    page = fields.get("page", "")
    host = page_host(page)
    if _ip_excluded(source_ip, website.get("exclude_ips")):
        raise ExcludedHit("ip")
    user_agent = headers.get("user-agent", "")
    agent = visitors.classify(user_agent)
    if int(website.get("exclude_bots") or 0) == 1:
        if agent.is_bot:
            raise ExcludedHit("bot")
        if _from_datacenter(source_ip):
            raise ExcludedHit("datacenter")

    url = urlsplit(page.strip())
    params = parse_qsl(url.query)
    campaign = next((v for k, v in params if k == "utm_campaign"), "").strip()
    utm = {
        name: next((v for k, v in params if k == name), "").strip()[:MAX_UTM_LENGTH]
        for name in UTM_NAMES
    }
    path = counted_page(url, website.get("exclude_params"))
    if fields.get("hash_mode") == "1" and url.fragment:  # Plausible's `h`: hash routing
        path += "#" + readable(url.fragment)
    at = now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)
    local_day = at.astimezone(ZoneInfo(website.get("timezone") or "UTC")).date()
    visitor = visitor_of(local_day)
    hit_id = given_id or new_id(at)  # the hit's identity from here on: counted once by it

    engaged = fields.get("engagement_ms")  # sent at all: exactly a number, as documented
    if engaged is not None:
        try:
            measured = vitals.parse(fields)
        except vitals.InvalidVital as invalid:
            raise InvalidHit(str(invalid), invalid.field) from None
        # vitals are asked by device and country: their row carries them
        where = visitors.location(source_ip, headers) if measured else None
        return Hit(
            website_id=int(website["id"]),
            at=at,
            page=path,
            visit=False,
            visitor=visitor,
            engaged_ms=_engaged_ms(engaged),
            id=hit_id,
            scroll_depth=_scroll_depth(fields.get("scroll_depth")),
            vitals=measured,
            device=agent.device if measured else "",
            country=where.country if where else "",
        )
    if fields.get("event[name]", "").strip():
        event = _event(fields)
        # Its row carries what every row of its visitor shares (the warehouse's identity
        # dimensions): conversions by device or country, and a visit of events alone.
        where = visitors.location(source_ip, headers)
        return Hit(
            website_id=int(website["id"]),
            at=at,
            page=path,
            visit=False,
            event=event,
            visitor=visitor,
            event_parts=_event_parts(fields),
            id=hit_id,
            props=fields.get("props", ""),
            # Plausible's `i: false`: an event that does not end a bounce (autoplay, say)
            interactive=False if fields.get("interactive") == "false" else None,
            revenue_amount=fields.get("revenue_amount", ""),
            revenue_currency=fields.get("revenue_currency", ""),
            browser=agent.browser,
            os=agent.os,
            device=agent.device,
            country=where.country,
        )

    referrer = _referrer_host(fields.get("referrer", ""))
    visit = referrer != host  # the website was found by the page's host: that is "itself"
    where = visitors.location(source_ip, headers)
    return Hit(
        website_id=int(website["id"]),
        at=at,
        page=path,
        visit=visit,
        referrer=referrer if visit else "",
        browser=agent.browser,
        os=agent.os,
        device=agent.device,
        language=visitors.language(headers.get("accept-language", "")),
        resolution=_resolution(fields.get("screen_resolution", "")),
        country=where.country,
        continent=where.continent,
        city=where.city,
        campaign=campaign,
        utm_source=utm["utm_source"],
        utm_medium=utm["utm_medium"],
        utm_term=utm["utm_term"],
        utm_content=utm["utm_content"],
        visitor=visitor,
        id=hit_id,
        props=fields.get("props", ""),
    )
