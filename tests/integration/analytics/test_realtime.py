"""GET /api/v1/stats/{id}/realtime: visitors of the last five minutes, with the pages they
are on and where their visits came from, from what the aggregator has counted."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sitelens.core import clock
from tests.fixtures.analytics import receive, run

CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)


def send(analytics: Any, monkeypatch: pytest.MonkeyPatch, ip: str, ago: int, **form: str):
    moment = datetime.now(UTC) - timedelta(seconds=ago)
    monkeypatch.setattr(clock, "now", lambda: moment)
    reply = analytics.request(
        "POST", "/api/event", form=form, key=None, headers={"User-Agent": CHROME}, source_ip=ip
    )
    assert reply.status == 202, reply.body


def test_visitors_pages_and_sources_now(analytics, monkeypatch):
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    page = "https://shop.example"
    # one visitor from Google, on /pricing now (it landed on / a minute ago)
    send(
        analytics,
        monkeypatch,
        "198.51.100.1",
        70,
        page=f"{page}/",
        referrer="https://www.google.com/",
    )
    send(analytics, monkeypatch, "198.51.100.1", 5, page=f"{page}/pricing", referrer=f"{page}/")
    # two visitors typing the address, on /
    send(analytics, monkeypatch, "198.51.100.2", 30, page=f"{page}/")
    send(analytics, monkeypatch, "198.51.100.3", 10, page=f"{page}/")
    # one who left ten minutes ago is not here now
    send(analytics, monkeypatch, "198.51.100.4", 600, page=f"{page}/gone", referrer="https://t.co/")
    assert run("HitsQueue", receive("HitsQueue")) == {"batchItemFailures": []}
    monkeypatch.undo()
    reply = analytics.get(f"/api/v1/stats/{site['id']}/realtime")
    assert reply.status == 200, reply.body
    assert reply.body == {
        "data": {
            "visitors": 3,
            "pages": [{"value": "/", "count": 2}, {"value": "/pricing", "count": 1}],
            "sources": [{"value": "", "count": 2}, {"value": "Google", "count": 1}],
        },
        "status": 200,
    }


def test_another_account_s_website_is_404(analytics, other_analytics):
    theirs = other_analytics.post("/api/v1/websites", {"domain": "theirs.example"}).data
    reply = analytics.get(f"/api/v1/stats/{theirs['id']}/realtime")
    assert reply.body == {"message": "Resource not found.", "status": 404}
    assert analytics.get("/api/v1/stats/999/realtime").status == 404
    assert analytics.get(f"/api/v1/stats/{theirs['id']}/realtime", key=None).status == 401


@pytest.mark.parametrize("landing_batch", ["first", "last"])
def test_a_visit_keeps_its_source_when_its_minute_is_counted_in_two_batches(
    analytics, monkeypatch, landing_batch
):
    """The aggregator counts a few seconds of hits at a time, so a visitor's landing and
    next page of the same minute often come in two batches, in either order: the visitor is
    on the next page, and the visit still came from Google."""
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    page = "https://shop.example"
    minute = (int(time.time()) // 60 - 2) * 60  # a whole minute, two minutes ago

    def ago(second: int) -> int:
        return int(time.time()) - (minute + second)

    google = "https://www.google.com/"
    send(analytics, monkeypatch, "198.51.100.1", ago(5), page=f"{page}/", referrer=google)
    landing = receive("HitsQueue")
    send(analytics, monkeypatch, "198.51.100.1", ago(40), page=f"{page}/a", referrer=f"{page}/")
    next_page = receive("HitsQueue")
    batches = [landing, next_page] if landing_batch == "first" else [next_page, landing]
    for batch in batches:
        assert run("HitsQueue", batch) == {"batchItemFailures": []}
    monkeypatch.undo()
    reply = analytics.get(f"/api/v1/stats/{site['id']}/realtime")
    assert reply.body["data"] == {
        "visitors": 1,
        "pages": [{"value": "/a", "count": 1}],
        "sources": [{"value": "Google", "count": 1}],
    }
