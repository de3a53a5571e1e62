"""The internal link score of a run's pages: PageRank over the links the crawl stored, each
page's scaled from 0 to 100 as Screaming Frog's "Link Score" is (logarithmically), and its
inlinks (the distinct crawled pages linking to it).

The graph is the run's internal pages; an edge is a stored link between two of them (a
page's first `facts.MAX_LINKS` distinct links; `rel=nofollow` links are never stored:
`facts.parse`), or a redirect to its target. Self-links are left out. A page without
outlinks (an error, a non-HTML file, a dead end) spreads its rank over every page, as
PageRank's random surfer jumps anywhere from a dead end.

A small power iteration rather than networkx: networkx's public `pagerank` needs SciPy and
NumPy (about 100 MB, past a Lambda layer's budget), and its pure-Python path is private.
Memory is the edges as two arrays of 32-bit indexes (at the run's cap of 100,000 pages
and 500 links each, 400 MB at most; a typical site's 50 links a page, 40 MB), and time is
at most `MAX_ITERATIONS` passes over them.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

DAMPING = 0.85  # the random surfer follows a link 85% of the time (Brin and Page, 1998)
TOLERANCE = 1e-6  # per page: stop once the ranks moved less than this times the pages
MAX_ITERATIONS = 100  # networkx's default; PageRank converges in some tens on web graphs


@dataclass(frozen=True)
class Score:
    """A page's link score (0 to 100), its inlinks, and its raw PageRank (the ranks of all
    pages sum to 1)."""

    link_score: int
    inlinks: int
    rank: float


def _internal(page: dict[str, Any]) -> bool:
    return page.get("state") == "fetched" and not page.get("external")


def scores(pages: Iterable[dict[str, Any]]) -> dict[str, Score]:
    """Every internal fetched page's link score and inlinks, by URL."""
    urls: list[str] = []
    outlinks: list[list[str]] = []
    for page in pages:
        if not _internal(page):
            continue
        urls.append(page["url"])
        leads_to = list(page.get("links") or [])
        if page.get("redirect_to"):
            leads_to.append(page["redirect_to"])
        outlinks.append(leads_to)
    index = {url: n for n, url in enumerate(urls)}
    sources, targets = array("i"), array("i")
    degree = [0] * len(urls)
    for source, links in enumerate(outlinks):
        for target in dict.fromkeys(index.get(link, -1) for link in links):
            if target >= 0 and target != source:
                sources.append(source)
                targets.append(target)
                degree[source] += 1
    inlinks = [0] * len(urls)
    for target in targets:
        inlinks[target] += 1
    ranks, floor = pagerank(len(urls), sources, targets, degree)
    scaled = scale(ranks, floor)
    return {url: Score(scaled[n], inlinks[n], ranks[n]) for n, url in enumerate(urls)}


def pagerank(
    count: int, sources: array[int], targets: array[int], degree: list[int]
) -> tuple[list[float], float]:
    """PageRank of `count` nodes over the edges `sources[i] -> targets[i]` (each node's
    `degree` its outlinks), by power iteration from the uniform vector; and the rank of a
    node no edge leads to (the least any node has)."""
    if count == 0:
        return [], 0.0
    ranks = [1.0 / count] * count
    base = 1.0 / count
    dangling = [n for n in range(count) if degree[n] == 0]
    for _ in range(MAX_ITERATIONS):
        spread = DAMPING * sum(ranks[n] for n in dangling) / count
        base = (1.0 - DAMPING) / count + spread
        following = [0.0] * count
        share = [DAMPING * ranks[n] / degree[n] if degree[n] else 0.0 for n in range(count)]
        for source, target in zip(sources, targets, strict=True):
            following[target] += share[source]
        moved = 0.0
        for n in range(count):
            value = base + following[n]
            moved += abs(value - ranks[n])
            ranks[n] = value
        if moved < count * TOLERANCE:
            break
    return ranks, base


def scale(ranks: list[float], floor: float) -> list[int]:
    """Ranks on 0 to 100, logarithmically: 0 is `floor`, the least a page can have (no
    page links to it), 100 the run's strongest page, each step between them the same
    factor of rank. A run whose pages are all alike scores them all 100 if they are
    linked, 0 if none is."""
    if not ranks:
        return []
    top = max(ranks)
    if top <= floor * (1 + 1e-9):
        return [0] * len(ranks)
    span = math.log(top / floor)
    return [max(0, min(100, round(100 * math.log(max(r, floor) / floor) / span))) for r in ranks]
