"""Near-duplicate content: pages whose simhashes (`facts.simhash`) are within an audit's
threshold, grouped into clusters, each page with its similarity to the cluster's original
and the text that differs from it.

The threshold is a similarity from `MIN_SIMILARITY` to 100 (an audit's
`near_duplicate_similarity`, `DEFAULT_SIMILARITY` by default): the share of the 64 bits two
hashes agree on, so 95 allows 3 differing bits (Manku et al., WWW 2007, for web pages).
Candidate pairs come from an index of bands: split into `bits + 1` bands, two hashes at
most `bits` apart agree on one band exactly (pigeonhole), so only pages sharing a band are
compared. Below `MIN_SIMILARITY` the bands are too narrow to keep that cheap at a run's
100,000 pages.

A cluster is a connected group of near-duplicate pairs. Its original is the page closest
to the start URL (the least `found_depth`), then the shortest URL, then the first in URL
order; every other page is listed with its similarity to the original and the words it
has that the original lacks, and lacks that the original has (`MAX_SNIPPET` characters
each, from the pages' stored text: `facts.text_sample`).
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from typing import Any

MIN_WORDS = 50  # pages with less text are not compared
DEFAULT_SIMILARITY = 95  # 3 bits of 64
MIN_SIMILARITY = 92  # 5 bits of 64: 6 bands of 10 or 11 bits
MAX_CLUSTERS = 200  # clusters kept a run (the largest first); the issue counts every page
MAX_MEMBERS = 20  # pages listed a cluster (its `pages` says how many it has)
MAX_SNIPPET = 200  # characters of the text that differs, each way
_BITS = 64


def bits_of(similarity: int) -> int:
    """The simhash bits two pages may differ by at `similarity` percent."""
    return int((100 - similarity) * _BITS // 100)


def similarity(first: int, second: int) -> float:
    """The share of bits two simhashes agree on, in percent (one decimal)."""
    return round(100 * (1 - bin(first ^ second).count("1") / _BITS), 1)


def _bands(bits: int) -> list[tuple[int, int]]:
    """(shift, width) of `bits + 1` bands covering the 64 bits."""
    count = bits + 1
    edges = [round(n * _BITS / count) for n in range(count + 1)]
    return [(edges[n], edges[n + 1] - edges[n]) for n in range(count)]


def pairs(pages: dict[str, dict[str, Any]], bits: int) -> set[tuple[str, str]]:
    """Every pair of pages (in URL order) of `MIN_WORDS`+ words whose simhashes are at
    most `bits` apart."""
    hashes = {u: int(p["simhash"]) for u, p in pages.items() if p.get("words", 0) >= MIN_WORDS}
    index: dict[tuple[int, int], list[str]] = defaultdict(list)
    for url, value in hashes.items():
        for band, (shift, width) in enumerate(_bands(bits)):
            index[(band, value >> shift & ((1 << width) - 1))].append(url)
    found: set[tuple[str, str]] = set()
    for members in index.values():
        for n, first in enumerate(members):
            for second in members[n + 1 :]:
                if bin(hashes[first] ^ hashes[second]).count("1") <= bits:
                    found.add((min(first, second), max(first, second)))
    return found


def reported_pairs(pages: dict[str, dict[str, Any]], bits: int) -> set[tuple[str, str]]:
    """The pairs a run reports: within `bits`, leaving out a copy whose canonical names the
    other (what a canonical is for)."""
    canonical = {u: p.get("canonical") for u, p in pages.items()}
    return {
        (first, second)
        for first, second in pairs(pages, bits)
        if canonical.get(first) != second and canonical.get(second) != first
    }


def _original(members: list[str], pages: dict[str, dict[str, Any]]) -> str:
    def place(url: str) -> tuple[int, int, str]:
        depth = pages[url].get("found_depth")
        return (depth if isinstance(depth, int) else 10**9, len(url), url)

    return min(members, key=place)


def groups(pairs_found: set[tuple[str, str]], pages: dict[str, dict[str, Any]]) -> list[list[str]]:
    """The clusters the pairs make, each as [original, *others in URL order], the largest
    first (then by original)."""
    parent: dict[str, str] = {}

    def root(url: str) -> str:
        parent.setdefault(url, url)
        while parent[url] != url:
            parent[url] = parent[parent[url]]
            url = parent[url]
        return url

    for first, second in pairs_found:
        parent[root(first)] = root(second)
    members: dict[str, list[str]] = defaultdict(list)
    for url in parent:
        members[root(url)].append(url)
    clusters = []
    for group in members.values():
        original = _original(group, pages)
        clusters.append([original, *sorted(u for u in group if u != original)])
    return sorted(clusters, key=lambda c: (-len(c), c[0]))


def differs(original: str, other: str) -> dict[str, str]:
    """The words `other` has that `original` lacks (`added`) and lacks that it has
    (`removed`), `MAX_SNIPPET` characters each, "…" where cut."""
    before, after = original.split(), other.split()
    added: list[str] = []
    removed: list[str] = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            removed.append(" ".join(before[i1:i2]))
        if tag in ("replace", "insert"):
            added.append(" ".join(after[j1:j2]))
    return {"added": _cut(" … ".join(added)), "removed": _cut(" … ".join(removed))}


def _cut(text: str) -> str:
    return text if len(text) <= MAX_SNIPPET else text[: MAX_SNIPPET - 1].rstrip() + "…"


def clusters(
    found: list[list[str]], pages: dict[str, dict[str, Any]], texts: dict[str, str]
) -> list[dict[str, Any]]:
    """The clusters as a run keeps them: each its original and its other pages (the first
    `MAX_MEMBERS`), each with its similarity to the original and the text that differs
    (empty where a page's text was not stored)."""
    kept = []
    for group in found[:MAX_CLUSTERS]:
        original, others = group[0], group[1:]
        base = int(pages[original]["simhash"])
        listed = []
        for url in others[:MAX_MEMBERS]:
            change = (
                differs(texts[original], texts[url])
                if original in texts and url in texts
                else {"added": "", "removed": ""}
            )
            listed.append(
                {"url": url, "similarity": similarity(base, int(pages[url]["simhash"])), **change}
            )
        kept.append({"original": original, "count": len(group), "pages": listed})
    return kept
