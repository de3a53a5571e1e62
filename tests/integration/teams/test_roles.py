"""Every role against every route: the one table (`accounts.roles.ROUTES`) names each route
of the template, and a key of each role gets exactly what the table says (a route above its
role: the contract's 403 before anything runs), on both bases."""

from __future__ import annotations

import re

import pytest

from sitelens.accounts import roles
from sitelens.local import gateway, template
from tests.conftest import Client

# every route but the fallback of each path (`ANY`: 405 with `Allow`, 404 for unknown paths)
ROUTES = [r for r in template.routes(template.load()) if r.method != "ANY"]
FORBIDDEN = {"message": "Forbidden.", "status": 403}


def _public(route: template.Route) -> bool:
    return "public=True" in (gateway.ROOT / route.code_uri / "app.py").read_text()


def test_every_route_of_the_template_has_its_least_role():
    missing = [f"{r.method} {r.path}" for r in ROUTES if roles.required(r.method, r.path) is None]
    assert missing == [], "add these routes to accounts/roles.py's ROUTES"
    wrong = [
        f"{r.method} {r.path}"
        for r in ROUTES
        if (roles.required(r.method, r.path) == roles.PUBLIC) != _public(r)
    ]
    assert wrong == [], "a keyless route is PUBLIC in the table, and only those"


def test_a_route_missing_from_the_table_is_refused_to_every_role():
    assert roles.required("GET", "/api/v1/not-in-the-table") is None
    assert not any(roles.allows(role, "GET", "/api/v1/not-in-the-table") for role in roles.ROLES)


def _path(path: str) -> str:
    return re.sub(
        r"\{(\w+)\+?\}", lambda m: "example.com" if m.group(1) == "project" else "999999", path
    )


@pytest.fixture
def keys(account, join) -> dict[str, str]:
    found = {role: join(f"{role}@example.com", role)[1] for role in roles.ROLES if role != "owner"}
    return {**found, "owner": account.key}


@pytest.mark.slow  # about 400 requests, 3 to 4 s: `make test-slow` runs it in CI
def test_each_role_gets_what_the_table_says_on_every_keyed_route(keys):
    """Each answer is the contract's 403 exactly when the route needs more than the key's
    role; ids name nothing, so an allowed route answers 404 or 422 and changes nothing."""
    keyed = {(r.method, r.path): r for r in ROUTES if not _public(r)}  # one base each
    tried = 0
    for (method, path), route in sorted(keyed.items()):
        needed = roles.required(method, path)
        for role, key in keys.items():
            reply = Client(route.api, key).request(method, _path(path), json_body={})
            where = f"{role} {method} {path}: {reply.status} {reply.body}"
            if roles.at_least(role, needed):
                assert reply.body != FORBIDDEN, where
                assert reply.status < 500, where
            else:
                assert reply.body == FORBIDDEN, where
            tried += 1
    assert tried >= 4 * 90


def test_a_viewer_writes_nothing(analytics, join):
    website = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    _, key = join("viewer@example.com", "viewer")
    viewer = Client("AnalyticsApi", key)
    assert viewer.get(f"/api/v1/websites/{website['id']}").data == website
    changed = viewer.put(f"/api/v1/websites/{website['id']}", {"favorite": "1"})
    assert changed.body == FORBIDDEN
    assert viewer.delete(f"/api/v1/websites/{website['id']}").body == FORBIDDEN
    assert viewer.post("/api/v1/keys", {"name": "mine"}).body == FORBIDDEN
    assert analytics.get(f"/api/v1/websites/{website['id']}").data == website


def test_a_role_and_a_scope_both_hold(analytics, join):
    """A key's rights are its member's role AND its scopes: an editor's read key reads only,
    and an editor cannot delete a website whatever its key's access."""
    website = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    _, key = join("editor@example.com", "editor")
    editor = Client("AnalyticsApi", key)
    assert editor.delete(f"/api/v1/websites/{website['id']}").body == FORBIDDEN
    assert editor.post("/api/v1/websites", {"domain": "new.example"}).status == 201
    assert analytics.get(f"/api/v1/websites/{website['id']}").status == 200
