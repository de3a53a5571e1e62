"""Invitations to become a member: made by an admin (an owner's by an owner), mailed as a
signed link that expires, accepted once.

The link's token carries the account, the address's hash and the invitation's nonce, never
the address; it is signed with the mailed links' key (as recipients' confirmations are).
A GET of the link only shows the invitation (mail scanners fetch links); a POST accepts it:
in one transaction the invitation goes (on the condition that its nonce is the link's), the
member is made and its first key stored, so two accepts at once make one member and one of
them answers 409. The key is in that answer only, and stored as its hash, as every key.
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
from sitelens.tokens import signing

if TYPE_CHECKING:
    from sitelens.accounts.inputs import MemberInvite
    from sitelens.accounts.keyring import Grant

PURPOSE = "unsubscribe:member-invitation"  # signed with the mailed links' key
INVITATION_SECONDS = 7 * 86_400  # accepted within a week, or made anew
ACCEPT_PATH = "/api/v1/members/accept"
INVALID = "The invitation is invalid, has expired or was accepted already."
FIRST_KEY_NAME = "first key"


def _hash(email: str) -> str:
    return hashlib.sha256(email.encode()).hexdigest()


def _iso(seconds: int) -> str:
    return clock.iso(datetime.fromtimestamp(seconds, UTC))


class AlreadyMember(errors.Conflict):
    message = "The address is a member of the account already."


class Pending(errors.Conflict):
    message = "The address has a pending invitation with another role."


class AcceptedAlready(errors.Conflict):
    message = INVALID


def show(found: dict[str, Any]) -> dict[str, Any]:
    """An invitation as the members API shows it (never its link)."""
    invited_by = found.get("invited_by")
    return {
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
    new). The same invitation sent again while it is pending is the pending one, mailed
    once; 409 for an address that is a member, or invited with another role."""
    members.check_may_give(grant, fields.role)
    if any(m.get("email") == fields.email for m in members.live(account)):
        raise AlreadyMember()
    now = int(time.time())
    invitation = {
        "email": fields.email,
        "role": fields.role,
        "nonce": secrets.token_hex(16),
        "invited_by": grant.member,
        "created_at": clock.now_iso(),
        "expires_at": now + INVITATION_SECONDS,
    }
    email_hash = _hash(fields.email)
    log = audit_log.writes(account.id, grant, "member.invited", f"invitation:{email_hash[:12]}")
    if not stored.put_invitation(account.id, email_hash, invitation, now, log):
        pending = stored.get_invitation(account.id, email_hash)
        if pending is None or pending["role"] != fields.role:
            raise Pending()
        return show(pending), False
    _send(account, invitation, email_hash, base)
    return show(invitation), True


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
    if account is None or found is None or found.get("nonce") != nonce:
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
