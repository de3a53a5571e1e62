"""Webhooks through the API on both bases, deliveries through the queue's function to a
local receiver: Standard Webhooks signatures checked by an independent implementation
(the `standardwebhooks` package), retries on the schedule, an endpoint that keeps failing
disabled with an email, the delivery log and redelivery, the network guard, and events."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from sitelens.core import config
from sitelens.local import gateway
from sitelens.webhooks import deliveries
from tests.conftest import Client

ENDPOINT_FIELDS = {
    "id",
    "url",
    "description",
    "events",
    "websites",
    "projects",
    "enabled",
    "disabled_reason",
    "failing_since",
    "created_at",
    "updated_at",
    "secret_rotated_at",
    "previous_secret_expires_at",
}


@pytest.fixture(params=["AnalyticsApi", "SeoApi"])
def api(request, account) -> Client:
    return Client(request.param, account.key)


def queued() -> list[dict[str, Any]]:
    """Take every visible message off the webhook queue."""
    sqs = boto3.client("sqs")
    url = config.settings().webhook_queue_url
    taken = []
    while True:
        answer = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
        messages = answer.get("Messages") or []
        if not messages:
            return taken
        for message in messages:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            taken.append(json.loads(message["Body"]))


def deliver_queued() -> int:
    """Run the queue's function on what is queued and due now; how many messages."""
    module = gateway.load_module(gateway.ROOT / "functions/webhooks/deliver/app.py")
    messages = queued()
    records = [{"messageId": str(n), "body": json.dumps(m)} for n, m in enumerate(messages)]
    if records:
        answer = module.handler({"Records": records}, gateway.LambdaContext("deliver-test"))
        assert answer == {"batchItemFailures": []}
    return len(records)


@pytest.fixture
def later(monkeypatch) -> list[dict[str, Any]]:
    """The messages queued with a delay, kept here (SQS would hide them until due)."""
    from sitelens.data import webhooks as stored

    kept: list[dict[str, Any]] = []
    monkeypatch.setattr(stored, "enqueue", lambda message, delay_seconds=0: kept.append(message))
    return kept


def next_of(kept: list[dict[str, Any]]) -> list[dict[str, Any]]:
    taken = list(kept)
    kept.clear()
    return taken


def make(client: Client, url: str, **fields: Any) -> dict[str, Any]:
    reply = client.post("/api/v1/webhooks", {"url": url, "events": "website.created", **fields})
    assert reply.status == 201, reply.body
    return reply.data


def test_create_shows_the_secret_once_and_the_ping_is_signed_per_the_scheme(api, receiver):
    created = make(api, receiver.url())
    secret = created.pop("secret")
    assert secret.startswith("whsec_") and set(created) == ENDPOINT_FIELDS
    assert created["enabled"] is True and created["events"] == ["website.created"]
    shown = api.get(f"/api/v1/webhooks/{created['id']}")
    assert shown.status == 200 and shown.data == created
    assert api.get("/api/v1/webhooks").data == [created]
    ping = api.post(f"/api/v1/webhooks/{created['id']}/test")
    assert ping.status == 202 and ping.data["state"] == "pending"
    assert deliver_queued() == 1
    [got] = receiver.received
    assert got.headers["webhook-id"] == ping.data["id"]
    payload = Webhook(secret).verify(got.body, got.headers)  # an independent implementation
    assert payload["type"] == "webhook.test" and payload["data"] == {"endpoint": created["id"]}
    [logged] = api.get(f"/api/v1/webhooks/{created['id']}/deliveries").data
    assert (logged["state"], logged["attempts"], logged["last_status"]) == ("succeeded", 1, 200)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({}, "url"),
        ({"url": "ftp://example.com/x", "events": "website.created"}, "url"),
        ({"url": "http://127.0.0.1:9/x", "events": "nothing.happened"}, "events"),
        ({"url": "http://127.0.0.1:9/x"}, "events"),
        (
            {"url": "http://127.0.0.1:9/x", "events": "website.created", "websites": "77"},
            "websites",
        ),
        ({"url": "http://user:pw@example.com/", "events": "website.created"}, "url"),
    ],
)
def test_bad_input_is_422_and_makes_nothing(analytics, private_urls, fields, field):
    reply = analytics.request("POST", "/api/v1/webhooks", form=fields)
    assert reply.status == 422 and field in reply.body["message"], reply.body
    assert analytics.get("/api/v1/webhooks").data == []


def test_a_private_address_is_refused_unless_allowed(analytics):
    reply = analytics.post(
        "/api/v1/webhooks", {"url": "http://127.0.0.1/x", "events": "key.created"}
    )
    assert reply.status == 422
    assert reply.body["message"]["url"] == ["The URL points to a private or reserved address."]


def test_another_account_s_endpoint_is_404(analytics, other_analytics, receiver):
    created = make(analytics, receiver.url())
    base = f"/api/v1/webhooks/{created['id']}"
    for method, path in (
        ("GET", base),
        ("PUT", base),
        ("DELETE", base),
        ("POST", f"{base}/test"),
        ("POST", f"{base}/rotate"),
        ("GET", f"{base}/deliveries"),
        ("POST", f"{base}/deliveries/msg_1/redeliver"),
    ):
        assert other_analytics.request(method, path, form={}).status == 404, (method, path)
    assert other_analytics.get("/api/v1/webhooks").data == []
    assert analytics.get(base).status == 200


def test_retries_back_off_for_over_a_day_then_the_endpoint_is_disabled_with_an_email(
    analytics, receiver, monkeypatch, tmp_path, later
):
    monkeypatch.setenv("SITELENS_MAIL_OUTBOX", str(tmp_path))
    config.reset()
    from sitelens import accounts

    account = accounts.get_account(str(analytics.get("/api/v1/account").data["id"]))
    accounts.set_contact(account, "ops@agency.example")
    created = make(analytics, receiver.url())
    receiver.statuses = [500] * 20
    analytics.post(f"/api/v1/webhooks/{created['id']}/test")
    [message] = next_of(later)
    clock = [deliveries.time.time()]
    monkeypatch.setattr(deliveries.time, "time", lambda: clock[0])
    waited = []
    for _ in range(deliveries.ATTEMPTS):
        deliveries.attempt(message)
        following = next_of(later)
        if not following:
            break
        [message] = following
        waited.append(message["due"] - clock[0])
        clock[0] = message["due"]
    assert [round(w) for w in waited] == list(deliveries.RETRY_DELAYS)
    assert sum(deliveries.RETRY_DELAYS) > 24 * 3600
    assert len(receiver.received) == deliveries.ATTEMPTS
    endpoint = analytics.get(f"/api/v1/webhooks/{created['id']}").data
    assert endpoint["enabled"] is False and endpoint["disabled_reason"]
    [logged] = analytics.get(f"/api/v1/webhooks/{created['id']}/deliveries").data
    assert (logged["state"], logged["attempts"], logged["last_status"]) == ("failed", 8, 500)
    [mail] = list(tmp_path.glob("*.eml"))
    assert "was disabled" in mail.read_text() and "ops@agency.example" in mail.read_text()
    # enabled again, a redelivery goes through
    receiver.statuses = []
    assert analytics.put(f"/api/v1/webhooks/{created['id']}", {"enabled": "1"}).data["enabled"]
    reply = analytics.post(f"/api/v1/webhooks/{created['id']}/deliveries/{logged['id']}/redeliver")
    assert reply.status == 202
    [message] = next_of(later)
    deliveries.attempt(message)
    [logged] = analytics.get(f"/api/v1/webhooks/{created['id']}/deliveries").data
    assert (
        logged["state"] == "succeeded"
        and receiver.received[-1].headers["webhook-id"] == logged["id"]
    )


def test_a_receiver_that_recovers_gets_the_delivery_once(analytics, receiver, monkeypatch, later):
    created = make(analytics, receiver.url())
    receiver.statuses = [503, 502]
    analytics.post(f"/api/v1/webhooks/{created['id']}/test")
    clock = [deliveries.time.time()]
    monkeypatch.setattr(deliveries.time, "time", lambda: clock[0])
    for _ in range(3):
        [message] = next_of(later)
        clock[0] = max(clock[0], message["due"])
        deliveries.attempt(message)
    assert later == []
    assert [r.headers["webhook-id"] for r in receiver.received] == [message["delivery"]] * 3
    endpoint = analytics.get(f"/api/v1/webhooks/{created['id']}").data
    assert endpoint["enabled"] and endpoint["failing_since"] is None
    deliveries.attempt(message)  # a duplicate message: the delivery succeeded, nothing is sent
    assert len(receiver.received) == 3


def test_a_rotated_secret_signs_beside_the_old_one_for_the_overlap(analytics, receiver):
    created = make(analytics, receiver.url())
    rotated = analytics.post(f"/api/v1/webhooks/{created['id']}/rotate", {"overlap": "600"}).data
    assert rotated["secret"] != created["secret"] and rotated["previous_secret_expires_at"]
    analytics.post(f"/api/v1/webhooks/{created['id']}/test")
    deliver_queued()
    [got] = receiver.received
    assert len(got.headers["webhook-signature"].split(" ")) == 2
    for secret in (created["secret"], rotated["secret"]):
        Webhook(secret).verify(got.body, got.headers)


def test_the_old_secret_signs_until_its_overlap_ends_then_never(
    analytics, receiver, monkeypatch, later
):
    created = make(analytics, receiver.url())
    # Rotated 600 s ago with a 600 s overlap: it ends about now (signatures stay fresh).
    clock = [deliveries.time.time() - 600]
    monkeypatch.setattr(deliveries.time, "time", lambda: clock[0])
    rotated = analytics.post(f"/api/v1/webhooks/{created['id']}/rotate", {"overlap": "600"}).data
    ends = int(clock[0]) + 600
    for moment, old_verifies in ((ends - 1, True), (ends, False)):
        clock[0] = moment
        analytics.post(f"/api/v1/webhooks/{created['id']}/test")
        [message] = next_of(later)
        deliveries.attempt(message)
        got = receiver.received[-1]
        assert got.headers["webhook-id"] == message["delivery"]
        Webhook(rotated["secret"]).verify(got.body, got.headers)
        signatures = got.headers["webhook-signature"].split(" ")
        assert len(signatures) == (2 if old_verifies else 1)
        if old_verifies:
            Webhook(created["secret"]).verify(got.body, got.headers)
        else:
            with pytest.raises(WebhookVerificationError):
                Webhook(created["secret"]).verify(got.body, got.headers)


def test_update_and_delete(analytics, receiver):
    created = make(analytics, receiver.url(), description="client A")
    reply = analytics.patch(
        f"/api/v1/webhooks/{created['id']}", {"events": "key.created,key.revoked"}
    )
    assert reply.status == 200 and reply.data["events"] == ["key.created", "key.revoked"]
    assert reply.data["description"] == "client A"
    bad = analytics.put(f"/api/v1/webhooks/{created['id']}", {"url": "gopher://x"})
    assert bad.status == 422
    deleted = analytics.delete(f"/api/v1/webhooks/{created['id']}")
    assert deleted.body == {
        "id": created["id"],
        "object": "webhook",
        "deleted": True,
        "status": 200,
    }
    assert analytics.get(f"/api/v1/webhooks/{created['id']}").status == 404


def test_a_stalled_receiver_fails_the_attempt_within_the_deadline(analytics, receiver, monkeypatch):
    from sitelens.webhooks import sending

    monkeypatch.setattr(sending, "DEADLINE", 0.3)
    receiver.stall_seconds = 1.0
    created = make(analytics, receiver.url())
    analytics.post(f"/api/v1/webhooks/{created['id']}/test")
    deliver_queued()
    [logged] = analytics.get(f"/api/v1/webhooks/{created['id']}/deliveries").data
    assert logged["state"] == "retrying" and logged["last_status"] is None
    assert logged["last_error"] and logged["next_attempt_at"]
