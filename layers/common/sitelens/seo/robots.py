"""robots.txt as search engines read it (RFC 9309 and Google's documentation).

Matching is Protego's (the parser Scrapy uses): the longest matching rule wins, `Allow`
wins a tie, `*` and `$` are wildcards, and the groups of one agent are merged. What the
status of robots.txt means is Google's: 2xx is parsed (its first `MAX_ROBOTS_BYTES`);
4xx other than 429, or too many redirects, mean there is no robots.txt (everything may be
crawled); 5xx, 429 and an unreachable server mean nothing may be crawled.

`problems` lists what makes a robots.txt invalid for crawlers, by Lighthouse's rules (its
robots-txt audit): a line without a colon, an unknown directive, an allow or disallow
before any user-agent, an empty user-agent, a pattern that starts with neither "/" nor
"*" or has "$" before its end, and a sitemap that is not an absolute http(s) or ftp URL.
Protego does not validate, so this is a small line scanner of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from protego import Protego

from sitelens.seo.page import Response, Site

MAX_ROBOTS_BYTES: Final = 500 * 1024  # what Google reads (RFC 9309: at least 500 KiB)
# The crawlers a page should be open to, as Lighthouse's is-crawlable audit asks: any
# crawler ("*"), the two largest search engines, DuckDuckGo's and the Internet Archive's.
AGENTS: Final = ("*", "Googlebot", "Bingbot", "DuckDuckBot", "archive.org_bot")
MAX_PROBLEMS: Final = 20  # lines reported; the count says how many there are
_KNOWN: Final = frozenset(
    {
        "user-agent",
        "disallow",
        "allow",
        "sitemap",
        "crawl-delay",
        "clean-param",
        "host",
        "request-rate",
        "visit-time",
        "noindex",
        "content-signal",
        "license",
    }
)
_LINES: Final = re.compile(r"\r\n|\r|\n")
# fetch errors that mean "no robots.txt" rather than "the server cannot be reached"
NOT_FOUND_ERRORS: Final = frozenset({"The page redirects too many times."})


@dataclass(frozen=True)
class Access:
    """What robots.txt says of one URL: each agent's verdict, and why."""

    allowed: dict[str, bool]
    reason: str  # "rules", "none" (no robots.txt), "unavailable" (5xx, 429, unreachable)
    status: int | None = None


def text(response: Response) -> str:
    """The robots.txt body as text: its first `MAX_ROBOTS_BYTES`, UTF-8 (RFC 9309 2.3)."""
    return response.body[:MAX_ROBOTS_BYTES].decode("utf-8", "replace").lstrip("\ufeff")


def unavailable(site: Site) -> bool:
    """Whether robots.txt answered 5xx or 429, or could not be fetched at all."""
    response = site.robots_txt
    if response is None:
        return site.robots_error is not None and site.robots_error not in NOT_FOUND_ERRORS
    return response.status >= 500 or response.status == 429


def parsed(site: Site) -> Protego | None:
    """The parsed robots.txt, or None unless it answered 2xx."""
    response = site.robots_txt
    if response is None or not 200 <= response.status < 300:
        return None
    return Protego.parse(text(response))


def access(site: Site, url: str) -> Access:
    """Each of `AGENTS`' verdict on `url`."""
    status = site.robots_txt.status if site.robots_txt else None
    if unavailable(site):
        return Access(dict.fromkeys(AGENTS, False), "unavailable", status)
    rules = parsed(site)
    if rules is None:
        return Access(dict.fromkeys(AGENTS, True), "none", status)
    return Access({agent: rules.can_fetch(url, agent) for agent in AGENTS}, "rules", status)


def sitemaps(site: Site) -> list[str]:
    """The `Sitemap:` URLs, in order."""
    rules = parsed(site)
    return list(rules.sitemaps) if rules is not None else []


def problems(content: str) -> list[dict[str, str | int]]:
    """Each invalid line: `{"line": n, "content": ..., "message": ...}`, in order."""
    found: list[dict[str, str | int]] = []
    in_group = False
    for number, raw in enumerate(_LINES.split(content.lstrip("\ufeff")), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, colon, value = line.partition(":")
        name, value = name.strip().lower(), value.strip()
        message = None
        if not colon:
            message = "Syntax not understood"
        elif name not in _KNOWN:
            message = "Unknown directive"
        elif name == "user-agent":
            in_group = True
            message = None if value else "No user-agent specified"
        elif name in ("allow", "disallow"):
            if not in_group:
                message = "No user-agent specified"
            elif value and value[0] not in "/*":
                message = 'Pattern should either be empty, start with "/" or "*"'
            elif "$" in value[:-1]:
                message = '"$" should only be used at the end of the pattern'
        elif name == "sitemap":
            message = _sitemap_problem(value)
        if message:
            found.append({"line": number, "content": raw.strip()[:200], "message": message})
    return found


def _sitemap_problem(value: str) -> str | None:
    try:
        parts = urlsplit(value)
    except ValueError:
        return "Invalid sitemap URL"
    if not parts.scheme or not parts.netloc:
        return "Invalid sitemap URL"
    if parts.scheme.lower() not in ("http", "https", "ftp"):
        return "Invalid sitemap URL protocol"
    return None
