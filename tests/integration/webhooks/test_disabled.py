"""A dead endpoint is its account's event: when every delivery failed for over a day the
endpoint is disabled, the account's address gets an email, its other endpoints subscribed to
`webhook.disabled` get the event (signed, its payload the registry's), and the metric
`WebhookEndpointsDisabled` counts it by account. Nothing of it is an operator's alarm
(tests/unit/webhooks/test_alarms.py)."""

from __future__ import annotations

import json

from standardwebhooks import Webhook

from sitelens.core import config, metrics
from sitelens.webhooks import deliveries, registry
from tests.integration.webhooks.test_webhooks import later, make, next_of

__all__ = ["later"]  # the fixture, used by name


def emitted(capsys) -> str:
    metrics.flush()
    return capsys.readouterr().out


def test_a_dead_endpoint_is_emailed_sent_as_an_event_and_counted_by_account(
    analytics, receivers, monkeypatch, tmp_path, later, capsys
):
    monkeypatch.setenv("SITELENS_MAIL_OUTBOX", str(tmp_path))
    config.reset()
    from sitelens import accounts

    account_id = str(analytics.get("/api/v1/account").data["id"])
    accounts.set_contact(accounts.get_account(account_id), "ops@agency.example")
    dead, listening = receivers
    # the dead one subscribes too: it is not told of itself
    failing = make(analytics, dead.url(), events="website.created,webhook.disabled")
    told = make(analytics, listening.url(), events="webhook.disabled")
    make(analytics, listening.url("/not-subscribed"), events="website.created")
    website = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data["id"]
    make(analytics, listening.url("/one-website"), events="webhook.disabled", websites=website)
    for message in next_of(later):  # website.created's deliveries, received
        deliveries.attempt(message)
    assert not next_of(later)
    dead.statuses = [500] * deliveries.ATTEMPTS
    analytics.post(f"/api/v1/webhooks/{failing['id']}/test")
    [message] = next_of(later)
    started = deliveries.time.time()
    clock = [started]
    monkeypatch.setattr(deliveries.time, "time", lambda: clock[0])
    capsys.readouterr()
    for _ in range(deliveries.ATTEMPTS - 1):
        deliveries.attempt(message)
        [message] = next_of(later)
        clock[0] = message["due"]
    deliveries.attempt(message)  # the last: the endpoint is disabled
    shown = analytics.get(f"/api/v1/webhooks/{failing['id']}").data
    assert shown["enabled"] is False
    # the email
    [mail] = list(tmp_path.glob("*.eml"))
    assert "was disabled" in mail.read_text() and "ops@agency.example" in mail.read_text()
    # the event, to the one other endpoint over the whole account that subscribes to it
    queued = next_of(later)
    assert [m["endpoint"] for m in queued] == [str(told["id"])]
    clock[0] = started  # signed now, for the verifier's clock
    deliveries.attempt(queued[0])
    [got] = [one for one in listening.received if one.path == "/hook"]
    payload = Webhook(told["secret"]).verify(got.body, got.headers)
    assert payload["type"] == "webhook.disabled"
    assert payload["data"] == {
        "endpoint": failing["id"],
        "url": failing["url"],
        "disabled_reason": shown["disabled_reason"],
        "failing_since": shown["failing_since"] or payload["data"]["failing_since"],
        "disabled_at": payload["data"]["disabled_at"],
    }
    registry.WEBHOOK_DISABLED.check(payload["data"])
    # figures of the delivery's log line, by account: no metric, none the operator's alarms read
    out = emitted(capsys)
    [figures] = [json.loads(line)["figures"] for line in out.splitlines() if '"figures"' in line]
    assert figures[f"WebhookEndpointsDisabled[account={account_id}]"] == 1
    assert figures[f"WebhookDeliveriesFailed[account={account_id}]"] >= 1
    assert '"_aws"' not in out


def test_an_endpoint_not_disabled_sends_no_event_and_no_email(
    analytics, receivers, monkeypatch, tmp_path, later
):
    """Paused while its last attempt failed: not disabled by us, so nothing is said."""
    monkeypatch.setenv("SITELENS_MAIL_OUTBOX", str(tmp_path))
    config.reset()
    dead, listening = receivers
    failing = make(analytics, dead.url())
    make(analytics, listening.url(), events="webhook.disabled")
    dead.statuses = [500] * deliveries.ATTEMPTS
    analytics.post(f"/api/v1/webhooks/{failing['id']}/test")
    [message] = next_of(later)
    clock = [deliveries.time.time()]
    monkeypatch.setattr(deliveries.time, "time", lambda: clock[0])
    for _ in range(deliveries.ATTEMPTS - 1):
        deliveries.attempt(message)
        [message] = next_of(later)
        clock[0] = message["due"]
    analytics.put(f"/api/v1/webhooks/{failing['id']}", {"enabled": "0"})
    deliveries.attempt(message)
    assert next_of(later) == [] and list(tmp_path.glob("*.eml")) == []
