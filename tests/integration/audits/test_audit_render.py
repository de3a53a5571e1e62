"""JavaScript rendering (`render: js`): the setting through the API, and a single-page app
whose links exist only after its script runs (tests/fixtures/spa.py), crawled through the
API and the crawl worker as make serve runs them: whole with `render: js` (on Debian's
Chromium), one page flagged "links only after rendering" without it."""

from __future__ import annotations

import pytest

from sitelens.audits import chromium, rendering
from sitelens.core import metrics
from tests.fixtures.spa import ROUTES, SpaSite
from tests.integration.audits.test_audits import crawlable, drain

__all__ = ["crawlable"]  # fixtures this module uses


@pytest.fixture
def spa():
    site = SpaSite()
    yield site
    site.close()


def audit(seo, url: str, **fields) -> tuple[dict, dict[str, dict], dict[str, dict]]:
    """An audit created through the API and crawled to its end: as shown, its pages by
    path and its issues by code."""
    created = seo.request("POST", "/api/v1/audits", json_body={"url": url, **fields})
    assert created.status == 201, created.body
    drain()
    shown = seo.get(f"/api/v1/audits/{created.data['id']}").data
    listed = seo.get(f"/api/v1/audits/{shown['id']}/pages", query={"per_page": 100}).data
    base = url.rstrip("/")
    pages = {p["url"].removeprefix(base) or "/": p for p in listed if not p["external"]}
    issues = {i["code"]: i for i in seo.get(f"/api/v1/audits/{shown['id']}/issues").data}
    return shown, pages, issues


def test_render_is_html_by_default_and_js_when_asked_and_updatable(seo):
    plain = seo.request("POST", "/api/v1/audits", json_body={"url": "https://example.com/"})
    assert plain.status == 201 and plain.data["render"] == "html"
    rendered = seo.request(
        "POST", "/api/v1/audits", json_body={"url": "https://example.org/", "render": "js"}
    )
    assert rendered.status == 201 and rendered.data["render"] == "js"
    audit_id = plain.data["id"]
    changed = seo.request("PATCH", f"/api/v1/audits/{audit_id}", json_body={"render": "js"})
    assert changed.status == 200, changed.body
    assert changed.data["render"] == "js" and changed.data["scope_changed"] is True
    assert seo.get(f"/api/v1/audits/{audit_id}").data["render"] == "js"


@pytest.mark.parametrize("value", ["javascript", "", "JS ", 1])
def test_an_unknown_render_is_422_and_changes_nothing(seo, value):
    created = seo.request("POST", "/api/v1/audits", json_body={"url": "https://example.net/"})
    refused = seo.request(
        "PATCH", f"/api/v1/audits/{created.data['id']}", json_body={"render": value}
    )
    assert refused.status == 422, refused.body
    assert refused.body["message"] == {"render": ["The render field must be one of: html, js."]}
    assert seo.get(f"/api/v1/audits/{created.data['id']}").data["render"] == "html"
    new = seo.request(
        "POST", "/api/v1/audits", json_body={"url": "https://example.info/", "render": value}
    )
    assert new.status == 422 and "render" in new.body["message"]


def test_without_rendering_the_app_shell_is_flagged_links_only_after_rendering(seo, crawlable, spa):
    shown, pages, issues = audit(seo, spa.base + "/")
    assert shown["status"] == "done" and shown["render"] == "html"
    assert list(pages) == ["/"]  # its links are written by its script: none to follow
    assert "/app.js" not in spa.paths()  # nothing but the HTML was fetched
    assert pages["/"]["title"] == "Loading" and pages["/"]["links"] == 0
    assert pages["/"]["rendering"] == {
        "mode": "html",
        "app_shell": True,
        "raw_links": 0,
        "raw_words": 3,
        "scripts": 1,
    }
    flagged = issues["links_only_after_rendering"]
    assert flagged["title"].startswith("Links only after rendering")
    assert [p["url"] for p in flagged["pages"]] == [spa.base + "/"]
    assert "app shell: 0 links and 3 words" in flagged["pages"][0]["detail"]
    assert "render: js" in flagged["pages"][0]["detail"]


def test_a_page_with_its_links_in_html_is_no_app_shell(seo, crawlable):
    from tests.integration.audits.small_site import HTML, SmallSite, page

    script = '<script src="/app.js"></script>'
    site = SmallSite(
        {
            "/": (200, HTML, page("Home", ["/a", "/b"], script)),
            "/a": (200, HTML, page("A", ["/"], script)),  # few links, few words: a shell
            "/b": (200, HTML, page("B", ["/"])),  # few links and words, but no script
        }
    )
    try:
        _, pages, issues = audit(seo, site.url("/"))
    finally:
        site.close()
    assert pages["/"]["rendering"] is None and pages["/b"]["rendering"] is None
    assert pages["/a"]["rendering"]["app_shell"] is True
    assert [p["url"] for p in issues["links_only_after_rendering"]["pages"]] == [site.url("/a")]


def test_a_page_that_cannot_be_rendered_is_read_raw_says_why_and_is_counted(
    seo, crawlable, spa, monkeypatch
):
    monkeypatch.setattr(
        chromium, "local_render", lambda *a: chromium.Rendered(None, chromium.UNAVAILABLE)
    )
    counted = []
    monkeypatch.setattr(metrics, "count", lambda name, *a, **d: counted.append((name, d)))
    shown, pages, _ = audit(seo, spa.base + "/", render="js")
    assert shown["status"] == "done" and list(pages) == ["/"]
    assert pages["/"]["rendering"]["error"] == chromium.UNAVAILABLE
    assert pages["/"]["title"] == "Loading"
    assert ("AuditPagesNotRendered", {"reason": "page"}) in counted


@pytest.mark.browser
@pytest.mark.slow  # six pages rendered in Chromium: some seconds
def test_with_render_js_the_app_is_crawled_whole_from_its_rendered_links(seo, crawlable, spa):
    shown, pages, issues = audit(seo, spa.base + "/", render="js")
    assert shown["status"] == "done", shown
    assert sorted(pages) == sorted(ROUTES)  # the children are linked from /products only
    for path, name in ROUTES.items():
        page = pages[path]
        assert page["status_code"] == 200
        assert page["title"] == f"{name} | Lamp shop"  # written by the script
        assert page["canonical"] == spa.base + path
        assert page["description"].startswith("The lamp shop page")
        assert page["rendering"]["mode"] == "js" and page["rendering"]["raw_links"] == 0
        assert page["rendering"]["words_only_rendered"] >= 80
        assert page["rendering"]["title_changed"] is True
    products = pages["/products"]["rendering"]
    assert products["links_only_rendered"] == 6 and products["rendered_links"] == 6
    assert spa.base + "/products/chair" in products["links_only_rendered_first"]
    assert "title" not in pages["/"]["failed_checks"]  # the rendered page is the one checked
    flagged = issues["links_only_after_rendering"]
    assert flagged["count"] == len(ROUTES)
    assert any("6 links only after rendering" in p["detail"] for p in flagged["pages"])


def test_the_render_function_is_invoked_when_configured(seo, crawlable, spa, monkeypatch):
    """Deployed, the crawl worker invokes the render function (data.renderers) with the
    page it fetched and the run's identity; its answer is read like a local rendering."""
    sent = []

    def render(request):
        sent.append(request)
        links = "".join(f'<a href="{path}">{name}</a>' for path, name in ROUTES.items())
        return {"html": f"<title>Rendered</title><body>{links}</body>", "error": None}

    from sitelens.data import renderers

    monkeypatch.setenv("SITELENS_RENDER_FUNCTION", "sitelens-render")
    monkeypatch.setattr(renderers, "render", render)
    from sitelens.core import config

    config.reset()
    _, pages, _ = audit(seo, spa.base + "/", render="js")
    assert sorted(pages) == sorted(ROUTES)
    assert sent[0]["url"] == spa.base + "/" and "app.js" in sent[0]["body"]
    assert sent[0]["identity"]["user_agent"].startswith("SitelensAudit/")
    assert pages["/about"]["rendering"]["links_only_rendered"] == len(ROUTES)


def test_a_failing_render_function_leaves_the_page_raw(seo, crawlable, spa, monkeypatch):
    from sitelens.data import renderers

    def refuse(request):
        raise renderers.RenderFailed("throttled")

    monkeypatch.setenv("SITELENS_RENDER_FUNCTION", "sitelens-render")
    monkeypatch.setattr(renderers, "render", refuse)
    from sitelens.core import config

    config.reset()
    _, pages, _ = audit(seo, spa.base + "/", render="js")
    assert pages["/"]["rendering"]["error"] == rendering.NOT_RENDERED
