"""A report of a tracked page under `make serve` (issue 24, part 6): vitals and pageviews
sent through /api/event, counted by the queue worker into the local warehouse, then
`POST /api/v1/reports` of the page carries them as field data and judges load_time by
them (the real program over HTTP)."""

from __future__ import annotations

import time

import pytest

from tests.e2e.test_local_analytics import send
from tests.e2e.test_local_server import call
from tests.fixtures.analytics import CHROME

pytest.importorskip("duckdb")

VISITS = 55  # past the 50 page views a vital needs


def test_a_report_of_a_tracked_page_carries_its_field_data(server, dev_key, site):
    # The e2e modules' shared server fetches private addresses (the fixture site is on
    # 127.0.0.1); the only module of it that claims this fixed domain.
    website = call(
        "POST", f"{server.analytics}/api/v1/websites", dev_key, form={"domain": "127.0.0.1"}
    )
    assert website.status == 201, website.body
    url = site.url("/good")
    for n in range(VISITS):  # LCP 1,000 to 2,080 ms: p75 at 40.5 of 54 -> 1,810 ms
        agent = {"User-Agent": CHROME.replace("Chrome/", f"Chrome/{n}")}
        vitals = {"page": url, "engagement_ms": "3000", "lcp": str(1000 + 20 * n), "cls": "0.02"}
        for form in ({"page": url}, vitals):
            status, body = send(f"{server.analytics}/api/event", form, **agent)
            assert status == 202, body
    deadline = time.monotonic() + 60  # within moments; a loaded machine may take tens of s
    while True:
        reply = call("POST", f"{server.seo}/api/v1/reports", dev_key, form={"url": url})
        assert reply.status == 201, reply.body
        field = reply.body["data"]["field_data"]
        measured = field["status"] == "measured" and field["vitals"]["lcp"]["samples"] == VISITS
        if measured or time.monotonic() > deadline:
            break
        time.sleep(0.2)
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
