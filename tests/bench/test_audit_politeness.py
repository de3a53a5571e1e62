"""Politeness under `make serve`: two audits of one host started at once, crawled by the
server's own worker as a client starts them (POST /api/v1/audits twice, then GET until
both are done). Measured from the fixture site's own request log: the host's fetch rate
over the two crawls (its pages' requests; robots.txt and sitemaps, read once a run by its
start step, aside), which must stay at one audit's configured rate (SITELENS_AUDIT_RATE,
set to 20 here, the deployed default), not twice it; and its peak, the fastest ten
consecutive requests (a batch's), which a worker slower than the rate would average away.

A site of 100 pages (40 in quick mode): 200 fetches, about 10 s at 20 a second."""

from __future__ import annotations

import time
import uuid

from tests.bench import report, timing
from tests.e2e.test_local_server import call, start_server
from tests.integration.audits.site import Site, flat_pages

PAGES = 40 if timing.QUICK else 100
RATE = 20  # pages a second: SITELENS_AUDIT_RATE, the deployed default
KEY = "sl_bench_polite_" + uuid.uuid4().hex
DEADLINE_S = 300


def test_audit_politeness() -> None:
    site = Site()
    site.pages = flat_pages(PAGES)
    server = start_server(
        SITELENS_DEV_API_KEY=KEY,
        SITELENS_ALLOW_PRIVATE_URLS="1",  # the site is on 127.0.0.1,
        SITELENS_FETCH_PORTS=str(site.port),  # on a port of its own
        SITELENS_AUDIT_RATE=str(RATE),
        POWERTOOLS_LOG_LEVEL="WARNING",
    )
    try:
        form = {"url": site.url("/"), "max_pages": str(PAGES)}
        paths = []
        for _ in range(2):
            created = call("POST", f"{server.seo}/api/v1/audits", KEY, form=form)
            assert created.status == 201, created.body
            paths.append(f"{server.seo}/api/v1/audits/{created.body['data']['id']}")
        started = time.monotonic()
        for path in paths:
            while (audit := call("GET", path, KEY).body["data"])["status"] in (
                "queued",
                "crawling",
                "analysing",
            ):
                assert time.monotonic() - started < DEADLINE_S, audit
                time.sleep(0.5)
            assert audit["status"] == "done" and audit["progress"]["fetched"] == PAGES, audit
    finally:
        server.stop()
        site.close()
    times = [at for at, path in site.times if path in site.pages and path != "/robots.txt"]
    assert len(times) == 2 * PAGES  # each page once an audit
    seconds = times[-1] - times[0]
    span = 9  # intervals between ten requests
    peak = max(span / (times[n + span] - times[n]) for n in range(len(times) - span))
    report.RESULTS["audit_politeness"] = {
        "requests": len(times),
        "seconds": round(seconds, 2),
        "rate": round((len(times) - 1) / seconds, 2),
        "configured_rate": RATE,
        "peak_rate": round(peak, 2),
    }
    report.CONTEXT["audit_politeness"] = {
        "site": f"{PAGES} pages on one host (127.0.0.1, a port of its own), two audits of it "
        "started at once by one account",
        "server": f"make serve, SITELENS_AUDIT_RATE {RATE}/s, the audit worker in process",
        "measured": "the site's own log of its pages' requests: (requests - 1) / (last - "
        "first); peak: 9 / the shortest time ten consecutive requests took",
    }
