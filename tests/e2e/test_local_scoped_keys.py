"""Keys limited to one website under `make serve`'s program, tried over HTTP against every
keyed route of both base URLs (read from template.yaml, so routes added later are tried
too): naming the other website, or the key's own website with the other one's goal or
annotation, answers 403, 404 or 422, a list shows nothing of the other, and nothing stored
changes. tests/integration/keys/test_scopes.py does the same in process; this is the
served program, its gateway and routes."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from sitelens.local import template
from tests.e2e.test_local_server import Server, call

ROUTES = [
    r
    for r in template.routes(template.load())
    # (/mcp is left out on purpose: one POST for many tools, each held to the gate of the
    # route it stands for, and tried with read and limited keys in tests/integration/test_mcp.py)
    if r.path.startswith("/api/v1/")
    # public: share views, signed links of mails (a page, not JSON), the documents
    and not r.path.startswith(
        ("/api/v1/share/", "/api/v1/unsubscribe", "/api/v1/recipients/", "/api/v1/docs")
    )
    and r.path != "/api/v1/openapi.json"
    and r.method not in ("ANY", "OPTIONS")
]
READS = {"GET", "HEAD"}


@pytest.fixture(scope="module")
def served(server: Server, dev_key: str) -> tuple[Server, str]:
    """The e2e modules' shared server (tests/e2e/conftest.py: no key cache, so a revoked
    key fails at once; private addresses allowed, for the webhook endpoint on 127.0.0.1) and
    an account of this module's own, whose records the snapshot compares."""
    return server, dev_key


def website_with_children(server: Server, key: str, label: str, skip: int) -> dict[str, Any]:
    """A website with a goal and an annotation, each named so that they can be looked for;
    `skip` goals and annotations made first, so that their ids are not the other website's
    (goal and annotation ids count per website)."""
    base = server.analytics
    domain = f"{label}-{uuid.uuid4().hex[:10]}.example.com"
    site = call("POST", f"{base}/api/v1/websites", key, form={"domain": domain}).body["data"]
    for n in range(skip):
        for kind, form in (
            ("goals", {"page_path": f"/skip{n}"}),
            ("annotations", {"date": "2026-10-01", "text": "skip"}),
        ):
            assert (
                call("POST", f"{base}/api/v1/websites/{site['id']}/{kind}", key, form=form).status
                == 201
            )
    goal = call(
        "POST",
        f"{base}/api/v1/websites/{site['id']}/goals",
        key,
        form={"event_name": f"signup-{label}", "display_name": f"Goal of {label}"},
    )
    assert goal.status == 201, goal.body
    note = call(
        "POST",
        f"{base}/api/v1/websites/{site['id']}/annotations",
        key,
        form={"date": "2026-11-01", "text": f"Note of {label}"},
    )
    assert note.status == 201, note.body
    return {**site, "goal": goal.body["data"], "annotation": note.body["data"]}


def path_of(route: template.Route, website: dict[str, Any], child: dict[str, Any]) -> str:
    """The route's path naming `website`, and `child`'s goal and annotation."""
    values = {
        "id": website["id"],
        "goal_id": child["goal"]["id"],
        "annotation_id": child["annotation"]["id"],
        "project": "nowhere.example",
    }
    return re.sub(r"\{(\w+)\+?\}", lambda m: str(values.get(m.group(1), 1)), route.path)


def snapshot(server: Server, key: str, websites: list[dict[str, Any]]) -> Any:
    base = server.analytics
    return [
        call("GET", f"{base}/api/v1/websites?per_page=100", key).body["data"],
        [call("GET", f"{base}/api/v1/websites/{w['id']}/goals", key).body for w in websites],
        [call("GET", f"{base}/api/v1/websites/{w['id']}/annotations", key).body for w in websites],
        [{**k, "last_used_at": None} for k in call("GET", f"{base}/api/v1/keys", key).body["data"]],
        call("GET", f"{base}/api/v1/webhooks", key).body["data"],
    ]


@pytest.mark.parametrize("access", ["read", "write"])
def test_a_key_limited_to_one_website_reaches_nothing_else_on_either_base(served, access):
    server, key = served
    mine = website_with_children(server, key, f"mine-{access}", skip=0)
    theirs = website_with_children(server, key, f"theirs-{access}", skip=1)
    assert theirs["goal"]["id"] != mine["goal"]["id"]
    assert theirs["annotation"]["id"] != mine["annotation"]["id"]
    hook = call(
        "POST",
        f"{server.analytics}/api/v1/webhooks",
        key,
        form={"url": "http://127.0.0.1/in", "events": "website.created"},
    )
    assert hook.status == 201, hook.body
    created = call(
        "POST",
        f"{server.analytics}/api/v1/keys",
        key,
        form={"name": "client", "access": access, "websites": str(mine["id"])},
    ).body["data"]
    scoped = created["key"]
    secrets = [theirs["domain"], theirs["goal"]["display_name"], theirs["annotation"]["text"]]
    body = {
        "site_id": theirs["id"],
        "website_id": theirs["id"],
        "metrics": ["visitors"],
        "date_range": "7d",
        "domain": f"new-{uuid.uuid4().hex[:8]}.example.com",
        "name": "x",
        "display_name": "Renamed",
        "text": "Changed",
        "url": "http://127.0.0.1/other",
        "events": ["website.created"],
        "steps": [theirs["goal"]["display_name"], "Goal of nothing"],
    }
    before = snapshot(server, key, [mine, theirs])
    tried = 0
    for route in ROUTES:
        base = server.analytics if route.api == "AnalyticsApi" else server.seo
        # the other website, then the key's own website with the other's goal and annotation
        paths = [path_of(route, theirs, theirs)]
        if "_id}" in route.path:
            paths.append(path_of(route, mine, theirs))
        for path in paths:
            reply = call(route.method, f"{base}{path}", scoped, json_body=body)
            tried += 1
            where = f"{route.method} {path} ({access}): {reply.status} {reply.body}"
            assert reply.status < 500, where
            if route.path.startswith("/api/v1/keys"):
                assert reply.status == 403, where
            elif reply.status in (200, 201, 202):
                # a list, the account, a query of its own: nothing of what it does not reach
                assert route.method in READS or route.path.endswith("/query"), where
                assert not any(s in str(reply.body) for s in secrets), where
            else:
                assert reply.status in (403, 404, 422), where
    assert tried >= 40
    assert snapshot(server, key, [mine, theirs]) == before
    # and the key does see its own website
    own = call("GET", f"{server.analytics}/api/v1/websites/{mine['id']}", scoped)
    assert own.status == 200 and own.body["data"]["domain"] == mine["domain"]
    # revoked, it opens nothing at the next request
    assert call("DELETE", f"{server.analytics}/api/v1/keys/{created['id']}", key).status == 200
    for base in (server.analytics, server.seo):
        assert call("GET", f"{base}/api/v1/account", scoped).status == 401
