"""Invitations to become a member: made by an admin (an owner's by an owner), mailed as a
signed link that expires, accepted once.

The link's token carries the account, the address's hash and the invitation's nonce, never
the address; it is signed with the mailed links' key (as recipients' confirmations are).
A GET of the link only shows the invitation (mail scanners fetch links); a POST accepts it:
in one transaction the invitation goes (on the condition that its nonce is the link's), the
member is made and its first key stored, so two accepts at once make one member and one of
them answers 409. The key is in that answer only, and stored as its hash, as every key.

An admin lists the pending invitations (expired ones are not pending, so not listed) and
withdraws one (`cancel`): its link then answers as any invalid link. One invitation an
address: inviting a pending address again replaces its invitation (a new id, nonce and
week; the old link stops working), except a double submit (the same role, within
`SAME_SUBMISSION_SECONDS`), which answers the pending one and mails nothing.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from sitelens.accounts import audit_log, keyring, members
from sitelens.accounts.keys import Account, get_account
from sitelens.core import clock, errors
from sitelens.core.config import settings
from sitelens.data import mail
from sitelens.data import members as stored
from sitelens.data.transactions import ConditionFailed
from sitelens.records import listing
from sitelens.tokens import signing

if TYPE_CHECKING:
    from sitelens.accounts.inputs import MemberInvite
    from sitelens.accounts.keyring import Grant
    from sitelens.records.inputs import PageQuery

PURPOSE = "unsubscribe:member-invitation"  # signed with the mailed links' key
INVITATION_SECONDS = 7 * 86_400  # accepted within a week, or made anew
ACCEPT_PATH = "/api/v1/members/accept"
INVALID = "The invitation is invalid, has expired or was accepted already."
FIRST_KEY_NAME = "first key"
MAX_PENDING = 100  # pending invitations of an account: one Query lists them
SAME_SUBMISSION_SECONDS = 60  # the same invitation sent again this soon is a double submit
TOO_MANY = f"An account may have at most {MAX_PENDING} pending invitations; cancel one first."
FULL = f"An account may have at most {members.MAX_MEMBERS} members; remove one first."


def _hash(email: str) -> str:
    return hashlib.sha256(email.encode()).hexdigest()


def _iso(seconds: int) -> str:
    return clock.iso(datetime.fromtimestamp(seconds, UTC))


class AlreadyMember(errors.Conflict):
    message = "The address is a member of the account already."


class AcceptedAlready(errors.Conflict):
    message = INVALID


def show(found: dict[str, Any]) -> dict[str, Any]:
    """An invitation as the members API shows it (never its link)."""
    invited_by = found.get("invited_by")
    return {
        "id": int(found["id"]),
        "object": "invitation",
        "email": found["email"],
        "role": found["role"],
        "invited_by": None if invited_by is None else int(invited_by),
        "created_at": found["created_at"],
        "expires_at": _iso(int(found["expires_at"])),
    }


def invite(
    account: Account, grant: Grant, fields: MemberInvite, base: str
) -> tuple[dict[str, Any], bool]:
    """Invite an address with a role and mail it the link; (the invitation, whether it is
    new). A pending invitation of the address is replaced, unless this is its double
    submit; 409 for an address that is a member, 422 past MAX_PENDING."""
    members.check_may_give(grant, fields.role)
    live = members.live(account)
    if any(m.get("email") == fields.email for m in live):
        raise AlreadyMember()
    if len(live) >= members.MAX_MEMBERS:
        raise errors.Invalid.field("email", FULL)
    now = int(time.time())
    email_hash = _hash(fields.email)
    pending = stored.get_invitation(account.id, email_hash)
    if pending is not None and int(pending["expires_at"]) <= now:
        pending = None  # expired: made anew
    if pending is not None:
        members.check_may_give(grant, pending["role"])  # an owner's invitation is an owner's
        sent_at = int(pending["expires_at"]) - INVITATION_SECONDS
        same = pending["role"] == fields.role and now - sent_at < SAME_SUBMISSION_SECONDS
        if same and _numbered(pending):
            return show(pending), False
    invitation_id = stored.next_invitation_id(account.id)
    invitation = {
        "id": invitation_id,
        "email": fields.email,
        "role": fields.role,
        "nonce": secrets.token_hex(16),
        "invited_by": grant.member,
        "created_at": clock.now_iso(),
        "expires_at": now + INVITATION_SECONDS,
    }
    log = audit_log.writes(account.id, grant, "member.invited", f"invitation:{invitation_id}")
    replaces = None if pending is None else str(pending["nonce"])
    try:
        placed = stored.put_invitation(
            account.id, email_hash, invitation, now, log, replaces, MAX_PENDING
        )
    except ConditionFailed:
        raise errors.Conflict() from None  # another invitation of the address came at once
    if not placed:
        raise errors.Invalid.field("email", TOO_MANY)
    _send(account, invitation, email_hash, base)
    return show(invitation), True


def _numbered(found: dict[str, Any]) -> bool:
    """Whether an invitation has an id. One made before invitations had ids (at most a week
    before they did) is taken as withdrawn: not listed, its link invalid, replaced by the
    next invitation of its address."""
    return "id" in found


def _live(account_id: str) -> list[dict[str, Any]]:
    """The account's pending invitations (not expired), each with its `email_hash`."""
    now = int(time.time())
    found = stored.invitations_of(account_id)
    return [i for i in found if int(i["expires_at"]) > now and _numbered(i)]


def list_page(account: Account, query: PageQuery) -> listing.Page:
    """One page of the account's pending invitations by id (newest first unless
    `sort=asc`); never a link or token."""
    rows = [show(i) for i in _live(account.id)]
    return listing.id_page(rows, account.id, "invitations", query)


def cancel(account: Account, grant: Grant, invitation_id: int) -> None:
    """Withdraw a pending invitation: its link stops working. 404 for one that is not
    pending (accepted, withdrawn, replaced, expired, another account's); an owner's
    invitation is an owner's to withdraw (403)."""
    found = next((i for i in _live(account.id) if int(i["id"]) == invitation_id), None)
    if found is None:
        raise errors.NotFound()
    members.check_may_give(grant, found["role"])
    target = f"invitation:{invitation_id}"
    log = audit_log.writes(account.id, grant, "member.invitation_cancelled", target)
    try:
        stored.delete_invitation(account.id, found["email_hash"], str(found["nonce"]), log)
    except ConditionFailed:
        raise errors.NotFound() from None  # accepted or replaced meanwhile


def link(base: str, account_id: str, email_hash: str, invitation: dict[str, Any]) -> str:
    data = {"a": account_id, "e": email_hash, "n": invitation["nonce"]}
    token = signing.sign(data, PURPOSE, float(invitation["expires_at"]))
    return f"{base}{ACCEPT_PATH}?{urlencode({'token': token})}"


def _send(account: Account, invitation: dict[str, Any], email_hash: str, base: str) -> None:
    message = EmailMessage()
    message["Subject"] = f"You are invited to {account.name} on Sitelens"
    message["From"] = formataddr(("Sitelens", settings().mail_from or "digests@localhost"))
    message["To"] = invitation["email"]
    message["Message-ID"] = make_msgid(domain="sitelens")
    message.set_content(
        f"You are invited to join {account.name} as {invitation['role']}.\n\n"
        "To accept, open this link (it works for 7 days) and confirm; you will get an API\n"
        f"key of your own, shown once:\n{link(base, account.id, email_hash, invitation)}\n\n"
        "If you did not expect this, ignore this message.\n"
    )
    mail.send(message)


def _pending(token: str) -> tuple[Account, str, dict[str, Any]]:
    """The account, address hash and invitation of a valid link; 422 on `token` for a
    forged, expired or used one."""
    try:
        data = signing.verify(token, PURPOSE)
        account_id, email_hash, nonce = str(data["a"]), str(data["e"]), str(data["n"])
    except (signing.BadToken, KeyError, TypeError, ValueError):
        raise errors.Invalid.field("token", INVALID) from None
    account = get_account(account_id)
    found = stored.get_invitation(account_id, email_hash)
    if account is None or found is None or found.get("nonce") != nonce or not _numbered(found):
        raise errors.Invalid.field("token", INVALID)
    return account, email_hash, found


def to_accept(token: str) -> dict[str, Any]:
    """What accepting the link would do, changing nothing."""
    account, _, found = _pending(token)
    return {**show(found), "account": account.name}


def accept(token: str) -> dict[str, Any]:
    """Accept the link's invitation: the new member and its first key (`key`: shown now
    only). 409 when another accept of it came first."""
    account, email_hash, found = _pending(token)
    if len(members.stored_live(account.id)) >= members.MAX_MEMBERS:  # filled since it was sent
        raise errors.Invalid.field("token", FULL)
    member_id = stored.next_id(account.id)
    member = {
        "id": member_id,
        "email": found["email"],
        "role": found["role"],
        "created_at": clock.now_iso(),
        "invited_by": found.get("invited_by"),
    }
    key, key_writes = keyring.first_key_writes(account.id, member_id, FIRST_KEY_NAME)
    log = audit_log.joined(
        account.id, member_id, str(key["id"]), "member.joined", f"member:{member_id}"
    )
    stored_member = {k: v for k, v in member.items() if k != "id"}
    try:
        stored.accept(
            account.id, email_hash, str(found["nonce"]), member_id, stored_member, key_writes + log
        )
    except ConditionFailed:
        raise AcceptedAlready() from None
    return {**members.show(member), "key": key}
