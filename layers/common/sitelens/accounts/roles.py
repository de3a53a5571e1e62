"""Members' roles and the one table of the least role each route needs.

A key's rights are its member's role AND its scopes (`core.scopes`): the edge's auth
(`edge.auth.permit`) asks `allows` on every keyed request, before the operation runs. Every
route of the template is in `ROUTES` (a public one as `PUBLIC`); a keyed route missing from
it is refused to every key (fail closed), and tests/integration/test_roles.py fails until it
is added.
"""

from __future__ import annotations

VIEWER, EDITOR, ADMIN, OWNER = "viewer", "editor", "admin", "owner"
ROLES = (VIEWER, EDITOR, ADMIN, OWNER)  # least to most
PUBLIC = "public"  # no key: tracking, share views, signed links, the documents
_RANK = {role: rank for rank, role in enumerate(ROLES)}

# Shorthands for the table: a record read by viewers, written by editors.
_READ = {"GET": VIEWER}
_EDIT = {"GET": VIEWER, "POST": EDITOR, "PUT": EDITOR, "PATCH": EDITOR, "DELETE": EDITOR}
_ADMIN = {"GET": ADMIN, "POST": ADMIN, "PUT": ADMIN, "PATCH": ADMIN, "DELETE": ADMIN}
_SETTINGS = {"GET": VIEWER, "PUT": ADMIN, "PATCH": ADMIN, "DELETE": ADMIN, "POST": ADMIN}
_OPEN = {m: PUBLIC for m in ("GET", "POST", "OPTIONS")}

# route path -> method -> the least role that may call it
ROUTES: dict[str, dict[str, str]] = {
    "/api/event": _OPEN,
    "/.well-known/oauth-protected-resource/mcp": _OPEN,
    "/api/v1/account": _READ,
    "/api/v1/account/brand": _SETTINGS,
    "/api/v1/audit-log": {"GET": ADMIN},
    "/api/v1/audit-log/export": {"GET": ADMIN},
    "/api/v1/audits": _EDIT,
    "/api/v1/audits/{id}": _EDIT,
    "/api/v1/audits/{id}/issues": _READ,
    "/api/v1/audits/{id}/pages": _READ,
    "/api/v1/audits/{id}/recipients": _EDIT,
    "/api/v1/audits/{id}/recipients/{recipient}": _EDIT,
    "/api/v1/audits/{id}/runs": _EDIT,
    "/api/v1/audits/{id}/runs/{run}/changes.csv": _READ,
    "/api/v1/audits/{id}/runs/{run}/export.pdf": _READ,
    "/api/v1/docs": _OPEN,
    "/api/v1/docs/redoc.js": _OPEN,
    "/api/v1/domains/verification": {"POST": ADMIN},  # a brand's domain
    "/api/v1/domains/verification/check": {"POST": ADMIN},
    "/api/v1/funnels/query": {"POST": VIEWER},  # queries in a body: reads
    "/api/v1/journeys/query": {"POST": VIEWER},
    "/api/v1/keys": _ADMIN,
    "/api/v1/keys/{id}": _ADMIN,
    "/api/v1/keys/{id}/links": _ADMIN,
    "/api/v1/keys/{id}/links/{link_id}": _ADMIN,
    "/api/v1/keys/{id}/rotate": _ADMIN,
    "/api/v1/members": {"GET": VIEWER, "POST": ADMIN},
    "/api/v1/members/accept": _OPEN,  # the invitation's signed link: no key yet
    "/api/v1/members/invitations": {"GET": ADMIN},  # addresses not yet members
    "/api/v1/members/invitations/{invitation}": {"DELETE": ADMIN},
    "/api/v1/members/{member}": {"GET": VIEWER, "PATCH": ADMIN, "DELETE": ADMIN},
    "/api/v1/openapi.json": _OPEN,
    "/api/v1/projects": _READ,
    "/api/v1/projects/{project}": {"DELETE": ADMIN},  # every report of the project
    "/api/v1/projects/{project}/brand": _SETTINGS,
    "/api/v1/query": {"POST": VIEWER},
    "/api/v1/recipients/confirm": _OPEN,
    "/api/v1/recipients/unsubscribe": _OPEN,
    "/api/v1/reports": _EDIT,
    "/api/v1/reports/{id}": _EDIT,
    "/api/v1/reports/{id}/export.pdf": _READ,
    "/api/v1/search-console/callback": _OPEN,  # Google's redirect, its state signed
    "/api/v1/share/audits/{share_id}": _OPEN,
    "/api/v1/share/audits/{share_id}/unlock": _OPEN,
    "/api/v1/share/reports/{share_id}": _OPEN,
    "/api/v1/share/reports/{share_id}/unlock": _OPEN,
    "/api/v1/share/websites/{domain}": _OPEN,
    "/api/v1/share/websites/{domain}/stats": _OPEN,
    "/api/v1/share/websites/{domain}/unlock": _OPEN,
    "/api/v1/stats/{id}": _READ,
    "/api/v1/stats/{id}/realtime": _READ,
    "/api/v1/unsubscribe": _OPEN,
    "/api/v1/webhooks": _SETTINGS,
    "/api/v1/webhooks/{id}": _SETTINGS,
    "/api/v1/webhooks/{id}/deliveries": _READ,
    "/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver": {"POST": ADMIN},
    "/api/v1/webhooks/{id}/rotate": {"POST": ADMIN},
    "/api/v1/webhooks/{id}/test": {"POST": ADMIN},
    "/api/v1/websites": _EDIT,
    "/api/v1/websites/{id}": {**_EDIT, "DELETE": ADMIN},
    "/api/v1/websites/{id}/annotations": _EDIT,
    "/api/v1/websites/{id}/annotations/{annotation_id}": _EDIT,
    "/api/v1/websites/{id}/crawls/unvisited": _READ,
    "/api/v1/websites/{id}/events": {"POST": EDITOR},  # a backfill
    "/api/v1/websites/{id}/exports": _EDIT,
    "/api/v1/websites/{id}/exports/{export_id}": _READ,
    "/api/v1/websites/{id}/funnels": _EDIT,
    "/api/v1/websites/{id}/funnels/{funnel_id}": _EDIT,
    "/api/v1/websites/{id}/goals": _EDIT,
    "/api/v1/websites/{id}/goals/{goal_id}": _EDIT,
    "/api/v1/websites/{id}/imports": _EDIT,
    "/api/v1/websites/{id}/imports/{import_id}": {"GET": VIEWER, "DELETE": EDITOR},
    "/api/v1/websites/{id}/logs": {"POST": EDITOR},  # access logs uploaded
    "/api/v1/websites/{id}/logs/source": {"PUT": ADMIN, "DELETE": ADMIN},  # a role grant
    "/api/v1/websites/{id}/recipients": _EDIT,
    "/api/v1/websites/{id}/recipients/{recipient}": _EDIT,
    "/api/v1/websites/{id}/search-console": _SETTINGS,  # a Google grant: admins
    "/api/v1/websites/{id}/search-console/authorize": {"GET": ADMIN},
    "/api/v1/websites/{id}/search-console/imports": {"POST": ADMIN},
    "/api/v1/websites/{id}/segments": _EDIT,
    "/api/v1/websites/{id}/segments/{segment_id}": _EDIT,
    "/api/v1/usage": {"GET": ADMIN},  # the bill: the agency's and its workspaces'
    "/api/v1/workspaces": {"GET": VIEWER, "POST": ADMIN},
    "/js/{file}": _OPEN,
    # the MCP server: each tool is held to the role of the route it stands for
    # (edge.mcp_server.calls), so any member may list and call what their role allows
    "/mcp": {"POST": VIEWER},
    "/share/assets/{name}": _OPEN,
    "/share/audits/{share_id}": _OPEN,
    "/share/logos/{logo}": _OPEN,
    "/share/reports/{share_id}": _OPEN,
    "/share/{domain}": _OPEN,
}


def required(method: str, resource: str) -> str | None:
    """The least role `method` on `resource` needs (`PUBLIC` for a keyless route); None
    for a route the table does not name, which no key may take."""
    if method == "HEAD":
        method = "GET"
    return ROUTES.get(resource, {}).get(method)


def allows(role: str, method: str, resource: str) -> bool:
    """Whether a member of `role` may call `method` on `resource`."""
    needed = required(method, resource)
    if needed is None or needed == PUBLIC:
        return needed == PUBLIC
    return at_least(role, needed)


def at_least(role: str, needed: str) -> bool:
    """Whether `role` is `needed` or above it (an unknown role is below every one)."""
    return _RANK.get(role, -1) >= _RANK[needed]
