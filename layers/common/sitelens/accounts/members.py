"""An account's members: people, each with a role (`accounts.roles`) and keys of their own.

Member 1 is the account's founder, an owner, whose keys are every key made before members
(and the CLI's); it is written on the account's first members request. Others join by an
invitation (`accounts.invitations`). Rules, each enforced here once:

- only an owner makes, unmakes or removes an owner (an admin gets 403);
- the last owner cannot be demoted or removed (409), also when two requests race
  (`data.members` keeps the owners' count under a condition);
- a removed member's keys stop at once (the edge's auth reads the member with the key) and
  are revoked after; a DELETE that failed half-way, run again, revokes what is left.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from sitelens.accounts import audit_log, roles
from sitelens.accounts.keys import Account
from sitelens.core import clock, errors
from sitelens.data import keys as stored_keys
from sitelens.data import members as stored
from sitelens.data.transactions import ConditionFailed
from sitelens.records import listing

if TYPE_CHECKING:
    from sitelens.accounts.keyring import Grant
    from sitelens.records.inputs import PageQuery

FOUNDER = stored.FOUNDER
MAX_MEMBERS = 100  # live members of an account: one Query lists them
REMOVED_KEPT_DAYS = 30  # a removed member's entry (its keys refused meanwhile), then gone


class LastOwner(errors.Conflict):
    message = "An account keeps at least one owner: make another member an owner first."


class OwnersOnly(errors.Forbidden):
    """Only an owner may make, change or remove an owner."""


def adopt(account: Account) -> None:
    """Write the account's founder (member 1, an owner) if it has none yet."""
    if stored.get(account.id, FOUNDER) is None:
        founder = {
            "email": account.email,
            "role": roles.OWNER,
            "created_at": account.created_at,
            "invited_by": None,
        }
        stored.adopt_founder(account.id, founder)


def show(entry: dict[str, Any]) -> dict[str, Any]:
    """A member as the members API shows it."""
    invited_by = entry.get("invited_by")
    return {
        "id": int(entry["id"]),
        "email": entry.get("email"),
        "role": entry["role"],
        "created_at": entry["created_at"],
        "invited_by": None if invited_by is None else int(invited_by),
    }


def live(account: Account) -> list[dict[str, Any]]:
    """The account's members (not removed ones), adopting its founder first."""
    adopt(account)
    return stored_live(account.id)


def stored_live(account_id: str) -> list[dict[str, Any]]:
    """The account's members as stored (not removed ones), without adopting its founder:
    for an account that has invited someone, whose founder is adopted already."""
    return [m for m in stored.of_account(account_id) if not m.get("removed_at")]


def list_page(account: Account, query: PageQuery) -> listing.Page:
    """One page of the account's members by id (oldest first unless `sort=desc`)."""
    rows = [show(m) for m in live(account)]
    return listing.id_page(rows, account.id, "members", query)


def _member(account: Account, member_id: int) -> dict[str, Any]:
    """A live member of the account; 404 otherwise (another account's too)."""
    adopt(account)
    found = stored.get(account.id, str(member_id))
    if found is None or found.get("removed_at"):
        raise errors.NotFound()
    return found


def get(account: Account, member_id: int) -> dict[str, Any]:
    return show(_member(account, member_id))


def check_may_give(grant: Grant, *touched: str) -> None:
    """403 unless the request's member may give or take these roles: an owner's are an
    owner's to give."""
    if roles.OWNER in touched and grant.role != roles.OWNER:
        raise OwnersOnly()


def update(account: Account, grant: Grant, member_id: int, role: str) -> dict[str, Any]:
    """Give a member another role; 409 for the last owner's demotion."""
    found = _member(account, member_id)
    check_may_give(grant, found["role"], role)
    if found["role"] == role:
        return show(found)
    log = audit_log.writes(account.id, grant, "member.role_changed", f"member:{member_id}")
    try:
        stored.set_role(account.id, str(member_id), found["role"], role, log)
    except ConditionFailed as failed:
        raise (LastOwner() if 1 in failed.indexes else errors.Conflict()) from None
    return show({**found, "role": role})


def remove(account: Account, grant: Grant, member_id: int) -> None:
    """Remove a member and revoke its keys; 409 for the last owner. A member removed
    already (within REMOVED_KEPT_DAYS) answers as removed, revoking any key left."""
    adopt(account)
    found = stored.get(account.id, str(member_id))
    if found is None:
        raise errors.NotFound()
    if not found.get("removed_at"):
        check_may_give(grant, found["role"])
        kept = None if str(member_id) == FOUNDER else int(time.time()) + REMOVED_KEPT_DAYS * 86_400
        log = audit_log.writes(account.id, grant, "member.removed", f"member:{member_id}")
        try:
            stored.remove(account.id, str(member_id), found["role"], clock.now_iso(), kept, log)
        except ConditionFailed as failed:
            raise (LastOwner() if 1 in failed.indexes else errors.Conflict()) from None
    revoke_keys(account.id, str(member_id))


def revoke_keys(account_id: str, member_id: str) -> int:
    """Revoke every key of the member (each revocation stands alone, so running it again
    finishes what a fault interrupted); how many were revoked now."""
    revoked = 0
    for entry in stored_keys.of_account(account_id, consistent=True):
        if str(entry.get("member") or FOUNDER) == member_id:
            revoked += stored_keys.revoke(str(entry["id"]), clock.now_iso(), account_id)
    return revoked
