"""The receivers and server of tests/e2e/webhooks/test_goal_and_failing_receivers.py, as
session fixtures that tests/e2e/conftest.py registers: `receiving`, `make serve`'s program with
the local knobs docs/keys-and-webhooks.md describes (the minutely pass every second, a grace
of one second, retry delays a ten-thousandth as long) and a receiver of the test's own.

Three of its tests wait on a clock: a minute must end (GOAL_TEST), a delivery's 10 s deadline
must pass (STALL_TEST), eight attempts must fail (FAILING_TEST). What they wait on is started
at the first e2e test of a session that is to run them (`converting`, `stalled`, `failing`),
so that it ends while other tests run; the tests then check what happened."""

from __future__ import annotations

import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from standardwebhooks import Webhook

from sitelens.local import STOP_POLL_SECONDS
from tests.e2e.test_local_digests import cli
from tests.e2e.test_local_server import HOST, OPENER, Server, call, free_ports, start_server
from tests.fixtures.analytics import CHROME

GOAL_TEST = "test_goal_conversions_of_a_minute_arrive_as_one_signed_delivery"
STALL_TEST = "test_a_stalling_receiver_fails_its_attempt_and_the_worker_goes_on"
FAILING_TEST = "test_a_receiver_that_keeps_failing_is_disabled_and_recovers_when_enabled"
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
        threading.Thread(
            target=server.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True
        ).start()
        return server


@dataclass
class Served:
    server: Server
    key: str
    receiver: Receiver
    outbox: Path


@pytest.fixture(scope="session")
def receiving(
    tmp_path_factory: pytest.TempPathFactory, worker_dynamodb: str | None
) -> Iterator[Served]:
    key = "sl_goalhooks_" + uuid.uuid4().hex
    outbox = tmp_path_factory.mktemp("outbox")
    port, catcher = free_ports(2)
    receiver = Receiver(port)
    listening = receiver.serve()
    server = start_server(
        dynamodb=worker_dynamodb,
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


@pytest.fixture(scope="session")
def converting(receiving: Served) -> Converting:
    """A website with goals, a goal.converted endpoint and converting hits, made at the first
    e2e test of a session that is to run GOAL_TEST (tests/e2e/conftest.py): the minute the
    hits fall in must end before it is sent (up to a minute), and the other tests run in
    the meantime."""
    base = receiving.server.analytics
    domain = f"goals-{uuid.uuid4().hex[:10]}.example.com"
    website = call("POST", f"{base}/api/v1/websites", receiving.key, form={"domain": domain})
    assert website.status == 201, website.body
    site = website.body["data"]["id"]
    # A hit before there is a goal or an endpoint: counted, it converts nothing, and the
    # aggregator now holds "no subscriber, no goals" for make serve's 1 s
    # (SITELENS_GOAL_CACHE_SECONDS), not deployed's minute.
    hit(receiving, f"https://{domain}/pricing")
    until(lambda: pageviews(receiving, site) == 1, 20, "the first hit was not counted in 20 s")
    url = f"{base}/api/v1/websites/{site}/goals"
    goals = {
        path: call("POST", url, receiving.key, form={"page_path": path}).body["data"]
        for path in ("/pricing", "/blog/**", "/never")  # the last converts nothing
    }
    hook = endpoint(receiving, "/goals", "goal.converted", websites=str(site))
    elsewhere = call(
        "POST", f"{base}/api/v1/websites", receiving.key, form={"domain": f"x-{domain}"}
    ).body["data"]
    other = endpoint(receiving, "/other-site", "goal.converted", websites=str(elsewhere["id"]))
    time.sleep(1.1)  # the aggregator's view of subscribers and goals is 1 s old at most
    for path in ["/pricing", "/pricing", "/pricing", "/blog/a", "/about"]:
        hit(receiving, f"https://{domain}{path}")
    return Converting(site, domain, goals, hook, other)


@dataclass
class Stalled:
    """A test delivery to a receiver that stalls past the delivery's 10 s deadline, and what
    the API answered while it stalled."""

    stalled: dict[str, Any]  # the stalling receiver's endpoint
    quick: dict[str, Any]  # another endpoint, pinged while it stalled
    ping: dict[str, Any]  # the stalled delivery
    read_status: int  # GET of the other endpoint while the receiver stalled
    read_seconds: float
    quick_sent: float  # when the other endpoint's ping was sent (time.monotonic)


@pytest.fixture(scope="session")
def stalled(receiving: Served) -> Stalled:
    base = receiving.server.analytics
    receiving.receiver.plans["/stall"] = ["stall", 200]
    stalling = endpoint(receiving, "/stall", "website.deleted")
    quick = endpoint(receiving, "/quick", "website.deleted")
    ping = call("POST", f"{base}/api/v1/webhooks/{stalling['id']}/test", receiving.key)
    assert ping.status == 202, ping.body
    until(lambda: receiving.receiver.of("/stall"), 5, "the stalling receiver was not called")
    asked = time.monotonic()
    read = call("GET", f"{base}/api/v1/webhooks/{quick['id']}", receiving.key)
    read_seconds = time.monotonic() - asked
    quick_sent = time.monotonic()
    pinged = call("POST", f"{base}/api/v1/webhooks/{quick['id']}/test", receiving.key)
    assert pinged.status == 202, pinged.body
    return Stalled(stalling, quick, ping.body["data"], read.status, read_seconds, quick_sent)


@dataclass
class Failing:
    """A test delivery to a receiver that answers 503 to every attempt, made after the
    account's address was set to `address` (where the disabled endpoint is reported)."""

    hook: dict[str, Any]
    ping: dict[str, Any]
    address: str


@pytest.fixture(scope="session")
def failing(receiving: Served) -> Failing:
    base = receiving.server.analytics
    account = call("GET", f"{base}/api/v1/account", receiving.key).body["data"]
    address = f"ops-{uuid.uuid4().hex[:6]}@example.com"
    cli(
        receiving.server,
        receiving.outbox,
        "accounts",
        "update",
        str(account["id"]),
        "--email",
        address,
    )
    receiving.receiver.plans["/down"] = [503]
    hook = endpoint(receiving, "/down", "website.deleted")
    ping = call("POST", f"{base}/api/v1/webhooks/{hook['id']}/test", receiving.key)
    assert ping.status == 202, ping.body
    return Failing(hook, ping.body["data"], address)


# What each waiting test needs started early, by the test's name (tests/e2e/conftest.py).
STARTED_EARLY = {GOAL_TEST: "converting", STALL_TEST: "stalled", FAILING_TEST: "failing"}
