"""Sitemaps (sitemaps.org): the URLs a site declares, from robots.txt's `Sitemap:` lines
and `/sitemap.xml`, nested indexes and gzip included.

Why a scan and not an XML parser: real sitemaps are often not well formed (a bare `&` in
`?a=1&b=2`, a gzip file cut at the fetcher's 5 MB), and a strict parser (expat,
defusedxml) stops at the first error and loses every URL after it, while lxml's
recovering parser would add a compiled library to the layer for one flat list. So
`parse` makes linear passes of the `re` engine whose repeats are possessive or bounded
(nothing is tried twice): comments and the DOCTYPE (with any entities it declares) are
cut out, then every `<loc>` closed by its `</loc>` within `MAX_LOCATION_BYTES` is read;
an unclosed or overlong one is skipped, and the next one still counts. The work is
bounded by the input's size, whatever it holds (test_sitemaps.py and `make bench` time
hostile files). Namespace prefixes (`<sm:loc>`), a CDATA section and XML's own
references (`&amp;`, `&#38;`) are read; an entity declared in the document is never
expanded nor fetched (no billion laughs, no XXE): a location naming one is skipped, since
its value cannot be known without expanding it.

Bounds: `MAX_SITEMAPS` files a crawl reads, `MAX_DEPTH` levels of indexes, `MAX_BYTES`
of each file once decompressed (sitemaps.org's 50 MB is the uncompressed limit; ours is
the fetcher's 5 MB body, decompressed to at most 10 MB).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterator

from sitelens.audits.urls import MAX_URL_LENGTH

MAX_SITEMAPS = 50
MAX_DEPTH = 3
MAX_BYTES = 10 * 1024 * 1024
# a location's raw text: the crawler's URL bound, with room for escapes and indentation
MAX_LOCATION_BYTES = 2 * MAX_URL_LENGTH

_GZIP_MAGIC = b"\x1f\x8b"
_HEAD_BYTES = 64 * 1024  # where the root element's namespace declarations are read
_GZIP_WBITS = 16 + zlib.MAX_WBITS  # zlib reads a gzip header and trailer
_TEXT = rb"([^<]{0,%d}+)" % MAX_LOCATION_BYTES  # never past a `<`
_CDATA = rb"\s*+<!\[CDATA\[((?:[^\]<]|\](?!\]>)){0,%d}+)\]\]>\s*+" % MAX_LOCATION_BYTES
# One location: the tag (named `loc`, or `sm:loc` with a namespace prefix), its text or
# one CDATA section, its own end tag. The repeats are possessive (they give nothing back
# when what follows fails), so an unclosed `<loc>` costs the text up to the next `<`, once.
_LOCATION = re.compile(
    rb"<([\w.:-]{3,68}+)(?<=[<:]loc)(?:\s[^<>]*+)?>(?:%b|%b)</[\w.:-]{3,68}+(?<=[/:]loc)\s*+>"
    % (_TEXT, _CDATA),
    re.I,
)
# The prefixes a sitemap binds to Google's image extension (`<image:loc>` names an image of
# a page, not a page), declared with the root element, as sitemaps do.
_IMAGE_PREFIX = re.compile(
    rb"xmlns:([\w.-]{1,64})\s*=\s*[\"']http://www\.google\.com/schemas/sitemap-image/1\.1[\"']"
)
# What a parser would not read as content: comments, and the DOCTYPE with its internal
# subset (entity declarations); an unclosed one runs to the end, as a parser would read it.
_IGNORED = re.compile(
    rb"<!--.*?(?:-->|\Z)|<!DOCTYPE[^\[>]*+(?:\[.*?(?:\]\s*+>|\Z)|>?)", re.S | re.I
)
# The first element's local name, after the prolog (text, `<?xml ...?>`): one attempt.
_ROOT = re.compile(rb"(?:[^<]++|<[?!][^>]*+>)*+<(?:[\w.-]{1,64}:)?([\w.-]{1,64})")
# XML's references: the five predefined entities, characters, and names declared in a DTD
_REFERENCE = re.compile(r"&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([^\W\d][\w.-]{0,63}));")
_PREDEFINED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


def decompressed(body: bytes) -> bytes:
    """The body, gunzipped when it is gzip: at most MAX_BYTES (a bomb is cut short), and
    what can be read of a file cut short (the fetcher keeps a body's first 5 MB)."""
    if not body.startswith(_GZIP_MAGIC):
        return body[:MAX_BYTES]
    data = b""
    while body.startswith(_GZIP_MAGIC) and len(data) < MAX_BYTES:  # its members, in turn
        member = zlib.decompressobj(_GZIP_WBITS)
        try:
            data += member.decompress(body, MAX_BYTES - len(data))
        except zlib.error:  # not gzip after all, or damaged: what came before it
            break
        body = member.unused_data
    return data


def parse(body: bytes) -> tuple[bool, list[str]]:
    """(whether it is a sitemap index, its `<loc>` URLs), in time linear in the body."""
    data = decompressed(body)
    if b"<!" in data:  # a comment or a DOCTYPE may be there
        data = _IGNORED.sub(b"", data)
    root = _ROOT.match(data)
    is_index = root is not None and root.group(1).lower() == b"sitemapindex"
    images = {prefix.lower() + b":loc" for prefix in _IMAGE_PREFIX.findall(data[:_HEAD_BYTES])}
    locations = []
    for match in _LOCATION.finditer(data):
        tag, text, cdata = match.groups()
        if tag.lower() in images:
            continue
        if cdata is not None:  # a CDATA section is taken as it is
            value: str | None = cdata.decode("utf-8", "replace")
        else:
            value = _unescaped(text.decode("utf-8", "replace"))
        if value is not None and value.strip():
            locations.append(value.strip())
    return is_index, locations


def _unescaped(text: str) -> str | None:
    """The text with XML's references replaced; None when it names a declared entity
    (never expanded). A bare `&` stays: sitemaps often carry one unescaped."""
    if "&" not in text:
        return text
    references = list(_REFERENCE.finditer(text))
    if any(found[3] is not None and found[3] not in _PREDEFINED for found in references):
        return None
    return _REFERENCE.sub(_character, text)


def _character(reference: re.Match[str]) -> str:
    decimal, hexadecimal, name = reference.groups()
    if name is not None:
        return _PREDEFINED[name]
    code = int(decimal) if decimal is not None else int(hexadecimal, 16)
    valid = 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF  # XML's characters
    return chr(code) if valid else "\ufffd"


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
