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
from tests.integration.audits.site import Site

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser


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
