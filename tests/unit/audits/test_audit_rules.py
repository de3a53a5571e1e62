"""The audit's pure parts: URL names and scope, sitemaps, page facts, simhash and the
cross-page checks on small hand-made page sets."""

from __future__ import annotations

import gzip

import pytest

from sitelens.audits import checks, facts, sitemaps
from sitelens.audits.analysis import page_checks, score
from sitelens.audits.urls import Scope, normalise


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("HTTP://Example.COM:80/a#top", "http://example.com/a"),
        ("https://example.com:443", "https://example.com/"),
        ("https://example.com:8443/a/", "https://example.com:8443/a/"),
        ("https://bücher.de/x", "https://xn--bcher-kva.de/x"),
        ("mailto:someone@example.com", None),
        ("javascript:void(0)", None),
        ("https://user:pw@example.com/", None),
        ("https://example.com/" + "a" * 3000, None),
    ],
)
def test_one_name_a_url(url, name):
    assert normalise(url) == name


def test_relative_links_and_excluded_parameters():
    scope = Scope("https://example.com/", "", "?utm_source=\n/cart*")
    assert scope.name("b?utm_source=x&id=2", "https://example.com/a/") == (
        "https://example.com/a/b?id=2"
    )
    assert scope.internal("http://example.com/x") and not scope.internal("https://other.com/")
    assert not scope.follows("https://example.com/cart/1")
    assert scope.follows("https://example.com/blog")
    only_blog = Scope("https://example.com/", "/blog*", "")
    assert only_blog.follows("https://example.com/blog/1")
    assert not only_blog.follows("https://example.com/about")


def test_sitemap_indexes_nested_and_gzipped_within_bounds():
    index = b"<sitemapindex><sitemap><loc>https://e.com/s1.xml.gz</loc></sitemap></sitemapindex>"
    pages = (
        b"<urlset>"
        + b"".join(
            f"<url><loc>https://e.com/{n}?a=1&amp;b=2</loc></url>".encode() for n in range(5)
        )
        + b"</urlset>"
    )
    files = {"https://e.com/index.xml": index, "https://e.com/s1.xml.gz": gzip.compress(pages)}
    found = list(sitemaps.urls(["https://e.com/index.xml"], files.get, most=3))
    assert found == [f"https://e.com/{n}?a=1&b=2" for n in range(3)]
    assert sitemaps.decompressed(b"\x1f\x8bnot gzip") == b""


def test_sitemap_index_loops_end():
    loop = b"<sitemapindex><sitemap><loc>https://e.com/s.xml</loc></sitemap></sitemapindex>"
    assert list(sitemaps.urls(["https://e.com/s.xml"], lambda url: loop, most=10)) == []


def test_page_facts():
    html = b"""<html><head><title>T</title><meta name=description content=D>
    <meta name=robots content="noindex,follow"><link rel=canonical href="/c">
    <link rel=alternate hreflang=de href="/de"></head><body>
    <a href="/a">a</a><a href="/a#x">again</a><a href="https://o.com/">o</a>
    <a rel=nofollow href="/n">n</a><img src="http://e.com/i.png"></body></html>"""
    scope = Scope("https://e.com/", "", "")
    found = facts.of_page("https://e.com/p", html, {}, scope)
    assert found["title"] == "T" and found["description"] == "D" and found["noindex"]
    assert found["canonical"] == "https://e.com/c"
    assert found["links"] == ["https://e.com/a"]
    assert found["external_links"] == ["https://o.com/"]
    assert found["hreflang"] == [["de", "https://e.com/de"]]
    assert found["mixed"] == ["http://e.com/i.png"]


def test_simhash_tells_near_copies_from_other_pages():
    text = " ".join(f"word{n}" for n in range(200))
    near = text.replace("word100", "changed")
    other = " ".join(f"other{n}" for n in range(200))
    distance = lambda a, b: bin(facts.simhash(a) ^ facts.simhash(b)).count("1")  # noqa: E731
    assert distance(text, near) <= checks.NEAR_DUPLICATE_BITS
    assert distance(text, other) > 10


def page(url, **fields):
    return {
        "url": url,
        "state": "fetched",
        "status_code": 200,
        "simhash": "0",
        "words": 0,
        "links": [],
        **fields,
    }


def test_checks_list_only_the_defective_pages():
    pages = [
        page("https://e.com/", links=["https://e.com/a", "https://e.com/gone"]),
        page("https://e.com/a", links=["https://e.com/"], mixed=["http://x/i.png"]),
        page("https://e.com/gone", status_code=404, simhash=None),
        page("https://e.com/s", in_sitemap=True, links=["https://e.com/"]),
    ]
    pages[2].pop("simhash")
    found = {i["code"]: {p["url"] for p in i["pages"]} for i in checks.run(pages, "https://e.com/")}
    assert found == {
        "broken_internal_link": {"https://e.com/"},
        "orphan_page": {"https://e.com/s"},
        "mixed_content": {"https://e.com/a"},
    }


def test_issue_lists_are_bounded_and_counted():
    many = [page(f"https://e.com/{n}", title="Same") for n in range(1200)]
    [issue] = [i for i in checks.run(many, "https://e.com/0") if i["code"] == "duplicate_title"]
    assert issue["count"] == 1200 and len(issue["pages"]) == checks.MAX_AFFECTED


def test_per_page_checks_are_summarised_without_the_site_wide_ones():
    pages = [page("https://e.com/", failed_checks=["title", "404_page"], score=50)]
    [summary] = page_checks(pages)
    assert summary["code"] == "page_title" and summary["severity"] == "high"
    assert score(pages, []) == 50
    assert score(pages, checks.run(pages, "https://e.com/")) == 45  # a low dead end, 1 of 1


def test_redirect_chains_and_loops_are_followed_across_pages():
    pages = [
        page("https://e.com/", links=["https://e.com/r1", "https://e.com/l1"]),
        page("https://e.com/r1", status_code=301, redirect_to="https://e.com/r2"),
        page("https://e.com/r2", status_code=301, redirect_to="https://e.com/"),
        page("https://e.com/l1", status_code=302, redirect_to="https://e.com/l2"),
        page("https://e.com/l2", status_code=302, redirect_to="https://e.com/l1"),
    ]
    found = {i["code"]: i for i in checks.run(pages, "https://e.com/")}
    assert {p["url"] for p in found["redirect_chain"]["pages"]} == {"https://e.com/r1"}
    assert found["redirect_chain"]["pages"][0]["detail"] == "2 redirects to https://e.com/"
    assert {p["url"] for p in found["redirect_loop"]["pages"]} == {
        "https://e.com/l1",
        "https://e.com/l2",
    }
