"""`goal.converted` and receivers that fail, stall and recover, under `make serve`'s program,
as a user meets them: everything through HTTP, deliveries caught by a receiver of the test's
own on 127.0.0.1 and verified with the Standard Webhooks reference package.

The server runs with the local knobs docs/keys-and-webhooks.md describes: the minutely
pass every second (SITELENS_LOCAL_MINUTE_SECONDS), a grace of one second after a minute ends
(SITELENS_GOAL_GRACE_SECONDS) and the retry delays a ten-thousandth as long
(SITELENS_WEBHOOK_RETRY_SCALE: the 8 attempts of 27.6 hours in 10 s), so a minute's event
comes a second or two after the minute ends and a receiver that never answers 2xx has its
endpoint disabled within seconds. The server, the receiver, the minute's hits, the stalled
delivery and the failing one are session fixtures (tests/e2e/webhooks/receivers.py), sent at
the session's first e2e test; the tests check what came of them."""

from __future__ import annotations

import json
import time
from email import message_from_bytes, policy

import pytest

from tests.e2e.test_local_server import call
from tests.e2e.webhooks.receivers import (
    STALL_SECONDS,
    Converting,
    Failing,
    Served,
    Stalled,
    endpoint,
    log,
    until,
    verified,
)


def test_a_receiver_that_fails_twice_gets_the_same_delivery_then_recovers(
    receiving: Served,
) -> None:
    receiving.receiver.plans["/flaky"] = [500, 500, 200]
    hook = endpoint(receiving, "/flaky", "website.deleted")
    ping = call(
        "POST", f"{receiving.server.analytics}/api/v1/webhooks/{hook['id']}/test", receiving.key
    )
    assert ping.status == 202, ping.body
    delivery_id = ping.body["data"]["id"]
    # Up to 30 s: make serve delivers one at a time, and this may queue behind the stall
    # `stalled` started when this is the session's first e2e module.
    until(lambda: len(receiving.receiver.of("/flaky")) >= 3, 30, "not three attempts in 30 s")
    attempts = receiving.receiver.of("/flaky")
    assert {a.headers["webhook-id"] for a in attempts} == {delivery_id}
    for caught in attempts:  # each attempt signed afresh, for its own timestamp
        assert verified(hook["secret"], caught)["data"] == {"endpoint": hook["id"]}
    [shown] = until(
        lambda: [d for d in log(receiving, hook["id"]) if d["state"] == "succeeded"],
        5,
        "the log does not show the delivery succeeded",
    )
    assert (shown["id"], shown["attempts"], shown["last_status"]) == (delivery_id, 3, 200)
    time.sleep(0.5)
    assert len(receiving.receiver.of("/flaky")) == 3  # delivered once: no attempt after the 200

    # Rotated with an overlap, the secret signs beside the new one; redelivered, the same id.
    base = f"{receiving.server.analytics}/api/v1/webhooks/{hook['id']}"
    rotated = call("POST", f"{base}/rotate", receiving.key, form={"overlap": "60"})
    assert rotated.status == 200, rotated.body
    new_secret = rotated.body["data"]["secret"]
    assert new_secret != hook["secret"]
    again = call("POST", f"{base}/deliveries/{delivery_id}/redeliver", receiving.key)
    assert again.status == 202, again.body
    until(lambda: len(receiving.receiver.of("/flaky")) >= 4, 10, "not redelivered in 10 s")
    fourth = receiving.receiver.of("/flaky")[3]
    assert fourth.headers["webhook-id"] == delivery_id
    assert len(fourth.headers["webhook-signature"].split(" ")) == 2
    for secret in (hook["secret"], new_secret):  # either verifies, by the reference package
        assert verified(secret, fourth)["data"] == {"endpoint": hook["id"]}


def test_a_stalling_receiver_fails_its_attempt_and_the_worker_goes_on(
    receiving: Served, stalled: Stalled
) -> None:
    """The stall began at the session's first e2e test (`stalled`)."""
    # While the receiver stalled, the API answered at once (on DynamoDB Local: moto, without
    # Java, serves one call at a time, the worker's included; docs/development.md).
    assert stalled.read_status == 200
    if "(moto, one request at a time)" not in receiving.server.output:
        assert stalled.read_seconds < 2
    # The worker goes on: the other endpoint's ping and the stalled one's retry arrive.
    [quick] = until(lambda: receiving.receiver.of("/quick"), 15, "the worker hung after a stall")
    assert quick.at - stalled.quick_sent < 15, "the worker hung after a stall"
    [done] = until(
        lambda: [d for d in log(receiving, stalled.stalled["id"]) if d["state"] == "succeeded"],
        30,
        "the stalled delivery was not retried",
    )
    ping = stalled.ping
    assert (done["id"], done["attempts"], done["last_status"]) == (ping["id"], 2, 200)
    calls = receiving.receiver.of("/stall")
    # the first attempt given up at its 10 s deadline, before the receiver's 12 s stall ended
    assert 9.5 <= calls[1].at - calls[0].at < STALL_SECONDS
    assert [c.headers["webhook-id"] for c in calls] == [ping["id"], ping["id"]]
    assert json.loads(calls[1].body)["data"] == {"endpoint": stalled.stalled["id"]}


def test_a_receiver_that_keeps_failing_is_disabled_and_recovers_when_enabled(
    receiving: Served, failing: Failing
) -> None:
    """Its delivery was sent at the session's first e2e test (`failing`)."""
    base = f"{receiving.server.analytics}/api/v1/webhooks"
    hook, ping, address = failing.hook, failing.ping, failing.address
    [failed] = until(
        lambda: [d for d in log(receiving, hook["id"]) if d["state"] == "failed"],
        30,
        "the delivery was not given up within 30 s",
    )
    assert (failed["id"], failed["attempts"], failed["last_status"]) == (ping["id"], 8, 503)
    calls = receiving.receiver.of("/down")
    assert len(calls) == 8 and {c.headers["webhook-id"] for c in calls} == {ping["id"]}
    shown = call("GET", f"{base}/{hook['id']}", receiving.key).body["data"]
    assert shown["enabled"] is False and shown["disabled_reason"]
    # and the account's address is told, by an email caught in make serve's outbox
    subject = f"Sitelens: webhook endpoint {hook['id']} was disabled"
    mails = until(
        lambda: [
            m
            for m in (
                message_from_bytes(f.read_bytes(), policy=policy.default)
                for f in receiving.outbox.glob("*.eml")
            )
            if m["Subject"] == subject
        ],
        5,
        "no email about the disabled endpoint",
    )
    assert [str(m["To"]) for m in mails] == [address]
    # Disabled, it gets nothing; enabled again and redelivered, it gets the delivery once.
    receiving.receiver.plans["/down"] = [200]
    again = call("POST", f"{base}/{hook['id']}/deliveries/{ping['id']}/redeliver", receiving.key)
    assert again.status == 409 and "disabled" in again.body["message"], again.body
    enabled = call("PUT", f"{base}/{hook['id']}", receiving.key, form={"enabled": "1"})
    assert enabled.status == 200 and enabled.body["data"]["enabled"] is True, enabled.body
    redelivered = call(
        "POST", f"{base}/{hook['id']}/deliveries/{ping['id']}/redeliver", receiving.key
    )
    assert redelivered.status == 202, redelivered.body
    until(
        lambda: [d for d in log(receiving, hook["id"]) if d["state"] == "succeeded"],
        10,
        "not redelivered within 10 s",
    )
    assert receiving.receiver.of("/down")[-1].headers["webhook-id"] == ping["id"]
    assert receiving.receiver.of("/down")[-1].body == calls[0].body


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_goal_conversions_of_a_minute_arrive_as_one_signed_delivery(
    receiving: Served, converting: Converting
) -> None:
    """Last in the module: its hits were sent before the first test (`converting`)."""
    hook, pricing, blog = (
        converting.hook,
        converting.goals["/pricing"],
        converting.goals["/blog/**"],
    )
    # The minute must end, then a tick of the pass sends it: about 62 s at the most.
    [first] = until(lambda: receiving.receiver.of("/goals"), 75, "no goal.converted in 75 s")
    event = verified(hook["secret"], first)
    assert event["type"] == "goal.converted"
    data = event["data"]
    assert (data["website_id"], data["domain"]) == (converting.site, converting.domain)
    assert data["minute"].endswith(":00Z")
    assert data["goals"] == [
        {"id": pricing["id"], "name": "Visit /pricing", "conversions": 3, "revenue": None},
        {"id": blog["id"], "name": "Visit /blog/**", "conversions": 1, "revenue": None},
    ]
    assert first.headers["webhook-id"].startswith("msg_")
    [delivery] = until(lambda: log(receiving, hook["id"]), 5, "no delivery in the log")
    assert (delivery["id"], delivery["event"]) == (first.headers["webhook-id"], "goal.converted")
    until(lambda: log(receiving, hook["id"])[0]["state"] == "succeeded", 5, "not succeeded")
    time.sleep(2)  # two more ticks of the pass: the minute is not sent again
    assert len(receiving.receiver.of("/goals")) == 1
    other = converting.other
    assert receiving.receiver.of("/other-site") == [] and log(receiving, other["id"]) == []
