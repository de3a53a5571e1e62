"""An audit run's PDF for a 20,000-page audit (issue 45: under 10 s): the run stored as its
analysis leaves it (the state with its summary and field summary, and every issue a run
can have at its display cap of `checks.MAX_AFFECTED` pages, the worst case of what the
document reads), then `documents.audit_pdf.build` timed from the stored items (moto) to
the PDF's bytes, as the export function runs it. The document reads no page items, so
none are stored; its pages printed an issue are capped (`audit_pdf.TOP_PAGES`).

2,000 pages in quick mode (make test's run of the bench), whose figures mean nothing."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from sitelens.audits import checks
from sitelens.audits.runs import SEVERITIES
from sitelens.data import audits as stored_audits
from sitelens.documents import audit_pdf
from sitelens.seo.checks import CHECKS
from tests.bench import report, timing

PAGES = 2_000 if timing.QUICK else 20_000
TARGET_S = 10.0
ACCOUNT = "acct-bench-pdf"
BASE = "https://www.example-shop.test"


def url(n: int) -> str:
    return f"{BASE}/category-{n % 97}/product-with-a-long-descriptive-slug-{n}?colour=blue"


def issues() -> list[dict[str, Any]]:
    """Every cross-page check and every per-page report check found, each on a share of
    the site's pages, listing `MAX_AFFECTED` of them with their pageviews."""
    codes = [*checks.DEFINITIONS, *(f"page_{key}" for key in CHECKS)]
    found = []
    for n, code in enumerate(codes):
        count = max(1, PAGES // (n % 7 + 1))
        listed = [
            {"url": url(n * 31 + k), "detail": f"detail of {code} on page {k}", "pageviews": k}
            for k in range(min(count, checks.MAX_AFFECTED))
        ]
        found.append(
            {
                "code": code,
                "severity": SEVERITIES[n % 3],
                "title": f"Pages with the issue {code}",
                "fix": "Fix the thing the check found, on every page it lists, then run again.",
                "learn_more": "https://developers.google.com/search/docs",
                "count": count,
                "pageviews": sum(p["pageviews"] for p in listed),
                "pages": listed,
            }
        )
    return found


def stored_run() -> None:
    crawl = stored_audits.crawl_key(ACCOUNT, 1, 2)
    found = issues()
    counts = {s: sum(1 for i in found if i["severity"] == s) for s in SEVERITIES}
    change = {
        "new": [{**_entry(i), "new_pages": i["count"]} for i in found[:5]],
        "fixed": [{**_entry(i), "fixed_pages": 12} for i in found[5:8]],
        "removed": [],
        "persisting": [{**_entry(i), "new_pages": 3, "fixed_pages": 2} for i in found[8:]],
        "pages_added": 120,
        "pages_removed": 40,
        "score_delta": -4,
    }
    summary = {
        "run": 2,
        "status": "done",
        "started_at": "2026-11-20T08:00:00Z",
        "finished_at": "2026-11-20T09:00:00Z",
        "pages": PAGES,
        "score": 71,
        "issues": counts,
        "diff": change,
        "regression_reasons": [],
    }
    field = {
        "days": 28,
        "pages": 1000,
        "ratings": {
            n: {"good": 800, "needs_improvement": 150, "poor": 50} for n in ("lcp", "inp", "cls")
        },
        "worst": [
            {"url": url(k), "lcp": 5200, "inp": 640, "cls": 0.4}
            | {"lcp_rating": "poor", "inp_rating": "poor", "cls_rating": "poor"}
            for k in range(10)
        ],
    }
    stored_audits.start(
        crawl,
        {
            "crawl": crawl,
            "account": ACCOUNT,
            "audit": 1,
            "run": 2,
            "status": "done",
            "summary": json.dumps(summary),
            "field_summary": json.dumps(field),
            "expires_at": 2_000_000_000,
        },
    )
    stored_audits.save_issues(crawl, found, 2_000_000_000)
    stored_audits.create(
        {
            "account": ACCOUNT,
            "id": 1,
            "name": "A shop of 20,000 pages" if not timing.QUICK else "A shop",
            "url": BASE + "/",
            "share_id": "b" * 22,
            "run": 2,
            "runs": json.dumps([summary]),
            "created_at": "2026-11-20T08:00:00Z",
            "updated_at": "2026-11-20T08:00:00Z",
        }
    )


def _entry(issue: dict[str, Any]) -> dict[str, Any]:
    return {
        "code": issue["code"],
        "severity": issue["severity"],
        "pages": issue["count"],
        "new_pages": 0,
        "added_pages": 0,
        "fixed_pages": 0,
        "removed_pages": 0,
    }


@pytest.mark.usefixtures("aws_env")
def test_audit_pdf() -> None:
    stored_run()
    samples, size, pages = [], 0, 0
    for _ in range(timing.RUNS):
        started = time.perf_counter()
        body = audit_pdf.build(ACCOUNT, 1, 2)
        samples.append(time.perf_counter() - started)
        size = len(body)
    import io

    from pypdf import PdfReader

    pages = len(PdfReader(io.BytesIO(body)).pages)
    seconds = timing.median(samples)
    report.RESULTS["audit_pdf"] = {
        "pages_audited": PAGES,
        "issues": len(issues()),
        "seconds": round(seconds, 2),
        "max_seconds": round(max(samples), 2),
        "bytes": size,
        "document_pages": pages,
    }
    report.CONTEXT["audit_pdf"] = {
        "what": "documents.audit_pdf.build from moto's stored items to the PDF's bytes: every "
        f"check found, {checks.MAX_AFFECTED} pages listed each, {audit_pdf.TOP_PAGES} printed",
    }
    if not timing.QUICK:
        assert seconds < TARGET_S
