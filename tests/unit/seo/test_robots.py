"""robots.txt as search engines read it: RFC 9309 matching (Protego), Google's status
rules, Lighthouse's validity rules, and the `robots` and `robots_txt` checks on them."""

from __future__ import annotations

import pytest

from sitelens.seo import robots
from sitelens.seo.checks import CHECKS, Context
from sitelens.seo.page import Response, Site

PAGE = "https://example.com/wp-admin/admin-ajax.php"
WORDPRESS = "User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n"


def site(body: str | None = None, status: int = 200, error: str | None = None) -> Site:
    page = Response(PAGE, 200, {"content-type": "text/html"}, b"<title>x</title>", 0.1)
    answer = None
    if body is not None:
        answer = Response("https://example.com/robots.txt", status, {}, body.encode(), 0.1)
    return Site(page=page, robots_txt=answer, robots_error=error)


def allowed(body: str, url: str, agent: str = "Googlebot") -> bool:
    return robots.access(site(body), url).allowed[agent]


@pytest.mark.parametrize(
    ("body", "url", "expected"),
    [
        # the longest match wins, not the first (RFC 9309 2.2.2): WordPress' default
        (WORDPRESS, "https://example.com/wp-admin/admin-ajax.php", True),
        (WORDPRESS, "https://example.com/wp-admin/options.php", False),
        (
            "User-agent: *\nAllow: /shop/cart\nDisallow: /shop\n",
            "https://example.com/shop/cart",
            True,
        ),
        # equal length: allow wins
        ("User-agent: *\nDisallow: /page\nAllow: /page\n", "https://example.com/page", True),
        # wildcards and the end anchor
        ("User-agent: *\nDisallow: /*.pdf$\n", "https://example.com/files/a.pdf", False),
        ("User-agent: *\nDisallow: /*.pdf$\n", "https://example.com/files/a.pdf?x=1", True),
        ("User-agent: *\nDisallow: /*/private/\n", "https://example.com/a/private/b", False),
        # two groups for * are one
        (
            "User-agent: *\nDisallow: /a\n\nUser-agent: bingbot\nDisallow: /\n\n"
            "User-agent: *\nDisallow: /b\n",
            "https://example.com/b",
            False,
        ),
        # an empty Disallow allows everything
        ("User-agent: *\nDisallow:\n", "https://example.com/x", True),
    ],
)
def test_matching_follows_rfc_9309(body: str, url: str, expected: bool) -> None:
    assert allowed(body, url) is expected


def test_a_group_for_googlebot_replaces_the_star_group() -> None:
    body = "User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nAllow: /\n"
    found = robots.access(site(body), "https://example.com/page").allowed
    assert found == {
        "*": False,
        "Googlebot": True,
        "Bingbot": False,
        "DuckDuckBot": False,
        "archive.org_bot": False,
    }


@pytest.mark.parametrize(
    ("status", "error", "everyone"),
    [
        (404, None, True),  # no robots.txt: everything may be crawled
        (403, None, True),
        (500, None, False),  # server error: nothing may be crawled
        (503, None, False),
        (429, None, False),  # Google treats 429 as a server error
    ],
)
def test_status_rules_as_google_documents(status: int, error: None, everyone: bool) -> None:
    found = robots.access(site("User-agent: *\nDisallow: /\n", status), PAGE)
    assert set(found.allowed.values()) == {everyone}


def test_an_unreachable_robots_txt_means_disallow_all_and_a_redirect_loop_none() -> None:
    unreachable = robots.access(site(error="The host could not be reached."), PAGE)
    assert not any(unreachable.allowed.values()) and unreachable.reason == "unavailable"
    looping = robots.access(site(error="The page redirects too many times."), PAGE)
    assert all(looping.allowed.values()) and looping.reason == "none"


def test_the_robots_check_reports_an_unreachable_robots_txt() -> None:
    outcome = CHECKS["robots"].run(Context(site(error="The page took too long to answer.")))
    assert not outcome.passed
    assert outcome.errors == {
        "unavailable": "robots.txt cannot be fetched: search engines stay away."
    }


# --- validity, as Lighthouse's robots-txt audit ------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        WORDPRESS,
        "",
        "# only comments\n\n",
        "User-agent: *\nDisallow: /\nSitemap: https://example.com/sitemap.xml\n",
        "User-agent: Yandex\nClean-param: ref /articles/\nHost: example.com\nCrawl-delay: 2\n",
        "\ufeffUser-agent: *\r\nAllow: /*.css$\r\n",
        "User-agent: *\nDisallow: *.gif$\n",
    ],
)
def test_valid_robots_txt(body: str) -> None:
    assert robots.problems(body) == []
    assert CHECKS["robots_txt"].run(Context(site(body))).passed


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("User-agent: *\nDisallow /admin\n", 2, "Syntax not understood"),
        ("User-agent: *\nFoo: bar\n", 2, "Unknown directive"),
        ("Disallow: /admin\nUser-agent: *\n", 1, "No user-agent specified"),
        ("User-agent:\nDisallow: /\n", 1, "No user-agent specified"),
        (
            "User-agent: *\nDisallow: admin\n",
            2,
            'Pattern should either be empty, start with "/" or "*"',
        ),
        ("User-agent: *\nAllow: /a$b\n", 2, '"$" should only be used at the end of the pattern'),
        ("Sitemap: /sitemap.xml\n", 1, "Invalid sitemap URL"),
        ("Sitemap: gopher://example.com/s.xml\n", 1, "Invalid sitemap URL protocol"),
        ("<!doctype html>\n<html>\n", 1, "Syntax not understood"),
    ],
)
def test_invalid_robots_txt(body: str, line: int, message: str) -> None:
    [first, *_] = robots.problems(body)
    assert (first["line"], first["message"]) == (line, message)
    outcome = CHECKS["robots_txt"].run(Context(site(body)))
    assert not outcome.passed
    assert outcome.value and outcome.value[0].startswith(f"line {line}: {message}")


@pytest.mark.parametrize(
    ("status", "passed"), [(404, True), (410, True), (500, False), (429, False)]
)
def test_robots_txt_check_by_status_as_lighthouse(status: int, passed: bool) -> None:
    assert CHECKS["robots_txt"].run(Context(site("whatever", status))).passed is passed


def test_robots_txt_check_without_robots_txt_passes() -> None:
    assert CHECKS["robots_txt"].run(Context(site(None))).passed


def test_sitemaps_come_from_protego() -> None:
    body = "Sitemap: https://example.com/a.xml\nUser-agent: *\nSitemap: https://example.com/b.xml\n"
    assert robots.sitemaps(site(body)) == ["https://example.com/a.xml", "https://example.com/b.xml"]
