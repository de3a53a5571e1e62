"""Who a visitor is: browser, OS and device from the user agent, language, location.

The parsers and data (ua-parser, crawlerdetect, iptocc, the continent table, an .mmdb
database) are imported and built on first use and then kept for the container's life,
so functions that never look at a visitor (the aggregator) do not pay for them at cold
start.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Literal
from urllib.parse import unquote

from sitelens.config import settings

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


@cache
def _crawler_detect() -> CrawlerDetect:
    from crawlerdetect import CrawlerDetect

    return CrawlerDetect()


def is_bot(ua: str) -> bool:
    """True for crawlers, headless browsers, HTTP libraries and an empty user agent."""
    ua = ua.strip()
    return not ua or bool(_MORE_HTTP_CLIENTS.match(ua)) or _crawler_detect().is_crawler(ua)


def _parse(ua: str) -> Result:
    # The global parser is built lazily with the fastest resolver installed
    # (ua-parser-rs) behind an LRU cache.
    import ua_parser

    return ua_parser.parse(ua)


def _device(ua: str, parsed: Result) -> Device:
    device = parsed.device
    os = parsed.os.family if parsed.os else ""
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
    # Desktops report no device (or "Mac"); TVs, consoles and unknown hardware are "other".
    if parsed.user_agent and (device is None or device.family == "Mac"):
        return "desktop"
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
