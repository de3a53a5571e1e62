"""What a user changes while a delivery is in flight stays changed: the delivery writes
only its own state fields of the endpoint. And a redelivery never starts a second chain of
attempts beside one that goes on (one `webhook-id`, one chain)."""

from __future__ import annotations

from typing import Any

import pytest
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from sitelens.webhooks import deliveries
from tests.integration.webhooks.test_webhooks import later, make, next_of

__all__ = ["later"]  # the fixture, used by name


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    """The deliveries' clock, moved by the test to when a retry is due."""
    now = [deliveries.time.time()]
    monkeypatch.setattr(deliveries.time, "time", lambda: now[0])
    return now


def first_attempt_while(analytics, receiver, later, change) -> tuple[dict[str, Any], Any]:
    """Make an endpoint, then ping it: its first attempt fails (500) while `change` runs
    as the user; the endpoint and the retry's message after that attempt."""
    created = make(analytics, receiver.url())
    done: list[Any] = []
    receiver.statuses = [500]
    receiver.during = lambda: done.append(change(created))
    analytics.post(f"/api/v1/webhooks/{created['id']}/test")
    [message] = next_of(later)
    deliveries.attempt(message)
    receiver.during = None
    assert len(done) == 1 and len(receiver.received) == 1
    [retry] = next_of(later)
    return {**created, "change": done[0]}, retry


def test_a_secret_rotated_during_an_attempt_is_kept_and_signs_the_next(
    analytics, receiver, later, clock
):
    def rotate(created: dict[str, Any]) -> dict[str, Any]:
        reply = analytics.post(f"/api/v1/webhooks/{created['id']}/rotate", {"overlap": "0"})
        assert reply.status == 200, reply.body
        return reply.data

    created, retry = first_attempt_while(analytics, receiver, later, rotate)
    clock[0] = retry["due"]
    deliveries.attempt(retry)
    sent = receiver.received[-1]
    Webhook(created["change"]["secret"]).verify(sent.body, sent.headers)  # the one shown
    with pytest.raises(WebhookVerificationError):
        Webhook(created["secret"]).verify(sent.body, sent.headers)
    endpoint = analytics.get(f"/api/v1/webhooks/{created['id']}").data
    assert endpoint["secret_rotated_at"] and endpoint["failing_since"] is None


def test_a_url_changed_during_an_attempt_is_kept(analytics, receivers, later, clock):
    first, second = receivers

    def move(created: dict[str, Any]) -> int:
        return analytics.put(f"/api/v1/webhooks/{created['id']}", {"url": second.url()}).status

    created, retry = first_attempt_while(analytics, first, later, move)
    assert created["change"] == 200
    endpoint = analytics.get(f"/api/v1/webhooks/{created['id']}").data
    assert endpoint["url"] == second.url() and endpoint["failing_since"]
    clock[0] = retry["due"]
    deliveries.attempt(retry)
    assert len(first.received) == 1
    [got] = second.received
    assert got.headers["webhook-id"] == retry["delivery"]


def test_a_pause_during_an_attempt_is_kept(analytics, receiver, later, clock):
    def pause(created: dict[str, Any]) -> int:
        return analytics.put(f"/api/v1/webhooks/{created['id']}", {"enabled": "0"}).status

    created, retry = first_attempt_while(analytics, receiver, later, pause)
    endpoint = analytics.get(f"/api/v1/webhooks/{created['id']}").data
    assert endpoint["enabled"] is False and endpoint["disabled_reason"] == "Paused through the API."
    clock[0] = retry["due"]
    deliveries.attempt(retry)
    assert len(receiver.received) == 1  # nothing is sent to a paused endpoint


def test_redeliver_while_retrying_starts_no_second_chain(analytics, receiver, later, clock):
    created = make(analytics, receiver.url())
    receiver.statuses = [500]
    delivery = analytics.post(f"/api/v1/webhooks/{created['id']}/test").data
    redeliver = f"/api/v1/webhooks/{created['id']}/deliveries/{delivery['id']}/redeliver"
    pending = analytics.post(redeliver)
    assert pending.status == 409 and "pending or retrying" in pending.body["message"]
    [message] = next_of(later)
    deliveries.attempt(message)
    [retry] = next_of(later)
    again = analytics.post(redeliver)
    assert again.status == 409 and later == []  # no second message queued
    [logged] = analytics.get(f"/api/v1/webhooks/{created['id']}/deliveries").data
    assert (logged["state"], logged["attempts"]) == ("retrying", 1)
    clock[0] = retry["due"]
    deliveries.attempt(retry)
    assert later == []
    assert [r.headers["webhook-id"] for r in receiver.received] == [delivery["id"]] * 2
    # done, it may be sent again: one fresh chain
    assert analytics.post(redeliver).status == 202
    [fresh] = next_of(later)
    deliveries.attempt(fresh)
    assert len(receiver.received) == 3 and later == []


def test_a_pause_during_the_last_attempt_is_not_turned_into_a_disable(
    analytics, receiver, later, clock, monkeypatch, tmp_path
):
    from sitelens.core import config

    monkeypatch.setenv("SITELENS_MAIL_OUTBOX", str(tmp_path))
    config.reset()
    created = make(analytics, receiver.url())
    receiver.statuses = [500] * deliveries.ATTEMPTS
    analytics.post(f"/api/v1/webhooks/{created['id']}/test")
    for attempt in range(deliveries.ATTEMPTS):
        [message] = next_of(later)
        clock[0] = max(clock[0], message["due"])
        if attempt == deliveries.ATTEMPTS - 1:
            path = f"/api/v1/webhooks/{created['id']}"
            receiver.during = lambda: analytics.put(path, {"enabled": "0"})
        deliveries.attempt(message)
    assert later == [] and len(receiver.received) == deliveries.ATTEMPTS
    endpoint = analytics.get(f"/api/v1/webhooks/{created['id']}").data
    assert endpoint["enabled"] is False and endpoint["disabled_reason"] == "Paused through the API."
    assert list(tmp_path.glob("*.eml")) == []  # the user paused it: no "was disabled" email
