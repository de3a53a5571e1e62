"""JavaScript rendering under `make serve`: the fixture single-page app (tests/fixtures/
spa.py, every link written by its script) audited with `render: js` by the server's own
worker, each page rendered on Debian's Chromium behind the SSRF guard, as a client would
start it. Measured: rendered pages a second (start to done, on the machine's 2 cores),
and that the app was crawled whole. Needs Chromium (`browser`): skipped without it.

24 pages (the app's 6 routes and 18 product pages), 16 in quick mode."""

from __future__ import annotations

import time
import uuid

import pytest

from tests.bench import report, timing
from tests.e2e.test_local_server import call, start_server
from tests.fixtures.spa import SpaSite

ITEMS = 10 if timing.QUICK else 18
KEY = "sl_bench_render_" + uuid.uuid4().hex
pytestmark = pytest.mark.browser
DEADLINE_S = 300


def wait(path: str, started: float) -> dict:
    """The audit once its run has ended (an answer other than 200 is asked again)."""
    while True:
        reply = call("GET", path, KEY)
        assert time.monotonic() - started < DEADLINE_S, reply.body
        if reply.status == 200 and reply.body["data"]["status"] not in (
            "queued",
            "crawling",
            "analysing",
        ):
            return dict(reply.body["data"])
        time.sleep(0.5)


def test_audit_render() -> None:
    site = SpaSite(items=ITEMS)
    server = start_server(
        SITELENS_DEV_API_KEY=KEY,
        SITELENS_ALLOW_PRIVATE_URLS="1",  # the app is on 127.0.0.1,
        SITELENS_FETCH_PORTS=str(site.port),  # on a port of its own
        POWERTOOLS_LOG_LEVEL="WARNING",
    )
    try:
        form = {"url": site.base + "/", "render": "js", "max_pages": "500"}
        started = time.monotonic()
        created = call("POST", f"{server.seo}/api/v1/audits", KEY, form=form)
        assert created.status == 201, created.body
        path = f"{server.seo}/api/v1/audits/{created.body['data']['id']}"
        audit = wait(path, started)
        seconds = time.monotonic() - started
        pages = call("GET", f"{path}/pages?per_page=100", KEY).body["data"]
    finally:
        server.stop()
        site.close()
    assert audit["status"] == "done", audit
    rendered = [p for p in pages if (p.get("rendering") or {}).get("mode") == "js"]
    assert {p["url"].removeprefix(site.base) for p in rendered} == set(site.routes)
    assert all("error" not in p["rendering"] for p in rendered), rendered
    report.RESULTS["audit_render"] = {
        "pages": len(rendered),
        "seconds": round(seconds, 1),
        "rendered_pages_per_s": round(len(rendered) / seconds, 2),
    }
    report.CONTEXT["audit_render"] = {
        "site": f"tests/fixtures/spa.py: {len(site.routes)} routes, every link written by "
        "its script after it fetched /api/routes.json",
        "server": "make serve (sitelens.local.server): the audit worker in process, pages "
        "rendered on Debian's Chromium, 2 at once (audits.chromium.LOCAL_THREADS)",
    }
