"""Workspaces: an agency's per-client sub-accounts, each an account of its own. Their records
are isolated from the agency's and from each other; an agency key reaches one only by
naming it in `Sitelens-Workspace`, with its member's role; a workspace's own keys reach it
alone."""

from __future__ import annotations

from typing import Any

from tests.conftest import Client

FORBIDDEN = {"message": "Forbidden.", "status": 403}
NOT_FOUND = {"message": "Resource not found.", "status": 404}


def inside(workspace: dict[str, Any]) -> dict[str, str]:
    return {"Sitelens-Workspace": str(workspace["id"])}


def test_a_workspace_is_listed_under_its_agency_and_isolated(analytics, seo, other_analytics):
    made = analytics.post("/api/v1/workspaces", {"name": "Client A"})
    assert made.status == 201 and made.data["name"] == "Client A"
    workspace = made.data
    other = analytics.post("/api/v1/workspaces", {"name": "Client B"}).data
    assert [w["name"] for w in seo.get("/api/v1/workspaces").data] == ["Client A", "Client B"]
    assert other_analytics.get("/api/v1/workspaces").data == []
    site = analytics.post(
        "/api/v1/websites", {"domain": "client-a.example"}, headers=inside(workspace)
    )
    assert site.status == 201, site.body
    # the agency's own account, the other workspace and another agency see nothing of it
    assert analytics.get("/api/v1/websites").data == []
    assert analytics.get("/api/v1/websites", headers=inside(other)).data == []
    assert other_analytics.get("/api/v1/websites", headers=inside(workspace)).body == NOT_FOUND
    shown = analytics.get(f"/api/v1/websites/{site.data['id']}", headers=inside(workspace))
    assert shown.data == site.data
    assert analytics.get("/api/v1/websites", headers={"Sitelens-Workspace": "x"}).status == 404


def test_a_workspace_s_own_key_reaches_it_alone(analytics):
    workspace = analytics.post("/api/v1/workspaces", {"name": "Client A"}).data
    made = analytics.post(
        "/api/v1/keys", {"name": "client", "access": "write"}, headers=inside(workspace)
    )
    assert made.status == 201
    client = Client("AnalyticsApi", made.data["key"])
    assert client.post("/api/v1/websites", {"domain": "client-a.example"}).status == 201
    assert [k["name"] for k in client.get("/api/v1/keys").data] == ["client"]
    assert [k["name"] for k in analytics.get("/api/v1/keys").data] == ["Acme key"]
    assert analytics.get("/api/v1/websites").data == []
    # a workspace has no workspaces, and its key cannot name its agency's others
    assert client.post("/api/v1/workspaces", {"name": "nested"}).status == 403
    assert client.get("/api/v1/websites", headers={"Sitelens-Workspace": "1"}).body == NOT_FOUND


def test_an_agency_member_keeps_its_role_and_a_limited_key_stays_out(analytics, join):
    workspace = analytics.post("/api/v1/workspaces", {"name": "Client A"}).data
    _, viewer = join("viewer@example.com", "viewer")
    seen = Client("AnalyticsApi", viewer)
    assert seen.get("/api/v1/websites", headers=inside(workspace)).status == 200
    write = seen.post("/api/v1/websites", {"domain": "x.example"}, headers=inside(workspace))
    assert write.body == FORBIDDEN
    assert seen.post("/api/v1/workspaces", {"name": "mine"}).body == FORBIDDEN
    limited = analytics.post("/api/v1/keys", {"name": "l", "projects": "example.com"}).data["key"]
    assert (
        Client("AnalyticsApi", limited).get("/api/v1/websites", headers=inside(workspace)).body
        == FORBIDDEN
    )
    assert analytics.get("/api/v1/websites", headers=inside(workspace)).data == []


def test_an_invalid_workspace_is_422(analytics):
    assert analytics.post("/api/v1/workspaces", {}).status == 422
    assert analytics.post("/api/v1/workspaces", {"name": "x" * 101}).status == 422
    assert analytics.get("/api/v1/workspaces").data == []


def test_a_key_an_agency_admin_makes_in_a_workspace_is_the_workspace_s(analytics, join):
    workspace = analytics.post("/api/v1/workspaces", {"name": "Client A"}).data
    _, admin = join("admin@example.com", "admin")
    made = Client("AnalyticsApi", admin).post(
        "/api/v1/keys", {"name": "client", "access": "write"}, headers=inside(workspace)
    )
    assert made.status == 201 and made.data["member"] == 1  # the workspace's own
    client = Client("AnalyticsApi", made.data["key"])
    assert client.post("/api/v1/websites", {"domain": "client-a.example"}).status == 201


def test_the_workspace_s_log_names_the_agency_whose_key_acted(analytics, account):
    workspace = analytics.post("/api/v1/workspaces", {"name": "Client A"}).data
    made = analytics.post("/api/v1/keys", {"name": "client"}, headers=inside(workspace)).data
    log = analytics.get("/api/v1/audit-log", headers=inside(workspace)).data
    assert [(e["action"], e["target"], e["actor"]) for e in log] == [
        ("key.created", f"key:{made['id']}", {"member": 1, "key": 1, "agency": int(account.id)})
    ]
    assert analytics.get("/api/v1/audit-log").data == []
