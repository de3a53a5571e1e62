"""A run's per-page columns beyond what each page stored: its link score and inlinks
(`audits.link_score`), its sort orders for the pages list, its near-duplicate clusters, and
the pages with much traffic and a weak link score.

Sorting needs every page of the run, so the analysis (which reads them all once) writes
each order (`sorts.SORTS`, ascending and descending) as items of entries (`data.audit_columns`),
besides the URL order the list is read in without `sort`: a sorted page of the list then
reads the one or two parts it spans and its pages by key, at most `per_page` of them
(`MAX_PAGE_READS` with filters), never the whole run. The orders of a run hold at most its
`max_pages` (100,000) pages: some tens of parts a run.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from sitelens.audits import checks, duplicates, traffic
from sitelens.audits.facts import sample_text
from sitelens.audits.link_score import Score
from sitelens.audits.sorts import SORTS, URL_ORDER
from sitelens.data import audit_columns

# A page with traffic and a weak link score: at least `MIN_PAGEVIEWS` pageviews in the last
# 30 days and among the `TOP_TRAFFIC_SHARE` of the run's pages with the most, yet a link
# score below `LOW_LINK_SCORE`: the site's links bury a page its visitors want.
MIN_PAGEVIEWS = 10
TOP_TRAFFIC_SHARE = 0.2
LOW_LINK_SCORE = 30


def entries(pages: list[dict[str, Any]], scores: dict[str, Score]) -> list[list[Any]]:
    """[url, link_score, inlinks] of every listed page (fetched), in URL order (null for
    a page without a score: an external link)."""
    found = []
    for page in sorted(pages, key=lambda p: p["url"]):
        score = scores.get(page["url"])
        found.append([page["url"], *((score.link_score, score.inlinks) if score else (None, None))])
    return found


def orders(pages: list[dict[str, Any]], scores: dict[str, Score]) -> dict[str, list[list[Any]]]:
    """Every order of the run's listed pages: URL order, and each of `SORTS` ascending and
    descending, pages without the value last either way, then by URL."""
    by_url = entries(pages, scores)
    values: dict[str, dict[str, Any]] = {name: {} for name in SORTS}
    for page in pages:
        score = scores.get(page["url"])
        for name, field in SORTS.items():
            if name in ("link_score", "inlinks"):
                value = getattr(score, name) if score else None
            else:
                value = page.get(field)
            if isinstance(value, int | float) and not isinstance(value, bool):
                values[name][page["url"]] = value
    found = {URL_ORDER: by_url}
    for name in SORTS:
        known = values[name]
        valued = [e for e in by_url if e[0] in known]
        missing = [e for e in by_url if e[0] not in known]
        ascending = sorted(valued, key=lambda e: known[e[0]])  # stable: URL order in ties
        descending = sorted(valued, key=lambda e: -known[e[0]])
        found[f"{name}:asc"] = ascending + missing
        found[f"{name}:desc"] = descending + missing
    return found


def weak_links(scores: dict[str, Score], views: Counter[str]) -> list[tuple[str, str]]:
    """The pages with much traffic and a weak link score, each saying both."""
    viewed = {url: views.get(traffic.page_of(url), 0) for url in scores}
    if not viewed:
        return []
    top = max(1, math.ceil(len(viewed) * TOP_TRAFFIC_SHARE))
    cut = max(sorted(viewed.values(), reverse=True)[top - 1], MIN_PAGEVIEWS)
    return [
        (url, f"{viewed[url]} pageviews, link score {score.link_score}")
        for url, score in scores.items()
        if viewed[url] >= cut and score.link_score < LOW_LINK_SCORE
    ]


def clusters(crawl: str, pages: list[dict[str, Any]], similarity: int) -> list[dict[str, Any]]:
    """The run's near-duplicate clusters at the audit's `similarity`, with the text that
    differs (read for the pages listed only)."""
    by_url = {p["url"]: p for p in pages}
    bits = duplicates.bits_of(similarity)
    pairs = duplicates.reported_pairs(checks.indexable_html(by_url), bits)
    found = duplicates.groups(pairs, by_url)
    kept = found[: duplicates.MAX_CLUSTERS]
    listed = [url for group in kept for url in group[: duplicates.MAX_MEMBERS + 1]]
    samples = audit_columns.texts(crawl, listed) if listed else {}
    texts = {url: sample_text(sample) for url, sample in samples.items()}
    return duplicates.clusters(found, by_url, texts)


def save(
    crawl: str, pages: list[dict[str, Any]], scores: dict[str, Score], expires_at: int
) -> dict[str, int]:
    """Store the run's orders; how many parts each took."""
    return audit_columns.save_orders(crawl, orders(pages, scores), expires_at)
