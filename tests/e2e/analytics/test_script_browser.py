"""The tracking script in headless Chromium, against a local collector.

Chromium runs with `--dump-dom --virtual-time-budget`: it loads the page, runs the
scripts and timers in virtual time, prints the DOM and exits. Virtual time waits for
pending requests, so the script's requests reach the collector before Chromium exits
(about 0.1 s before, in every run tried); the test still waits, bounded, for stragglers.
"""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from sitelens.local import STOP_POLL_SECONDS
from tests.fixtures import browsers, tracking_script

pytestmark = pytest.mark.browser

# Loads the script from 127.0.0.1 whatever the page's host (so "localhost" is cross-origin).
PAGE = """<!doctype html>
<meta charset="utf-8">
<title>Tracked</title>
<script>{setup}</script>
<script async src="http://127.0.0.1:{port}/js/script.js"></script>
<script>
addEventListener('load', function () {{
  history.pushState({{}}, '', '/second?x=1');
  history.pushState({{}}, '', '/second?x=1');
  sitelens.event('signup', 'pro', 'plan');
  history.go(-2);
}});
</script>
"""
SETUPS = {
    "/page": "document.cookie = 'sid=secret; path=/';",
    # Browsers without fetch keepalive (Firefox < 133) use sendBeacon instead; each call
    # is counted in an attribute that --dump-dom shows.
    "/beacon": """
delete Request.prototype.keepalive;
var sendBeacon = navigator.sendBeacon;
navigator.sendBeacon = function (url, body) {
  var root = document.documentElement;
  root.dataset.beacons = Number(root.dataset.beacons || 0) + 1;
  return sendBeacon.call(navigator, url, body);
};""",
}


@dataclass(frozen=True)
class Sent:
    method: str
    path: str
    headers: dict[str, str]
    form: dict[str, str]


class Collector(ThreadingHTTPServer):
    """Serves the page and the script, and records what the script sends."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.sent: list[Sent] = []
        self.scripts: list[str] = []  # the script files pages loaded, as asked for
        self.changed = threading.Condition()

    @property
    def port(self) -> int:
        return self.server_address[1]

    def record(self, sent: Sent) -> None:
        with self.changed:
            self.sent.append(sent)
            self.changed.notify_all()

    def posts(self, expected: int, timeout: float = 5.0) -> list[Sent]:
        """The POSTs so far, once there are `expected` of them or `timeout` has passed."""
        return self.posts_once(lambda posts: len(posts) >= expected, timeout)

    def posts_once(self, done: Callable[[list[Sent]], bool], timeout: float) -> list[Sent]:
        """The POSTs so far, once `done` holds of them or `timeout` has passed."""
        with self.changed:
            self.changed.wait_for(lambda: done(self._posts()), timeout)
            return self._posts()

    def _posts(self) -> list[Sent]:
        return [sent for sent in self.sent if sent.method == "POST"]


class Handler(BaseHTTPRequestHandler):
    server: Collector

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path.startswith("/js/"):
            self.script()
        elif path in SETUPS:
            page = PAGE.format(setup=SETUPS[path], port=self.server.port)
            self.reply(200, page.encode(), "text/html; charset=utf-8")
        else:
            self.reply(404, b"", "text/plain")

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.record(dict(parse_qsl(body.decode(), keep_blank_values=True)))
        self.reply(202, b"", "text/plain")

    def do_OPTIONS(self) -> None:
        self.record({})
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Methods", "POST")
        self.send_header("Access-Control-Allow-Headers", "Content-Type")
        self.end_headers()

    def record(self, form: dict[str, str]) -> None:
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.server.record(Sent(self.command, self.path, headers, form))

    def script(self) -> None:
        """The tracking script's file, the bytes and headers the API sends (compressed as
        Chromium asks), and the path recorded: which file the page loaded."""
        self.server.scripts.append(self.path)
        status, headers, body = tracking_script.served(
            self.path, self.headers.get("Accept-Encoding", "")
        )
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def reply(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector()
    thread = threading.Thread(target=server.serve_forever, args=(STOP_POLL_SECONDS,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def open_in_chromium(url: str, profile: Path) -> str:
    """The page's DOM once Chromium has run it for 5 s of virtual time."""
    command = [
        browsers.executable(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=5000",
        "--dump-dom",
        url,
    ]
    done = subprocess.run(command, capture_output=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return done.stdout.decode()


def unordered_forms(*forms: dict[str, str]) -> list[str]:
    return sorted(repr(sorted(form.items())) for form in forms)


def engagements(sent: list[Sent]) -> list[str]:
    """The pages engagements were sent for (time on a page as it was left), each with a
    whole number of milliseconds."""
    pages = []
    for form in (s.form for s in sent if "engagement_ms" in s.form):
        assert set(form) == {"page", "engagement_ms"}
        assert re.fullmatch(r"[1-9]\d*", form["engagement_ms"])
        pages.append(form["page"])
    return sorted(pages)


def unordered(sent: list[Sent]) -> list[str]:
    """The forms sent but engagements, in a stable order, with each screen resolution
    checked and hidden."""
    forms = []
    for form in (dict(s.form) for s in sent if "engagement_ms" not in s.form):
        if "screen_resolution" in form:
            assert re.fullmatch(r"\d+x\d+", form["screen_resolution"])
            form["screen_resolution"] = "WxH"
        forms.append(form)
    return unordered_forms(*forms)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"], ids=["same-origin", "cross-origin"])
def test_pageviews_navigation_and_event(collector: Collector, tmp_path: Path, host: str) -> None:
    first = f"http://{host}:{collector.port}/page"
    second = f"http://{host}:{collector.port}/second?x=1"
    assert "<title>Tracked</title>" in open_in_chromium(first, tmp_path)

    # and a 7th when the closing browser hides the last page (it may come too late to see)
    sent = collector.posts(expected=7, timeout=3.0)
    # The requests race each other over parallel connections, so their order may vary.
    assert unordered(sent) == unordered_forms(
        {"page": first, "referrer": "", "screen_resolution": "WxH"},
        {"page": second, "referrer": first, "screen_resolution": "WxH"},
        {"page": second, "event[name]": "signup", "event[value]": "pro", "event[unit]": "plan"},
        {"page": first, "referrer": second, "screen_resolution": "WxH"},
    )
    # leaving each page of the single-page app sent the time spent on it
    assert engagements(sent) in (sorted([first, second]), sorted([first, first, second]))
    assert {s.path for s in sent} == {"/api/event"}
    assert {s.headers["content-type"] for s in sent} == {
        "application/x-www-form-urlencoded;charset=UTF-8"
    }
    assert all("cookie" not in s.headers for s in sent)  # the page has a cookie of its own
    assert all(s.method == "POST" for s in collector.sent)  # no preflight


def test_send_beacon_without_fetch_keepalive(collector: Collector, tmp_path: Path) -> None:
    page = f"http://localhost:{collector.port}/beacon"
    second = f"http://localhost:{collector.port}/second?x=1"
    assert 'data-beacons="6"' in open_in_chromium(page, tmp_path)

    # and a 7th when the closing browser hides the last page (it may come too late to see)
    sent = collector.posts(expected=7, timeout=3.0)
    assert unordered(sent) == unordered_forms(
        {"page": page, "referrer": "", "screen_resolution": "WxH"},
        {"page": second, "referrer": page, "screen_resolution": "WxH"},
        {"page": second, "event[name]": "signup", "event[value]": "pro", "event[unit]": "plan"},
        {"page": page, "referrer": second, "screen_resolution": "WxH"},
    )
    assert engagements(sent) in (sorted([page, second]), sorted([page, page, second]))
    assert {s.headers["origin"] for s in sent} == {f"http://localhost:{collector.port}"}
    assert all(s.method == "POST" for s in collector.sent)
