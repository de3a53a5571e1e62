"""`goal.converted` and receivers that fail, stall and recover, under `make serve`'s program,
as a user meets them: everything through HTTP, deliveries caught by a receiver of the test's
own on 127.0.0.1 and verified with the Standard Webhooks reference package.

The server runs with the local knobs docs/keys-and-webhooks.md describes: the minutely
pass every second (SITELENS_LOCAL_MINUTE_SECONDS), a grace of one second after a minute ends
(SITELENS_GOAL_GRACE_SECONDS) and the retry delays a ten-thousandth as long
(SITELENS_WEBHOOK_RETRY_SCALE: the 8 attempts of 27.6 hours in 10 s), so a minute's event
comes a second or two after the minute ends and a receiver that never answers 2xx has its
endpoint disabled within seconds."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from standardwebhooks import Webhook

from tests.e2e.test_local_digests import cli
from tests.e2e.test_local_server import HOST, OPENER, Server, call, free_ports, start_server
from tests.fixtures.analytics import CHROME

STALL_SECONDS = 12.0  # past the delivery's 10 s deadline


@dataclass
class Caught:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float = field(default_factory=time.monotonic)


@dataclass
class Receiver:
    """Answers each path by its plan (statuses, or "stall"), the last one again when the
    plan runs out; keeps every request."""

    port: int
    plans: dict[str, list[int | str]] = field(default_factory=dict)
    caught: list[Caught] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str) -> str:
        return f"http://{HOST}:{self.port}{path}"

    def answer(self, path: str) -> int | str:
        with self.lock:
            plan = self.plans.get(path) or [200]
            return plan.pop(0) if len(plan) > 1 else plan[0]

    def of(self, path: str) -> list[Caught]:
        with self.lock:
            return [c for c in self.caught if c.path == path]

    def serve(self) -> ThreadingHTTPServer:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.lock:
                    receiver.caught.append(Caught(self.path, dict(self.headers), body))
                action = receiver.answer(self.path)
                if action == "stall":
                    time.sleep(STALL_SECONDS)
                    action = 200
                try:
                    self.send_response(int(action))
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"ok")
                except OSError:
                    pass  # the sender gave up (a stall)

            def log_message(self, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer((HOST, self.port), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server


@dataclass
class Served:
    server: Server
    key: str
    receiver: Receiver
    outbox: Path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    key = "sl_goalhooks_" + uuid.uuid4().hex
    outbox = tmp_path_factory.mktemp("outbox")
    port, catcher = free_ports(2)
    receiver = Receiver(port)
    listening = receiver.serve()
    server = start_server(
        SITELENS_DEV_API_KEY=key,
        SITELENS_WEBHOOK_CATCHER_PORT=str(catcher),
        SITELENS_ALLOW_PRIVATE_URLS="1",  # the receiver is on 127.0.0.1
        SITELENS_FETCH_PORTS=f"80,443,{port}",
        SITELENS_LOCAL_MINUTE_SECONDS="1",
        SITELENS_GOAL_GRACE_SECONDS="1",
        SITELENS_WEBHOOK_RETRY_SCALE="0.0001",
        SITELENS_MAIL_OUTBOX=str(outbox),
    )
    try:
        yield Served(server, key, receiver, outbox)
    finally:
        server.stop()
        listening.shutdown()


def until(what: Callable[[], Any], seconds: float, message: str) -> Any:
    """Poll `what` until it is truthy; fail after `seconds`."""
    deadline = time.monotonic() + seconds
    while not (found := what()):
        assert time.monotonic() < deadline, message
        time.sleep(0.1)
    return found


def endpoint(served: Served, path: str, events: str, **fields: str) -> dict[str, Any]:
    reply = call(
        "POST",
        f"{served.server.analytics}/api/v1/webhooks",
        served.key,
        form={"url": served.receiver.url(path), "events": events, **fields},
    )
    assert reply.status == 201, reply.body
    created: dict[str, Any] = reply.body["data"]
    return created


def log(served: Served, endpoint_id: int) -> list[dict[str, Any]]:
    reply = call(
        "GET", f"{served.server.analytics}/api/v1/webhooks/{endpoint_id}/deliveries", served.key
    )
    assert reply.status == 200, reply.body
    found: list[dict[str, Any]] = reply.body["data"]
    return found


def verified(secret: str, caught: Caught) -> dict[str, Any]:
    """The body, once the reference implementation accepts its signature."""
    payload: dict[str, Any] = Webhook(secret).verify(caught.body, caught.headers)
    return payload


def hit(served: Served, url: str) -> None:
    request = urllib.request.Request(
        f"{served.server.analytics}/api/event",
        data=urlencode({"page": url}).encode(),
        headers={"User-Agent": CHROME},
    )
    with OPENER.open(request, timeout=10) as response:
        assert response.status in (200, 202), response.read()


def pageviews(served: Served, website_id: int) -> int:
    url = f"{served.server.analytics}/api/v1/stats/{website_id}?name=pageviews"
    reply = call("GET", url, served.key)
    assert reply.status == 200, reply.body
    return sum(row["count"] for row in reply.body["data"])


@dataclass
class Converting:
    site: int
    domain: str
    goals: dict[str, dict[str, Any]]  # by page path
    hook: dict[str, Any]  # goal.converted for the website
    other: dict[str, Any]  # goal.converted for another website


@pytest.fixture(scope="module", autouse=True)
def converting(served: Served) -> Converting:
    """A website with goals, a goal.converted endpoint and converting hits, made before the
    module's first test: the minute the hits fall in must end before it is sent (up to a
    minute), and the other tests run in the meantime."""
    base = served.server.analytics
    domain = f"goals-{uuid.uuid4().hex[:10]}.example.com"
    website = call("POST", f"{base}/api/v1/websites", served.key, form={"domain": domain})
    assert website.status == 201, website.body
    site = website.body["data"]["id"]
    # A hit before there is a goal or an endpoint: counted, it converts nothing, and the
    # aggregator now holds "no subscriber, no goals" for make serve's 1 s
    # (SITELENS_GOAL_CACHE_SECONDS), not deployed's minute.
    hit(served, f"https://{domain}/pricing")
    until(lambda: pageviews(served, site) == 1, 20, "the first hit was not counted in 20 s")
    url = f"{base}/api/v1/websites/{site}/goals"
    goals = {
        path: call("POST", url, served.key, form={"page_path": path}).body["data"]
        for path in ("/pricing", "/blog/**", "/never")  # the last converts nothing
    }
    hook = endpoint(served, "/goals", "goal.converted", websites=str(site))
    elsewhere = call(
        "POST", f"{base}/api/v1/websites", served.key, form={"domain": f"x-{domain}"}
    ).body["data"]
    other = endpoint(served, "/other-site", "goal.converted", websites=str(elsewhere["id"]))
    time.sleep(1.1)  # the aggregator's view of subscribers and goals is 1 s old at most
    for path in ["/pricing", "/pricing", "/pricing", "/blog/a", "/about"]:
        hit(served, f"https://{domain}{path}")
    return Converting(site, domain, goals, hook, other)


def test_a_receiver_that_fails_twice_gets_the_same_delivery_then_recovers(
    served: Served,
) -> None:
    served.receiver.plans["/flaky"] = [500, 500, 200]
    hook = endpoint(served, "/flaky", "website.deleted")
    ping = call("POST", f"{served.server.analytics}/api/v1/webhooks/{hook['id']}/test", served.key)
    assert ping.status == 202, ping.body
    delivery_id = ping.body["data"]["id"]
    until(lambda: len(served.receiver.of("/flaky")) >= 3, 15, "not three attempts in 15 s")
    attempts = served.receiver.of("/flaky")
    assert {a.headers["webhook-id"] for a in attempts} == {delivery_id}
    for caught in attempts:  # each attempt signed afresh, for its own timestamp
        assert verified(hook["secret"], caught)["data"] == {"endpoint": hook["id"]}
    [shown] = until(
        lambda: [d for d in log(served, hook["id"]) if d["state"] == "succeeded"],
        5,
        "the log does not show the delivery succeeded",
    )
    assert (shown["id"], shown["attempts"], shown["last_status"]) == (delivery_id, 3, 200)
    time.sleep(0.5)
    assert len(served.receiver.of("/flaky")) == 3  # delivered once: no attempt after the 200

    # Rotated with an overlap, the secret signs beside the new one; redelivered, the same id.
    base = f"{served.server.analytics}/api/v1/webhooks/{hook['id']}"
    rotated = call("POST", f"{base}/rotate", served.key, form={"overlap": "60"})
    assert rotated.status == 200, rotated.body
    new_secret = rotated.body["data"]["secret"]
    assert new_secret != hook["secret"]
    again = call("POST", f"{base}/deliveries/{delivery_id}/redeliver", served.key)
    assert again.status == 202, again.body
    until(lambda: len(served.receiver.of("/flaky")) >= 4, 10, "not redelivered in 10 s")
    fourth = served.receiver.of("/flaky")[3]
    assert fourth.headers["webhook-id"] == delivery_id
    assert len(fourth.headers["webhook-signature"].split(" ")) == 2
    for secret in (hook["secret"], new_secret):  # either verifies, by the reference package
        assert verified(secret, fourth)["data"] == {"endpoint": hook["id"]}


def test_a_stalling_receiver_fails_its_attempt_and_the_worker_goes_on(served: Served) -> None:
    base = served.server.analytics
    served.receiver.plans["/stall"] = ["stall", 200]
    stalled = endpoint(served, "/stall", "website.deleted")
    quick = endpoint(served, "/quick", "website.deleted")
    ping = call("POST", f"{base}/api/v1/webhooks/{stalled['id']}/test", served.key).body["data"]
    until(lambda: served.receiver.of("/stall"), 5, "the stalling receiver was not called")
    # While the receiver stalls, the API answers at once (on DynamoDB Local: moto, without
    # Java, serves one call at a time, the worker's included; docs/development.md).
    asked = time.monotonic()
    assert call("GET", f"{base}/api/v1/webhooks/{quick['id']}", served.key).status == 200
    if "DynamoDB Local" in served.server.output:
        assert time.monotonic() - asked < 2
    call("POST", f"{base}/api/v1/webhooks/{quick['id']}/test", served.key)
    # The worker goes on: the other endpoint's ping and the stalled one's retry arrive.
    until(lambda: served.receiver.of("/quick"), 15, "the worker hung after a stall")
    [done] = until(
        lambda: [d for d in log(served, stalled["id"]) if d["state"] == "succeeded"],
        15,
        "the stalled delivery was not retried",
    )
    assert (done["id"], done["attempts"], done["last_status"]) == (ping["id"], 2, 200)
    calls = served.receiver.of("/stall")
    # the first attempt given up at its 10 s deadline, before the receiver's 12 s stall ended
    assert 9.5 <= calls[1].at - calls[0].at < STALL_SECONDS
    assert [c.headers["webhook-id"] for c in calls] == [ping["id"], ping["id"]]
    assert json.loads(calls[1].body)["data"] == {"endpoint": stalled["id"]}


def test_a_receiver_that_keeps_failing_is_disabled_and_recovers_when_enabled(served: Served):
    base = f"{served.server.analytics}/api/v1/webhooks"
    account = call("GET", f"{served.server.analytics}/api/v1/account", served.key).body["data"]
    address = f"ops-{uuid.uuid4().hex[:6]}@example.com"
    cli(served.server, served.outbox, "accounts", "update", str(account["id"]), "--email", address)
    served.receiver.plans["/down"] = [503]
    hook = endpoint(served, "/down", "website.deleted")
    ping = call("POST", f"{base}/{hook['id']}/test", served.key).body["data"]
    [failed] = until(
        lambda: [d for d in log(served, hook["id"]) if d["state"] == "failed"],
        30,
        "the delivery was not given up within 30 s",
    )
    assert (failed["id"], failed["attempts"], failed["last_status"]) == (ping["id"], 8, 503)
    calls = served.receiver.of("/down")
    assert len(calls) == 8 and {c.headers["webhook-id"] for c in calls} == {ping["id"]}
    shown = call("GET", f"{base}/{hook['id']}", served.key).body["data"]
    assert shown["enabled"] is False and shown["disabled_reason"]
    # and the account's address is told, by an email caught in make serve's outbox
    subject = f"Sitelens: webhook endpoint {hook['id']} was disabled"
    mails = until(
        lambda: [
            m
            for m in (
                message_from_bytes(f.read_bytes(), policy=policy.default)
                for f in served.outbox.glob("*.eml")
            )
            if m["Subject"] == subject
        ],
        5,
        "no email about the disabled endpoint",
    )
    assert [str(m["To"]) for m in mails] == [address]
    # Disabled, it gets nothing; enabled again and redelivered, it gets the delivery once.
    served.receiver.plans["/down"] = [200]
    again = call("POST", f"{base}/{hook['id']}/deliveries/{ping['id']}/redeliver", served.key)
    assert again.status in (202, 409, 422), again.body
    enabled = call("PUT", f"{base}/{hook['id']}", served.key, form={"enabled": "1"})
    assert enabled.status == 200 and enabled.body["data"]["enabled"] is True, enabled.body
    redelivered = call("POST", f"{base}/{hook['id']}/deliveries/{ping['id']}/redeliver", served.key)
    assert redelivered.status == 202, redelivered.body
    until(
        lambda: [d for d in log(served, hook["id"]) if d["state"] == "succeeded"],
        10,
        "not redelivered within 10 s",
    )
    assert served.receiver.of("/down")[-1].headers["webhook-id"] == ping["id"]
    assert served.receiver.of("/down")[-1].body == calls[0].body


def test_goal_conversions_of_a_minute_arrive_as_one_signed_delivery(
    served: Served, converting: Converting
) -> None:
    """Last in the module: its hits were sent before the first test (`converting`)."""
    hook, pricing, blog = (
        converting.hook,
        converting.goals["/pricing"],
        converting.goals["/blog/**"],
    )
    # The minute must end, then a tick of the pass sends it: about 62 s at the most.
    [first] = until(lambda: served.receiver.of("/goals"), 75, "no goal.converted in 75 s")
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
    [delivery] = until(lambda: log(served, hook["id"]), 5, "no delivery in the log")
    assert (delivery["id"], delivery["event"]) == (first.headers["webhook-id"], "goal.converted")
    until(lambda: log(served, hook["id"])[0]["state"] == "succeeded", 5, "not succeeded")
    time.sleep(2)  # two more ticks of the pass: the minute is not sent again
    assert len(served.receiver.of("/goals")) == 1
    other = converting.other
    assert served.receiver.of("/other-site") == [] and log(served, other["id"]) == []
