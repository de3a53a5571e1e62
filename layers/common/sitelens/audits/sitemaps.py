"""Sitemaps (sitemaps.org): the URLs a site declares, from robots.txt's `Sitemap:` lines
and `/sitemap.xml`, nested indexes and gzip included.

`<loc>` values are read with a regular expression rather than an XML parser: a sitemap's
structure is flat, and no entity is expanded (no XXE, no billion laughs) without a library
for safe XML. Bounds: `MAX_SITEMAPS` files a crawl reads, `MAX_DEPTH` levels of indexes,
`MAX_BYTES` of each file once decompressed (sitemaps.org's 50 MB is the uncompressed limit;
ours is the fetcher's 5 MB body, decompressed to at most 10 MB).
"""

from __future__ import annotations

import gzip
import html
import io
import re
from collections.abc import Callable, Iterator

MAX_SITEMAPS = 50
MAX_DEPTH = 3
MAX_BYTES = 10 * 1024 * 1024
_LOC = re.compile(rb"<(?:\w+:)?loc>\s*(.*?)\s*</(?:\w+:)?loc>", re.S | re.I)
_INDEX = re.compile(rb"<(?:\w+:)?sitemapindex[\s>]", re.I)


def decompressed(body: bytes) -> bytes:
    """The body, gunzipped when it is gzip (at most MAX_BYTES; a bomb is cut short)."""
    if not body.startswith(b"\x1f\x8b"):
        return body[:MAX_BYTES]
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(body)) as unzipped:
            return unzipped.read(MAX_BYTES)
    except (OSError, EOFError):
        return b""


def parse(body: bytes) -> tuple[bool, list[str]]:
    """(whether it is a sitemap index, its `<loc>` URLs)."""
    data = decompressed(body)
    locations = [html.unescape(m.group(1).decode("utf-8", "replace")) for m in _LOC.finditer(data)]
    return bool(_INDEX.search(data[:4096])), locations


def urls(roots: list[str], fetch: Callable[[str], bytes | None], most: int) -> Iterator[str]:
    """The page URLs of the sitemaps at `roots` and the indexes they nest, breadth first,
    at most `most` of them; `fetch` gives a file's body, or None when it cannot be had."""
    queue = [(root, 0) for root in dict.fromkeys(roots)]
    seen: set[str] = set()
    given = 0
    while queue and len(seen) < MAX_SITEMAPS:
        location, depth = queue.pop(0)
        if location in seen:
            continue
        seen.add(location)
        body = fetch(location)
        if body is None:
            continue
        is_index, found = parse(body)
        if is_index:
            if depth < MAX_DEPTH:
                queue.extend((nested, depth + 1) for nested in found)
            continue
        for url in found:
            yield url
            given += 1
            if given >= most:
                return
