"""Structured data, images and llms.txt as an audit reports them, read through the API as a
user reads them (GET /api/v1/audits/{id}/issues), the site crawled by the worker on moto:
every finding the generated pages plant (`tests/bench/content_pages.py`), named by type
and property or by image, and nothing else; an llms.txt good, malformed, missing, with a
broken link, answered with an HTML page."""

from __future__ import annotations

import pytest

from sitelens.audits import crawler
from tests.bench import content_pages
from tests.integration.audits.small_site import HTML, SmallSite, page
from tests.integration.audits.test_audits import crawlable, drain

__all__ = ["crawlable"]  # fixtures this module uses


class ContentSite(SmallSite):
    """One group of the generated site's content pages, linked from the home page, with
    its llms.txt; images as bytes, a JPEG answering WebP to an Accept that asks for it."""

    def __init__(self, llms: tuple[int, dict[str, str], str] | None = None) -> None:
        group = content_pages.pages("/g0")
        links = [f"/g0/{entry}" for entry in content_pages.ENTRIES]
        served = {
            path: (s, {"Content-Type": kind}, body) for path, (s, kind, body) in group.items()
        }
        served["/"] = (200, HTML, page("Home", links))
        if llms is not None:
            served["/llms.txt"] = llms
        super().__init__(served)  # type: ignore[arg-type]

    def _handler(self):  # type: ignore[no-untyped-def]
        base = super()._handler()
        site = self

        class Handler(base):  # type: ignore[misc, valid-type]
            def _answer(self, body: bool) -> None:
                found = site.pages.get(self.path)
                if found is None or not isinstance(found[2], bytes):
                    return super()._answer(body)
                status, headers, data = found
                if self.path.endswith(content_pages.NEGOTIATED) and "image/webp" in (
                    self.headers.get("Accept") or ""
                ):
                    kind, data = content_pages.negotiated()
                    headers = {"Content-Type": kind}
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

        return Handler


def audited(seo, site: SmallSite) -> dict[str, dict]:
    created = seo.post("/api/v1/audits", {"url": site.url("/")})
    assert created.status == 201, created.body
    drain()
    audit = seo.get(f"/api/v1/audits/{created.data['id']}").data
    assert audit["status"] == "done", audit
    issues = seo.get(f"/api/v1/audits/{created.data['id']}/issues").data
    return {issue["code"]: issue for issue in issues}


def findings(site: SmallSite, issues: dict[str, dict], code: str) -> set[tuple[str, str]]:
    listed = issues.get(code, {"pages": []})["pages"]
    return {
        (p["url"].removeprefix(site.base), content_pages.finding(code, p["detail"])) for p in listed
    }


LLMS = "# Site\n\n> A summary.\n\n## Docs\n\n- [Home](BASE/): the home page\n"


def test_every_planted_structured_data_and_image_finding_and_nothing_else(seo, crawlable):
    site = ContentSite((200, {"Content-Type": "text/plain"}, LLMS))
    try:
        issues = audited(seo, site)
    finally:
        site.close()
    answers = content_pages.expected(1, site.base)
    for code, wanted in answers.items():
        if code.startswith("page_"):
            assert {u for u, _ in findings(site, issues, code)} == {u for u, _ in wanted}, code
        else:
            assert findings(site, issues, code) == wanted, code
    error = issues["structured_data_error"]
    assert error["severity"] == "medium" and error["learn_more"].startswith("https://")
    assert error["count"] == len(answers["structured_data_error"])
    oversized = next(iter(issues["image_oversized"]["pages"]))["detail"]
    assert "640x480 px shown at 100x75" in oversized
    # the audit's own checks replace the report's checks of the same things
    assert "page_rich_results" not in issues and "page_image_format" not in issues
    # a good llms.txt, whose link answers: no llms.txt issue
    assert not {code for code in issues if code.startswith("llms_txt")}
    # each image asked once, with an Accept that names AVIF and WebP
    images = [r for r in site.requests if r.path.endswith((".jpg", ".png", ".webp"))]
    assert len(images) == len({r.path for r in images})
    assert all("image/webp" in r.headers.get("accept", "") for r in images)


@pytest.mark.parametrize(
    ("llms", "wanted"),
    [
        (None, {"llms_txt_missing": {("/llms.txt", "not found (404)")}}),
        (
            (200, HTML, "<!doctype html><p>app</p>"),
            {
                "llms_txt_malformed": {
                    ("/llms.txt", "The file answers an HTML page, not Markdown text.")
                }
            },
        ),
        (
            (
                200,
                {"Content-Type": "text/markdown"},
                "Intro first\n\n# A\n\n# B\n\n## Docs\n\n"
                "- plain item\n- [Gone](/gone)\n\n### Deep\n",
            ),
            {
                "llms_txt_malformed": {
                    ("/llms.txt", "The file does not begin with an H1 title (# Site name)."),
                    ("/llms.txt", "Heading 'Deep' is an H3: use H2 sections."),
                    (
                        "/llms.txt",
                        "In section 'Docs', the item 'plain item' does not begin with a "
                        "Markdown link [name](url).",
                    ),
                    ("/llms.txt", "The file has 2 H1 headings; it should have one, the title."),
                },
                "llms_txt_broken_link": {("/llms.txt", "BASE/gone (404)")},
            },
        ),
    ],
    ids=["missing", "an-html-page", "malformed-and-a-broken-link"],
)
def test_llms_txt_is_reported_once_for_the_host(seo, crawlable, llms, wanted):
    site = SmallSite({"/": (200, HTML, page("Home"))} | ({"/llms.txt": llms} if llms else {}))
    try:
        issues = audited(seo, site)
    finally:
        site.close()
    found = {
        code: {(p["url"].removeprefix(site.base), p["detail"]) for p in issue["pages"]}
        for code, issue in issues.items()
        if code.startswith("llms_txt")
    }
    expected = {
        code: {(u, d.replace("BASE", site.base)) for u, d in pairs}
        for code, pairs in wanted.items()
    }
    assert found == expected
    assert site.paths().count("/llms.txt") == 1  # once a run, as robots.txt


def test_a_run_that_asks_for_a_crawl_delay_does_not_fetch_images(seo, crawlable, monkeypatch):
    """Images would exceed the pace the site asked for: only its pages are requested."""
    monkeypatch.setattr(crawler.politeness, "MAX_CRAWL_DELAY", 0.01)
    site = ContentSite()
    site.pages["/robots.txt"] = (200, {}, "User-agent: *\nCrawl-delay: 0.01\n")
    try:
        issues = audited(seo, site)
    finally:
        site.close()
    assert not [p for p in site.paths() if p.endswith((".jpg", ".png", ".webp"))]
    assert not {code for code in issues if code.startswith("image_")}
    assert "structured_data_error" in issues  # the pages were still checked
