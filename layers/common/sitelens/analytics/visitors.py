"""Who a visitor is: browser, OS and device from the user agent, language, location.

The parsers and data (ua-parser, crawlerdetect, isbot's patterns, Matomo's devices,
iptocc, the continent table, an .mmdb database) are imported and built on first use and
then kept for the container's life, so functions that never look at a visitor (the
aggregator) do not pay for them at cold start.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from functools import cache, lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Literal
from urllib.parse import unquote

import regex

from sitelens.analytics import devices
from sitelens.analytics.patterns import AnyPattern
from sitelens.core.config import settings
from sitelens.data import salts

if TYPE_CHECKING:
    from crawlerdetect import CrawlerDetect
    from maxminddb import Reader
    from ua_parser import Result

Device = Literal["desktop", "mobile", "tablet", "other"]

# HTTP clients that crawlerdetect 0.4 does not recognise; everything else it knows
# (curl, Wget, python-requests, Go-http-client, okhttp, axios, Java/, PostmanRuntime...).
_MORE_HTTP_CLIENTS = re.compile(r"^(?:Java-http-client|insomnia|Deno|Bun)/|^Ktor client", re.I)

_MOBILE_OS = frozenset(
    {"iOS", "Android", "Windows Phone", "BlackBerry OS", "KaiOS", "Symbian OS", "Firefox OS"}
)
_TABLET_DEVICES = frozenset({"iPad", "Kindle", "Generic Tablet"})
_FEATURE_PHONE = re.compile(r"MAUI|MRE/|J2ME|MIDP|CLDC|KaiOS|Opera Mini|UCWEB|NetFront|Obigo", re.I)
_DESKTOP_OS = re.compile(r"Windows NT|Macintosh|Mac OS X|X11|Linux x86|CrOS|FreeBSD|OpenBSD|SunOS")


@dataclass(frozen=True)
class Agent:
    """What a user agent says about the visitor; "" where the parser does not know."""

    browser: str
    os: str
    device: Device
    is_bot: bool


@dataclass(frozen=True)
class Location:
    """Where a visitor is: ISO country code, continent code, city name; "" when unknown."""

    country: str = ""
    continent: str = ""
    city: str = ""


_local = threading.local()  # CrawlerDetect keeps the last match on the instance


def _crawler_detect() -> CrawlerDetect:
    detector = getattr(_local, "crawler_detect", None)
    if detector is None:
        from crawlerdetect import CrawlerDetect

        detector = _local.crawler_detect = CrawlerDetect()
    return detector


@cache
def _isbot_patterns() -> list[str]:
    data = resources.files("sitelens.analytics").joinpath("isbot_patterns.json").read_text()
    return list(json.loads(data)["patterns"])


@cache
def _isbot() -> regex.Pattern[str]:
    """isbot's patterns (npm, `scripts/make_bot_patterns.py`), one alternation, case-insensitive;
    `regex` reads their variable-width lookbehinds as JavaScript does."""
    return regex.compile("|".join(_isbot_patterns()), regex.IGNORECASE)


# Most agents are browsers, which neither isbot nor crawlerdetect matches: a search in
# Rust of all their patterns (`patterns.AnyPattern`) says so in microseconds, where
# Python's search of the alternations takes about 1 ms.
@cache
def _isbot_prefilter() -> AnyPattern:
    return AnyPattern(_isbot_patterns())


@cache
def _crawler_prefilter() -> AnyPattern:
    from crawlerdetect.providers.crawlers import data

    return AnyPattern(data)


def _crawler_exclusions(ua: str) -> str:
    """The agent as crawlerdetect searches it: without the browsers' tokens it excludes."""
    from crawlerdetect.crawlerdetect import get_compiled_exclusions_regex

    return get_compiled_exclusions_regex().sub("", ua)


# A browser's user agent names its platform and device first: "Mozilla/5.0 (Linux;
# Android 10; OPPO A33) AppleWebKit/...". Model names there ("OPPO A33", "Discovery",
# "SMART 4G Speedy") can contain a crawler's word; a crawler announces itself elsewhere,
# or as "(compatible; Googlebot/2.1)".
_PLATFORM = re.compile(r"^Mozilla/5\.0 \(([^()]*)\) (?:AppleWebKit/|Gecko/)")


# what a device's model name never has, and a crawler's name in that segment often does
_BOT_TOKEN = re.compile(r"/|bot|crawl|spider|http|\+|@|agent", re.IGNORECASE)


def _device_span(ua: str) -> tuple[int, int] | None:
    found = _PLATFORM.match(ua)
    if found is None or "compatible" in found.group(1).lower():
        return None
    return found.span(1)


@lru_cache(maxsize=4096)  # visitors send the same few hundred user agents over and over
def is_bot(ua: str) -> bool:
    """True for crawlers, monitors, headless browsers, HTTP libraries and an empty user
    agent: what crawlerdetect or isbot recognise, unless the only match is a phone's model
    name in a browser's platform segment."""
    ua = ua.strip()
    if not ua or _MORE_HTTP_CLIENTS.match(ua):
        return True
    device = _device_span(ua)

    def outside(start: int, end: int) -> bool:
        """Whether a match is more than a word of a device's name in the platform segment."""
        if device is None or start < device[0] or end > device[1]:
            return True
        item_start = ua.rfind(";", device[0], start) + 1 or device[0]
        item_end = ua.find(";", end, device[1])
        item = ua[item_start : item_end if item_end >= 0 else device[1]].split(" Build/")[0]
        return bool(_BOT_TOKEN.search(item))

    if _isbot_prefilter().could_match(ua) and any(
        outside(*match.span()) for match in _isbot().finditer(ua)
    ):
        return True
    if not _crawler_prefilter().could_match(_crawler_exclusions(ua)):
        return False
    detector = _crawler_detect()
    if detector.is_crawler(ua):
        matched = detector.get_matches() or ""
        start = ua.find(matched) if matched else -1
        return start < 0 or outside(start, start + len(matched))
    return False


def _parse(ua: str) -> Result:
    # The global parser is built lazily with the fastest resolver installed
    # (ua-parser-rs) behind an LRU cache.
    import ua_parser

    return ua_parser.parse(ua)


# Matomo's device types, as ours: a phablet is a large phone, a feature phone a phone
_MATOMO_TYPES: dict[str, Device] = {
    "smartphone": "mobile",
    "phablet": "mobile",
    "feature phone": "mobile",
    "tablet": "tablet",
    "desktop": "desktop",
}


@lru_cache(maxsize=4096)
def _android_device(ua: str, os_version: str) -> Device | None:
    """An Android agent's device type by Matomo's device database (`devices`): only the
    model tells a tablet from a phone (WebViews leave "Mobile" out, some tablets send
    it). None when Matomo's type is not one of ours (a TV, a console, none)."""
    return _MATOMO_TYPES.get(devices.device_type(ua, os_version))


def _device(ua: str, parsed: Result) -> Device:
    device = parsed.device
    os = parsed.os.family if parsed.os else ""
    if os == "Android" or "Android" in ua:
        version = parsed.os if os == "Android" else None
        numbers = (version.major, version.minor, version.patch) if version else ()
        known = _android_device(ua, ".".join(n for n in numbers if n))
        if known is not None:
            return known
    if device and (
        device.family in _TABLET_DEVICES
        or device.brand == "Generic_Android_Tablet"
        or "Tablet" in device.family
    ):
        return "tablet"
    # Android tablets leave "Mobile" out of the user agent; ua-parser misses many models.
    if os == "Android" and "Mobile" not in ua:
        return "tablet"
    if os in _MOBILE_OS or (device and device.family == "Generic Smartphone"):
        return "mobile"
    if _FEATURE_PHONE.search(ua):
        return "mobile"  # phones without a smartphone OS: MediaTek MAUI, J2ME, KaiOS...
    if os == "Chrome OS" or "CrOS" in ua:
        return "desktop"  # Chromebooks are laptops
    # Desktops report no device (or "Mac"), whatever their browser; TVs, consoles and
    # other hardware ua-parser names are "other".
    if device is None or device.family in ("Mac", "Other"):
        return "desktop" if _DESKTOP_OS.search(ua) else "other"
    return "other"


def classify(ua: str) -> Agent:
    """Browser and OS family names, device type and whether the user agent is a bot."""
    bot = is_bot(ua)
    parsed = _parse(ua)
    return Agent(
        browser=parsed.user_agent.family if parsed.user_agent else "",
        os=parsed.os.family if parsed.os else "",
        device="other" if bot else _device(ua, parsed),
        is_bot=bot,
    )


def language(accept_language: str) -> str:
    """The primary subtag of the first `Accept-Language` entry, lower-case (`de-DE` -> `de`)."""
    first = accept_language.split(",", 1)[0].split(";", 1)[0].strip()
    primary = first.replace("_", "-").split("-", 1)[0].lower()
    return primary if primary.isascii() and primary.isalpha() and len(primary) <= 8 else ""


def location(ip: str, headers: Mapping[str, str]) -> Location:
    """Where the visitor is, from the first of these sources that applies:

    1. CloudFront's viewer headers, when SITELENS_BEHIND_CLOUDFRONT declares that a
       distribution adds them (any client can send them, so they are ignored otherwise);
    2. the .mmdb database of SITELENS_GEOIP_DB (country, continent, city);
    3. the registry data shipped in iptocc (country).

    The continent comes from the country when the source has none. Private, reserved
    and malformed addresses have no location.
    """
    current = settings()
    if current.behind_cloudfront and (viewer := _cloudfront_location(headers)):
        return viewer
    address = client_address(ip)
    if address is None or not address.is_global:
        return Location()
    if current.geoip_db:
        return _mmdb_location(current.geoip_db, address)
    return _registry_location(address)


def continent_of(country: str) -> str:
    """The continent code (AF, AN, AS, EU, NA, OC, SA) of an ISO country code; "" if unknown."""
    from pycountry_convert import country_alpha2_to_continent_code

    try:
        return country_alpha2_to_continent_code(country)
    except KeyError:
        return ""


def _cloudfront_location(headers: Mapping[str, str]) -> Location | None:
    country = headers.get("cloudfront-viewer-country", "").strip().upper()
    if not (len(country) == 2 and country.isascii() and country.isalpha()):
        return None
    city = unquote(headers.get("cloudfront-viewer-city", "")).strip()
    return Location(country=country, continent=continent_of(country), city=city)


def _registry_location(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> Location:
    # The country each address block is registered to at its Regional Internet Registry,
    # refreshed with every iptocc release; it agrees with MaxMind for about 95% of IPv4.
    from iptocc import country_code

    country = country_code(str(address)) or ""
    if country == "EU":  # RIPE NCC blocks registered to Europe as a whole: no country
        return Location(continent="EU")
    return Location(country=country, continent=continent_of(country))


@cache
def _mmdb_reader(path: str) -> Reader:
    import maxminddb

    return maxminddb.open_database(path)


def _mmdb_location(path: str, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> Location:
    # GeoLite2/GeoIP2 and DB-IP share this layout; a Country database has no city.
    record = _mmdb_reader(path).get(address)
    country = _text(record, "country", "iso_code")
    return Location(
        country=country,
        continent=_text(record, "continent", "code") or continent_of(country),
        city=_text(record, "city", "names", "en"),
    )


def _text(record: object, *keys: str) -> str:
    """record[key][key]... when every level is a map and the value is text, else ""."""
    for key in keys:
        record = record.get(key) if isinstance(record, dict) else None
    return record if isinstance(record, str) else ""


def client_address(ip: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The client's address, IPv4-mapped IPv6 (`::ffff:1.2.3.4`) as IPv4; None if malformed."""
    try:
        address = ipaddress.ip_address(ip.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def visitor_id(website_id: int, source_ip: str, user_agent: str, day: date) -> str:
    """Who a hit is from, for one day and one website only: a hash of the website, the
    client address and the user agent, keyed by the day's random salt (`data.salts`), as
    Plausible and Fathom count. Once the salt is destroyed, nobody (the operator included)
    can link the day's visitors to another day's or recover an address from them. 128 bits
    (32 hex characters): no two of a day's visitors share one by chance."""
    address = client_address(source_ip)
    text = f"{website_id}\0{address or source_ip.strip()}\0{user_agent}"
    return hashlib.blake2b(text.encode(), key=salts.for_day(day), digest_size=16).hexdigest()
