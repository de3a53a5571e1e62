"""Plausible's own tracker, unchanged, in Chromium against `make serve`: the npm package
`@plausible-analytics/tracker` (the Makefile installs it, pinned, into .plausible-tracker/),
loaded by a page of this test whose `endpoint` is the server's POST /api/event. What it
sends is counted and asked back through POST /api/v1/query, as a site moving from
Plausible would keep its snippet and see its numbers."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from sitelens.local import STOP_POLL_SECONDS
from tests.e2e.analytics.test_goals_served import until
from tests.e2e.test_local_server import ROOT, Server, call, unique_domain
from tests.fixtures import browsers
from tests.fixtures.analytics import CHROME

pytestmark = pytest.mark.browser
# The version is the Makefile's PLAUSIBLE_VERSION; `make test` installs it.
TRACKER = ROOT / ".plausible-tracker/node_modules/@plausible-analytics/tracker/plausible.js"
# A shop page that loads the tracker as its README says: init() sends the pageview, track()
# a custom event with props and revenue. The page is on 127.0.0.1, so the tracker's own
# localhost rule is turned off by its option, and `domain` names the website, as on Plausible.
PAGE = """<!doctype html>
<meta charset="utf-8">
<title>Shop</title>
<script type="module">
import {{ init, track }} from '/plausible.js'
init({{ domain: {domain}, endpoint: {endpoint}, captureOnLocalhost: true }})
track('Purchase', {{
  props: {{ plan: 'pro', seats: 3 }},
  revenue: {{ amount: 19.99, currency: 'EUR' }},
  callback: function (result) {{ document.title = 'sent ' + result.status }},
}})
</script>
"""


class Pages(ThreadingHTTPServer):
    """The shop's own server: the page and Plausible's file, as a site serves them."""

    daemon_threads = True
    page = ""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    server: Pages

    def do_GET(self) -> None:
        if self.path == "/plausible.js":
            self.reply(TRACKER.read_bytes(), "text/javascript")
        elif self.path == "/shop":
            self.reply(self.server.page.encode(), "text/html; charset=utf-8")
        else:
            self.send_error(404)

    def reply(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def pages() -> Iterator[Pages]:
    if not TRACKER.is_file():
        pytest.skip(f"no {TRACKER.relative_to(ROOT)}: `make test` installs it with npm")
    server = Pages()
    thread = threading.Thread(target=server.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.mark.slow  # about 3 s or more of a worker: make test-slow (CI)
def test_plausibles_script_is_counted_as_it_is(server: Server, dev_key: str, pages: Pages) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    domain = unique_domain("plausible")
    websites = f"{server.analytics}/api/v1/websites"
    created = call("POST", websites, dev_key, form={"domain": domain})
    assert created.status == 201, created.body
    site = created.body["data"]["id"]
    goal = {"event_name": "Purchase", "currency": "EUR"}
    assert call("POST", f"{websites}/{site}/goals", dev_key, json_body=goal).status == 201
    endpoint = f"{server.analytics}/api/event"
    pages.page = PAGE.format(domain=json.dumps(domain), endpoint=json.dumps(endpoint))

    answers: list[tuple[int, str, dict[str, Any]]] = []
    with playwright.sync_playwright() as p:
        # not flagged as automated, so that the tracker sends as for a visitor
        chromium = p.chromium.launch(
            executable_path=browsers.executable(),
            args=["--disable-blink-features=AutomationControlled"],
        )
        page = chromium.new_context(user_agent=CHROME).new_page()
        page.on(
            "response",
            lambda r: (
                r.url == endpoint
                and answers.append((r.status, r.text(), json.loads(r.request.post_data or "{}")))
            ),
        )
        page.goto(f"{pages.base}/shop")
        page.wait_for_function("document.title === 'sent 202'", timeout=10_000)
        page.wait_for_timeout(300)  # the pageview's answer, if it came second
        chromium.close()

    sent = {body["n"]: (status, text, body) for status, text, body in answers}
    assert set(sent) == {"pageview", "Purchase"}, answers
    assert {(status, text) for status, text, _ in sent.values()} == {(202, "ok")}
    purchase = sent["Purchase"][2]
    assert (purchase["d"], purchase["p"], purchase["$"]) == (
        domain,
        {"plan": "pro", "seats": 3},
        {"amount": 19.99, "currency": "EUR"},
    )

    def ask(body: dict[str, Any]) -> Any:
        query = {"site_id": site, "date_range": "day", **body}
        reply = call("POST", f"{server.analytics}/api/v1/query", dev_key, json_body=query)
        assert reply.status == 200, reply.body
        return reply.body["results"]

    views = {"metrics": ["visitors", "pageviews"], "dimensions": ["event:page"]}
    assert until(lambda: ask(views), [{"dimensions": ["/shop"], "metrics": [1, 1]}]) == [
        {"dimensions": ["/shop"], "metrics": [1, 1]}
    ]
    revenue = {"metrics": ["events", "total_revenue"], "dimensions": ["event:goal"]}
    expected = [{"dimensions": ["Purchase"], "metrics": [1, {"value": 19.99, "currency": "EUR"}]}]
    assert until(lambda: ask(revenue), expected) == expected
    props = {
        "metrics": ["events"],
        "dimensions": ["event:props:plan", "event:props:seats"],
        "filters": [["is", "event:name", ["Purchase"]]],
    }
    assert ask(props) == [{"dimensions": ["pro", "3"], "metrics": [1]}]


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_the_tracker_is_the_pinned_one() -> None:
    """The file the test loads is the version the Makefile pins."""
    if not TRACKER.is_file():
        pytest.skip(f"no {TRACKER.relative_to(ROOT)}: `make test` installs it with npm")
    installed = json.loads((TRACKER.parent / "package.json").read_text())["version"]
    pinned = next(
        line.split(":=")[1].strip()
        for line in (ROOT / "Makefile").read_text().splitlines()
        if line.startswith("PLAUSIBLE_VERSION")
    )
    assert installed == pinned
