"""Visitors, visits, bounces and durations as a real browser makes them (Playwright on
Debian's Chromium) against `make serve`: pages on `localhost` loading the script, links,
a bounce, a long read, a custom event; then asked through `POST /api/v1/query`."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from sitelens.local import STOP_POLL_SECONDS
from tests.e2e.test_local_server import Server, call
from tests.fixtures import browsers

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser
AGENT = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.{} Safari/537.36"
)


class Pages(ThreadingHTTPServer):
    daemon_threads = True
    script = ""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), PageHandler)


class PageHandler(BaseHTTPRequestHandler):
    server: Pages

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        body = (
            f'<!doctype html><title>{path}</title><script async src="{self.server.script}">'
            '</script><a id="next" href="/b">next</a>'
            '<button id="signup" onclick="sitelens.event(\'signup\')">Sign up</button>'
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def pages(server: Server) -> Iterator[Pages]:
    site = Pages()
    site.script = f"{server.analytics}/js/script.js"
    threading.Thread(target=site.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True).start()
    yield site
    site.shutdown()


def ask(server: Server, key: str, **body: Any) -> list[dict[str, Any]]:
    reply = call("POST", f"{server.analytics}/api/v1/query", key, json_body=body)
    assert reply.status == 200, reply.body
    results: list[dict[str, Any]] = reply.body["results"]
    return results


@pytest.mark.slow  # about 3 s or more of a worker: make test-slow (CI)
def test_visits_as_a_browser_makes_them(server, dev_key, pages):
    # A name under localhost of this module's own (a website's domain is claimed across the
    # shared server's accounts): Chromium resolves every one to loopback (RFC 6761).
    host = f"query-{uuid.uuid4().hex[:10]}.localhost"
    created = call("POST", f"{server.analytics}/api/v1/websites", dev_key, form={"domain": host})
    assert created.status == 201, created.body
    site_id = created.body["data"]["id"]
    base = f"http://{host}:{pages.server_address[1]}"
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=browsers.executable(),
            args=["--disable-blink-features=AutomationControlled"],
        )

        def visitor(number: int) -> Any:
            return browser.new_context(user_agent=AGENT.format(number)).new_page()

        reader = visitor(1)  # reads /a, follows the link, reads /b for 3 s, leaves
        reader.goto(f"{base}/a")
        reader.wait_for_timeout(500)
        reader.click("#next")
        reader.wait_for_timeout(3000)
        reader.close(run_before_unload=True)
        bouncer = visitor(2)  # one page, half a second
        bouncer.goto(f"{base}/a?utm_source=newsletter")
        bouncer.wait_for_timeout(500)
        bouncer.close(run_before_unload=True)
        buyer = visitor(3)  # one page and a custom event: no bounce
        buyer.goto(f"{base}/b")
        buyer.wait_for_timeout(300)
        buyer.click("#signup")
        buyer.wait_for_timeout(500)
        buyer.close(run_before_unload=True)
        browser.close()
    today = time.strftime("%Y-%m-%d", time.gmtime())
    body = {
        "site_id": site_id,
        "metrics": ["visitors", "visits", "pageviews", "bounce_rate", "visit_duration"],
        "date_range": [today, today],
    }
    # Hits, events and engagement signals reach the warehouse in separate batches: wait for
    # all of them (the buyer's event last of all can turn a bounce into none), then assert.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        totals = ask(server, dev_key, **body)
        if totals and totals[0]["metrics"][:4] == [3, 3, 4, 33.3] and totals[0]["metrics"][4]:
            break
        time.sleep(0.5)
    [row] = totals
    visitors, visits, pageviews, bounce_rate, duration = row["metrics"]
    assert (visitors, visits, pageviews) == (3, 3, 4)
    assert bounce_rate == 33.3  # the one-page visit without an event
    assert duration >= 1  # the reader's 3.5 s (and the others' seconds), averaged
    sources = ask(
        server, dev_key, **{**body, "metrics": ["visits"], "dimensions": ["visit:utm_source"]}
    )
    assert {r["dimensions"][0]: r["metrics"][0] for r in sources} == {"": 2, "newsletter": 1}
    realtime = call("GET", f"{server.analytics}/api/v1/stats/{site_id}/realtime", dev_key)
    assert realtime.body["data"]["visitors"] == 3
