"""Webhooks under `make serve`'s program, as a user runs them: an endpoint aimed at the
local catcher, a test ping and a website created, delivered by the queue worker, kept by the
catcher in .webhooks/ and signed so that the scheme's reference package verifies them; the
delivery log says so; a scoped key of the same server sees only its website."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest
from standardwebhooks import Webhook

from tests.e2e.conftest import SharedServe
from tests.e2e.test_local_server import ROOT, Server, call

CAUGHT = ROOT / ".webhooks"


@pytest.fixture(scope="module")
def served(shared_serve: SharedServe, dev_key: str) -> tuple[Server, str, int]:
    """The e2e modules' shared server (tests/e2e/conftest.py: its catcher on a free port,
    private addresses fetched, since the catcher is on 127.0.0.1), an account of this
    module's own, and the catcher's port."""
    return shared_serve.server, dev_key, shared_serve.catcher_port


def caught(message_id: str, seconds: float = 15.0) -> dict[str, Any]:
    """The catcher's file of a delivery, once the worker has sent it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for path in CAUGHT.glob(f"*-{message_id}.json"):
            found: dict[str, Any] = json.loads(path.read_text())
            path.unlink()
            return found
        time.sleep(0.1)
    raise AssertionError(f"{message_id} was not delivered within {seconds} s")


def test_deliveries_reach_the_catcher_signed(served):
    server, key, catcher = served
    base = server.analytics
    reply = call(
        "POST",
        f"{base}/api/v1/webhooks",
        key,
        form={"url": f"http://127.0.0.1:{catcher}/hook", "events": "website.created"},
    )
    assert reply.status == 201, reply.body
    endpoint = reply.body["data"]
    ping = call("POST", f"{base}/api/v1/webhooks/{endpoint['id']}/test", key)
    assert ping.status == 202
    got = caught(ping.body["data"]["id"])
    payload = Webhook(endpoint["secret"]).verify(got["body"], got["headers"])
    assert payload["type"] == "webhook.test" and got["path"] == "/hook"
    domain = f"hooked-{uuid.uuid4().hex[:8]}.example.com"
    website = call("POST", f"{base}/api/v1/websites", key, form={"domain": domain}).body["data"]
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        log = call("GET", f"{base}/api/v1/webhooks/{endpoint['id']}/deliveries", key).body["data"]
        if [d["state"] for d in log] == ["succeeded", "succeeded"]:
            break
        time.sleep(0.1)
    assert [d["event"] for d in log] == ["website.created", "webhook.test"]
    assert [d["state"] for d in log] == ["succeeded", "succeeded"]
    got = caught(log[0]["id"])
    assert Webhook(endpoint["secret"]).verify(got["body"], got["headers"])["data"] == website


def test_a_scoped_key_of_the_server_sees_only_its_website(served):
    server, key, _ = served
    base = server.analytics
    mine, other = (
        call(
            "POST",
            f"{base}/api/v1/websites",
            key,
            form={"domain": f"{n}-{uuid.uuid4().hex[:8]}.example.com"},
        ).body["data"]
        for n in ("mine", "other")
    )
    created = call(
        "POST", f"{base}/api/v1/keys", key, form={"name": "client", "websites": str(mine["id"])}
    ).body["data"]
    scoped = created["key"]
    listed = call("GET", f"{base}/api/v1/websites?per_page=100", scoped).body["data"]
    assert [w["id"] for w in listed] == [mine["id"]]
    assert call("GET", f"{base}/api/v1/websites/{other['id']}", scoped).status == 404
    assert call("DELETE", f"{base}/api/v1/websites/{mine['id']}", scoped).status == 403  # read
    assert call("DELETE", f"{base}/api/v1/keys/{created['id']}", key).status == 200
    assert call("GET", f"{base}/api/v1/websites", scoped).status == 401
