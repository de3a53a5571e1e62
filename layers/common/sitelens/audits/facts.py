"""What one fetched page tells the cross-page checks: its title, description, canonical,
indexability, links, hreflang alternates, mixed content and a simhash of its text.

Every list is bounded (`MAX_LINKS`, `MAX_EXTERNAL`, `MAX_ALTERNATES`) so that a page's
facts stay a few kilobytes in its item, whatever the page holds.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from sitelens.audits.urls import Scope
from sitelens.seo import indexing

MAX_LINKS = 500  # internal links kept a page (their order is the page's)
MAX_EXTERNAL = 100
MAX_ALTERNATES = 50
MAX_MIXED = 20
MAX_TEXT = 300  # characters of a title or description kept
MAX_LINK_CHARACTERS = 150_000  # of a page's kept links together: its item stays < 400 KB
_WORD = re.compile(r"\w+", re.UNICODE)
_SHINGLE = 3  # words a shingle


def simhash(text: str) -> int:
    """Charikar's 64-bit simhash of the text's 3-word shingles: near-duplicate pages have
    hashes a few bits apart (Manku et al., WWW 2007: 3 bits of 64 for web pages)."""
    words = _WORD.findall(text.lower())
    if len(words) < _SHINGLE:
        words = words + [""] * (_SHINGLE - len(words))
    weights = [0] * 64
    for n in range(len(words) - _SHINGLE + 1):
        shingle = " ".join(words[n : n + _SHINGLE]).encode()
        value = int.from_bytes(hashlib.blake2b(shingle, digest_size=8).digest(), "big")
        for bit in range(64):
            weights[bit] += 1 if value >> bit & 1 else -1
    return sum(1 << bit for bit in range(64) if weights[bit] > 0)


def _attr(node: Any, name: str) -> str:
    return (node.attributes.get(name) or "").strip()


def of_page(url: str, body: bytes, headers: dict[str, str], scope: Scope) -> dict[str, Any]:
    """The facts of an HTML page at `url` (its final URL)."""
    tree = LexborHTMLParser(body.decode("utf-8", "replace"))
    title_node = tree.css_first("title")
    title = title_node.text(strip=True)[:MAX_TEXT] if title_node else ""
    description = ""
    directives = indexing.header_directives([headers.get("x-robots-tag", "")])
    noindex = any(d.value in ("noindex", "none") for d in directives if d.agent in ("", "*"))
    for meta in tree.css("meta[name]"):
        name = _attr(meta, "name").lower()
        if name == "description" and not description:
            description = _attr(meta, "content")[:MAX_TEXT]
        elif name == "robots" and "noindex" in _attr(meta, "content").lower():
            noindex = True
    canonical = None
    alternates: list[list[str]] = []
    for link in tree.css("link[rel]"):
        rel = _attr(link, "rel").lower().split()
        href = _attr(link, "href")
        if "canonical" in rel and canonical is None and href:
            canonical = scope.name(href, url)
        elif "alternate" in rel and _attr(link, "hreflang") and len(alternates) < MAX_ALTERNATES:
            target = scope.name(href, url)
            if target:
                alternates.append([_attr(link, "hreflang"), target])
    internal: list[str] = []
    external: list[str] = []
    seen: set[str] = set()
    budget = MAX_LINK_CHARACTERS
    for anchor in tree.css("a[href]"):
        href = _attr(anchor, "href")
        if "nofollow" in _attr(anchor, "rel").lower().split():
            continue
        target = scope.name(href, url)
        if target is None or target in seen or len(target) > budget:
            continue
        seen.add(target)
        budget -= len(target)
        if scope.internal(target):
            if len(internal) < MAX_LINKS:
                internal.append(target)
        elif len(external) < MAX_EXTERNAL:
            external.append(target)
    mixed: list[str] = []
    if url.startswith("https:"):
        for node in tree.css(
            "img[src], script[src], iframe[src], link[href], video[src], audio[src]"
        ):
            if node.tag == "link" and "stylesheet" not in _attr(node, "rel").lower():
                continue
            source = _attr(node, "src") or _attr(node, "href")
            if source.lower().startswith("http:") and len(mixed) < MAX_MIXED:
                mixed.append(source[:MAX_TEXT])
    body_node = tree.body
    text = body_node.text(separator=" ", strip=True) if body_node else ""
    return {
        "title": title,
        "description": description,
        "canonical": canonical,
        "noindex": noindex,
        "links": internal,
        "external_links": external,
        "hreflang": alternates,
        "mixed": mixed,
        "simhash": str(simhash(text)),
        "words": len(_WORD.findall(text)),
    }
