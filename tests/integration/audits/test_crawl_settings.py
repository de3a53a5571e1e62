"""An audit's crawl settings obeyed by its crawl, set through the API on moto and seen from
the fixture server: the user agent, the headers, basic auth and cookie (to the audited
host only), list mode and the speed."""

from __future__ import annotations

import base64

from sitelens.audits import crawler, fetching
from tests.integration.audits.small_site import HTML, SmallSite, page, sitemap
from tests.integration.audits.test_audits import crawlable, drain

__all__ = ["crawlable"]  # fixtures this module uses


def crawl(seo, site: SmallSite, path: str = "/", **fields) -> tuple[dict, dict[str, dict]]:
    """An audit of the site created through the API (a JSON body) and crawled to its end:
    as shown, and its pages by path."""
    created = seo.request("POST", "/api/v1/audits", json_body={"url": site.url(path), **fields})
    assert created.status == 201, created.body
    drain()
    audit = seo.get(f"/api/v1/audits/{created.data['id']}").data
    listed = seo.get(f"/api/v1/audits/{audit['id']}/pages", query={"per_page": 100}).data
    return audit, {p["url"].removeprefix(site.base): p for p in listed}


def test_the_googlebot_like_agent_is_sent_and_robots_txt_read_for_sitelens(seo, crawlable):
    robots = "User-agent: SitelensAudit\nDisallow: /private\n\nUser-agent: Googlebot\nDisallow: /\n"
    site = SmallSite(
        {
            "/robots.txt": (200, {}, robots),
            "/": (200, HTML, page("Home", ["/a", "/private"])),
            "/a": (200, HTML, page("A", ["/"])),
            "/private": (200, HTML, page("Private", ["/"])),
        }
    )
    try:
        audit, pages = crawl(seo, site, user_agent="googlebot_smartphone")
    finally:
        site.close()
    assert audit["status"] == "done"
    agent = fetching.USER_AGENTS["googlebot_smartphone"]
    assert "Googlebot/2.1" in agent and "SitelensAudit/1.0" in agent
    assert {r.headers["user-agent"] for r in site.requests} == {agent}
    assert sorted(site.paths()) == ["/", "/a", "/llms.txt", "/robots.txt", "/sitemap.xml"]
    assert pages["/private"]["blocked"] is True


def test_headers_basic_auth_and_cookie_go_to_the_audited_host_only(seo, crawlable):
    """Sent with robots.txt, the sitemap and every page of the site; not with an external
    link's check, a sitemap on another host, nor across a redirect to another host."""
    declared = "BASE/sitemap.xml", "EXTERNAL/elsewhere.xml", "BASE/moved.xml"
    site = SmallSite(
        {
            "/robots.txt": (200, {}, "".join(f"Sitemap: {url}\n" for url in declared)),
            "/sitemap.xml": (200, {}, sitemap(["BASE/", "BASE/a"])),
            "/moved.xml": (301, {"Location": "EXTERNAL/moved.xml"}, ""),
            "/": (200, HTML, page("Home", ["/a", "/away", "EXTERNAL/elsewhere"])),
            "/a": (200, HTML, page("A", ["/"])),
            "/away": (302, {"Location": "EXTERNAL/landing"}, ""),
        }
    )
    secret = {
        "headers": {"X-Staging-Token": "t0ken-3f9a"},
        "basic_auth": "ann:pa55-word",
        "cookie": "session=c00kie",
    }
    try:
        audit, pages = crawl(seo, site, **secret)
    finally:
        site.close()
    assert audit["status"] == "done", audit
    own = [r for r in site.requests if r.host == f"127.0.0.1:{site.port}"]
    assert {r.path for r in own} == {
        "/robots.txt",
        "/llms.txt",
        "/sitemap.xml",
        "/moved.xml",
        "/",
        "/a",
        "/away",
    }
    basic = "Basic " + base64.b64encode(b"ann:pa55-word").decode()
    for request in own:
        sent = request.headers
        assert (sent["x-staging-token"], sent["authorization"], sent["cookie"]) == (
            "t0ken-3f9a",
            basic,
            "session=c00kie",
        ), request.path
    others = [r for r in site.requests if r.host != f"127.0.0.1:{site.port}"]
    # the sitemaps on the other host read, the external link checked (and that host's
    # robots.txt read, if it is); the redirect's target not followed
    elsewhere = {"/elsewhere.xml", "/moved.xml", "/elsewhere"}
    assert elsewhere <= {r.path for r in others} <= {*elsewhere, "/robots.txt"}
    for request in others:
        assert not {"x-staging-token", "authorization", "cookie"} & set(request.headers)
    assert pages["/away"]["redirect_to"] == site.external + "/landing"


def test_list_mode_fetches_exactly_the_list(seo, crawlable):
    """No link, sitemap URL, redirect target, canonical or alternate is crawled; external
    links of the listed pages are still checked."""
    site = SmallSite(
        {
            "/robots.txt": (200, {}, "Sitemap: BASE/sitemap.xml\n"),
            "/sitemap.xml": (200, {}, sitemap(["BASE/in-sitemap"])),
            "/": (200, HTML, page("Home", ["/a", "/linked"])),
            "/a": (
                200,
                HTML,
                page(
                    "A",
                    ["/", "/linked", "EXTERNAL/out"],
                    '<link rel="canonical" href="/canonical">'
                    '<link rel="alternate" hreflang="de" href="/de">',
                ),
            ),
            "/b": (301, {"Location": "/moved"}, ""),
            "/c": (404, HTML, "gone"),
        }
    )
    listed = "\n".join(site.url(p) for p in ("/a", "/b", "/c"))
    try:
        audit, pages = crawl(seo, site, list_urls=listed)
    finally:
        site.close()
    assert audit["status"] == "done" and audit["failure"] is None
    assert sorted(site.paths()) == ["/a", "/b", "/c", "/llms.txt", "/robots.txt"]
    assert set(pages) == {"/a", "/b", "/c", site.external + "/out"}
    assert {p["depth"] for p in pages.values()} == {None}
    assert pages["/b"]["redirect_to"] == site.url("/moved")  # recorded, not followed
    assert pages[site.external + "/out"]["external"] is True
    assert audit["progress"]["discovered"] == 3 and audit["progress"]["in_sitemaps"] == 0


def test_max_rate_spaces_the_fetches(seo, crawlable):
    """5 pages a second asked, under the service's 1,000 (the test's): 0.2 s apart."""
    paths = [f"/p{n}" for n in range(6)]
    site = SmallSite(
        {"/": (200, HTML, page("Home", paths)), **{p: (200, HTML, page(p)) for p in paths}}
    )
    try:
        audit, _ = crawl(seo, site, max_rate=5)
    finally:
        site.close()
    assert audit["status"] == "done"
    times = [r.at for r in site.requests if r.path in ["/", *paths]]
    # Each fetch has its slot 0.2 s after the one before: the k-th comes no sooner than
    # 0.2 k s after the first (a fetch started late narrows one gap, not the pace).
    since_first = [round(t - times[0], 3) for t in times]
    assert len(times) == 7, times
    assert all(s >= 0.2 * k - 0.05 for k, s in enumerate(since_first)), since_first


def test_a_run_without_settings_crawls_as_before(seo, crawlable):
    site = SmallSite({"/": (200, HTML, page("Home"))})
    try:
        audit, _ = crawl(seo, site)
    finally:
        site.close()
    assert audit["status"] == "done"
    assert {r.headers["user-agent"] for r in site.requests} == {crawler.fetching.USER_AGENT}
    assert not [r for r in site.requests if "authorization" in r.headers or "cookie" in r.headers]
