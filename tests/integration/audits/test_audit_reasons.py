"""What a person reads of an audit's findings: each page's reason in a sentence (the
element, the value, the limit), with the fix and its link; an issue's pages a page number
at a time, a page's issues, through the API and the share page and JSON; human titles and
plurals; and the 4xx of a bad page number or issue."""

from __future__ import annotations

import re
from typing import Any

import pytest

from sitelens.core import words
from sitelens.seo.guidance import ADVICE
from tests.conftest import Client
from tests.integration.audits.test_audit_share import public, share_id
from tests.integration.audits.test_audits import audit, audit_site, crawlable, drain

__all__ = ["audit_site", "crawlable", "public"]  # fixtures this module uses

HTML = {"Content-Type": "text/html; charset=utf-8"}
LONG_TITLE = "Organic apples, pears and plums delivered to your door every week of the year"
NO_H1 = [f"/plain{n:02d}" for n in range(12)]
CANONICAL = '<link rel="canonical" href="{}">'


def _page(title: str, links: list[str], h1: bool = True, head: str = "") -> str:
    anchors = "".join(f'<a href="{href}">{href}</a> ' for href in links)
    heading = f"<h1>{title} heading</h1>" if h1 else ""
    return (
        f'<!doctype html><html lang="en"><head><title>{title}</title>{head}</head>'
        f"<body>{heading}<p>Words about {title}.</p>{anchors}</body></html>"
    )


@pytest.fixture
def crawled(seo, audit_site, crawlable) -> dict[str, Any]:
    """A small site: a home page with a 78-character title linking to a missing page and to
    twelve pages without an <h1> (the home page has no canonical, the others one each)."""
    base = audit_site.base
    audit_site.pages = {
        "/": (200, HTML, _page(LONG_TITLE, ["/gone", *NO_H1])),
        **{
            path: (200, HTML, _page(f"Plain {path}", ["/"], False, CANONICAL.format(base + path)))
            for path in NO_H1
        },
        "/gone": (404, HTML, "<p>Not here.</p>"),
    }
    created = audit(seo, audit_site)
    drain()
    return created


def _issue(seo: Client, audit_id: int, **query: Any) -> Any:
    return seo.get(f"/api/v1/audits/{audit_id}/issues", query=query)


def test_reasons_say_what_was_found_where_and_the_limit(seo, audit_site, crawled):
    title = _issue(seo, crawled["id"], code="page_title").data
    assert title["title"] == ADVICE["title"].title and title["count"] == 1
    [home] = title["pages"]
    assert home["url"] == audit_site.url("/")
    assert home["reason"].startswith(f"Title is {len(LONG_TITLE)} characters (")
    assert "search results show about 60 (600 px)" in home["reason"]
    assert f"<title>{LONG_TITLE}</title>" in home["reason"]
    assert home["where"] == "head > title"
    assert (home["fix"], home["learn_more"]) == ADVICE["title"][:2]

    headings = _issue(seo, crawled["id"], code="page_headings", per_page=10).data
    assert headings["count"] == 12 and headings["last_page"] == 2 and headings["page"] == 1
    assert [p["url"] for p in headings["pages"]] == [audit_site.url(p) for p in NO_H1[:10]]
    assert {p["reason"] for p in headings["pages"]} == {
        "The page has no <h1> heading; it needs exactly one."
    }
    second = _issue(seo, crawled["id"], code="page_headings", per_page=10, page=2).data
    assert [p["url"] for p in second["pages"]] == [audit_site.url(p) for p in NO_H1[10:]]

    page = seo.get(f"/api/v1/audits/{crawled['id']}/pages", query={"url": audit_site.url("/")})
    found = {i["code"]: i for i in page.data["issues"]}
    assert found["page_canonical"]["reason"] == (
        'The page has no <link rel="canonical"> in its <head> nor a Link header naming one.'
    )
    assert found["page_canonical"]["title"] == ADVICE["canonical"].title
    broken = found["broken_internal_link"]
    assert broken["reason"] == (
        f"An <a href> on this page links to {audit_site.url('/gone')} (404), a page of the "
        "site that fails."
    )
    assert broken["where"] == "a[href]" and broken["fix"] and broken["learn_more"]
    assert "page_headings" not in found  # the home page has its <h1>

    listed = seo.get(f"/api/v1/audits/{crawled['id']}/pages", query={"issue": "page_headings"})
    assert {p["reason"] for p in listed.data} == {headings["pages"][0]["reason"]}


def test_bad_page_numbers_and_issues_are_4xx(seo, crawled):
    for query in (
        {"code": "page_headings", "per_page": 10, "page": 3},
        {"code": "page_headings", "page": 0},
        {"code": "page_headings", "page": "two"},
        {"code": "page_headings", "per_page": 7},
        {"code": "no_such_check"},
    ):
        reply = _issue(seo, crawled["id"], **query)
        assert reply.status == 422, (query, reply.body)
        assert set(reply.body["message"]) <= {"page", "per_page", "code"}
    assert _issue(seo, crawled["id"], code="redirect_loop").status == 404  # none in the run
    missing = seo.get(f"/api/v1/audits/{crawled['id']}/pages", query={"url": "http://x.test/"})
    assert missing.status == 404


def test_the_share_views_list_an_issue_s_pages_and_a_page_s_issues(
    seo, public, audit_site, crawled
):
    token = share_id(crawled)
    shared = public.get(f"/api/v1/share/audits/{token}", query={"issue": "page_headings"}).data
    assert shared["issue"]["count"] == 12 and shared["issue"]["per_page"] == 25
    assert len(shared["issue"]["pages"]) == 12 and shared["last_run"]["run"] == 1
    paged = public.get(
        f"/api/v1/share/audits/{token}",
        query={"issue": "page_headings", "per_page": 10, "page": 2},
    ).data["issue"]
    assert [p["url"] for p in paged["pages"]] == [audit_site.url(p) for p in NO_H1[10:]]
    bad = public.get(f"/api/v1/share/audits/{token}", query={"issue": "page_headings", "page": 9})
    assert bad.status == 422 and "page" in bad.body["message"]

    html = public.get(f"/share/audits/{token}", query={"issue": "page_headings", "per_page": 10})
    assert html.status == 200
    text = re.sub(r"\s+", " ", html.body)
    assert "The page has no &lt;h1&gt; heading; it needs exactly one." in text
    assert "Page 1 of 2" in text and 'rel="next"' in text and "12 pages" in text
    assert "Run 1: 14 pages" in text  # the home page, twelve plain ones and the missing one
    assert ">1 page<" in text and "1 pages" not in text
    assert "page_headings" not in re.sub(r'(href|id)="[^"]*"', "", text)  # codes only in links

    mine = public.get(f"/share/audits/{token}", query={"url": audit_site.url("/")})
    assert mine.status == 200
    assert f"Title is {len(LONG_TITLE)} characters" in mine.body
    assert ADVICE["canonical"].title in mine.body
    assert public.get(f"/share/audits/{token}", query={"page": "0", "issue": "x"}).status == 422


def test_the_issues_csv_reads_in_words(seo, crawled):
    reply = _issue(seo, crawled["id"], format="csv")
    assert reply.status == 200
    header, *rows = reply.body.splitlines()
    assert header == "Issue,Severity,Page,Reason,Fix,Learn more,Issue code,Found"
    assert any(row.startswith(f'"{ADVICE["headings"].title}"') for row in rows), rows[:3]


def test_counts_read_with_their_plural():
    assert [words.counted(n, "page") for n in (0, 1, 2, 1200)] == [
        "0 pages",
        "1 page",
        "2 pages",
        "1,200 pages",
    ]
    assert words.counted(1, "issue") == "1 issue" and words.counted(3, "entry") == "3 entries"
