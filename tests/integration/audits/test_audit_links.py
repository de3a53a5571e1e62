"""Internal link score, per-page columns and near-duplicate clusters (issue 45, part 4),
through the API on moto as a user reads them: a small fixture graph with a nofollow link,
the pages list sorted by each column, and clusters at the default and a custom threshold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sitelens.audits import link_score
from sitelens.audits.sorts import SORTS
from tests.integration.audits.site import words
from tests.integration.audits.small_site import HTML, SmallSite, sitemap
from tests.integration.audits.small_site import page as small_page
from tests.integration.audits.test_audit_traffic import count_views
from tests.integration.audits.test_audits import crawlable, drain

__all__ = ["crawlable"]  # fixtures this module uses

BASE_TEXT = words("cluster", 120).split()


def variant(changed: int) -> str:
    """The cluster's text with its last `changed` words replaced (3: 2 simhash bits from
    the original, 96.9% similar; 7: 5 bits, 92.2%)."""
    kept = BASE_TEXT[: len(BASE_TEXT) - changed]
    return " ".join([*kept, *(f"changed{n}" for n in range(changed))])


def page(title: str, links: tuple[str, ...] | list[str] = (), nofollow: str = "") -> str:
    """A small site's page, with a nofollow link to `nofollow` if given."""
    extra = f'<a href="{nofollow}" rel="nofollow">{nofollow}</a>' if nofollow else ""
    return small_page(title, links).replace("</body>", f"{extra}</body>")


def text_page(title: str, text: str) -> str:
    return (
        f"<!doctype html><html lang=en><head><title>{title}</title></head>"
        f'<body><p>{text}</p><a href="/">home</a></body></html>'
    )


# the graph: / -> a, b, d1, d2, d3; a -> c; b -nofollow-> c; /orphan only in the sitemap
GRAPH = {
    "/": ["/a", "/b", "/d1", "/d2", "/d3"],
    "/a": ["/", "/c"],
    "/b": ["/"],
    "/c": ["/"],
    "/d1": ["/"],
    "/d2": ["/"],
    "/d3": ["/"],
    "/orphan": [],
}


@pytest.fixture(scope="module")
def linked_site():
    site = SmallSite(
        {
            "/robots.txt": (200, {}, "User-agent: *\nAllow: /\nSitemap: BASE/sitemap.xml\n"),
            "/sitemap.xml": (200, {"Content-Type": "application/xml"}, sitemap(["BASE/orphan"])),
            "/": (200, HTML, page("Home", GRAPH["/"])),
            "/a": (200, HTML, page("A", GRAPH["/a"])),
            "/b": (200, HTML, page("B", GRAPH["/b"], nofollow="/c")),
            "/c": (200, HTML, page("C", GRAPH["/c"])),
            "/d1": (200, HTML, text_page("D1", variant(0))),
            "/d2": (200, HTML, text_page("D2", variant(3))),
            "/d3": (200, HTML, text_page("D3", variant(7))),
            "/orphan": (200, HTML, page("Orphan")),
        }
    )
    yield site
    site.close()


def crawl(seo, site: SmallSite, **form) -> dict:
    created = seo.post("/api/v1/audits", {"url": site.url("/"), **form})
    assert created.status == 201, created.body
    drain(1_000)
    audit = seo.get(f"/api/v1/audits/{created.data['id']}").data
    assert audit["status"] == "done", audit
    return audit


def listed(seo, site: SmallSite, audit: dict, per_page: int = 100, **query) -> list[dict]:
    """Every page of the list, following its cursors, each `url` as the site's path."""
    found, cursor = [], None
    while True:
        params = {"per_page": per_page, **query, **({"cursor": cursor} if cursor else {})}
        answer = seo.get(f"/api/v1/audits/{audit['id']}/pages", query=params)
        assert answer.status == 200, answer.body
        found += [{**p, "url": p["url"].removeprefix(site.base) or "/"} for p in answer.data]
        cursor = answer.body["meta"].get("next_cursor")
        if not cursor:
            return found


def test_link_scores_follow_the_graph_without_its_nofollow_link(seo, linked_site, crawlable):
    audit = crawl(seo, linked_site)
    pages = {p["url"]: p for p in listed(seo, linked_site, audit)}
    assert {url: p["inlinks"] for url, p in pages.items()} == {
        "/": 6,
        "/a": 1,
        "/b": 1,
        "/c": 1,  # from /a only: /b's link is nofollow
        "/d1": 1,
        "/d2": 1,
        "/d3": 1,
        "/orphan": 0,
    }
    as_graph = [{"url": u, "state": "fetched", "links": links} for u, links in GRAPH.items()]
    expected = link_score.scores(as_graph)
    with_nofollow = link_score.scores(
        [{**p, "links": [*p["links"], "/c"]} if p["url"] == "/b" else p for p in as_graph]
    )
    assert {url: p["link_score"] for url, p in pages.items()} == {
        url: score.link_score for url, score in expected.items()
    }
    assert pages["/"]["link_score"] == 100 and pages["/orphan"]["link_score"] == 0
    assert pages["/c"]["link_score"] != with_nofollow["/c"].link_score  # the guard counts
    assert all(p["response_time_ms"] >= 0 for p in pages.values())
    assert pages["/d1"]["word_count"] == 121 and pages["/d1"]["depth"] == 1


def test_a_page_with_traffic_and_a_weak_link_score_is_an_issue(
    seo, analytics, account, linked_site, crawlable
):
    site = analytics.post("/api/v1/websites", {"domain": "127.0.0.1"}).data
    yesterday = datetime.now(UTC) - timedelta(days=1)
    count_views(account.id, site["id"], {"/orphan": 40, "/": 50, "/c": 3}, yesterday)
    audit = crawl(seo, linked_site)
    issues = {i["code"]: i for i in seo.get(f"/api/v1/audits/{audit['id']}/issues").data}
    weak = issues["high_traffic_low_link_score"]
    assert [p["url"].removeprefix(linked_site.base) for p in weak["pages"]] == ["/orphan"]
    assert weak["pages"][0]["detail"] == "40 pageviews, link score 0"
    assert weak["pageviews"] == 40


def test_without_traffic_no_page_is_flagged(seo, linked_site, crawlable):
    audit = crawl(seo, linked_site)
    codes = {i["code"] for i in seo.get(f"/api/v1/audits/{audit['id']}/issues").data}
    assert "high_traffic_low_link_score" not in codes


@pytest.mark.parametrize("column", list(SORTS))
def test_the_pages_list_sorts_by_each_column_both_ways(seo, linked_site, crawlable, column):
    audit = crawl(seo, linked_site)
    field = {"response_time": "response_time_ms", "word_count": "word_count"}.get(column, column)
    every = listed(seo, linked_site, audit)
    for way in ("asc", "desc"):
        got = listed(seo, linked_site, audit, per_page=10, sort=f"{column}:{way}")
        valued = [p for p in every if p[field] is not None]
        ordered = sorted(valued, key=lambda p: p["url"])
        ordered.sort(key=lambda p: p[field], reverse=way == "desc")
        missing = [p for p in every if p[field] is None]
        assert [p["url"] for p in got] == [p["url"] for p in [*ordered, *missing]], way


def test_sorted_pages_are_paged_and_filtered(seo, linked_site, crawlable):
    audit = crawl(seo, linked_site)
    whole = listed(seo, linked_site, audit, sort="link_score:desc")
    paged = listed(seo, linked_site, audit, per_page=10, sort="link_score:desc")
    assert [p["url"] for p in paged] == [p["url"] for p in whole] and len(whole) == 8
    deep = listed(seo, linked_site, audit, per_page=10, sort="link_score:desc", depth=1)
    assert [p["url"] for p in deep] == [p["url"] for p in whole if p["depth"] == 1]
    assert deep and len(deep) < len(whole)


def test_a_bad_sort_is_refused_and_an_unfinished_run_is_not_sorted(seo, linked_site, crawlable):
    created = seo.post("/api/v1/audits", {"url": linked_site.url("/")}).data
    path = f"/api/v1/audits/{created['id']}/pages"
    for bad in ("title:asc", "link_score", "link_score:up", "depth:desc:asc"):
        answer = seo.get(path, query={"sort": bad})
        assert answer.status == 422, bad
        assert "sort" in answer.body["message"], answer.body
    answer = seo.get(path, query={"sort": "link_score:desc"})
    assert answer.status == 409 and "once the run is done" in answer.body["message"]
    assert seo.get(path).status == 200  # unsorted, it is read as it is crawled
    drain(1_000)
    assert seo.get(path, query={"sort": "link_score:desc"}).status == 200


def clusters_of(seo, site: SmallSite, audit: dict) -> list[dict]:
    issues = {i["code"]: i for i in seo.get(f"/api/v1/audits/{audit['id']}/issues").data}
    found = issues["near_duplicate_content"]["clusters"]
    for cluster in found:
        cluster["original"] = cluster["original"].removeprefix(site.base)
        for member in cluster["pages"]:
            member["url"] = member["url"].removeprefix(site.base)
    return found


def test_near_duplicates_are_clustered_with_what_differs(seo, linked_site, crawlable):
    audit = crawl(seo, linked_site)
    assert audit["near_duplicate_similarity"] == 95
    [cluster] = clusters_of(seo, linked_site, audit)
    assert cluster["original"] == "/d1" and cluster["count"] == 2
    [copy] = cluster["pages"]
    assert copy == {
        "url": "/d2",
        "similarity": 96.9,
        "added": "changed0 changed1 changed2",
        "removed": " ".join(BASE_TEXT[-3:]),
    }


def test_a_lower_threshold_takes_the_further_copy_in(seo, linked_site, crawlable):
    audit = crawl(seo, linked_site, near_duplicate_similarity="92")
    assert audit["near_duplicate_similarity"] == 92
    [cluster] = clusters_of(seo, linked_site, audit)
    assert cluster["original"] == "/d1" and cluster["count"] == 3
    assert [(p["url"], p["similarity"]) for p in cluster["pages"]] == [
        ("/d2", 96.9),
        ("/d3", 92.2),
    ]
    issues = {i["code"]: i for i in seo.get(f"/api/v1/audits/{audit['id']}/issues").data}
    listed_pages = {p["url"] for p in issues["near_duplicate_content"]["pages"]}
    assert listed_pages == {linked_site.url(path) for path in ("/d1", "/d2", "/d3")}


@pytest.mark.parametrize("bad", ["91", "101", "ninety", "95.5"])
def test_the_threshold_is_validated(seo, linked_site, crawlable, bad):
    answer = seo.post(
        "/api/v1/audits", {"url": linked_site.url("/"), "near_duplicate_similarity": bad}
    )
    assert answer.status == 422
    assert answer.body["message"]["near_duplicate_similarity"] == [
        "The near duplicate similarity field must be a whole number from 92 to 100."
    ]
