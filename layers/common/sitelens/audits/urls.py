"""Which URLs a crawl fetches, and under which one name each.

A URL is normalised once, where it is found (`normalise`): the fragment goes, scheme and
host are lower-cased (the host as IDNA), a default port goes, an empty path is `/`, and
parameters matching an exclude pattern (`?name=`) go; trailing slashes stay as served
(`/a` and `/a/` may be different pages; a redirect between them is followed and
reported). The frontier dedupes on that name. A URL is in scope when it is on the start
URL's host and scheme-agnostic origin, matches an include pattern (if any) and no exclude
pattern. Patterns are paths with `*` as any run of characters (as robots.txt's), matched
from the start of the path and query. Every source of URLs obeys the scope (`crawls`):
links, sitemaps, redirects, canonicals, hreflang alternates, `rel=next`/`prev` and a
list-mode run's list; only the start URL itself is crawled whatever the patterns say.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from sitelens.core import hosts
from sitelens.core.errors import FieldError

DEFAULT_MAX_PAGES = 500
MAX_PAGES = 100_000  # a run's pages: its frontier's size, and its analysis's memory
MAX_DEPTH = 100  # link hops from the start URL (sites deeper than this are lost anyway)
MAX_PATTERNS = 50  # include and exclude patterns each
MAX_PATTERN_LENGTH = 200
MAX_URL_LENGTH = 2048  # longer links are not followed (the report URL's own bound)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_CODE = re.compile(r"^[a-z0-9_]{1,60}$")


def pattern_problem(pattern: str) -> str | None:
    """Why an include or exclude pattern is refused, or None."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"A pattern must not be longer than {MAX_PATTERN_LENGTH} characters."
    if not pattern.startswith(("/", "*", "?")):
        return f"A pattern must start with /, * or ? (parameters): {pattern[:50]}"
    return None


def issue_code(value: Any) -> str:
    if not isinstance(value, str) or not _CODE.match(value.strip()):
        raise FieldError("The issue field must be an issue code, such as broken_link.")
    return value.strip()


def normalise(
    url: str, base: str | None = None, drop_params: frozenset[str] = frozenset()
) -> str | None:
    """The URL's one name (joined to `base` first), or None when it is not an http(s) URL
    a crawl can fetch."""
    try:
        joined = urljoin(base, url.strip()) if base else url.strip()
        parts = hosts.split_url(joined)
        if parts is None or parts.scheme.lower() not in _DEFAULT_PORTS or not parts.hostname:
            return None
        if parts.username is not None or parts.password is not None:
            return None
        scheme = parts.scheme.lower()
        host = hosts.parse(parts.hostname).ascii
        port = parts.port
    except (ValueError, hosts.InvalidHost):
        return None
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    query = parts.query
    if drop_params and query:
        kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k not in drop_params]
        query = urlencode(kept)
    normal = urlunsplit((scheme, netloc, parts.path or "/", query, ""))
    return normal if len(normal) <= MAX_URL_LENGTH else None


def origin(url: str) -> str:
    """`host[:port]` of a normalised URL: pages of one host are internal whatever the scheme."""
    return urlsplit(url).netloc


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in pattern))


def matches(pattern: str, url: str) -> bool:
    """Whether a pattern matches the URL's path and query from their start."""
    return bool(_compiled(pattern).match(path_of(url)))


class Scope:
    """An audit's scope: its host, include and exclude patterns, excluded parameters."""

    def __init__(self, start: str, include: str, exclude: str) -> None:
        self.host = origin(start)
        self.include = [p for p in include.split("\n") if p]
        excluded = [p for p in exclude.split("\n") if p]
        # `?name=` excludes a parameter: URLs are crawled without it (one name for all)
        self.params = frozenset(p[1:].rstrip("=") for p in excluded if p.startswith("?"))
        self.exclude = [p for p in excluded if not p.startswith("?")]

    def name(self, url: str, base: str | None = None) -> str | None:
        return normalise(url, base, self.params)

    def internal(self, url: str) -> bool:
        return origin(url) == self.host

    def follows(self, url: str) -> bool:
        """Whether an internal URL is crawled under the patterns."""
        if self.include and not any(matches(p, url) for p in self.include):
            return False
        return not any(matches(p, url) for p in self.exclude)

    def crawls(self, url: str) -> bool:
        """Whether a named URL, wherever it was found (a link, a sitemap, a redirect, a
        canonical, an alternate, a list), is crawled: internal and followed."""
        return self.internal(url) and self.follows(url)

    def listed(self, text: str) -> list[str]:
        """A list-mode run's URLs (one a line): each named, once, in order, those the
        scope crawls."""
        named = (self.name(line) for line in text.splitlines() if line.strip())
        return list(dict.fromkeys(url for url in named if url is not None and self.crawls(url)))
