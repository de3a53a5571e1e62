"""Members through `make serve`'s program over HTTP (docs/teams.md's worked example): an
owner invites an editor and a viewer, the caught invitation's link is shown by a GET and
accepted by a POST, each member's own key holds to its role, the audit log says who did
what, and a removed member's key stops."""

from __future__ import annotations

import email
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from tests.e2e.test_local_server import ROOT, Server, call

OUTBOX = ROOT / ".outbox"  # where make serve catches mail (the shared server's default)
FORBIDDEN = {"message": "Forbidden.", "status": 403}


def invitation_link(address: str) -> str:
    for path in sorted(Path(OUTBOX).glob("*.eml"), reverse=True):
        message = email.message_from_bytes(path.read_bytes())
        if message["To"] == address:
            body = message.get_payload(decode=True).decode()
            return next(w for w in body.split() if "/api/v1/members/accept?" in w)
    raise AssertionError(f"no invitation to {address} in {OUTBOX}")


def join(server: Server, key: str, role: str) -> tuple[int, str]:
    address = f"{role}-{uuid.uuid4().hex[:8]}@agency.example"
    base = server.analytics
    invited = call("POST", f"{base}/api/v1/members", key, form={"email": address, "role": role})
    assert invited.status == 201, invited.body
    link = invitation_link(address)
    token = parse_qs(urlsplit(link).query)["token"][0]
    shown = call("GET", f"{base}/api/v1/members/accept?token={token}")
    assert shown.status == 200 and shown.body["data"]["role"] == role
    accepted = call("POST", f"{base}/api/v1/members/accept", form={"token": token})
    assert accepted.status == 201, accepted.body
    again = call("POST", f"{base}/api/v1/members/accept", form={"token": token})
    assert again.status == 422
    return accepted.body["data"]["id"], accepted.body["data"]["key"]["key"]


def test_members_roles_and_the_audit_log_over_http(server: Server, dev_key: str):
    base, seo = server.analytics, server.seo
    editor_id, editor = join(server, dev_key, "editor")
    viewer_id, viewer = join(server, dev_key, "viewer")
    domain = f"shop-{uuid.uuid4().hex[:8]}.example"
    site = call("POST", f"{base}/api/v1/websites", editor, form={"domain": domain})
    assert site.status == 201, site.body
    website = site.body["data"]
    assert call("GET", f"{seo}/api/v1/members", viewer).status == 200
    changed = call("PUT", f"{base}/api/v1/websites/{website['id']}", viewer, form={"favorite": "1"})
    assert changed.body == FORBIDDEN
    assert call("GET", f"{base}/api/v1/websites/{website['id']}", viewer).body["data"] == website
    assert call("DELETE", f"{base}/api/v1/websites/{website['id']}", editor).body == FORBIDDEN
    assert call("GET", f"{base}/api/v1/audit-log", editor).body == FORBIDDEN
    last = call("DELETE", f"{base}/api/v1/members/1", dev_key)
    assert last.status == 409, last.body
    removed = call("DELETE", f"{base}/api/v1/members/{viewer_id}", dev_key)
    assert removed.status == 200, removed.body
    assert call("GET", f"{base}/api/v1/account", viewer).status == 401
    log = call("GET", f"{seo}/api/v1/audit-log", dev_key).body["data"]
    assert [(e["action"], e["target"]) for e in log[:2]] == [
        ("member.removed", f"member:{viewer_id}"),
        ("member.joined", f"member:{viewer_id}"),
    ]
    assert {e["actor"]["member"] for e in log} == {1, editor_id, viewer_id}


def test_a_workspace_over_http(server: Server, dev_key: str):
    base = server.analytics
    made = call("POST", f"{base}/api/v1/workspaces", dev_key, form={"name": "Client A"})
    assert made.status == 201, made.body
    inside = {"Sitelens-Workspace": str(made.body["data"]["id"])}
    domain = f"client-{uuid.uuid4().hex[:8]}.example"
    site = call("POST", f"{base}/api/v1/websites", dev_key, form={"domain": domain}, headers=inside)
    assert site.status == 201, site.body
    listed = call("GET", f"{base}/api/v1/websites", dev_key, headers=inside).body["data"]
    assert [w["domain"] for w in listed] == [domain]
    outside = call("GET", f"{base}/api/v1/websites", dev_key).body["data"]
    assert domain not in [w["domain"] for w in outside]


def test_a_pending_invitation_is_listed_and_withdrawn_over_http(server: Server, dev_key: str):
    base, seo = server.analytics, server.seo
    address = f"pending-{uuid.uuid4().hex[:8]}@agency.example"
    invited = call(
        "POST", f"{base}/api/v1/members", dev_key, form={"email": address, "role": "viewer"}
    )
    assert invited.status == 201, invited.body
    invitation = invited.body["data"]
    pending = call("GET", f"{seo}/api/v1/members/invitations?per_page=100", dev_key).body["data"]
    assert invitation in pending
    gone = call("DELETE", f"{base}/api/v1/members/invitations/{invitation['id']}", dev_key)
    assert gone.status == 200, gone.body
    again = call("DELETE", f"{base}/api/v1/members/invitations/{invitation['id']}", dev_key)
    assert again.status == 404
    token = parse_qs(urlsplit(invitation_link(address)).query)["token"][0]
    assert call("POST", f"{base}/api/v1/members/accept", form={"token": token}).status == 422
