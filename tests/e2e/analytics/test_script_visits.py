"""The tracking script driven as visitors use browsers (Playwright on Debian's Chromium):
pages restored from the back/forward cache, automated browsers, events called before the
script loaded."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl

import pytest

from sitelens.local import STOP_POLL_SECONDS
from tests.fixtures import browsers, tracking_script

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser
# The snippet of docs/api.md (Tracking): calls made before the async script loads wait in a queue.
SNIPPET = (
    "window.sitelens = window.sitelens || {event: function () {"
    " (window.sitelens.q = window.sitelens.q || []).push(arguments) }};"
)
PAGES = {
    "/a": '<!doctype html><title>A</title><script async src="/js/script.js"></script>'
    '<a href="/b">to b</a>',
    "/b": '<!doctype html><title>B</title><script async src="/js/script.js"></script>'
    '<a href="/a">to a</a>',
    "/early": f"<!doctype html><title>Early</title><script>{SNIPPET}"
    "sitelens.event('first', 1); sitelens.event('second', 2, 'x');</script>"
    '<script async src="/js/script.js"></script>',
}


class Collector(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.sent: list[dict[str, str]] = []

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def wait_for(self, count: int, within: float = 5) -> list[dict[str, str]]:
        deadline = time.monotonic() + within
        while len(self.sent) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # and nothing more arrives
        return list(self.sent)


class Handler(BaseHTTPRequestHandler):
    server: Collector

    def do_GET(self) -> None:
        if self.path.startswith("/js/"):  # as the API sends it, compressed as asked
            status, headers, body = tracking_script.served(
                self.path, self.headers.get("Accept-Encoding", "")
            )
            self._send(body, headers["Content-Type"], status, headers)
        elif self.path in PAGES:
            self._send(PAGES[self.path].encode(), "text/html")
        else:
            self._send(b"", "text/plain", 404)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        self.server.sent.append(dict(parse_qsl(body, keep_blank_values=True)))
        self._send(b'{"status": 202}', "application/json", 202)

    def _send(
        self, body: bytes, kind: str, status: int = 200, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        for name, value in (headers or {"Content-Type": kind}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector()
    threading.Thread(target=server.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def browser(p, automated: bool = False):
    """Chromium as a visitor has it: without the automation flag, with the back/forward
    cache (Playwright turns both off by default)."""
    args = [] if automated else ["--disable-blink-features=AutomationControlled"]
    return p.chromium.launch(
        executable_path=browsers.executable(),
        args=args,
        ignore_default_args=["--disable-back-forward-cache"],
    )


def pages(sent: list[dict[str, str]]) -> list[str]:
    """The pageviews' pages (not custom events, not the time spent on a page)."""
    return [
        hit["page"].rsplit("/", 1)[-1]
        for hit in sent
        if "event[name]" not in hit and "engagement_ms" not in hit
    ]


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_a_page_restored_from_the_back_forward_cache_is_counted(collector: Collector) -> None:
    with playwright.sync_playwright() as p:
        chromium = browser(p)
        page = chromium.new_page()
        page.add_init_script(
            "window.shows = []; addEventListener('pageshow', e => shows.push(e.persisted))"
        )
        page.goto(f"{collector.base}/a")
        collector.wait_for(1)
        page.click("a")
        collector.wait_for(2)
        page.go_back(wait_until="commit")  # a restored page fires no load event
        sent = collector.wait_for(5)  # with the time spent on a and on b as each was left
        shows = page.evaluate("shows")
        chromium.close()
    assert shows == [False, True]  # the same page, shown again from the cache
    assert pages(sent) == ["a", "b", "a"]
    left = [hit["page"].rsplit("/", 1)[-1] for hit in sent if "engagement_ms" in hit]
    assert sorted(left) == ["a", "b"]


@pytest.mark.slow  # about 3 s or more of a worker: make test-slow (CI)
def test_an_automated_browser_is_not_counted(collector: Collector) -> None:
    with playwright.sync_playwright() as p:
        chromium = browser(p, automated=True)
        page = chromium.new_page()
        page.goto(f"{collector.base}/early")
        page.wait_for_timeout(500)
        assert page.evaluate("navigator.webdriver") is True
        page.evaluate("sitelens.event('after', 1)")  # defined, and does nothing
        chromium.close()
    assert collector.wait_for(1, within=1) == []


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_events_called_before_the_script_loaded_are_sent_in_order(collector: Collector) -> None:
    with playwright.sync_playwright() as p:
        chromium = browser(p)
        page = chromium.new_page()
        page.goto(f"{collector.base}/early")
        sent = collector.wait_for(3)
        chromium.close()
    assert [hit.get("event[name]") for hit in sent] == [None, "first", "second"]
    assert sent[2]["event[value]"] == "2" and sent[2]["event[unit]"] == "x"
