"""An audit's share page in a real browser (Playwright on Debian's Chromium) against `make
serve`: the fixture site with known defects crawled by the server's own worker, then its
page shows the score, the issues grouped by severity with the page counts the API gives,
and fits a phone's width; a password audit's page asks for the password first."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.share.test_share_pages import DESKTOP, PHONE
from tests.e2e.test_local_server import Server, call
from tests.fixtures.browsers import executable
from tests.integration.audits.site import Site

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser
NO_NETWORK_CHECKS = (
    "--disable-features=LocalNetworkAccessChecks,PrivateNetworkAccessForIframes,"
    "PrivateNetworkAccessForNavigations,BlockInsecurePrivateNetworkRequests"
)


@pytest.fixture(scope="module")
def audited_site() -> Iterator[Site]:
    served = Site()
    yield served
    served.close()


def crawled(server: Server, key: str, site: Site, **fields: str) -> dict[str, Any]:
    """An audit of the site, once its first run is done (the server's worker crawls it: the
    e2e modules' shared server fetches private addresses, and the site is on 127.0.0.1)."""
    created = call(
        "POST", f"{server.seo}/api/v1/audits", key, form={"url": site.url("/"), **fields}
    )
    assert created.status == 201, created.body
    audit_id = created.body["data"]["id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        shown = call("GET", f"{server.seo}/api/v1/audits/{audit_id}", key).body["data"]
        if shown["status"] not in ("queued", "crawling", "analysing"):
            assert shown["status"] == "done", shown
            return dict(shown)
        time.sleep(0.2)
    raise AssertionError("the audit did not finish in 60 s")


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_the_audit_page_groups_issues_by_severity(server, dev_key, chromium, audited_site):
    audit = crawled(server, dev_key, audited_site)
    issues = call("GET", f"{server.seo}/api/v1/audits/{audit['id']}/issues", dev_key).body["data"]
    page = chromium.new_page(viewport=DESKTOP)
    assert page.goto(audit["share_url"]).status == 200
    assert page.inner_text("#score") == str(audit["score"])
    for severity in ("high", "medium", "low"):
        expected = [i for i in issues if i["severity"] == severity]
        shown = page.locator(f"#severity-{severity} li.check")
        assert shown.count() == len(expected)
        for issue in expected:
            text = page.inner_text(f"#issue-{issue['code']} .pages")
            assert text.split()[0] == str(issue["count"])
    assert "first run" in page.inner_text("#diff")
    page.set_viewport_size(PHONE)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    page.close()


def test_a_password_audit_page_asks_for_the_password(server, dev_key, chromium):
    form = {"url": "https://example.com/", "privacy": "2", "password": "correct-horse"}
    created = call("POST", f"{server.seo}/api/v1/audits", dev_key, form=form)
    assert created.status == 201, created.body
    context = chromium.new_context(viewport=PHONE)
    page = context.new_page()
    assert page.goto(created.body["data"]["share_url"]).status == 401
    page.fill("#password", "wrong-horse")
    page.click("button[type=submit]")
    assert "not right" in page.inner_text("[role=alert]")
    page.fill("#password", "correct-horse")
    page.click("button[type=submit]")
    page.locator("h1").wait_for()
    assert page.inner_text("h1") == "Site audit"
    context.close()


@pytest.mark.slow  # a crawl and a browser: about 3 s or more of a worker
def test_an_issue_page_lists_its_pages_with_reasons_and_embeds_only_where_listed(
    server, dev_key, chromium, audited_site
):
    audit = crawled(server, dev_key, audited_site)
    issues = call("GET", f"{server.seo}/api/v1/audits/{audit['id']}/issues", dev_key).body["data"]
    worst = issues[0]
    page = chromium.new_page(viewport=DESKTOP)
    assert page.goto(f"{audit['share_url']}?issue={worst['code']}").status == 200
    assert page.inner_text("#issue-title").startswith(worst["title"])
    shown = page.locator("#issue .issue-pages li")
    assert shown.count() == min(worst["count"], 25)  # the first page of its pages
    assert all(page.locator("#issue .reason").all_inner_texts())  # each with its reason
    page.close()

    # embedded from the origin the project's brand lists, and from no other
    allowed, denied = "https://client.example", "https://elsewhere.example"
    brand = {"name": "Agence Éclair", "frame_ancestors": allowed}
    reply = call("PUT", f"{server.seo}/api/v1/projects/127.0.0.1/brand", dev_key, form=brand)
    assert reply.status == 200, reply.body
    # The share page is on 127.0.0.1 and the embedding pages on public names: Chromium's
    # private-network checks, which would refuse that frame whatever the policy, are off.
    browser = chromium.browser_type.launch(executable_path=executable(), args=[NO_NETWORK_CHECKS])
    try:
        for origin, framed in ((allowed, True), (denied, False)):
            context = browser.new_context()
            embedding = context.new_page()
            html = f'<iframe src="{audit["share_url"]}" width="800" height="600"></iframe>'
            embedding.route(f"{origin}/", _serving(html))
            embedding.goto(f"{origin}/")
            frame = embedding.frame_locator("iframe")
            if framed:
                assert frame.locator("#score").inner_text(timeout=3000) == str(audit["score"])
                assert "Agence Éclair" in frame.locator("body").inner_text()
            else:
                embedding.wait_for_timeout(500)
                assert frame.locator("#score").count() == 0  # refused by frame-ancestors
            context.close()
    finally:
        browser.close()


def _serving(html: str) -> Any:
    """A route handler answering with `html` (an embedding page on an origin of our own)."""

    def fulfil(route: Any) -> None:
        route.fulfill(status=200, content_type="text/html", body=html)

    return fulfil
