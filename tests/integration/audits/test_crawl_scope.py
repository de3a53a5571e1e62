"""What an audit crawls, through the API on moto: its scope on every source of URLs
(links, sitemaps, redirects, canonicals, hreflang alternates, rel=next/prev), those
sources discovered as links are, and every internal link of a page, however many."""

from __future__ import annotations

import json
from collections import deque

import pytest

from sitelens.audits import crawler, facts
from sitelens.data import audits as stored_audits
from tests.integration.audits.small_site import HTML, SmallSite, page, sitemap
from tests.integration.audits.test_audits import crawlable, drain

__all__ = ["crawlable"]  # fixtures this module uses


def crawl(seo, site: SmallSite, **form) -> dict:
    """An audit of the site's `/` created through the API and crawled to its end; as shown."""
    created = seo.post("/api/v1/audits", {"url": site.url("/"), **form})
    assert created.status == 201, created.body
    drain(5_000)
    return seo.get(f"/api/v1/audits/{created.data['id']}").data


def served_pages(seo, audit: dict) -> dict[str, dict]:
    """The run's pages as the API lists them, by path (the site's own)."""
    pages, cursor = {}, None
    while True:
        query = {"per_page": 100, **({"cursor": cursor} if cursor else {})}
        answer = seo.get(f"/api/v1/audits/{audit['id']}/pages", query=query)
        for entry in answer.data:
            pages[entry["url"].split(":", 2)[2].split("/", 1)[-1]] = entry
        cursor = answer.body["meta"].get("next_cursor")
        if not cursor:
            return {"/" + path: entry for path, entry in pages.items()}


def issue_paths(seo, site: SmallSite, audit: dict) -> dict[str, set[str]]:
    issues = seo.get(f"/api/v1/audits/{audit['id']}/issues").data
    return {i["code"]: {p["url"].removeprefix(site.base) for p in i["pages"]} for i in issues}


def test_an_excluded_section_is_not_crawled_whatever_names_it(seo, crawlable):
    """`/shop*` excluded: listed in the sitemap, redirected to, named as a canonical, an
    alternate and a next page, it is neither fetched nor listed nor counted."""
    head = (
        '<link rel="canonical" href="/shop/canonical">'
        '<link rel="alternate" hreflang="de" href="/shop/de">'
        '<link rel="next" href="/shop/next">'
    )
    shop = {f"/shop/{name}": (200, HTML, page(name)) for name in ("1", "2", "3", "canonical")}
    site = SmallSite(
        {
            "/robots.txt": (200, {}, "User-agent: *\nAllow: /\nSitemap: BASE/sitemap.xml\n"),
            "/sitemap.xml": (
                200,
                {"Content-Type": "application/xml"},
                sitemap([f"BASE{p}" for p in ("/", "/blog/1", "/blog/2", "/shop/1", "/shop/2")]),
            ),
            "/": (200, HTML, page("Home", ["/blog/1", "/old-shop"])),
            "/blog/1": (200, HTML, page("Blog 1", ["/", "/shop/3"], head)),
            "/blog/2": (200, HTML, page("Blog 2", ["/"])),
            "/old-shop": (301, {"Location": "/shop/3"}, ""),
            **shop,
        }
    )
    try:
        audit = crawl(seo, site, exclude="/shop*")
    finally:
        site.close()
    assert audit["status"] == "done", audit
    fetched = site.paths()
    assert not [p for p in fetched if p.startswith("/shop")], fetched
    assert {"/", "/blog/1", "/blog/2", "/old-shop"} <= set(fetched)
    pages = served_pages(seo, audit)
    assert set(pages) == {"/", "/blog/1", "/blog/2", "/old-shop"}
    assert pages["/old-shop"]["redirect_to"] == site.url("/shop/3")  # recorded, not followed
    assert audit["progress"]["in_sitemaps"] == 3  # /, /blog/1 and /blog/2
    assert audit["progress"]["discovered"] == 4
    for code, paths in issue_paths(seo, site, audit).items():
        assert not [p for p in paths if p.startswith("/shop")], code


def alternates_site() -> SmallSite:
    """`/de` only an alternate of `/en` (and no return link), `/en/2` only its next page,
    `/en/2/all` only the canonical of that."""
    return SmallSite(
        {
            "/": (200, HTML, page("Home", ["/en"])),
            "/en": (
                200,
                HTML,
                page(
                    "English",
                    ["/"],
                    '<link rel="alternate" hreflang="en" href="/en">'
                    '<link rel="alternate" hreflang="de" href="/de">'
                    '<link rel="alternate" hreflang="x-default" href="/en">'
                    '<link rel="next" href="/en/2">',
                ),
            ),
            "/de": (
                200,
                HTML,
                page(
                    "Deutsch",
                    ["/"],
                    '<link rel="alternate" hreflang="de" href="/de">'
                    '<link rel="alternate" hreflang="x-default" href="/de">',
                ),
            ),
            "/en/2": (
                200,
                HTML,
                page("English 2", ["/"], '<link rel="canonical" href="/en/2/all">'),
            ),
            "/en/2/all": (200, HTML, page("English all", ["/"])),
        }
    )


def test_alternates_canonicals_and_next_pages_are_discovered_as_links(seo, crawlable):
    site = alternates_site()
    try:
        audit = crawl(seo, site)
    finally:
        site.close()
    assert audit["status"] == "done"
    pages = served_pages(seo, audit)
    depths = {path: entry["depth"] for path, entry in pages.items()}
    assert depths == {"/": 0, "/en": 1, "/de": 2, "/en/2": 2, "/en/2/all": 3}
    assert sorted(site.paths()).count("/de") == 1
    assert issue_paths(seo, site, audit)["hreflang_no_return"] == {"/en"}


def test_max_depth_bounds_what_alternates_lead_to(seo, crawlable):
    site = alternates_site()
    try:
        audit = crawl(seo, site, max_depth="1")
    finally:
        site.close()
    assert audit["status"] == "done"
    assert set(served_pages(seo, audit)) == {"/", "/en"}
    assert not {"/de", "/en/2", "/en/2/all"} & set(site.paths())


class MemoryQueue:
    """The crawl's steps in a list instead of moto's SQS, whose every SendMessage reads
    the whole queue (1,100 steps queued at once took 110 s): the worker is the same."""

    def __init__(self, monkeypatch) -> None:
        self.steps: deque[dict] = deque()
        monkeypatch.setattr(stored_audits, "send", self.steps.extend)

    def drain(self) -> None:
        while self.steps:
            batch = [self.steps.popleft() for _ in range(min(10, len(self.steps)))]
            records = [{"messageId": str(n), "body": json.dumps(s)} for n, s in enumerate(batch)]
            assert crawler.handle(records) == []


@pytest.mark.slow  # 1,100 pages through the worker: 8-16 s (make test-slow, which CI runs)
def test_every_internal_link_of_a_page_is_crawled(seo, account, crawlable, monkeypatch):
    """A hub of 1,100 links: all 1,100 pages are crawled, the hub stores its first
    `MAX_LINKS` and, as `links_found`, how many it has."""
    targets = [f"/p/{n}" for n in range(1_100)]
    text = {"Content-Type": "text/plain"}
    site = SmallSite(
        {"/": (200, HTML, page("Hub", targets)), **{p: (200, text, "a page") for p in targets}}
    )
    queue = MemoryQueue(monkeypatch)
    try:
        created = seo.post("/api/v1/audits", {"url": site.url("/"), "max_pages": "1200"}).data
        queue.drain()
    finally:
        site.close()
    audit = seo.get(f"/api/v1/audits/{created['id']}").data
    assert audit["status"] == "done"
    assert audit["progress"]["discovered"] == audit["progress"]["fetched"] == 1_101
    fetched = site.paths()
    assert sorted(p for p in fetched if p.startswith("/p/")) == sorted(targets)  # each once
    crawl_key = stored_audits.crawl_key(account.id, audit["id"], 1)
    [hub] = [p for p in stored_audits.every_page(crawl_key) if p["url"] == site.url("/")]
    assert int(hub["links_found"]) == 1_100
    assert json.loads(hub["links"]) == [site.url(p) for p in targets[: facts.MAX_LINKS]]
    assert {entry["depth"] for entry in served_pages(seo, audit).values()} == {0, 1}
