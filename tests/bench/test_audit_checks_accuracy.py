"""Precision and recall of the audit's structured-data, image and llms.txt checks against
the generated site's known answers (tests/bench/content_pages.py, served in every group of
tests/bench/audit_site.py), the site audited under `make serve` as a client would (POST
/api/v1/audits, then GET until done). Each finding counts: (page, detail) for structured
data and llms.txt (the detail names the type and property), (page, image) for images,
(page) for missing alt text (the report check `image_keywords`). Target: 100% / 100%."""

from __future__ import annotations

import time
import uuid
from typing import Any

from tests.bench import content_pages, report, timing
from tests.bench.audit_site import GeneratedSite
from tests.e2e.test_local_server import call, start_server

GROUPS = 2 if timing.QUICK else 10  # each plants every structured-data and image case
PAGES = 150 if timing.QUICK else 600
KEY = "sl_bench_accuracy_" + uuid.uuid4().hex
DEADLINE_S = 600


def wait(path: str, started: float) -> dict[str, Any]:
    """The audit once its run has ended."""
    while True:
        audit: dict[str, Any] = call("GET", path, KEY).body["data"]
        if audit["status"] not in ("queued", "crawling", "analysing"):
            return audit
        assert time.monotonic() - started < DEADLINE_S, audit
        time.sleep(0.5)


def accuracy(
    expected: dict[str, set[tuple[str, str]]], issues: dict[str, Any], base: str
) -> dict[str, dict[str, Any]]:
    """Per check: findings right, wrong and missed, precision and recall (1.0 when there
    was nothing to find, or nothing found)."""
    found = {}
    for code, wanted in expected.items():
        listed = {
            (p["url"].removeprefix(base), content_pages.finding(code, p["detail"]))
            for p in issues.get(code, {"pages": []})["pages"]
        }
        if code.startswith("page_"):  # a report check: its pages
            listed, wanted = {(u, "") for u, _ in listed}, {(u, "") for u, _ in wanted}
        hits = len(listed & wanted)
        found[code] = {
            "true": hits,
            "false": len(listed - wanted),
            "missed": len(wanted - listed),
            "precision": hits / len(listed) if listed else 1.0,
            "recall": hits / len(wanted) if wanted else 1.0,
        }
    return found


def test_audit_checks_accuracy() -> None:
    site = GeneratedSite(PAGES, GROUPS)
    server = start_server(
        SITELENS_DEV_API_KEY=KEY,
        SITELENS_ALLOW_PRIVATE_URLS="1",  # the site is on 127.0.0.1,
        SITELENS_FETCH_PORTS=str(site.port),  # on a port of its own
        POWERTOOLS_LOG_LEVEL="WARNING",
    )
    try:
        form = {"url": site.url("/"), "max_pages": str(len(site.pages) + 100)}
        started = time.monotonic()
        created = call("POST", f"{server.seo}/api/v1/audits", KEY, form=form)
        assert created.status == 201, created.body
        path = f"{server.seo}/api/v1/audits/{created.body['data']['id']}"
        audit = wait(path, started)
        seconds = time.monotonic() - started
        assert audit["status"] == "done", audit
        issues = {i["code"]: i for i in call("GET", f"{path}/issues", KEY).body["data"]}
    finally:
        server.stop()
        site.close()
    checked = accuracy(site.content_expected, issues, site.base)
    report.RESULTS["audit_checks_accuracy"] = {
        "pages": audit["progress"]["fetched"],
        "seconds": round(seconds, 1),
        "findings": sum(c["true"] + c["missed"] for c in checked.values()),
        "precision_min": min(c["precision"] for c in checked.values()),
        "recall_min": min(c["recall"] for c in checked.values()),
        "checks": checked,
    }
    report.CONTEXT["audit_checks_accuracy"] = {
        "site": f"tests/bench/audit_site.py with tests/bench/content_pages.py: {GROUPS} groups "
        "of structured data (JSON-LD, Microdata, RDFa) and image cases, and an llms.txt",
    }
