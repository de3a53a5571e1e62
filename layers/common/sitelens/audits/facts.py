"""What one fetched page tells the cross-page checks: its title, description, canonical,
indexability, links, hreflang alternates, mixed content and a simhash of its text; and
every URL it leads the crawl to.

Every stored list is bounded (`MAX_LINKS`, `MAX_EXTERNAL`, `MAX_ALTERNATES`, and
`MAX_LINK_CHARACTERS` of links together) so that a page's facts stay a few kilobytes in
its item (DynamoDB's 400 KB at most), whatever the page holds. The bound is on what is
stored, not on what is crawled: every distinct internal link, canonical, hreflang
alternate and `rel=next`/`prev` of the page is a target for discovery (`Parsed.targets`,
claimed within the run's `max_pages`), and `links_found` stores how many distinct internal
links the page has, so a page whose `links` were cut (`links_found > len(links)`) is told
apart from one that has only those (the cross-page check `too_many_links` reads it).
"""

from __future__ import annotations

import base64
import hashlib
import re
import zlib
from dataclasses import dataclass
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from sitelens.audits import images
from sitelens.audits.duplicates import MIN_WORDS
from sitelens.audits.urls import Scope
from sitelens.seo import indexing

MAX_LINKS = 500  # internal links stored a page (their order is the page's); all are crawled
MAX_EXTERNAL = 100
MAX_ALTERNATES = 50
MAX_MIXED = 20
MAX_TEXT = 300  # characters of a title or description kept
MAX_LINK_CHARACTERS = 150_000  # of a page's stored links together: its item stays < 400 KB
# characters of a page's text kept (compressed: some KB) to show how near-duplicates differ
MAX_TEXT_SAMPLE = 20_000
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


def text_sample(text: str) -> str:
    """The first `MAX_TEXT_SAMPLE` characters of a page's text, compressed (zlib, base64)."""
    return base64.b64encode(zlib.compress(text[:MAX_TEXT_SAMPLE].encode(), 6)).decode()


def sample_text(sample: str) -> str:
    """The text `text_sample` kept."""
    return zlib.decompress(base64.b64decode(sample)).decode()


def _attr(node: Any, name: str) -> str:
    return (node.attributes.get(name) or "").strip()


@dataclass
class Parsed:
    """A page's facts (stored, bounded) and the internal URLs it leads to (not stored, all
    of them): its links, then its canonical, hreflang alternates and `rel=next`/`prev`, in
    the page's order, each once."""

    facts: dict[str, Any]
    targets: list[str]


def of_page(url: str, body: bytes, headers: dict[str, str], scope: Scope) -> dict[str, Any]:
    """The facts of an HTML page at `url` (its final URL)."""
    return parse(url, body, headers, scope).facts


def parse(url: str, body: bytes, headers: dict[str, str], scope: Scope) -> Parsed:
    """The facts of an HTML page at `url` (its final URL), and the URLs it leads to."""
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
    pointed: list[str] = []  # canonical, alternates, next and prev: crawled as links are
    for link in tree.css("link[rel]"):
        rel = _attr(link, "rel").lower().split()
        target = scope.name(_attr(link, "href"), url) if _attr(link, "href") else None
        if target is None:
            continue
        if "canonical" in rel and canonical is None:
            canonical = target
        elif "alternate" in rel and _attr(link, "hreflang"):
            if len(alternates) < MAX_ALTERNATES:
                alternates.append([_attr(link, "hreflang"), target])
        elif "next" not in rel and "prev" not in rel:
            continue
        pointed.append(target)
    internal: list[str] = []  # stored: the first ones, within the bounds
    external: list[str] = []
    seen: set[str] = set()
    found: list[str] = []  # every distinct internal link
    budget = MAX_LINK_CHARACTERS
    for anchor in tree.css("a[href]"):
        href = _attr(anchor, "href")
        if "nofollow" in _attr(anchor, "rel").lower().split():
            continue
        target = scope.name(href, url)
        if target is None or target in seen:
            continue
        seen.add(target)
        if scope.internal(target):
            found.append(target)
            kept = internal if len(internal) < MAX_LINKS else None
        else:
            kept = external if len(external) < MAX_EXTERNAL else None
        if kept is not None and len(target) <= budget:
            kept.append(target)
            budget -= len(target)
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
    words = len(_WORD.findall(text))
    facts = {
        "title": title,
        "description": description,
        "canonical": canonical,
        "noindex": noindex,
        "links": internal,
        "links_found": len(found),
        "external_links": external,
        "hreflang": alternates,
        "mixed": mixed,
        "simhash": str(simhash(text)),
        "words": words,
        "image_refs": images.refs(tree, url, scope.internal),  # fetched, then stored as images
    }
    if words >= MIN_WORDS:  # compared for near-duplicates: kept to show how they differ
        facts["text_sample"] = text_sample(text)
    targets = dict.fromkeys([*found, *(u for u in pointed if scope.internal(u))])
    return Parsed(facts, list(targets))
