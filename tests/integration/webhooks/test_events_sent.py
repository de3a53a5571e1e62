"""Events sent to the endpoints that want them: website.created and website.deleted to
endpoints reaching the website, key.created (never with the secret) and key.revoked to
endpoints over the whole account, report.completed to endpoints reaching its project."""

from __future__ import annotations

import json

from standardwebhooks import Webhook

from tests.integration.webhooks.receiver import Receiver
from tests.integration.webhooks.test_webhooks import deliver_queued, make


def types(receiver: Receiver) -> list[str]:
    return [json.loads(r.body)["type"] for r in receiver.received]


def test_website_and_key_events_reach_the_endpoints_that_want_them(analytics, receivers):
    everything, limited = receivers
    first = analytics.post("/api/v1/websites", {"domain": "first.example"}).data
    events = "website.created,website.deleted,key.created,key.revoked"
    wide = make(analytics, everything.url(), events=events)
    make(analytics, limited.url(), events=events, websites=str(first["id"]))
    second = analytics.post("/api/v1/websites", {"domain": "second.example"}).data
    assert analytics.delete(f"/api/v1/websites/{first['id']}").status == 200
    key = analytics.post("/api/v1/keys", {"name": "client"}).data
    assert analytics.delete(f"/api/v1/keys/{key['id']}").status == 200
    deliver_queued()
    assert types(everything) == ["website.created", "website.deleted", "key.created", "key.revoked"]
    assert types(limited) == ["website.deleted"]  # its website; no account-wide events
    created = Webhook(wide["secret"]).verify(
        everything.received[0].body, everything.received[0].headers
    )
    assert created["data"] == second
    assert key["key"] not in str([r.body for r in everything.received])


def test_report_completed_reaches_endpoints_of_its_project(analytics, seo, receivers, site):
    everything, other_project = receivers
    make(analytics, everything.url(), events="report.completed")
    make(analytics, other_project.url(), events="report.completed", projects="elsewhere.example")
    report = seo.post("/api/v1/reports", {"url": site.url("/good")}).data
    deliver_queued()
    [got] = everything.received
    payload = json.loads(got.body)
    assert payload["type"] == "report.completed"
    assert payload["data"]["id"] == report["id"] and payload["data"]["score"] == report["score"]
    assert other_project.received == []


def test_no_endpoint_no_delivery_and_the_request_still_answers(analytics):
    assert analytics.post("/api/v1/websites", {"domain": "quiet.example"}).status == 201
    assert deliver_queued() == 0
