"""A page rendered in headless Chromium (Playwright) behind the SSRF guard: the DOM as it
stands once the page has loaded and its network gone quiet (`render_page`).

Chromium never reaches the network itself. Every request it makes, the page's and each
subresource's, is intercepted (Playwright routes every URL of the page) and either refused
or fetched by the crawler's own fetcher (`fetching.get`: http and https only, the allowed
ports, the host resolved once and every address checked public, then that address dialled:
DNS pinning, as for any fetch) and handed back to Chromium (`route.fulfill`); a redirect
is handed back as a redirect, whose next hop is intercepted and checked in turn. What
cannot be intercepted (WebSockets, preconnects, WebRTC) goes to a proxy that does not
exist, so it fails; service workers and downloads are blocked in the browser context.

Bounds: `RENDER_TIMEOUT` for the load, then at most `IDLE_WAIT` for the network to go
quiet (whatever the DOM is then is the answer), `MAX_REQUESTS` requests and
`MAX_RENDER_BYTES` fetched a page, and a rendered DOM of at most `fetch.MAX_BODY` bytes.
Images, media and fonts are not fetched: they add no links or text. Only GET and HEAD are
fetched (a script's POST is refused).

Used by the render function (functions/audits/render, a container image with Chromium)
and, where no render function is configured (make serve, tests), by `local_render` on
Debian's Chromium.
"""

from __future__ import annotations

import os
import queue
import shutil
import threading
import time
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from typing import Any

from sitelens.audits import fetching
from sitelens.audits.fetching import Identity
from sitelens.seo import fetch

RENDER_TIMEOUT = 15.0  # seconds for the page to load (its `load` event)
IDLE_WAIT = 3.0  # then seconds at most for the network to be quiet (`QUIET`)
QUIET = 0.2  # seconds without a request open or begun: the page's scripts are done
MAX_REQUESTS = 150  # a page's requests, subresources included; the rest are refused
MAX_RENDER_BYTES = 20 * 1024 * 1024  # fetched for one page, all its requests together
LOCAL_THREADS = 2  # pages rendered at once by `local_render` (one browser each): the cores
_SKIPPED_TYPES = frozenset({"image", "media", "font"})
_FETCHED_METHODS = frozenset({"GET", "HEAD"})
_DROPPED_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
# Anything Chromium would send past the interception goes here, and fails: port 9 (discard)
# on loopback, which nothing serves; `<-loopback>` so that loopback is proxied too.
_NOWHERE = {"server": "http://127.0.0.1:9", "bypass": "<-loopback>"}
LAUNCH_ARGS = (
    "--no-sandbox",  # Lambda runs without the namespaces Chromium's sandbox needs
    "--disable-dev-shm-usage",  # Lambda's /dev/shm is 64 MB
    "--disable-gpu",
    "--dns-prefetch-disable",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
)
UNAVAILABLE = "JavaScript rendering is not available: no Chromium was found."
FAILED = "The page could not be rendered."
TOO_LARGE = "The rendered page is larger than 5 MB."


@dataclass
class Rendered:
    """What rendering a page gave: its DOM as HTML (None when it failed, and why), and the
    requests its rendering made: how many, and how many the guard or the bounds refused."""

    html: str | None
    error: str | None = None
    requests: int = 0
    refused: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def identity_of(fields: dict[str, Any]) -> Identity:
    """An Identity from its fields as an invocation carries them."""
    headers = tuple((str(k), str(v)) for k, v in fields.get("headers") or ())
    return Identity(
        fields.get("user_agent") or fetching.USER_AGENT,
        fields.get("host") or "",
        bool(fields.get("https_only", True)),
        headers,
    )


def launch(playwright: Any, executable: str | None = None) -> Any:
    """A headless Chromium whose own network goes nowhere (`_NOWHERE`)."""
    return playwright.chromium.launch(
        executable_path=executable, args=list(LAUNCH_ARGS), proxy=_NOWHERE, headless=True
    )


class _Guard:
    """One page's interception: every request refused or fetched through the guard."""

    def __init__(self, url: str, body: str | None, identity: Identity) -> None:
        self.url, self.body, self.identity = url, body, identity
        self.requests = self.refused = self.bytes = 0

    def handle(self, route: Any, request: Any) -> None:
        self.requests += 1
        if (
            self.requests > MAX_REQUESTS
            or self.bytes > MAX_RENDER_BYTES
            or request.resource_type in _SKIPPED_TYPES
            or request.method not in _FETCHED_METHODS
        ):
            self.refused += 1
            route.abort("blockedbyclient")
            return
        if self.body is not None and request.is_navigation_request() and request.url == self.url:
            body, self.body = self.body, None  # the page as the crawler fetched it, once
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=body)
            return
        try:
            response = fetching.get(request.url, follow=False, identity=self.identity)
        except fetch.FetchError:  # a private address, another scheme or port, unreachable
            self.refused += 1
            route.abort("blockedbyclient")
            return
        self.bytes += len(response.body)
        headers = {k: v for k, v in response.headers.items() if k not in _DROPPED_HEADERS}
        route.fulfill(status=response.status, headers=headers, body=response.body)


def render_page(browser: Any, url: str, body: str | None, identity: Identity) -> Rendered:
    """Render `url` in a fresh context of `browser`: with `body` (the page the crawler
    fetched), that is the document, else it is fetched; its DOM once loaded and quiet."""
    guard = _Guard(url, body, identity)
    context = browser.new_context(
        user_agent=identity.user_agent,
        service_workers="block",
        accept_downloads=False,
        java_script_enabled=True,
    )
    try:
        page = context.new_page()
        page.route("**/*", guard.handle)
        try:
            page.goto(url, wait_until="load", timeout=RENDER_TIMEOUT * 1000)
        except Exception:  # Playwright's errors: a timeout, a refused or failed document
            if not page.url.startswith(("http:", "https:")):
                return Rendered(None, FAILED, guard.requests, guard.refused)
        _wait_quiet(page)
        html = page.content()
    except Exception:
        return Rendered(None, FAILED, guard.requests, guard.refused)
    finally:
        context.close()
    if len(html.encode()) > fetch.MAX_BODY:
        return Rendered(None, TOO_LARGE, guard.requests, guard.refused)
    return Rendered(html, None, guard.requests, guard.refused)


def _wait_quiet(page: Any) -> None:
    """Wait until no request has been open for `QUIET` seconds, at most `IDLE_WAIT` (then
    the DOM is taken as it is). Playwright's `networkidle` waits 500 ms; this, 200."""
    open_requests = [0]
    last = [time.monotonic()]

    def begun(_: Any) -> None:
        open_requests[0] += 1
        last[0] = time.monotonic()

    def ended(_: Any) -> None:
        open_requests[0] -= 1
        last[0] = time.monotonic()

    page.on("request", begun)
    page.on("requestfinished", ended)
    page.on("requestfailed", ended)
    give_up = time.monotonic() + IDLE_WAIT
    while time.monotonic() < give_up:
        page.wait_for_timeout(50)  # events are dispatched while Playwright waits
        if open_requests[0] <= 0 and time.monotonic() - last[0] >= QUIET:
            return


def find_chromium() -> str | None:
    """Debian's Chromium (`SITELENS_CHROMIUM` names another), or None."""
    given = os.environ.get("SITELENS_CHROMIUM", "").strip()
    if given:
        return given if os.access(given, os.X_OK) else None
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium") or shutil.which("chromium-browser")


_Job = tuple[str, str | None, Identity, "Future[Rendered]"]


class _LocalBrowsers:
    """`LOCAL_THREADS` threads, each with its own Playwright and Chromium (Playwright's
    sync API belongs to the thread that started it), taking pages from one queue."""

    def __init__(self, executable: str) -> None:
        self.executable = executable
        self.jobs: queue.Queue[_Job] = queue.Queue()
        for n in range(LOCAL_THREADS):
            name = f"sitelens-chromium-{n}"
            threading.Thread(target=self._serve, name=name, daemon=True).start()

    def _serve(self) -> None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = launch(playwright, self.executable)
            while True:
                url, body, identity, answer = self.jobs.get()
                if not browser.is_connected():  # crashed: a new one for the next pages
                    browser = launch(playwright, self.executable)
                try:
                    answer.set_result(render_page(browser, url, body, identity))
                except Exception as err:
                    answer.set_exception(err)

    def render(self, url: str, body: str | None, identity: Identity) -> Rendered:
        answer: Future[Rendered] = Future()
        self.jobs.put((url, body, identity, answer))
        return answer.result(timeout=RENDER_TIMEOUT + IDLE_WAIT + 2 * fetch.DEADLINE)


_local: _LocalBrowsers | None = None
_local_lock = threading.Lock()


def local_render(url: str, body: str | None, identity: Identity) -> Rendered:
    """Render in this process on Debian's Chromium (make serve, tests); a Rendered saying
    so where there is none or Playwright is not installed."""
    global _local
    started = time.monotonic()
    with _local_lock:
        if _local is None:
            executable = find_chromium()
            try:
                import playwright.sync_api  # noqa: F401  # the render image's and dev's only
            except ImportError:
                executable = None
            if executable is None:
                return Rendered(None, UNAVAILABLE)
            _local = _LocalBrowsers(executable)
    try:
        return _local.render(url, body, identity)
    except TimeoutError:
        waited = round(time.monotonic() - started, 1)
        return Rendered(None, f"{FAILED} (no browser answered within {waited} s)")
