"""Politeness kept per host across every crawl of every account, measured from the fixture
servers' own request logs: two audits of one host at once fetch from it at one audit's
rate; a run's `max_rate` only slows it; an external link is judged by its own host's
robots.txt, paced by its own crawl-delay and checked with HEAD first."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import pairwise

import pytest

from sitelens.core import config
from sitelens.data import slots
from sitelens.local import STOP_POLL_SECONDS
from tests.integration.audits.site import Site, flat_pages, page
from tests.integration.audits.test_audits import drain

RATE = 10  # pages a second: SITELENS_AUDIT_RATE here, one audit's rate
PAGES = 16  # each audit's: "/" and 15 pages linking back
TOLERANCE = 1.1  # the clocks' and threads' jitter


@pytest.fixture
def polite(monkeypatch):
    """Private addresses allowed (the fixture sites are on 127.0.0.1) at `RATE` a second."""
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("SITELENS_AUDIT_RATE", str(RATE))
    config.reset()
    yield
    config.reset()


@pytest.fixture
def one_host() -> Iterator[Site]:
    """A site of `PAGES` pages with neither external links nor a crawl-delay."""
    served = Site()
    served.pages = flat_pages(PAGES)
    yield served
    served.close()


def fetched(site: Site) -> list[tuple[float, str]]:
    """The pages' requests as the server logged them (robots.txt and sitemaps, read once a
    run by its start step, aside)."""
    return [(at, path) for at, path in site.times if path in site.pages and path != "/robots.txt"]


def rate(times: list[float]) -> float:
    """Requests a second over the whole log."""
    return (len(times) - 1) / (times[-1] - times[0])


def peak(times: list[float], span: int = 9) -> float:
    """The highest rate over `span` consecutive intervals between requests (a batch's ten
    fetches): a burst the whole log's rate would average away."""
    return max(span / (times[n + span] - times[n]) for n in range(len(times) - span))


@pytest.mark.slow  # over 2 s: make test-slow
def test_two_audits_of_one_host_from_two_accounts_fetch_at_one_audit_s_rate(
    seo, other_seo, one_host, polite
):
    created = [
        client.post("/api/v1/audits", {"url": one_host.url("/")}).data
        for client in (seo, other_seo)
    ]
    drain()
    for client, audit in zip((seo, other_seo), created, strict=True):
        shown = client.get(f"/api/v1/audits/{audit['id']}").data
        assert shown["status"] == "done" and shown["progress"]["fetched"] == PAGES
    log = fetched(one_host)
    served = [path for path in one_host.pages if path != "/robots.txt"]
    assert sorted(path for _, path in log) == sorted(served * 2)  # every page twice
    firsts = {path: at for at, path in reversed(log)}
    seconds = [at for at, path in log if at != firsts[path]]
    assert min(seconds) < max(firsts.values())  # the two audits crawled at once
    times = [at for at, _ in log]
    assert rate(times) <= RATE * TOLERANCE, rate(times)  # not twice one audit's rate
    assert peak(times) <= RATE * TOLERANCE, peak(times)


@pytest.mark.slow  # over 2 s: make test-slow
def test_a_run_s_max_rate_only_slows_it(seo, one_host, polite):
    slow = seo.post("/api/v1/audits", {"url": one_host.url("/"), "max_rate": "4"})
    assert slow.status == 201, slow.body
    drain()
    assert seo.get(f"/api/v1/audits/{slow.data['id']}").data["status"] == "done"
    measured = rate([at for at, _ in fetched(one_host)])
    assert measured <= 4 * TOLERANCE, measured
    refused = seo.post("/api/v1/audits", {"url": one_host.url("/"), "max_rate": str(RATE * 2)})
    assert refused.status == 422  # never faster than the service's politeness


def test_bookings_of_one_host_never_share_a_time(aws_env):
    """Workers racing for one host's slot (as AuditFunction's do) each get times of their
    own, spaced as asked, wherever their bookings interleave."""
    booked: list[float] = []
    now = time.time()

    def worker() -> None:
        found = slots.reserve_host("racing.example", now, [0.01] * 10, horizon=60.0)
        booked.extend(found.times)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    booked.sort()
    assert len(booked) == 40
    assert min(later - earlier for earlier, later in pairwise(booked)) >= 0.01 - 1e-6


class Host:
    """A host of its own (127.0.0.1 on a port of its own) answering `pages` (path ->
    status), HEAD as `head` says (None: as GET), logging (time, method, path)."""

    def __init__(self, pages: dict[str, int], robots: str = "", head: int | None = None) -> None:
        self.pages, self.robots, self.head = pages, robots, head
        self.log: list[tuple[float, str, str]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        thread = threading.Thread(target=self.server.serve_forever, args=(STOP_POLL_SECONDS,))
        thread.daemon = True
        thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def requests(self, method: str | None = None) -> list[str]:
        return [path for _, m, path in self.log if method in (None, m) and path != "/robots.txt"]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._answer(body=True)

            def do_HEAD(self) -> None:
                self._answer(body=False)

            def _answer(self, body: bool) -> None:
                host.log.append((time.monotonic(), self.command, self.path))
                if self.path == "/robots.txt":
                    status, text = (200, host.robots) if host.robots else (404, "")
                elif not body and host.head is not None:
                    status, text = host.head, ""
                else:
                    status = host.pages.get(self.path, 404)
                    text = page(self.path, ["/"]) if self.path == "/" else "<p>external</p>"
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


def test_external_links_are_checked_as_their_own_hosts_ask(seo, polite, monkeypatch):
    monkeypatch.setenv("SITELENS_AUDIT_RATE", "1000")  # only the hosts' crawl-delays pace
    config.reset()
    # robots.txt of the link's host, not the audited site's, decides: it has a crawl-delay
    # and a disallowed path; the audited site disallows another that the host allows
    other = Host(
        {"/ok": 200, "/gone": 404, "/also": 200, "/private/x": 200},
        robots="User-agent: SitelensAudit\nCrawl-delay: 0.3\nDisallow: /private\n",
    )
    no_head = Host({"/page": 200}, head=405)  # refuses HEAD: asked with GET
    links = [f"{other.base}{p}" for p in ("/ok", "/gone", "/also", "/private/x")]
    links.append(f"{no_head.base}/page")
    html = {"Content-Type": "text/html; charset=utf-8"}
    audited = Site()
    audited.pages = {
        "/": (200, html, page("Home", links)),
        "/robots.txt": (200, {"Content-Type": "text/plain"}, "User-agent: *\nDisallow: /ok\n"),
    }
    try:
        created = seo.post("/api/v1/audits", {"url": audited.url("/")}).data
        drain()
    finally:
        for server in (audited, other, no_head):
            server.close()
    listed = seo.get(f"/api/v1/audits/{created['id']}/pages", query={"per_page": 100}).data
    pages = {p["url"]: p for p in listed if p["external"]}
    assert pages[f"{other.base}/private/x"]["blocked"] is True
    assert "/private/x" not in other.requests()  # never requested
    assert pages[f"{other.base}/ok"]["status_code"] == 200  # the audited site's rule: not here
    assert pages[f"{other.base}/gone"]["status_code"] == 404
    assert pages[f"{no_head.base}/page"]["status_code"] == 200
    assert sorted(other.requests("HEAD")) == ["/also", "/gone", "/ok"]
    assert other.requests("GET") == []  # HEAD answered: no GET
    assert no_head.requests() == ["/page", "/page"] and no_head.requests("GET") == ["/page"]
    checked = [at for at, _, path in other.log if path != "/robots.txt"]
    gaps = [later - earlier for earlier, later in pairwise(checked)]
    assert min(gaps) >= 0.28, gaps  # its own crawl-delay, 0.3 s, less the clocks' jitter
    issues = {i["code"]: i for i in seo.get(f"/api/v1/audits/{created['id']}/issues").data}
    broken = [p["detail"] for p in issues["broken_external_link"]["pages"]]
    assert broken == [f"{other.base}/gone (404)"]  # the blocked link is not broken


@pytest.mark.slow  # over 2 s: make test-slow
def test_steps_past_a_busy_host_s_horizon_are_put_off_and_come_back(seo, polite, monkeypatch):
    """A host whose slots are booked further ahead than a worker may wait: the steps past
    the horizon are sent again, delayed (never failed, never lost), and the host still sees
    its crawl-delay between fetches."""
    from sitelens.audits import politeness
    from tests.integration.audits.test_fair_share import run_queue

    monkeypatch.setattr(politeness, "HORIZON", 0.5)  # two or three fetches at 0.2 s
    sent_again: list[dict] = []
    send_later = slots.send_later
    monkeypatch.setattr(slots, "send_later", lambda s, d: (sent_again.append(s), send_later(s, d)))
    served = Site()
    html = {"Content-Type": "text/html; charset=utf-8"}
    others = [f"/p{n}" for n in range(7)]
    robots = "User-agent: *\nCrawl-delay: 0.2\n"
    served.pages = {
        "/": (200, html, page("Home", others)),
        **{path: (200, html, page(f"Page {path}", ["/"])) for path in others},
        "/robots.txt": (200, {"Content-Type": "text/plain"}, robots),
    }
    try:
        created = seo.post("/api/v1/audits", {"url": served.url("/")}).data
        assert run_queue({"audit": (seo, created["id"])}) == ["audit"]
    finally:
        served.close()
    assert seo.get(f"/api/v1/audits/{created['id']}").data["progress"]["fetched"] == 8
    assert sent_again and {s["url"] for s in sent_again} <= {served.url(p) for p in others}
    times = [at for at, _ in fetched(served)]
    assert len(times) == 8  # each page once
    assert min(later - earlier for earlier, later in pairwise(times)) >= 0.18
