"""Who a visitor is: browser, OS and device from the user agent, language, location.

The parsers (ua-parser, crawlerdetect, the GeoIP database) are imported and built on
first use and then kept for the container's life, so functions that never look at a
visitor (the aggregator) do not pay for them at cold start.
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
    from geoip2.database import Reader
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


@cache
def _geoip_reader(path: str) -> Reader:
    from geoip2.database import Reader

    return Reader(path, locales=["en"])


def _geoip_location(path: str, ip: str) -> Location:
    from geoip2.errors import AddressNotFoundError

    try:
        city = _geoip_reader(path).city(ip)
    except AddressNotFoundError:  # private or unknown address
        return Location()
    return Location(
        country=city.country.iso_code or "",
        continent=city.continent.code or "",
        city=city.city.name or "",
    )


def location(ip: str, headers: Mapping[str, str]) -> Location:
    """Location from the GeoLite2 City database when one is configured, else from the
    CloudFront viewer headers (which carry no continent), else unknown."""
    if path := settings().geoip_db:
        address = client_address(ip)
        return _geoip_location(path, str(address)) if address else Location()
    country = headers.get("cloudfront-viewer-country", "").strip().upper()
    return Location(
        country=country if len(country) == 2 and country.isalpha() else "",
        city=unquote(headers.get("cloudfront-viewer-city", "")).strip(),
    )


def client_address(ip: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The client's address, IPv4-mapped IPv6 (`::ffff:1.2.3.4`) as IPv4; None if malformed."""
    try:
        address = ipaddress.ip_address(ip.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address
