"""Pending invitations through the API Gateway events of both bases: an admin lists them
(never a link) and withdraws one, whose link then answers as any invalid link; inviting a
pending address again replaces its invitation; a cap on pending ones; another account's,
a workspace's and a lesser role's requests reach none of them."""

from __future__ import annotations

import email
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from sitelens.accounts import invitations, members
from sitelens.core.config import settings
from sitelens.data import members as stored_members
from sitelens.data.clients import client
from tests.conftest import Client
from tests.integration.teams.conftest import invitation_token

LIST = "/api/v1/members/invitations"
FORBIDDEN = {"message": "Forbidden.", "status": 403}
NOT_FOUND = {"message": "Resource not found.", "status": 404}
INVALID = {"message": {"token": [invitations.INVALID]}, "status": 422}
ANON = Client("AnalyticsApi", None)
SHOWN = {"id", "object", "email", "role", "invited_by", "created_at", "expires_at"}


def invite(client: Client, address: str, role: str = "editor") -> Any:
    return client.post("/api/v1/members", {"email": address, "role": role})


def accept(token: str, method: str = "POST") -> Any:
    return ANON.request(method, "/api/v1/members/accept", query={"token": token}, key=None)


def token_in(mailed: Path) -> str:
    """The token of the invitation link in one mailed message."""
    body = email.message_from_bytes(mailed.read_bytes()).get_payload(decode=True).decode()
    link = next(w for w in body.split() if "/api/v1/members/accept?" in w)
    return parse_qs(urlsplit(link).query)["token"][0]


def later(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Move the clock on by `seconds` (the invitation's times and its link's expiry)."""
    now = time.time() + seconds
    monkeypatch.setattr(time, "time", lambda: now)


def test_the_pending_invitations_are_listed_newest_first_without_their_links(
    analytics, seo, outbox
):
    first = invite(analytics, "ana@example.com", "editor").data
    second = invite(analytics, "bo@example.com", "viewer").data
    listed = seo.get(LIST)
    assert listed.status == 200
    assert listed.data == [second, first]
    assert [(i["id"], i["email"], i["role"]) for i in listed.data] == [
        (2, "bo@example.com", "viewer"),
        (1, "ana@example.com", "editor"),
    ]
    assert all(set(i) == SHOWN and i["invited_by"] == 1 for i in listed.data)
    token = invitation_token(outbox, "ana@example.com")
    assert token not in str(listed.body) and "nonce" not in str(listed.body)
    assert [i["id"] for i in analytics.get(LIST, query={"sort": "asc"}).data] == [1, 2]
    page = analytics.get(LIST, query={"per_page": "10"})
    assert page.body["meta"]["next_cursor"] is None


def test_the_list_pages_by_cursor(analytics, outbox):
    for n in range(12):
        invite(analytics, f"p{n}@example.com", "viewer")
    page = analytics.get(LIST)
    assert [i["id"] for i in page.data] == list(range(12, 2, -1))
    rest = analytics.get(LIST, query={"cursor": page.body["meta"]["next_cursor"]})
    assert [i["id"] for i in rest.data] == [2, 1] and rest.body["meta"]["next_cursor"] is None
    assert analytics.get(LIST, query={"cursor": "forged"}).status == 422


def test_accepted_and_expired_invitations_are_not_pending(analytics, outbox, monkeypatch):
    invite(analytics, "ana@example.com")
    assert accept(invitation_token(outbox, "ana@example.com")).status == 201
    assert analytics.get(LIST).data == []
    made = invite(analytics, "bo@example.com").data
    later(monkeypatch, invitations.INVITATION_SECONDS + 1)
    assert analytics.get(LIST).data == []  # expired: not listed, though its item remains
    assert analytics.delete(f"{LIST}/{made['id']}").body == NOT_FOUND


def test_a_withdrawn_invitation_s_link_answers_as_an_invalid_one(analytics, seo, outbox):
    made = invite(analytics, "ana@example.com", "admin").data
    token = invitation_token(outbox, "ana@example.com")
    gone = seo.delete(f"{LIST}/{made['id']}")
    assert gone.status == 200
    assert gone.body == {"id": made["id"], "object": "invitation", "deleted": True, "status": 200}
    assert accept(token).body == INVALID
    assert accept(token, "GET").body == INVALID
    assert analytics.get(LIST).data == []
    assert [m["id"] for m in analytics.get("/api/v1/members").data] == [1]
    assert analytics.delete(f"{LIST}/{made['id']}").body == NOT_FOUND  # a second DELETE
    log = analytics.get("/api/v1/audit-log").data
    assert [(e["action"], e["target"]) for e in log][:2] == [
        ("member.invitation_cancelled", f"invitation:{made['id']}"),
        ("member.invited", f"invitation:{made['id']}"),
    ]
    assert "ana@example.com" not in str(log)
    again = invite(analytics, "ana@example.com", "viewer")  # invited anew after a withdrawal
    assert again.status == 201 and again.data["id"] == made["id"] + 1


def test_a_double_submit_answers_the_pending_invitation_and_mails_nothing(analytics, outbox):
    made = invite(analytics, "ana@example.com")
    again = invite(analytics, "ana@example.com")
    assert again.status == 200 and again.data == made.data
    assert len(list(outbox.glob("*.eml"))) == 1


def test_inviting_a_pending_address_again_replaces_its_invitation(analytics, outbox, monkeypatch):
    old = invite(analytics, "ana@example.com", "editor").data
    later(monkeypatch, invitations.SAME_SUBMISSION_SECONDS + 1)  # a resend, not a double submit
    resent = invite(analytics, "ana@example.com", "editor")
    assert resent.status == 201 and resent.data["id"] == old["id"] + 1
    assert resent.data["expires_at"] > old["expires_at"]
    earlier = {token_in(mailed) for mailed in outbox.glob("*.eml")}
    assert len(earlier) == 2
    for mailed in outbox.glob("*.eml"):  # mails of one second have no order: keep the new one alone
        mailed.unlink()
    other_role = invite(analytics, "ana@example.com", "viewer")  # another role: at once
    assert other_role.status == 201 and other_role.data["role"] == "viewer"
    assert analytics.get(LIST).data == [other_role.data]  # one invitation an address
    assert [accept(token).body for token in earlier] == [INVALID, INVALID]  # both old links
    assert analytics.delete(f"{LIST}/{old['id']}").body == NOT_FOUND  # replaced: not pending
    joined = accept(invitation_token(outbox, "ana@example.com"))
    assert joined.status == 201 and joined.data["role"] == "viewer"


def test_an_owner_s_invitation_is_an_owner_s_to_replace_or_withdraw(analytics, join, outbox):
    _, admin_key = join("admin@example.com", "admin")
    admin = Client("SeoApi", admin_key)
    made = invite(analytics, "boss@example.com", "owner").data
    assert invite(admin, "boss@example.com", "viewer").body == FORBIDDEN
    assert admin.delete(f"{LIST}/{made['id']}").body == FORBIDDEN
    assert [i["role"] for i in admin.get(LIST).data] == ["owner"]
    mine = invite(admin, "ana@example.com", "editor").data
    assert admin.delete(f"{LIST}/{mine['id']}").status == 200
    assert analytics.delete(f"{LIST}/{made['id']}").status == 200


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_a_viewer_or_an_editor_can_neither_list_nor_withdraw(analytics, join, outbox, role):
    _, key = join(f"{role}@example.com", role)
    made = invite(analytics, "ana@example.com").data
    lesser = Client("AnalyticsApi", key)
    assert lesser.get(LIST).body == FORBIDDEN
    assert lesser.delete(f"{LIST}/{made['id']}").body == FORBIDDEN
    assert [i["id"] for i in analytics.get(LIST).data] == [made["id"]]


def test_a_limited_key_cannot_reach_the_invitations(analytics, outbox):
    made = invite(analytics, "ana@example.com").data
    key = analytics.post("/api/v1/keys", {"name": "x", "projects": "example.com"}).data["key"]
    limited = Client("AnalyticsApi", key)
    assert limited.get(LIST).body == FORBIDDEN
    assert limited.delete(f"{LIST}/{made['id']}").body == FORBIDDEN


def test_another_account_s_and_a_workspace_s_invitations_are_out_of_reach(
    analytics, other_analytics, outbox
):
    made = invite(analytics, "ana@example.com").data
    workspace = analytics.post("/api/v1/workspaces", {"name": "Client A"}).data
    inside = {"Sitelens-Workspace": str(workspace["id"])}
    assert other_analytics.get(LIST).data == []
    assert other_analytics.delete(f"{LIST}/{made['id']}").body == NOT_FOUND
    assert analytics.get(LIST, headers=inside).data == []
    assert analytics.delete(f"{LIST}/{made['id']}", headers=inside).body == NOT_FOUND
    assert invite(analytics, "x@example.com").status == 201
    in_workspace = analytics.post(
        "/api/v1/members", {"email": "client@example.com", "role": "viewer"}, headers=inside
    )
    assert in_workspace.status == 201
    assert [i["email"] for i in analytics.get(LIST, headers=inside).data] == ["client@example.com"]
    assert "client@example.com" not in str(analytics.get(LIST).body)
    assert [i["id"] for i in analytics.get(LIST).data] == [2, made["id"]]
    assert accept(invitation_token(outbox, "ana@example.com")).status == 201


@pytest.mark.parametrize("named", ["abc", "0", "-1", "1.5", "99"])
def test_an_id_that_names_no_pending_invitation_is_404(analytics, outbox, named):
    invite(analytics, "ana@example.com")
    assert analytics.delete(f"{LIST}/{named}").body == NOT_FOUND
    assert len(analytics.get(LIST).data) == 1


def test_only_get_lists_and_only_delete_withdraws(analytics):
    assert analytics.post(LIST, {}).status == 405
    assert analytics.get(f"{LIST}/1").status == 405


def test_pending_invitations_are_capped(analytics, outbox, monkeypatch):
    monkeypatch.setattr(invitations, "MAX_PENDING", 2)
    invite(analytics, "a@example.com")
    made = invite(analytics, "b@example.com", "viewer").data
    full = invite(analytics, "c@example.com")
    assert full.body == {"message": {"email": [invitations.TOO_MANY]}, "status": 422}
    assert len(list(outbox.glob("*.eml"))) == 2
    replaced = invite(analytics, "b@example.com", "editor")  # a replacement fits
    assert replaced.status == 201
    assert analytics.delete(f"{LIST}/{made['id']}").body == NOT_FOUND
    assert analytics.delete(f"{LIST}/{replaced.data['id']}").status == 200
    assert invite(analytics, "c@example.com").status == 201


def test_the_list_is_one_query_of_the_account_s_invitations(analytics, outbox, monkeypatch):
    """No Scan: the list reads the account's invitation partition, bounded by the cap."""
    invite(analytics, "ana@example.com")
    reads: list[str] = []
    real = stored_members.invitations_of

    def counted(account_id: str) -> list[dict[str, Any]]:
        reads.append(account_id)
        return real(account_id)

    monkeypatch.setattr(stored_members, "invitations_of", counted)
    assert len(analytics.get(LIST).data) == 1
    assert reads == ["1"]


def test_an_invitation_accepted_while_it_is_withdrawn_stays_accepted(
    analytics, outbox, monkeypatch
):
    made = invite(analytics, "ana@example.com").data
    real = stored_members.delete_invitation

    def accepted_first(*args: Any) -> None:
        assert accept(invitation_token(outbox, "ana@example.com")).status == 201
        real(*args)

    monkeypatch.setattr(stored_members, "delete_invitation", accepted_first)
    assert analytics.delete(f"{LIST}/{made['id']}").body == NOT_FOUND
    assert [m["email"] for m in analytics.get("/api/v1/members").data][1:] == ["ana@example.com"]


def test_two_invitations_of_one_address_at_once_make_one(analytics, outbox, monkeypatch):
    invite(analytics, "ana@example.com")
    monkeypatch.setattr(stored_members, "get_invitation", lambda *_: None)  # read before it
    again = invite(analytics, "ana@example.com", "viewer")
    assert again.status == 409 and len(list(outbox.glob("*.eml"))) == 1
    monkeypatch.undo()
    assert [i["role"] for i in analytics.get(LIST).data] == ["editor"]


def test_an_invitation_made_before_invitations_had_ids_is_taken_as_withdrawn(
    analytics, account, outbox
):
    invite(analytics, "ana@example.com")
    old_token = invitation_token(outbox, "ana@example.com")
    stored = stored_members.invitations_of(account.id)[0]
    client("dynamodb").update_item(
        TableName=settings().accounts_table,
        Key={"pk": {"S": f"INVITE#{account.id}"}, "sk": {"S": stored["email_hash"]}},
        UpdateExpression="REMOVE id",
    )
    assert analytics.get(LIST).data == []  # not listed, and never a 500
    assert accept(old_token, "GET").body == INVALID and accept(old_token).body == INVALID
    for mailed in outbox.glob("*.eml"):
        mailed.unlink()
    again = invite(analytics, "ana@example.com")  # within a double submit's minute: made anew
    assert again.status == 201 and isinstance(again.data["id"], int)
    assert accept(invitation_token(outbox, "ana@example.com")).status == 201


def test_members_are_capped_at_invite_and_at_accept(analytics, join, outbox, monkeypatch):
    monkeypatch.setattr(members, "MAX_MEMBERS", 3)
    join("a@example.com", "viewer")
    invite(analytics, "b@example.com")
    invite(analytics, "c@example.com")
    full = {"message": {"email": [invitations.FULL]}, "status": 422}
    assert accept(invitation_token(outbox, "b@example.com")).status == 201  # founder, a, b: full
    assert invite(analytics, "d@example.com").body == full
    late = accept(invitation_token(outbox, "c@example.com"))  # sent before it filled
    assert late.body == {"message": {"token": [invitations.FULL]}, "status": 422}
    assert len(analytics.get("/api/v1/members").data) == 3
