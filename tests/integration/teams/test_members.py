"""Members through the API Gateway events of both bases: invitations by a signed, expiring
link (a GET changes nothing, a POST accepts, once), roles, the owners' rules, removal with
its keys, and another account's members out of reach."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from sitelens.accounts import invitations
from sitelens.data import keys as stored_keys
from sitelens.data import members as stored_members
from tests.conftest import Client
from tests.integration.teams.conftest import invitation_token
from tests.integration.test_events import event, events_account, invoke

__all__ = ["events_account"]  # the fixture, used by name

FORBIDDEN = {"message": "Forbidden.", "status": 403}
ANON = Client("AnalyticsApi", None)


def accept(token: str, method: str = "POST") -> Any:
    return ANON.request(method, "/api/v1/members/accept", query={"token": token}, key=None)


def test_the_founder_is_the_first_member_and_owner(analytics, seo):
    listed = seo.get("/api/v1/members")
    assert listed.status == 200
    assert [(m["id"], m["role"]) for m in listed.data] == [(1, "owner")]
    assert listed.body["meta"]["per_page"] == 10


def test_an_invitation_is_mailed_shown_by_get_and_accepted_once_by_post(analytics, outbox):
    invited = analytics.post("/api/v1/members", {"email": "Ana@Example.com", "role": "editor"})
    assert invited.status == 201
    assert invited.data["email"] == "ana@example.com" and invited.data["role"] == "editor"
    again = analytics.post("/api/v1/members", {"email": "ana@example.com", "role": "editor"})
    assert again.status == 200 and again.data == invited.data  # double submit: one invitation
    assert len(list(outbox.glob("*.eml"))) == 1
    token = invitation_token(outbox, "ana@example.com")
    shown = accept(token, "GET")
    assert shown.status == 200 and shown.data["role"] == "editor"
    assert shown.data["account"] == "Acme"
    assert [m["id"] for m in analytics.get("/api/v1/members").data] == [1]  # GET changed nothing
    joined = accept(token)
    assert joined.status == 201
    secret = joined.data["key"]["key"]
    assert joined.data["role"] == "editor" and joined.data["key"]["member"] == joined.data["id"]
    entry = stored_keys.get("1", str(joined.data["key"]["id"]))
    assert entry is not None and secret not in str(entry)  # stored as its hash only
    assert accept(token).status == 422  # used
    members = analytics.get("/api/v1/members").data
    assert [(m["email"], m["role"]) for m in members][1:] == [("ana@example.com", "editor")]
    editor = Client("SeoApi", secret)
    assert editor.get("/api/v1/members").status == 200
    assert editor.post("/api/v1/members", {"email": "x@example.com", "role": "viewer"}).body == (
        FORBIDDEN
    )


def test_a_forged_or_expired_invitation_makes_nothing(analytics, outbox, monkeypatch):
    analytics.post("/api/v1/members", {"email": "ana@example.com", "role": "admin"})
    token = invitation_token(outbox, "ana@example.com")
    forged = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    invalid = {"token": [invitations.INVALID]}
    assert accept(forged).body == {"message": invalid, "status": 422}
    assert accept("").status == 422
    later = time.time() + invitations.INVITATION_SECONDS + 1
    monkeypatch.setattr(time, "time", lambda: later)
    assert accept(token).body == {"message": invalid, "status": 422}
    assert accept(token, "GET").status == 422
    monkeypatch.undo()
    assert [m["id"] for m in analytics.get("/api/v1/members").data] == [1]


def test_two_accepts_at_once_make_one_member(analytics, outbox):
    analytics.post("/api/v1/members", {"email": "ana@example.com", "role": "viewer"})
    token = invitation_token(outbox, "ana@example.com")
    answers: list[int] = []
    start = threading.Barrier(2)

    def run() -> None:
        start.wait()
        answers.append(accept(token).status)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) in ([201, 409], [201, 422])
    members = analytics.get("/api/v1/members").data
    assert [m["email"] for m in members].count("ana@example.com") == 1
    keys = [k for k in analytics.get("/api/v1/keys").data if k["member"] != 1]
    assert len(keys) == 1


def test_roles_change_and_the_owners_rules_hold(analytics, join):
    admin_id, admin_key = join("admin@example.com", "admin")
    viewer_id, _ = join("viewer@example.com", "viewer")
    admin = Client("AnalyticsApi", admin_key)
    # an admin changes others' roles, but never makes or unmakes an owner
    assert admin.patch(f"/api/v1/members/{viewer_id}", {"role": "editor"}).data["role"] == "editor"
    assert admin.patch(f"/api/v1/members/{viewer_id}", {"role": "owner"}).body == FORBIDDEN
    assert admin.patch("/api/v1/members/1", {"role": "admin"}).body == FORBIDDEN
    assert admin.delete("/api/v1/members/1").body == FORBIDDEN
    invite = {"email": "boss@example.com", "role": "owner"}
    assert admin.post("/api/v1/members", invite).body == FORBIDDEN
    # the last owner can be neither demoted nor removed
    last = analytics.patch("/api/v1/members/1", {"role": "admin"})
    assert last.status == 409 and "owner" in last.body["message"]
    assert analytics.delete("/api/v1/members/1").status == 409
    assert analytics.get("/api/v1/members/1").data["role"] == "owner"
    # with a second owner, the first may step down
    assert analytics.patch(f"/api/v1/members/{admin_id}", {"role": "owner"}).status == 200
    assert analytics.patch("/api/v1/members/1", {"role": "admin"}).data["role"] == "admin"
    assert admin.delete(f"/api/v1/members/{admin_id}").status == 409  # now the last owner
    bad = analytics.patch(f"/api/v1/members/{viewer_id}", {"role": "boss"})
    assert bad.status == 422 and "role" in bad.body["message"]


def test_removing_a_member_revokes_its_keys(analytics, join):
    member_id, key = join("ana@example.com", "admin")
    member = Client("AnalyticsApi", key)
    second = member.post("/api/v1/keys", {"name": "second", "access": "write"})
    assert second.status == 201 and second.data["member"] == member_id
    removed = analytics.delete(f"/api/v1/members/{member_id}")
    assert removed.body == {"id": member_id, "object": "member", "deleted": True, "status": 200}
    assert member.get("/api/v1/account").status == 401
    assert Client("AnalyticsApi", second.data["key"]).get("/api/v1/account").status == 401
    assert [k["member"] for k in analytics.get("/api/v1/keys").data] == [1]
    assert analytics.get(f"/api/v1/members/{member_id}").status == 404


def test_a_removal_cut_short_by_a_fault_finishes_when_sent_again(analytics, join, monkeypatch):
    member_id, key = join("ana@example.com", "admin")
    second = Client("AnalyticsApi", key).post("/api/v1/keys", {"name": "second"}).data["key"]
    revoke = stored_keys.revoke
    calls: list[str] = []

    def failing_second(key_id: str, *args: Any) -> bool:
        calls.append(key_id)
        if len(calls) == 2:
            raise RuntimeError("DynamoDB went away")
        return revoke(key_id, *args)

    monkeypatch.setattr(stored_keys, "revoke", failing_second)
    assert analytics.delete(f"/api/v1/members/{member_id}").status == 500
    # the member is removed: every key of its is refused already, revoked or not yet
    assert Client("AnalyticsApi", second).get("/api/v1/account").status == 401
    assert Client("AnalyticsApi", key).get("/api/v1/account").status == 401
    monkeypatch.setattr(stored_keys, "revoke", revoke)
    assert analytics.delete(f"/api/v1/members/{member_id}").status == 200
    assert [k["member"] for k in analytics.get("/api/v1/keys").data] == [1]


def test_another_account_s_members_are_404(analytics, other_analytics, join):
    member_id, _ = join("ana@example.com", "viewer")
    for reply in (
        other_analytics.get(f"/api/v1/members/{member_id}"),
        other_analytics.patch(f"/api/v1/members/{member_id}", {"role": "admin"}),
        other_analytics.delete(f"/api/v1/members/{member_id}"),
    ):
        assert reply.body == {"message": "Resource not found.", "status": 404}
    assert analytics.get(f"/api/v1/members/{member_id}").data["role"] == "viewer"
    assert [m["id"] for m in other_analytics.get("/api/v1/members").data] == [1]


@pytest.mark.parametrize(
    "fields", [{}, {"email": "not an address", "role": "viewer"}, {"email": "a@b.example"}]
)
def test_an_invalid_invitation_is_422_and_mails_nothing(analytics, outbox, fields):
    assert analytics.post("/api/v1/members", fields).status == 422
    assert not outbox.exists() or not list(outbox.glob("*.eml"))


def test_a_member_is_invited_once(analytics, join):
    join("ana@example.com", "viewer")
    again = analytics.post("/api/v1/members", {"email": "ana@example.com", "role": "viewer"})
    assert again.status == 409


def test_a_limited_key_cannot_manage_members(analytics):
    key = analytics.post("/api/v1/keys", {"name": "x", "projects": "example.com"}).data["key"]
    assert Client("AnalyticsApi", key).get("/api/v1/members").body == FORBIDDEN


def test_keys_made_before_members_are_the_founder_s(analytics, account):
    assert stored_members.get(account.id, "1") is None
    assert analytics.get("/api/v1/account").status == 200  # an owner's, before any adoption
    assert analytics.get("/api/v1/keys").data[0]["member"] == 1


def test_the_members_events_replay(events_account, outbox):
    """events/members-*.json, workspaces-*.json, usage-get.json and audit-log-*.json, as
    `sam local invoke -e` sends them."""
    status, _, body = invoke(event("members-invite"))
    assert status == 201 and body["data"]["email"] == "ana@example.com"
    status, _, body = invoke(event("members-list"))
    assert status == 200 and [m["id"] for m in body["data"]] == [1]
    status, _, body = invoke(event("members-invitations-list"))
    assert status == 200 and [i["email"] for i in body["data"]] == ["ana@example.com"]
    status, _, body = invoke(event("members-invitations-cancel"))
    assert status == 200 and body["object"] == "invitation" and body["id"] == 1
    status, _, body = invoke(event("members-accept"))
    assert status == 422 and body["message"] == {"token": [invitations.INVALID]}
    assert invoke(event("members-update"))[0] == 404  # no member 2 yet
    assert invoke(event("members-remove"))[0] == 404
    status, _, body = invoke(event("audit-log-list"))
    assert status == 200 and body["data"] == []
    status, _, body = invoke(event("workspaces-create"))
    assert status == 201 and body["data"]["name"] == "Client A"
    status, _, body = invoke(event("workspaces-list"))
    assert status == 200 and [w["name"] for w in body["data"]] == ["Client A"]
    status, _, body = invoke(event("usage-get"))
    assert status == 200 and [w["name"] for w in body["data"]["workspaces"]] == ["Client A"]
    assert body["data"]["month"] == "2026-11" and body["data"]["total"]["billable_events"] == 0
    status, _, body = invoke(event("audit-log-export"))
    assert status == 200 and body.startswith("at,action,actor_member,actor_key,actor_agency,target")
