"""Bearer-key authorization, with a short cache in the warm container, and the one gate of
every keyed request: its member's role (`accounts.roles`' table) and its key's scopes, what
a read key may not do, and which routes a key limited to some websites and projects may
not take. Which records such a key sees is `core.scopes`' rule, applied where records are
read."""

from __future__ import annotations

import time
from typing import Any

from sitelens import accounts
from sitelens.accounts import keyring, roles
from sitelens.core import errors, hosts, scopes
from sitelens.core.config import settings

# Keys are opaque tokens: anything else in the header cannot be one of ours.
_MAX_KEY_LENGTH = 200
_cache: dict[str, tuple[float, accounts.Grant]] = {}

READING_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# POSTs that only read: their body is a query; or, for /mcp, a JSON-RPC message whose tools
# are each held to their own route's gate (edge.mcp_server)
READING_POSTS = frozenset(
    {"/api/v1/query", "/api/v1/funnels/query", "/api/v1/journeys/query", "/mcp"}
)
# Routes that manage what keys reach: only a key over the whole account may use them.
ACCOUNT_WIDE_ROUTES = (
    "/api/v1/keys",
    "/api/v1/webhooks",
    "/api/v1/account/brand",
    "/api/v1/members",
    "/api/v1/audit-log",
    "/api/v1/workspaces",
    "/api/v1/usage",
)
# Routes whose `{id}` is a website id, and anything under them (`/api/v1/websites/{id}/…`).
WEBSITE_ROUTES = ("/api/v1/websites/{id}", "/api/v1/stats/{id}")


def authorize(headers: dict[str, str]) -> accounts.Grant:
    """The grant of the request's bearer key; 401 for a missing, unknown, revoked or
    expired key."""
    scheme, _, key = headers.get("authorization", "").strip().partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key or len(key) > _MAX_KEY_LENGTH or " " in key:
        raise errors.Unauthenticated()
    hashed = accounts.key_hash(key)
    cached = _cache.get(hashed)
    now = time.monotonic()
    if cached and cached[0] > now and not cached[1].expired(time.time()):
        return cached[1]
    grant = accounts.grant_for_key(key)
    if grant is None:
        _cache.pop(hashed, None)
        raise errors.Unauthenticated()
    _cache[hashed] = (now + settings().key_cache_seconds, grant)
    keyring.touch(grant, key)
    return grant


def permit(
    grant: accounts.Grant,
    method: str,
    resource: str,
    path_params: dict[str, str],
    query: dict[str, str],
) -> None:
    """Refuse what the key's member's role or its scope does not allow on this route,
    before it runs: a route above the role (403; `roles.ROUTES`), a write with a read key
    (403); for a limited key, the account-wide routes (403) and a website or project named
    in the path or query that it does not reach (404, as if absent)."""
    scope = grant.scope
    if not roles.allows(grant.role, method, resource):
        raise errors.Forbidden()
    writes = method not in READING_METHODS and resource not in READING_POSTS
    if writes and not scope.writes:
        raise errors.Forbidden()
    if not scope.limited:
        return
    if any(resource == r or resource.startswith(r + "/") for r in ACCOUNT_WIDE_ROUTES):
        raise errors.Forbidden()
    named: list[Any] = []
    if any(resource == r or resource.startswith(r + "/") for r in WEBSITE_ROUTES):
        named.append(path_params.get("id"))
    named += [query[f] for f in scopes.WEBSITE_FIELDS if query.get(f)]
    if not all(scope.sees_website(website) for website in named):
        raise errors.NotFound()
    project = path_params.get("project")
    if project is not None and not scope.sees_project(_project(project)):
        raise errors.NotFound()


def _project(text: str) -> str | None:
    try:
        return hosts.parse(text).site_name
    except hosts.InvalidHost:
        return None  # no project a limited key lists: those are hosts


def forget() -> None:
    """Drop this container's cached keys, and when it last noted their use (tests)."""
    _cache.clear()
    keyring.forget()
