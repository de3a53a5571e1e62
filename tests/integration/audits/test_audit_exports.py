"""Documents to send (issue 45, part 2): an audit run's and a report's PDF, read as a reader
would (the text extracted, the pages rendered to PNG), and the per-URL change list between
two runs as CSV; through API Gateway events on moto, isolated between accounts."""

from __future__ import annotations

import base64
import csv
import io
import json
from typing import Any

import pypdfium2
import pytest
from pypdf import PdfReader

from sitelens.audits import analysis
from sitelens.data import audits as stored_audits
from sitelens.data import batches
from sitelens.data.audits import PAGE
from sitelens.data.items import to_item
from sitelens.documents import audit_pdf
from sitelens.edge import exports
from tests.conftest import Client
from tests.integration.audits.test_audits import audit, audit_site, crawlable, drain

__all__ = ["audit_site", "crawlable"]  # fixtures this module uses

BASE = "https://shop.example"
A4_POINTS = (595, 842)  # 210 x 297 mm


def answer(client: Client, path: str, **query: Any) -> dict[str, Any]:
    """The raw proxy answer (headers, base64 body) of a GET, as API Gateway receives it."""
    from sitelens.local import gateway

    headers = {"Host": "api.test", "Authorization": f"Bearer {client.key}"}
    event = gateway.proxy_event(
        "GET", path, "", query="&".join(f"{k}={v}" for k, v in query.items()), headers=headers
    )
    return client.gateway.handle(event)


def pdf_of(client: Client, path: str) -> bytes:
    found = answer(client, path)
    assert found["statusCode"] == 200, found["body"]
    assert found["isBase64Encoded"] is True
    assert found["headers"]["Content-Type"] == "application/pdf"
    assert found["headers"]["Content-Disposition"].startswith('attachment; filename="sitelens-')
    body = base64.b64decode(found["body"])
    assert body.startswith(b"%PDF-")
    return body


def text_of(body: bytes) -> str:
    """The document's words as a reader's tool extracts them, whitespace collapsed."""
    pages = PdfReader(io.BytesIO(body)).pages
    return " ".join(" ".join((page.extract_text() or "").split()) for page in pages)


def assert_rendered(body: bytes) -> int:
    """Every page renders to an A4 PNG with ink on it; the number of pages."""
    document = pypdfium2.PdfDocument(body)
    for n in range(len(document)):
        page = document[n]
        assert tuple(round(v) for v in page.get_size()) == A4_POINTS
        image = page.render(scale=0.5).to_pil()
        png = io.BytesIO()
        image.save(png, format="PNG")
        assert png.getvalue().startswith(b"\x89PNG")
        assert image.size == (round(A4_POINTS[0] / 2), round(A4_POINTS[1] / 2))
        darkest, lightest = image.convert("L").getextrema()
        assert lightest > 200 and darkest < 100, f"page {n + 1} is blank"
    return len(document)


# -- a crawled audit, end to end --------------------------------------------------------


def test_a_crawled_run_s_pdf_reads_as_its_issues(seo, other_seo, audit_site, crawlable):
    created = audit(seo, audit_site)
    drain()
    issues = seo.get(f"/api/v1/audits/{created['id']}/issues").data
    shown = seo.get(f"/api/v1/audits/{created['id']}").data
    body = pdf_of(seo, f"/api/v1/audits/{created['id']}/runs/1/export.pdf")
    text = text_of(body)
    assert f"Site audit of {audit_site.url('/')}" in text
    assert f"{shown['score']} score out of 100" in text
    assert "This is the audit's first run" in text
    assert issues
    for issue in issues:
        assert " ".join(issue["title"].split()) in text
        assert " ".join(issue["fix"].split()) in text
        assert issue["pages"][0]["url"] in text
    assert "Made with Sitelens" in text
    assert assert_rendered(body) >= 1
    # another account's audit, and runs it never had
    assert (
        answer(other_seo, f"/api/v1/audits/{created['id']}/runs/1/export.pdf")["statusCode"] == 404
    )
    for run in ("2", "0", "abc", "-1", "1.5"):
        found = answer(seo, f"/api/v1/audits/{created['id']}/runs/{run}/export.pdf")
        assert found["statusCode"] == 404, run
        assert json.loads(found["body"]) == {"message": "Resource not found.", "status": 404}
    assert answer(seo, "/api/v1/audits/999/runs/1/export.pdf")["statusCode"] == 404


def test_a_run_not_done_has_no_document_yet(seo, audit_site, crawlable):
    created = audit(seo, audit_site)  # queued, never crawled
    found = answer(seo, f"/api/v1/audits/{created['id']}/runs/1/export.pdf")
    assert found["statusCode"] == 409
    assert "Run 1 is queued" in json.loads(found["body"])["message"]
    found = answer(seo, f"/api/v1/audits/{created['id']}/runs/1/changes.csv", against=1)
    assert found["statusCode"] == 422


# -- two stored runs: their changes -------------------------------------------------------


def page(path: str, **fields: Any) -> dict[str, Any]:
    item = {
        "url": BASE + path,
        "state": "fetched",
        "status_code": 200,
        "title": f"Page {path}",
        "description": f"About {path}",
        "canonical": None,
        "noindex": False,
        "links": json.dumps([BASE + "/"]),
        "external_links": "[]",
        "hreflang": "[]",
        "mixed": "[]",
        "simhash": str(abs(hash(path)) % 2**64),
        "words": 120,
        "found_depth": 1,
        "score": 100,
        "failed_checks": "[]",
    }
    return {**item, **fields}


def stored_run(account: str, run: int, pages: list[dict[str, Any]]) -> None:
    """A run of audit 1 as its crawl leaves it, analysed as the worker analyses it."""
    from sitelens.core.config import settings

    crawl = stored_audits.crawl_key(account, 1, run)
    stored_audits.start(
        crawl,
        {
            "crawl": crawl,
            "account": account,
            "audit": 1,
            "run": run,
            "status": "crawling",
            "url": BASE + "/",
            "include": "",
            "exclude": "",
            "started_at": "2026-11-20T08:00:00Z",
            "expires_at": 2_000_000_000,
        },
    )
    puts = [
        {"PutRequest": {"Item": to_item({"crawl": crawl, "key": PAGE + p["url"], **p})}}
        for p in pages
    ]
    batches.write(settings().audit_crawls_table, puts)
    analysis.analyse(crawl)


@pytest.fixture
def two_runs(account) -> None:
    """Audit 1 of the account, run twice: 30 pages sharing a title in run 2 (more than a
    document lists), one page gone, one new, and each compared field changed on one page."""
    stored_audits.create(
        {
            "account": account.id,
            "id": 1,
            "name": "Shop",
            "url": BASE + "/",
            "search": BASE + "/",
            "max_pages": 100,
            "max_depth": 5,
            "include": "",
            "exclude": "",
            "respect_robots": 1,
            "schedule": "none",
            "privacy": 0,
            "share_id": "s" * 22,
            "run": 2,
            "runs": "[]",
            "created_at": "2026-11-20T08:00:00Z",
            "updated_at": "2026-11-20T08:00:00Z",
        }
    )
    common = [page("/"), *(page(f"/p{n:02d}") for n in range(30))]
    first = [*common, page("/gone"), page("/wörter-ü", title="Ünïcödé ☃ 页面")]
    second = [
        page("/"),
        *(page(f"/p{n:02d}", title="Same") for n in range(30)),
        page("/new", found_depth=2),
        page("/wörter-ü", title="Ünïcödé ☃ 页面", words=7, found_depth=3, noindex=True),
    ]
    second[1] = {**second[1], "status_code": 404}
    second[2] = {**second[2], "canonical": BASE + "/"}
    stored_run(account.id, 1, first)
    stored_run(account.id, 2, second)


def rows_of(reply: dict[str, Any]) -> list[dict[str, str]]:
    assert reply["statusCode"] == 200, reply["body"]
    assert reply["headers"]["Content-Type"] == "text/csv; charset=utf-8"
    return list(csv.DictReader(io.StringIO(reply["body"])))


def test_the_change_list_has_each_url_that_changed(seo, two_runs):
    rows = {r["url"]: r for r in rows_of(answer(seo, "/api/v1/audits/1/runs/2/changes.csv"))}
    assert rows[BASE + "/gone"]["change"] == "removed"
    assert rows[BASE + "/gone"]["title_old"] == "Page /gone"
    assert rows[BASE + "/gone"]["title_new"] == ""
    assert rows[BASE + "/new"]["change"] == "added"
    assert rows[BASE + "/new"]["depth_new"] == "2"
    p00 = rows[BASE + "/p00"]
    assert p00["change"] == "changed"
    assert p00["changed"] == "status_code title indexability"
    assert (p00["status_code_old"], p00["status_code_new"]) == ("200", "404")
    assert (p00["indexability_old"], p00["indexability_new"]) == ("indexable", "client error")
    p01 = rows[BASE + "/p01"]
    assert p01["changed"] == "title canonical indexability"
    assert p01["indexability_new"] == "canonicalised"
    words = rows[BASE + "/wörter-ü"]
    assert words["changed"] == "indexability word_count depth"
    assert (words["word_count_old"], words["word_count_new"]) == ("120", "7")
    assert (words["depth_old"], words["depth_new"]) == ("1", "3")
    assert words["indexability_new"] == "noindex"
    assert words["title_new"] == "Ünïcödé ☃ 页面"
    assert BASE + "/" not in rows  # unchanged: not listed
    assert len(rows) == 2 + 30 + 1
    # against another run: the other way round
    back = {
        r["url"]: r for r in rows_of(answer(seo, "/api/v1/audits/1/runs/1/changes.csv", against=2))
    }
    assert back[BASE + "/gone"]["change"] == "added"
    assert back[BASE + "/new"]["change"] == "removed"


@pytest.mark.parametrize(
    ("path", "query", "status", "field"),
    [
        ("/api/v1/audits/1/runs/1/changes.csv", {}, 422, "against"),  # no run before the first
        ("/api/v1/audits/1/runs/2/changes.csv", {"against": 2}, 422, "against"),
        ("/api/v1/audits/1/runs/2/changes.csv", {"against": 3}, 422, "against"),
        ("/api/v1/audits/1/runs/2/changes.csv", {"against": "x"}, 422, "against"),
        ("/api/v1/audits/1/runs/3/changes.csv", {}, 404, None),
        ("/api/v1/audits/1/runs/x/changes.csv", {}, 404, None),
    ],
)
def test_bad_runs_to_compare_are_refused(seo, two_runs, path, query, status, field):
    found = answer(seo, path, **query)
    assert found["statusCode"] == status, found["body"]
    if field:
        assert list(json.loads(found["body"])["message"]) == [field]


def test_another_account_sees_none_of_the_runs(other_seo, two_runs):
    for path in ("/api/v1/audits/1/runs/2/changes.csv", "/api/v1/audits/1/runs/2/export.pdf"):
        assert answer(other_seo, path)["statusCode"] == 404


def test_the_second_run_s_pdf_says_what_changed(seo, two_runs):
    body = pdf_of(seo, "/api/v1/audits/1/runs/2/export.pdf")
    text = text_of(body)
    assert "Site audit of Shop" in text
    assert "Changes since the last run" in text
    assert "Pages added: 1; pages removed: 2." in text  # /gone, and /p00 now a 404
    assert "Indexable pages sharing a title" in text
    assert "new" in text
    # 29 pages share the title "Same" (/p00 is a 404): 10 are listed, the rest counted
    assert "and 19 more pages" in text
    assert assert_rendered(body) >= 1


def test_a_document_too_large_for_the_api_is_422(seo, two_runs, monkeypatch):
    monkeypatch.setattr(exports, "MAX_DOCUMENT_BYTES", 1_000)
    found = answer(seo, "/api/v1/audits/1/runs/2/export.pdf")
    assert found["statusCode"] == 422
    assert json.loads(found["body"])["message"] == {"format": [exports.DOCUMENT_TOO_LARGE]}


def test_text_of_any_script_prints(account, two_runs):
    """Titles and URLs in scripts the font lacks, and control characters, never fail it."""
    record = stored_audits.get(account.id, 1)
    assert record is not None
    summary = {"run": 1, "score": 50, "pages": 1, "issues": {"high": 1}, "diff": None}
    issue = {
        "code": "duplicate_title",
        "severity": "high",
        "title": "Titel ‮rückwärts 🙂 页面 \x00\x07",
        "fix": "Fix it.",
        "learn_more": "https://example.com/ä",
        "count": 1,
        "pageviews": None,
        "muted": False,
        "pages": [{"url": BASE + "/页面/🙂?q=ü", "detail": "x" * 5_000}],
    }
    text = text_of(audit_pdf.render(record, summary, [issue], None))
    assert "Titel rückwärts" in text and "\x00" not in text
