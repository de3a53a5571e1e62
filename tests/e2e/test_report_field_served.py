"""A report of a tracked page under `make serve` (issue 24, part 6): vitals and pageviews
sent through /api/event, counted by the queue worker into the local warehouse, then
`POST /api/v1/reports` of the page carries them as field data and judges load_time by
them (the real program over HTTP)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.e2e.test_local_analytics import send
from tests.e2e.test_local_server import Server, call, start_server
from tests.fixtures import site as fixture_site
from tests.fixtures.analytics import CHROME

pytest.importorskip("duckdb")

KEY = "sl_test_field_" + uuid.uuid4().hex
VISITS = 55  # past the 50 page views a vital needs


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Server, fixture_site.Site]]:
    page_site = fixture_site.Site()
    running = start_server(
        SITELENS_DEV_API_KEY=KEY,
        SITELENS_ALLOW_PRIVATE_URLS="1",  # the fixture site is on 127.0.0.1
        SITELENS_FETCH_PORTS=f"80,443,{page_site.port}",
        SITELENS_LOCAL_DB="memory",
    )
    try:
        yield running, page_site
    finally:
        running.stop()
        page_site.close()


def test_a_report_of_a_tracked_page_carries_its_field_data(served):
    server, page_site = served
    website = call("POST", f"{server.analytics}/api/v1/websites", KEY, form={"domain": "127.0.0.1"})
    assert website.status == 201, website.body
    url = page_site.url("/good")
    for n in range(VISITS):  # LCP 1,000 to 2,080 ms: p75 at 40.5 of 54 -> 1,810 ms
        agent = {"User-Agent": CHROME.replace("Chrome/", f"Chrome/{n}")}
        vitals = {"page": url, "engagement_ms": "3000", "lcp": str(1000 + 20 * n), "cls": "0.02"}
        for form in ({"page": url}, vitals):
            status, body = send(f"{server.analytics}/api/event", form, **agent)
            assert status == 202, body
    for _ in range(50):  # the queue worker counts them within moments
        reply = call("POST", f"{server.seo}/api/v1/reports", KEY, form={"url": url})
        assert reply.status == 201, reply.body
        field = reply.body["data"]["field_data"]
        if field["status"] == "measured" and field["vitals"]["lcp"]["samples"] == VISITS:
            break
    assert field["traffic"] == {"pageviews": VISITS, "visitors": VISITS, "bounce_rate": 100.0}
    assert field["vitals"]["lcp"] == {
        "samples": VISITS,
        "p75": 1810,
        "rating": "good",
        "good": 100.0,
        "needs_improvement": 0.0,
        "poor": 0.0,
    }
    assert field["vitals"]["inp"]["p75"] is None  # no interaction measured
    load = reply.body["data"]["results"]["load_time"]
    assert (load["passed"], load["value"], load["source"]) == (True, 1.81, "field")
