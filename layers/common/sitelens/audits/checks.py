"""The cross-page checks: pure functions over a run's stored page facts.

`run(pages, start_url)` gives every issue found, each `{code, severity, title, fix,
learn_more, pages: [{url, detail}]}` (as `definitions` words them); a check that finds
nothing gives no issue. Pages are the crawl's items (`sitelens.data.audits`), with lists
already decoded. Near-duplicates compare simhashes in four 16-bit bands: two hashes at
most 3 bits apart share one band exactly (pigeonhole), so only pages sharing a band are
compared, not every pair.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from typing import Any

from sitelens.audits import app_shells, content_checks, duplicates
from sitelens.audits.definitions import DEEP, DEFINITIONS, NEAR_DUPLICATE_BITS
from sitelens.audits.facts import MAX_LINKS
from sitelens.seo.links import hreflang_problem

Page = dict[str, Any]
Issue = dict[str, Any]
MAX_AFFECTED = 1_000  # pages listed an issue (the count says how many there are)


def issue(code: str, affected: Iterable[tuple[str, Any]]) -> Issue | None:
    """The issue a check's (url, detail) findings make, its pages listed up to
    `MAX_AFFECTED` (its `count` is all of them); None when it found nothing."""
    listed = sorted({(url, str(detail)) for url, detail in affected})
    if not listed:
        return None
    severity, title, fix, learn_more, _, _ = DEFINITIONS[code]
    return {
        "code": code,
        "severity": severity,
        "title": title,
        "fix": fix,
        "learn_more": learn_more,
        "count": len(listed),
        "pages": [{"url": url, "detail": detail} for url, detail in listed[:MAX_AFFECTED]],
    }


def _html(page: Page) -> bool:
    return page.get("status_code") == 200 and "simhash" in page


def _failing(page: Page) -> bool:
    return (
        page.get("state") == "fetched"
        and not page.get("blocked")
        and (page.get("status_code", 0) == 0 or page["status_code"] >= 400)
    )


def _status(page: Page) -> str:
    return str(page["status_code"]) if page.get("status_code") else "unreachable"


def depths(pages: dict[str, Page], start: str) -> dict[str, int]:
    """Link hops from the start URL to each page reached by links (redirects count as a
    hop's end, not a hop)."""
    found = {start: 0}
    todo = deque([start])
    while todo:
        url = todo.popleft()
        page = pages.get(url) or {}
        targets = list(page.get("links") or [])
        if page.get("redirect_to"):
            targets.insert(0, page["redirect_to"])
        for target in targets:
            if target not in found:
                found[target] = found[url] + (0 if target == page.get("redirect_to") else 1)
                todo.append(target)
    return found


def _links(pages: dict[str, Page]) -> dict[str, set[str]]:
    """Each URL's sources: the crawled pages linking to it (self-links aside)."""
    sources: dict[str, set[str]] = defaultdict(set)
    for url, page in pages.items():
        for target in [*(page.get("links") or []), *(page.get("external_links") or [])]:
            if target != url:
                sources[target].add(url)
    return sources


def run(all_pages: Iterable[Page], start: str) -> list[Issue]:
    """Every cross-page issue of a run's pages, in the order of `DEFINITIONS`."""
    found = affected(all_pages, start)
    issues = (issue(code, found.get(code, ())) for code in DEFINITIONS)
    return [issue for issue in issues if issue is not None]


def affected(
    all_pages: Iterable[Page], start: str, near_bits: int = NEAR_DUPLICATE_BITS
) -> dict[str, list[tuple[str, Any]]]:
    """Every (url, detail) each cross-page check finds on a run's pages: complete, where
    an issue lists at most `MAX_AFFECTED` (a run's diff compares these). `near_bits`: the
    simhash bits near-duplicates may differ by (the audit's threshold)."""
    pages = {page["url"]: page for page in all_pages}
    sources = _links(pages)
    found: dict[str, Iterable[tuple[str, Any]]] = {}
    internal = {u: p for u, p in pages.items() if not p.get("external")}
    html = {u: p for u, p in internal.items() if _html(p)}
    indexable = {u: p for u, p in html.items() if not p.get("noindex")}

    def broken(external: bool) -> list[tuple[str, str]]:
        return [
            (source, f"{url} ({_status(page)})")
            for url, page in pages.items()
            if bool(page.get("external")) == external and _failing(page)
            for source in sources.get(url, ())
        ]

    found["broken_internal_link"] = broken(False)
    found["broken_external_link"] = broken(True)
    found["redirect_loop"], found["redirect_chain"] = _redirects(internal)
    found["duplicate_title"] = _same(indexable, "title")
    found["duplicate_description"] = _same(indexable, "description")
    found["near_duplicate_content"] = _near_duplicates(indexable, near_bits)
    found.update(_canonicals(html, pages))
    reached = depths(pages, start)
    found["orphan_page"] = [
        (u, "in the sitemap, not linked")
        for u, p in internal.items()
        if p.get("in_sitemap")
        and u != start
        and not (sources.get(u, set()) - {u})
        and not any(q.get("redirect_to") == u for q in internal.values())
    ]
    found["dead_end"] = [(u, "no internal links") for u, p in html.items() if not p.get("links")]
    found["deep_page"] = [(u, f"{reached[u]} clicks") for u in html if reached.get(u, 0) > DEEP]
    found["sitemap_non_indexable"] = _sitemap_hygiene(internal)
    found.update(_hreflang(html, pages))
    found["too_many_links"] = [
        (u, f"{p['links_found']} internal links; the first {MAX_LINKS} are kept")
        for u, p in html.items()
        if p.get("links_found", 0) > MAX_LINKS
    ]
    found["mixed_content"] = [
        (u, ", ".join(p["mixed"][:3])) for u, p in html.items() if p.get("mixed")
    ]
    found.update(content_checks.affected(html))
    found.update(app_shells.affected(html))
    return {code: list(entries) for code, entries in found.items()}


def _redirects(pages: dict[str, Page]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(loops, chains): each redirecting URL whose redirects, followed through the crawled
    pages, come back to one already seen, or take two or more hops."""
    loops, chains = [], []
    for url, page in pages.items():
        if page.get("loop"):
            loops.append((url, "more than 10 redirects"))
        if not page.get("redirect_to"):
            continue
        hops, target = [url], page["redirect_to"]
        while target not in hops and (pages.get(target) or {}).get("redirect_to"):
            hops.append(target)
            target = pages[target]["redirect_to"]
        if target in hops:
            loops.append((url, " -> ".join([*hops, target])))
        elif len(hops) >= 2:
            chains.append((url, f"{len(hops)} redirects to {target}"))
    return loops, chains


def _same(pages: dict[str, Page], field: str) -> list[tuple[str, str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for url, page in pages.items():
        value = (page.get(field) or "").strip()
        if value:
            groups[value.lower()].append(url)
    return [
        (url, pages[url][field].strip())
        for members in groups.values()
        if len(members) > 1
        for url in members
    ]


def _near_duplicates(pages: dict[str, Page], bits: int) -> list[tuple[str, str]]:
    found = []
    for first, second in duplicates.reported_pairs(pages, bits):
        found += [(first, f"like {second}"), (second, f"like {first}")]
    return found


def indexable_html(pages: dict[str, Page]) -> dict[str, Page]:
    """The run's internal, indexable HTML pages (those compared for duplicates)."""
    internal = {u: p for u, p in pages.items() if not p.get("external")}
    return {u: p for u, p in internal.items() if _html(p) and not p.get("noindex")}


def _canonicals(html: dict[str, Page], pages: dict[str, Page]) -> dict[str, list[tuple[str, str]]]:
    to_error, to_noindex, clustered = [], [], []
    for url, page in html.items():
        target = page.get("canonical")
        if not target or target == url:
            continue
        clustered.append((url, target))
        named = pages.get(target)
        if named is None or named.get("state") != "fetched" or named.get("external"):
            continue  # not crawled: nothing known of it
        if named.get("blocked"):
            continue
        if named.get("status_code") != 200 or named.get("redirect_to"):
            to_error.append((url, f"{target} ({_status(named)})"))
        elif named.get("noindex"):
            to_noindex.append((url, target))
    return {
        "canonical_to_error": to_error,
        "canonical_to_noindex": to_noindex,
        "canonicalised": clustered,
    }


def _sitemap_hygiene(pages: dict[str, Page]) -> list[tuple[str, str]]:
    reasons: list[tuple[str, Callable[[Page, str], bool]]] = [
        ("blocked by robots.txt", lambda p, u: bool(p.get("blocked"))),
        ("redirected", lambda p, u: bool(p.get("redirect_to"))),
        ("failing", lambda p, u: _failing(p)),
        ("noindex", lambda p, u: bool(p.get("noindex"))),
        ("not canonical", lambda p, u: bool(p.get("canonical")) and p["canonical"] != u),
    ]
    found = []
    for url, page in pages.items():
        if page.get("in_sitemap") and page.get("state") == "fetched":
            why = [reason for reason, holds in reasons if holds(page, url)]
            if why:
                found.append((url, ", ".join(why)))
    return found


def _hreflang(html: dict[str, Page], pages: dict[str, Page]) -> dict[str, list[tuple[str, str]]]:
    no_return, invalid, no_self, no_default = [], [], [], []
    for url, page in html.items():
        alternates = page.get("hreflang") or []
        if not alternates:
            continue
        targets = {target for _, target in alternates}
        for code, target in alternates:
            problem = hreflang_problem(code)
            if problem:
                invalid.append((url, f"{code} {problem}"))
            other = pages.get(target)
            if target != url and other is not None and _html(other):
                back = {t for _, t in other.get("hreflang") or []}
                if url not in back:
                    no_return.append((url, f"{target} ({code})"))
        if url not in targets:
            no_self.append((url, "not listed"))
        if not any(code.lower() == "x-default" for code, _ in alternates):
            no_default.append((url, "none"))
    return {
        "hreflang_no_return": no_return,
        "hreflang_invalid_code": invalid,
        "hreflang_no_self": no_self,
        "hreflang_no_x_default": no_default,
    }
