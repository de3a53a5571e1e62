"""The audit log: keys, webhooks, members and deletions, who made them and when, newest
first by cursor pages, filtered by actor and action, exported as CSV; never a secret."""

from __future__ import annotations

import csv
import io

from sitelens.data import audit_log as stored
from tests.conftest import Client

FORBIDDEN = {"message": "Forbidden.", "status": 403}


def test_changes_are_logged_with_their_actor_and_never_a_secret(analytics, seo, join):
    key = analytics.post("/api/v1/keys", {"name": "ci"}).data
    analytics.delete(f"/api/v1/keys/{key['id']}")
    website = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    analytics.delete(f"/api/v1/websites/{website['id']}")
    member_id, member_key = join("ana@example.com", "admin")
    Client("SeoApi", member_key).patch(f"/api/v1/members/{member_id}", {"role": "editor"})
    analytics.get("/api/v1/websites")  # reads are not logged
    log = seo.get("/api/v1/audit-log")
    assert log.status == 200
    actions = [(e["action"], e["target"]) for e in log.data]
    assert actions == [
        ("member.role_changed", f"member:{member_id}"),
        ("member.joined", f"member:{member_id}"),
        ("member.invited", actions[2][1]),
        ("website.deleted", f"website:{website['id']}"),
        ("key.revoked", f"key:{key['id']}"),
        ("key.created", f"key:{key['id']}"),
    ]
    assert log.data[0]["actor"]["member"] == member_id
    assert log.data[-1]["actor"] == {"member": 1, "key": 1, "agency": None}
    assert key["key"] not in str(log.body) and member_key not in str(log.body)
    assert "ana@example.com" not in str(log.body)


def test_pages_by_cursor_and_filters(analytics):
    for n in range(12):
        analytics.post("/api/v1/keys", {"name": f"k{n}"})
    first = analytics.get("/api/v1/audit-log", query={"per_page": 10})
    assert len(first.data) == 10 and first.body["meta"]["next_cursor"]
    second = analytics.get(
        "/api/v1/audit-log", query={"per_page": 10, "cursor": first.body["meta"]["next_cursor"]}
    )
    assert len(second.data) == 2 and second.body["meta"]["next_cursor"] is None
    assert [e["target"] for e in first.data + second.data] == [f"key:{n}" for n in range(13, 1, -1)]
    analytics.delete("/api/v1/keys/2")
    filtered = analytics.get("/api/v1/audit-log", query={"action": "key.revoked"})
    assert [e["target"] for e in filtered.data] == ["key:2"]
    mine = analytics.get("/api/v1/audit-log", query={"actor": 1, "per_page": 25})
    assert len(mine.data) == 13
    assert analytics.get("/api/v1/audit-log", query={"actor": 2}).data == []
    assert analytics.get("/api/v1/audit-log", query={"actor": "x"}).status == 422
    assert analytics.get("/api/v1/audit-log", query={"cursor": "forged"}).status == 422


def test_the_export_is_csv(analytics):
    analytics.post("/api/v1/keys", {"name": "=cmd|' /C calc'!A0"})
    answer = analytics.get("/api/v1/audit-log/export")
    assert answer.status == 200 and answer.headers["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(answer.body)))
    assert [(r["action"], r["actor_member"], r["target"]) for r in rows] == [
        ("key.created", "1", "key:2")
    ]


def test_only_admins_read_the_log_and_each_account_its_own(analytics, other_analytics, join):
    analytics.post("/api/v1/keys", {"name": "ci"})
    _, editor = join("ed@example.com", "editor")
    assert Client("AnalyticsApi", editor).get("/api/v1/audit-log").body == FORBIDDEN
    assert Client("AnalyticsApi", editor).get("/api/v1/audit-log/export").body == FORBIDDEN
    assert other_analytics.get("/api/v1/audit-log").data == []


def test_a_lost_entry_never_fails_the_change(analytics, monkeypatch):
    def down(*args: object) -> None:
        raise RuntimeError("DynamoDB went away")

    monkeypatch.setattr(stored, "put", down)
    assert analytics.post("/api/v1/keys", {"name": "ci"}).status == 201
    monkeypatch.undo()
    assert analytics.get("/api/v1/audit-log").data == []
