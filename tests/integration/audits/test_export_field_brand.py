"""Documents to send (issue 45, part 2), continued: a run's field vitals where the account
tracks the host, a report's PDF, and a document under another brand."""

from __future__ import annotations

import io

import pytest

from sitelens.data import audits as stored_audits
from sitelens.documents import audit_pdf, report_pdf
from sitelens.documents.brand import Brand
from tests.integration.audits.test_audit_exports import (
    answer,
    assert_rendered,
    pdf_of,
    text_of,
    two_runs,
)
from tests.integration.audits.test_audit_field import measured
from tests.integration.audits.test_audits import audit, audit_site, crawlable, drain

__all__ = ["audit_site", "crawlable", "two_runs"]  # fixtures this module uses


def test_a_tracked_host_s_field_vitals_are_in_its_run_s_pdf(
    seo, analytics, audit_site, crawlable, store
):
    pytest.importorskip("duckdb")
    site = analytics.post("/api/v1/websites", {"domain": "127.0.0.1"}).data["id"]
    store.write(measured(site, "/", 50))  # LCP 1,000 ms (good), CLS 0.3 (poor)
    created = audit(seo, audit_site)
    drain()
    text = text_of(pdf_of(seo, f"/api/v1/audits/{created['id']}/runs/1/export.pdf"))
    assert "Field vitals (real visits)" in text
    assert "measured by Sitelens analytics on 1 page of this site in the 28 days" in text
    assert "LCP 1 0 0" in text  # pages good, needs improvement, poor
    assert "CLS 0 0 1" in text
    assert f"{audit_site.url('/')} 1,000 ms (good) - 0.3 (poor)" in text


def test_an_untracked_host_s_pdf_has_no_field_section(seo, audit_site, crawlable):
    created = audit(seo, audit_site)
    drain()
    text = text_of(pdf_of(seo, f"/api/v1/audits/{created['id']}/runs/1/export.pdf"))
    assert "Field vitals" not in text


def test_a_report_s_pdf_reads_as_the_report(seo, other_seo, site, crawlable):
    created = seo.post("/api/v1/reports", {"url": site.url("/good")})
    assert created.status == 201, created.body
    report = created.data
    body = pdf_of(seo, f"/api/v1/reports/{report['id']}/export.pdf")
    text = text_of(body)
    assert f"SEO report of {report['url']}" in text
    assert f"{report['score']} score out of 100" in text
    failed = {k: r for k, r in report["results"].items() if not r["passed"]}
    for key, result in failed.items():
        assert key.replace("_", " ").capitalize() in text
        if result.get("fix"):
            assert " ".join(result["fix"].split()) in text
    passed = [k.replace("_", " ") for k, r in report["results"].items() if r["passed"]]
    assert passed and passed[0] in text
    assert assert_rendered(body) >= 1
    assert answer(other_seo, f"/api/v1/reports/{report['id']}/export.pdf")["statusCode"] == 404
    assert answer(seo, "/api/v1/reports/abc/export.pdf")["statusCode"] == 404
    assert answer(seo, "/api/v1/reports/9999/export.pdf")["statusCode"] == 404


def test_a_report_s_field_data_is_in_its_pdf():
    report = {
        "url": "https://shop.example/",
        "score": 80,
        "result": "good",
        "results": {"title": {"passed": True, "importance": "high"}},
        "generated_at": "2026-11-20T08:00:00Z",
        "field_data": {
            "status": "measured",
            "days": 28,
            "note": "Every vital was measured on enough page views.",
            "traffic": {"pageviews": 1234, "visitors": 300},
            "vitals": {"lcp": {"samples": 60, "p75": 2600, "rating": "needs_improvement"}},
        },
    }
    text = text_of(report_pdf.render(report))
    assert "Every check passed." in text
    assert "Pageviews: 1,234 · visitors: 300" in text
    assert "LCP 2,600 ms needs improvement 60" in text


def _png(width: int, height: int) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


def test_a_document_under_another_brand(account, two_runs):
    record = stored_audits.get(account.id, 1)
    assert record is not None
    summary = {"run": 2, "score": 70, "pages": 3, "issues": {}, "diff": None}
    brand = Brand(
        name="Agence Éclair", accent="#cc0000", logo_png=_png(60, 20), contact="hi@eclair.example"
    )
    body = audit_pdf.render(record, summary, [], None, brand)
    text = text_of(body)
    assert "Agence Éclair" in text and "hi@eclair.example" in text
    assert "Made with Sitelens" in text
    assert_rendered(body)
    unbranded = Brand(name="Agence Éclair", made_with=False, logo_png=b"not an image")
    text = text_of(audit_pdf.render(record, summary, [], None, unbranded))
    assert "Sitelens" not in text  # neither as a name nor as "made with"
    assert Brand(accent="red").accent_rgb() == Brand().accent_rgb()  # not #rrggbb: the default


def test_a_report_s_pdf_carries_its_project_s_brand(seo, site, crawlable):
    created = seo.post("/api/v1/reports", {"url": site.url("/good")}).data
    plain = text_of(pdf_of(seo, f"/api/v1/reports/{created['id']}/export.pdf"))
    assert "Made with Sitelens" in plain
    brand = {"name": "Agence Éclair", "contact": "hello@eclair.example", "made_with": 0}
    reply = seo.put(f"/api/v1/projects/{created['project']}/brand", brand)
    assert reply.status == 200, reply.body
    text = text_of(pdf_of(seo, f"/api/v1/reports/{created['id']}/export.pdf"))
    assert "Agence Éclair" in text and "hello@eclair.example" in text
    assert "Sitelens" not in text
