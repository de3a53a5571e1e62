"""A run that cannot be audited, through the API on moto: it ends `failed` with a reason the
user can act on (`failure`), never `done` with a score, and is never analysed."""

from __future__ import annotations

import socket
from datetime import UTC, datetime, timedelta

from botocore.exceptions import ClientError

from sitelens.audits import crawler, failures, runs
from sitelens.core import clock
from sitelens.core.config import settings
from sitelens.data import audits as stored_audits
from sitelens.data import frontier
from sitelens.data.clients import client
from sitelens.seo import fetch
from tests.integration.audits.small_site import HTML, SmallSite, page, sitemap
from tests.integration.audits.test_audits import crawlable, drain

__all__ = ["crawlable"]  # fixtures this module uses


def audit_of(seo, url: str, redeliver: bool = False, **form) -> tuple[dict, list[dict]]:
    """An audit of `url` created through the API and crawled to its end: as shown, and its
    runs."""
    created = seo.post("/api/v1/audits", {"url": url, **form})
    assert created.status == 201, created.body
    drain(redeliver=redeliver)
    path = f"/api/v1/audits/{created.data['id']}"
    return seo.get(path).data, seo.get(f"{path}/runs").data


def assert_failed(seo, shown: dict, runs: list[dict], failure: str) -> None:
    """Failed with `failure` in the audit and its run, no score, no issues, no analysis."""
    assert (shown["status"], shown["failure"]) == ("failed", failure)
    assert shown["score"] is None and shown["issues"] == {"high": 0, "medium": 0, "low": 0}
    [run] = runs
    assert (run["status"], run["failure"], run["score"]) == ("failed", failure, None)
    assert seo.get(f"/api/v1/audits/{shown['id']}/issues").data == []


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_start_url_fails_the_run(seo, crawlable):
    shown, runs = audit_of(seo, f"http://127.0.0.1:{closed_port()}/")
    assert_failed(seo, shown, runs, f"The start URL could not be reached. {fetch.UNREACHABLE}")


def test_a_start_url_answering_an_error_fails_the_run_saying_what_to_do(seo, crawlable):
    site = SmallSite(
        {
            "/robots.txt": (200, {}, "Sitemap: BASE/sitemap.xml\n"),
            "/sitemap.xml": (200, {}, sitemap(["BASE/a", "BASE/b"])),
            "/a": (200, HTML, page("A")),
            "/b": (200, HTML, page("B")),
            "/staging/": (401, {"WWW-Authenticate": "Basic"}, "who are you?"),
        }
    )
    try:
        missing = audit_of(seo, site.url("/"))
        refused = audit_of(seo, site.url("/staging/"))
    finally:
        site.close()
    assert_failed(
        seo,
        *missing,
        "The start URL answered 404 Not Found: audit a URL of the site that answers 200.",
    )
    assert_failed(
        seo,
        *refused,
        "The start URL answered 401 Unauthorized: the site refused the crawler. For a staging"
        " site, give its basic auth, cookie or headers in the audit's crawl settings.",
    )


def test_a_start_url_robots_txt_disallows_fails_the_run_unless_robots_are_ignored(seo, crawlable):
    disallowed = "User-agent: *\nDisallow: /\nSitemap: BASE/sitemap.xml\n"
    site = SmallSite(
        {
            "/robots.txt": (200, {}, disallowed),
            "/sitemap.xml": (200, {}, sitemap(["BASE/a"])),
            "/": (200, HTML, page("Home", ["/a"])),
            "/a": (200, HTML, page("A", ["/"])),
        }
    )
    try:
        failed = audit_of(seo, site.url("/"))
        asked = site.paths()
        ignored, _ = audit_of(seo, site.url("/"), respect_robots="0")
    finally:
        site.close()
    assert_failed(seo, *failed, failures.ROBOTS_FAILURE)
    assert failures.ROBOTS_FAILURE == (
        "robots.txt disallows the start URL for SitelensAudit; set respect_robots to 0 to audit"
        " it anyway."
    )
    assert asked == ["/robots.txt"]  # no sitemap read, no page fetched
    assert ignored["status"] == "done" and ignored["failure"] is None
    assert isinstance(ignored["score"], int)


def test_the_host_a_start_url_moved_to_must_allow_it(seo, crawlable):
    site = SmallSite(
        {"/robots.txt": (200, {}, "User-agent: SitelensAudit\nDisallow: /\n")},
        external={"/": (301, {"Location": "BASE/"}, "")},
    )
    try:
        failed = audit_of(seo, site.external + "/")
    finally:
        site.close()
    assert_failed(seo, *failed, failures.ROBOTS_FAILURE)
    assert "/" not in site.paths()


def test_a_step_that_fails_its_last_delivery_fails_the_run_at_once(
    seo, account, crawlable, monkeypatch
):
    """Storing the pages throttled on every delivery: the step's third delivery (AuditQueue
    sends it to the dead-letter queue after it) fails the run, saying why."""

    def throttled(crawl, found):
        raise ClientError({"Error": {"Code": "ThrottlingException"}}, "TransactWriteItems")

    monkeypatch.setattr(frontier, "finish_pages", throttled)
    site = SmallSite({"/": (200, HTML, page("Home"))})
    try:
        failed = audit_of(seo, site.url("/"), redeliver=True)
    finally:
        site.close()
    assert_failed(
        seo,
        *failed,
        f"A crawl step failed {failures.DELIVERIES} times: ThrottlingException. Run the audit"
        " again.",
    )
    assert site.paths().count("/") == failures.DELIVERIES


def test_a_run_that_lost_a_step_fails_after_90_minutes(seo, account, crawlable, monkeypatch):
    """A step lost (its worker killed on every delivery): no step of the run ends, and 90
    minutes after the last one did the run is shown failed, saying so."""
    site = SmallSite({"/": (200, HTML, page("Home", ["/a"])), "/a": (200, HTML, page("A"))})
    try:
        created = seo.post("/api/v1/audits", {"url": site.url("/")}).data
        path = f"/api/v1/audits/{created['id']}"
        sqs, queue = client("sqs"), settings().audit_queue_url
        [start] = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=1)["Messages"]
        assert crawler.handle([{"messageId": start["MessageId"], "body": start["Body"]}]) == []
        sqs.purge_queue(QueueUrl=queue)  # its fetches: lost
    finally:
        site.close()
    now = datetime.now(UTC)
    monkeypatch.setattr(clock, "now", lambda: now + timedelta(minutes=89))
    shown = seo.get(path).data
    assert (shown["status"], shown["failure"]) == ("crawling", None)
    monkeypatch.setattr(clock, "now", lambda: now + timedelta(minutes=91))
    shown = seo.get(path).data
    assert (shown["status"], shown["failure"]) == ("failed", runs.STALLED)
    [run] = seo.get(f"{path}/runs").data
    assert (run["status"], run["failure"]) == ("failed", runs.STALLED)
    assert seo.post(f"{path}/runs").status == 201  # the next run may start
    [_, before] = seo.get(f"{path}/runs").data
    assert (before["status"], before["failure"]) == ("failed", runs.STALLED)
    crawl = stored_audits.crawl_key(account.id, created["id"], 1)
    assert stored_audits.state(crawl)["status"] == "failed"


def test_crawl_credentials_that_cannot_be_read_fail_the_run_at_its_start(seo, account, crawlable):
    site = SmallSite({"/": (200, HTML, page("Home"))})
    try:
        created = seo.post("/api/v1/audits", {"url": site.url("/")}).data
        crawl = stored_audits.crawl_key(account.id, created["id"], 1)
        stored_audits.set_state(crawl, crawl_secret="local1.c2VhbGVkIGJ5IG5vIG9uZQ")
        drain()
    finally:
        site.close()
    path = f"/api/v1/audits/{created['id']}"
    assert_failed(
        seo,
        seo.get(path).data,
        seo.get(f"{path}/runs").data,
        "The audit's crawl credentials cannot be sent: they cannot be read. Set them again.",
    )
    assert site.requests == []  # not even robots.txt
