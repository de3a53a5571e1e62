"""The audit log: who did what, when, in an account. An entry names its action (`key.created`,
`member.removed`, `website.deleted`, ...), its actor (the member and the key that made the
request, and the agency whose they are when an agency key acted in a workspace) and its
target (`key:7`); never a secret, a body or an address.

Which requests are logged is `LOGGED` and `DELETIONS` below, one table for every route:
`edge.http.api_handler` writes the entry after the change answered 2xx (`note`). Members'
changes write theirs in the change's own transaction (`writes`), so they are not in it.
Entries are kept `RETENTION_DAYS` (the table's TTL removes them).
"""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING, Any

from sitelens.core import clock, errors, metrics
from sitelens.core.log import logger
from sitelens.data import audit_log as stored
from sitelens.data.items import Write
from sitelens.records.listing import Page, binding
from sitelens.tokens import signing

if TYPE_CHECKING:
    from sitelens.accounts.inputs import AuditLogQuery
    from sitelens.accounts.keyring import Grant

RETENTION_DAYS = 365  # a year of history; older entries expire
MAX_READ = 2_000  # entries one page (or a filtered page) reads at most
MAX_EXPORT = 10_000  # entries one CSV export holds at most: about 1 MB
COLUMNS = ("at", "action", "actor_member", "actor_key", "actor_agency", "target")

# (method, route) -> action, for the routes whose success is logged by the edge
LOGGED: dict[tuple[str, str], str] = {
    ("POST", "/api/v1/keys"): "key.created",
    ("DELETE", "/api/v1/keys/{id}"): "key.revoked",
    ("POST", "/api/v1/keys/{id}/rotate"): "key.rotated",
    ("POST", "/api/v1/keys/{id}/links"): "guest_link.created",
    ("DELETE", "/api/v1/keys/{id}/links/{link_id}"): "guest_link.revoked",
    ("POST", "/api/v1/webhooks"): "webhook.created",
    ("PUT", "/api/v1/webhooks/{id}"): "webhook.updated",
    ("PATCH", "/api/v1/webhooks/{id}"): "webhook.updated",
    ("DELETE", "/api/v1/webhooks/{id}"): "webhook.deleted",
    ("POST", "/api/v1/webhooks/{id}/rotate"): "webhook.rotated",
}
# logged in their own transactions (`accounts.members`), never twice
IN_TRANSACTION = frozenset(
    {
        ("POST", "/api/v1/members"),
        ("PATCH", "/api/v1/members/{member}"),
        ("DELETE", "/api/v1/members/{member}"),
        ("DELETE", "/api/v1/members/invitations/{invitation}"),
    }
)


def action_of(method: str, resource: str) -> str | None:
    """The action a successful request logs; None for one that is not logged. Every other
    DELETE is a deletion: `<what>.deleted`, named by the route's last word."""
    if (method, resource) in IN_TRANSACTION:
        return None
    if (method, resource) in LOGGED:
        return LOGGED[(method, resource)]
    if method == "DELETE" and resource.startswith("/api/v1/"):
        words = [w for w in resource.split("/") if w and not w.startswith("{")]
        return f"{words[-1].removesuffix('s')}.deleted"
    return None


def _entry(
    member: str, key_id: str, action: str, target: str, via: str | None = None
) -> tuple[str, dict[str, Any]]:
    at = clock.now_iso()
    entry = {
        "at": at,
        "action": action,
        "actor_member": member,
        "actor_key": key_id,
        "actor_agency": via,
        "target": target,
        "expires_at": int(time.time()) + RETENTION_DAYS * 86_400,
    }
    return f"{at}#{secrets.token_hex(4)}", entry


def writes(account_id: str, actor: Grant, action: str, target: str) -> list[Write]:
    """The entry's write, for the transaction of the change it records."""
    return [
        stored.entry_put(account_id, *_entry(actor.member, actor.key_id, action, target, actor.via))
    ]


def joined(account_id: str, member: str, key_id: str, action: str, target: str) -> list[Write]:
    """The entry's write of an actor named by its member and key ids (a member who just
    joined, with the key it got)."""
    return [stored.entry_put(account_id, *_entry(member, key_id, action, target))]


def note(
    grant: Grant, method: str, resource: str, path_params: dict[str, str], answer: Any
) -> None:
    """Log a keyed request that succeeded, if its route is logged (`action_of`). Written
    after the change: a write that fails loses the entry (`AuditLogEntriesLost`), never the
    request."""
    action = action_of(method, resource)
    if action is None:
        return
    created = answer.get("data") if isinstance(answer, dict) else None
    made = method == "POST" and "rotate" not in resource  # a create answers its record
    if made and isinstance(created, dict) and "id" in created:
        named = str(created["id"])
    else:
        params = [path_params[p] for p in path_params]
        named = params[-1] if params else ""
    target = f"{action.partition('.')[0]}:{named}"
    try:
        entry = _entry(grant.member, grant.key_id, action, target, grant.via)
        stored.put(grant.account.id, *entry)
    except Exception:
        metrics.count("AuditLogEntriesLost")
        logger.exception("audit log entry not written", extra={"action": action})


def show(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as `GET /api/v1/audit-log` shows it."""
    return {
        "at": entry["at"],
        "action": entry["action"],
        "actor": {
            "member": int(entry["actor_member"]),
            "key": int(entry["actor_key"]),
            "agency": None if entry.get("actor_agency") is None else int(entry["actor_agency"]),
        },
        "target": entry["target"],
    }


def _filters(query: AuditLogQuery) -> dict[str, str]:
    found = {}
    if query.actor is not None:
        found["actor_member"] = str(query.actor)
    if query.action is not None:
        found["action"] = query.action
    return found


def page(account_id: str, query: AuditLogQuery) -> Page:
    """One page of the account's log, newest first, filtered by `actor` and `action`;
    a page reads at most MAX_READ entries (fewer rows then, and a next cursor)."""
    params = query.params()
    bound_to = binding(account_id, "audit-log", params)
    before = None
    if query.cursor:
        position, _ = signing.decode_cursor(query.cursor, bound_to)
        before = str(position.get("at", ""))
    found, stopped = stored.page(account_id, before, _filters(query), query.per_page + 1, MAX_READ)
    more = len(found) > query.per_page or stopped
    rows = found[: query.per_page]
    last = rows[-1]["position"] if rows else before
    following = signing.encode_cursor({"at": last}, True, bound_to) if more and last else None
    return Page([show(r) for r in rows], following, None, params, {})


def export(account_id: str, query: AuditLogQuery) -> list[dict[str, Any]]:
    """Every entry the filters match, newest first, as CSV rows; 422 past MAX_EXPORT."""
    rows, stopped = stored.page(account_id, None, _filters(query), MAX_EXPORT + 1, MAX_EXPORT * 2)
    if len(rows) > MAX_EXPORT or stopped:
        raise errors.Invalid.field(
            "format", f"The export would hold more than {MAX_EXPORT:,} entries; filter it."
        )
    return rows
