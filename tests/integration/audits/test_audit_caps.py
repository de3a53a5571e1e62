"""Each account's caps on audits (`sitelens.audits.caps`), through API Gateway events on
moto: runs going at once, pages a day and scheduled audits, each answered with its 4xx and
nothing stored beyond it, on create, on `POST .../runs` and on an update that adds a
schedule; the scheduler leaves a refused audit due; other accounts are not held."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import pytest

from sitelens.audits import caps, schedules
from sitelens.core import clock, config
from sitelens.core.log import logger
from sitelens.data import audit_usage
from sitelens.data import audits as stored_audits

URL = "https://example.com/"


@pytest.fixture
def capped(monkeypatch):
    """Caps small enough to reach: 2 runs going, 1,000 pages a day, 2 scheduled audits."""
    monkeypatch.setenv("SITELENS_AUDIT_ACTIVE_RUNS", "2")
    monkeypatch.setenv("SITELENS_AUDIT_DAILY_PAGES", "1000")
    monkeypatch.setenv("SITELENS_AUDIT_SCHEDULED", "2")
    config.reset()
    yield
    config.reset()


def create(seo, **fields):
    return seo.request("POST", "/api/v1/audits", json_body={"url": URL, "max_pages": 10, **fields})


def ids(seo) -> list[int]:
    return sorted(a["id"] for a in seo.get("/api/v1/audits", query={"per_page": 100}).data)


def finish(account, audit: dict) -> None:
    """The audit's current run done, as its analysis leaves it."""
    crawl = stored_audits.crawl_key(account.id, audit["id"], audit["run"])
    stored_audits.set_state(crawl, status="done")


def test_runs_going_at_once(seo, other_seo, account, capped):
    first, second = create(seo).data, create(seo).data
    refused = create(seo)
    assert refused.status == 429, refused.body
    assert "2 audit runs going" in refused.body["message"]
    assert refused.headers["Retry-After"] == "60"
    assert ids(seo) == [first["id"], second["id"]]  # nothing stored
    assert create(other_seo).status == 201  # another account is not held
    finish(account, first)
    third = create(seo)
    assert third.status == 201, third.body
    assert seo.post(f"/api/v1/audits/{first['id']}/runs").status == 429  # 2 going again
    seo.delete(f"/api/v1/audits/{second['id']}")  # cancelled: no longer going
    again = seo.post(f"/api/v1/audits/{first['id']}/runs")
    assert again.status == 201 and again.data["run"] == 2


def test_a_run_that_stalled_or_never_started_stops_counting(seo, account, capped, monkeypatch):
    first, second = create(seo).data, create(seo).data
    assert create(seo).status == 429
    later = datetime.now(UTC) + timedelta(hours=7)  # past the stall rule
    monkeypatch.setattr(clock, "now", lambda: later)
    assert create(seo).status == 201
    assert {first["id"], second["id"]} < set(ids(seo))


def test_pages_a_day(seo, account, capped, monkeypatch):
    monkeypatch.setenv("SITELENS_AUDIT_ACTIVE_RUNS", "0")  # this test counts pages alone
    config.reset()
    assert create(seo, max_pages=600).status == 201
    refused = create(seo, max_pages=600)
    assert refused.status == 429, refused.body
    assert "600 pages" in refused.body["message"] and "1000 pages a day" in refused.body["message"]
    wait = int(refused.headers["Retry-After"])
    assert 86_000 < wait <= 86_460
    assert len(ids(seo)) == 1
    assert create(seo, max_pages=400).status == 201  # 1,000 in all: at the cap, not past it
    too_large = create(seo, max_pages=1001)
    assert too_large.status == 422 and "max_pages" in too_large.body["message"]
    later = datetime.now(UTC) + timedelta(seconds=wait)
    monkeypatch.setattr(clock, "now", lambda: later)
    assert create(seo, max_pages=600).status == 201  # the first run's pages left the window


def test_a_rerun_counts_its_pages(seo, account, capped, monkeypatch):
    monkeypatch.setenv("SITELENS_AUDIT_ACTIVE_RUNS", "0")
    config.reset()
    audit = create(seo, max_pages=600).data
    finish(account, audit)
    refused = seo.post(f"/api/v1/audits/{audit['id']}/runs")
    assert refused.status == 429 and refused.headers["Retry-After"]
    assert seo.get(f"/api/v1/audits/{audit['id']}").data["run"] == 1  # nothing started


def test_scheduled_audits(seo, other_seo, account, capped):
    daily, weekly = create(seo, schedule="daily").data, create(seo, schedule="weekly").data
    finish(account, daily)
    finish(account, weekly)
    refused = create(seo, schedule="monthly")
    assert refused.status == 422
    assert refused.body["message"] == {
        "schedule": ["An account may have at most 2 scheduled audits."]
    }
    assert ids(seo) == [daily["id"], weekly["id"]]
    assert create(other_seo, schedule="daily").status == 201
    plain = create(seo).data
    path = f"/api/v1/audits/{plain['id']}"
    assert seo.patch(path, {"schedule": "daily"}).status == 422
    assert seo.get(path).data["schedule"] == "none"
    assert seo.patch(path, {"name": "not a schedule"}).status == 200
    assert seo.patch(f"/api/v1/audits/{daily['id']}", {"schedule": "weekly"}).status == 200
    assert seo.patch(f"/api/v1/audits/{daily['id']}", {"schedule": "none"}).status == 200
    assert seo.patch(path, {"schedule": "daily"}).status == 200  # the place it freed
    assert seo.delete(f"/api/v1/audits/{weekly['id']}").status == 200
    assert create(seo, schedule="monthly").status == 201  # the deleted audit's place


def test_a_place_lost_by_a_failed_release_is_found_at_the_cap(seo, account, capped, monkeypatch):
    first = create(seo, schedule="daily").data
    create(seo, schedule="daily")
    monkeypatch.setattr(caps, "release", lambda *a, **k: (_ for _ in ()).throw(RuntimeError()))
    assert seo.patch(f"/api/v1/audits/{first['id']}", {"schedule": "none"}).status == 200
    monkeypatch.undo()
    monkeypatch.setenv("SITELENS_AUDIT_ACTIVE_RUNS", "0")
    monkeypatch.setenv("SITELENS_AUDIT_DAILY_PAGES", "0")
    monkeypatch.setenv("SITELENS_AUDIT_SCHEDULED", "2")
    config.reset()
    usage, _ = audit_usage.usage(account.id)
    assert first["id"] in usage["scheduled"]  # still listed...
    assert create(seo, schedule="weekly").status == 201  # ...but found unscheduled


def test_the_scheduler_leaves_a_refused_audit_due(seo, account, capped, monkeypatch):
    written = io.StringIO()
    monkeypatch.setattr(logger.registered_handler, "stream", written)
    monkeypatch.setenv("SITELENS_AUDIT_ACTIVE_RUNS", "1")
    config.reset()
    daily = create(seo, schedule="daily").data
    finish(account, daily)
    busy = create(seo).data  # the account's one run going
    later = datetime.now(UTC) + timedelta(days=1, minutes=1)
    monkeypatch.setattr(clock, "now", lambda: later)
    busy_crawl = stored_audits.crawl_key(account.id, busy["id"], 1)
    stored_audits.set_state(busy_crawl, status="crawling")  # a step ended just now
    assert schedules.run_due() == 0
    [line] = [json.loads(line) for line in written.getvalue().splitlines()]
    assert line["message"] == "scheduled audit left due: a cap of its account"
    assert line["audit"] == daily["id"] and "1 audit runs going" in line["cap"]
    assert seo.get(f"/api/v1/audits/{daily['id']}").data["run"] == 1
    assert stored_audits.due("daily", clock.now_iso(), 10) == [(account.id, daily["id"])]
    finish(account, busy)
    assert schedules.run_due() == 1
    assert seo.get(f"/api/v1/audits/{daily['id']}").data["run"] == 2


def test_a_start_that_failed_gives_its_place_back(seo, account, capped, monkeypatch):
    def refused(messages):
        raise RuntimeError("queue down")

    monkeypatch.setattr(stored_audits, "send", refused)
    assert create(seo, max_pages=900).status == 500
    usage, _ = audit_usage.usage(account.id)
    assert usage["going"] == [] and sum(usage["pages"].values()) == 0
    monkeypatch.undo()
    monkeypatch.setenv("SITELENS_AUDIT_DAILY_PAGES", "1000")
    config.reset()
    assert create(seo, max_pages=900).status == 201


def test_caps_off(seo, monkeypatch):
    for name in ("ACTIVE_RUNS", "DAILY_PAGES", "SCHEDULED"):
        monkeypatch.setenv(f"SITELENS_AUDIT_{name}", "0")
    config.reset()
    try:
        for _ in range(4):
            assert create(seo, max_pages=100_000, schedule="daily").status == 201
    finally:
        config.reset()


def test_usage_is_one_item_out_of_the_account_s_lists(seo, account, capped):
    created = create(seo, schedule="daily").data
    usage, version = audit_usage.usage(account.id)
    assert version == 1 and usage["scheduled"] == [created["id"]]
    assert [e["crawl"] for e in usage["going"]] == [
        stored_audits.crawl_key(account.id, created["id"], 1)
    ]
    assert list(usage["pages"].values()) == [10]  # one minute's pages
    assert [a["id"] for a in stored_audits.of_account(account.id, 10)] == [created["id"]]
