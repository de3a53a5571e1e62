"""Annotations at /api/v1/websites/{id}/annotations through API Gateway events on moto,
and `include.annotations` of POST /api/v1/query: each annotation of the range in `meta`,
with the time bucket it falls in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sitelens.data import warehouse as engines
from sitelens.websites.annotations import rules
from tests.integration.analytics.test_warehouse import row

pytest.importorskip("duckdb")
from sitelens.local.warehouse import LocalWarehouse


@pytest.fixture
def website(analytics):
    reply = analytics.post("/api/v1/websites", {"domain": "marks.example"})
    assert reply.status == 201
    return reply.data["id"]


def test_annotations_are_created_listed_changed_and_deleted(analytics, website):
    base = f"/api/v1/websites/{website}/annotations"
    assert analytics.get(base).body == {"data": [], "status": 200}
    deploy = analytics.post(
        base,
        {
            "date": "2026-11-25T15:03:00+01:00",
            "text": "Deploy 4f2c9e1",
            "link": "https://ci.example/runs/12",
        },
    )
    assert deploy.status == 201, deploy.body
    assert deploy.data["date"] == "2026-11-25T14:03:00Z"  # a moment, kept in UTC
    assert deploy.data["link"] == "https://ci.example/runs/12"
    launch = analytics.post(base, json_body={"date": "2026-11-20", "text": "Launch"})
    assert launch.status == 201
    assert (launch.data["date"], launch.data["link"]) == ("2026-11-20", None)
    listed = analytics.get(base).data
    assert [item["text"] for item in listed] == ["Launch", "Deploy 4f2c9e1"]  # by date
    assert analytics.get(f"{base}/{deploy.data['id']}").data == deploy.data
    changed = analytics.patch(f"{base}/{deploy.data['id']}", {"text": "Rolled back", "link": ""})
    assert changed.status == 200
    assert (changed.data["text"], changed.data["link"]) == ("Rolled back", None)
    assert changed.data["date"] == deploy.data["date"]
    gone = analytics.delete(f"{base}/{launch.data['id']}")
    assert gone.body == {
        "id": launch.data["id"],
        "object": "annotation",
        "deleted": True,
        "status": 200,
    }
    assert [item["id"] for item in analytics.get(base).data] == [deploy.data["id"]]


@pytest.mark.parametrize(
    ("form", "field"),
    [
        ({"text": "No date"}, "date"),
        ({"date": "2026-11-25"}, "text"),
        ({"date": "yesterday", "text": "x"}, "date"),
        ({"date": "2026-11-25T14:03:00", "text": "x"}, "date"),  # no offset
        ({"date": "2026-13-01", "text": "x"}, "date"),
        ({"date": "2026-11-25", "text": " "}, "text"),
        ({"date": "2026-11-25", "text": "x" * (rules.MAX_TEXT_LENGTH + 1)}, "text"),
        ({"date": "2026-11-25", "text": "x", "link": "javascript:alert(1)"}, "link"),
        ({"date": "2026-11-25", "text": "x", "link": "https://a.example/" + "a" * 2048}, "link"),
        ({"date": "2026-11-25", "text": "x", "link": "https://a.example/a b"}, "link"),
    ],
)
def test_a_bad_annotation_is_422_and_changes_nothing(analytics, website, form, field):
    base = f"/api/v1/websites/{website}/annotations"
    reply = analytics.post(base, json_body=form)
    assert reply.status == 422, reply.body
    assert field in reply.body["message"]
    assert analytics.get(base).data == []


def test_a_website_has_at_most_max_annotations(analytics, website, monkeypatch):
    monkeypatch.setattr(rules, "MAX_ANNOTATIONS", 1)
    base = f"/api/v1/websites/{website}/annotations"
    assert analytics.post(base, {"date": "2026-11-25", "text": "a"}).status == 201
    refused = analytics.post(base, {"date": "2026-11-25", "text": "b"})
    assert refused.status == 422 and "annotations" in refused.body["message"]


def test_another_account_s_annotations_are_404(analytics, other_analytics, website):
    base = f"/api/v1/websites/{website}/annotations"
    mine = analytics.post(base, {"date": "2026-11-25", "text": "Mine"}).data
    theirs = other_analytics.post("/api/v1/websites", {"domain": "theirs.example"}).data["id"]
    for reply in (
        other_analytics.get(base),
        other_analytics.post(base, {"date": "2026-11-25", "text": "x"}),
        other_analytics.get(f"{base}/{mine['id']}"),
        other_analytics.put(f"{base}/{mine['id']}", {"text": "x"}),
        other_analytics.delete(f"{base}/{mine['id']}"),
        # the right annotation id under another website of the caller's is no annotation
        other_analytics.get(f"/api/v1/websites/{theirs}/annotations/{mine['id']}"),
        analytics.get(f"{base}/999"),
        analytics.get(f"{base}/x"),
        analytics.delete(f"{base}/999"),
    ):
        assert reply.status == 404, reply.body
    assert other_analytics.get(f"/api/v1/websites/{theirs}/annotations").data == []
    assert analytics.get(base).data == [mine]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LocalWarehouse]:
    local = LocalWarehouse(tmp_path / "warehouse")
    engines.use(engines.LocalEngine("duckdb", local.run, local.write))
    yield local
    engines.use(None)


def test_a_time_series_returns_the_annotations_of_its_range(analytics, website, store):
    base = f"/api/v1/websites/{website}/annotations"
    for date, text in (
        ("2026-11-19", "Before the range"),
        ("2026-11-21", "A day"),
        ("2026-11-23T23:30:00-01:00", "Late on the 23rd, the 24th in UTC"),
        ("2026-11-24T01:00:00Z", "After the range: midnight of the 24th there"),
    ):
        assert analytics.post(base, {"date": date, "text": text}).status == 201
    store.write([row(website, "a", "10:00:00", page="/")])
    body = {
        "site_id": website,
        "metrics": ["visitors"],
        "date_range": ["2026-11-20", "2026-11-23"],
        "dimensions": ["time:day"],
        "include": {"annotations": True},
        "timezone": "Atlantic/Azores",  # UTC-1 in November
    }
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 200, reply.body
    marks = reply.body["meta"]["annotations"]
    assert [(mark["text"], mark["bucket"]) for mark in marks] == [
        ("A day", "2026-11-21"),
        ("Late on the 23rd, the 24th in UTC", "2026-11-23"),
    ]
    assert marks[0]["website_id"] == website and marks[0]["link"] is None
    weekly = analytics.post(
        "/api/v1/query", json_body={**body, "dimensions": ["time:week"], "timezone": "UTC"}
    )
    # in UTC the late one is on the 24th, out of the range; the range's first day names
    # its first, partial week
    assert [mark["bucket"] for mark in weekly.body["meta"]["annotations"]] == ["2026-11-20"]
    without = analytics.post("/api/v1/query", json_body={**body, "include": {}})
    assert "annotations" not in without.body["meta"]
    no_series = analytics.post("/api/v1/query", json_body={**body, "dimensions": []})
    assert no_series.status == 422 and list(no_series.body["message"]) == ["include"]
