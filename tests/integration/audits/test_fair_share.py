"""A busy account cannot starve others on the shared crawl queue: each account's fetch steps
run within its share (SITELENS_AUDIT_ACCOUNT_RATE a second, its burst saved up), the rest
put off (sent again, delayed), never failed and never lost."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from sitelens.audits import crawler
from sitelens.core import config
from sitelens.core.config import settings
from sitelens.data.clients import client
from tests.integration.audits.site import Site, flat_pages

PAGES = 20  # each audit's: "/" and pages linking back
SHARE = 20  # fetch steps a second an account may run here
BURST = 5


@pytest.fixture
def shared(monkeypatch):
    """Private addresses allowed (the fixture site is on 127.0.0.1), no host rate to wait
    for, and a share of `SHARE` steps a second an account."""
    monkeypatch.setenv("SITELENS_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("SITELENS_AUDIT_RATE", "1000")
    monkeypatch.setenv("SITELENS_AUDIT_ACCOUNT_RATE", str(SHARE))
    monkeypatch.setenv("SITELENS_AUDIT_ACCOUNT_BURST", str(BURST))
    config.reset()
    yield
    config.reset()


@pytest.fixture
def flat_site() -> Iterator[Site]:
    served = Site()
    served.pages = flat_pages(PAGES)
    yield served
    served.close()


def run_queue(watched: dict[str, tuple], deadline: float = 60.0) -> list[str]:
    """Deliver the crawl queue's steps to the worker, as Lambda does, until none is left
    (waiting for those put off); every step must succeed at its first delivery. The names
    of `watched` audits ((client, id) by name) in the order they were seen done."""
    sqs, url = client("sqs"), settings().audit_queue_url
    done: list[str] = []
    ends = time.monotonic() + deadline
    while time.monotonic() < ends:
        answer = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["ApproximateReceiveCount"]
        )
        messages = answer.get("Messages") or []
        if not messages:
            counts = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
            waiting = ("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed")
            if not any(int(counts[name]) for name in waiting):  # (one may just have come due)
                return done
            time.sleep(0.05)  # the steps put off are delayed by whole seconds
            continue
        records = [
            {"messageId": m["MessageId"], "body": m["Body"], "attributes": m["Attributes"]}
            for m in messages
        ]
        assert [r["attributes"]["ApproximateReceiveCount"] for r in records] == ["1"] * len(
            records
        )  # put off is sent again, not delivered again
        assert crawler.handle(records) == []
        for m in messages:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        for name, (api, audit_id) in watched.items():
            if name not in done and api.get(f"/api/v1/audits/{audit_id}").data["status"] == "done":
                done.append(name)
    raise AssertionError("the crawls did not end")


@pytest.mark.slow  # over 2 s: make test-slow
def test_a_busy_account_does_not_starve_another(seo, other_seo, flat_site, shared):
    """Account A starts three audits, then account B one, behind them in the queue: B's
    finishes before A's last, and every audit finishes with every page fetched once."""
    url = flat_site.url("/")
    watched = {}
    for name, api in (("A1", seo), ("A2", seo), ("A3", seo), ("B", other_seo)):
        watched[name] = (api, api.post("/api/v1/audits", {"url": url}).data["id"])
    order = run_queue(watched)  # about 5 s: A's 57 steps at 20 a second
    assert sorted(order) == ["A1", "A2", "A3", "B"]
    assert order.index("B") < order.index("A3")
    for api, audit_id in watched.values():
        assert api.get(f"/api/v1/audits/{audit_id}").data["progress"]["fetched"] == PAGES
    fetched = [path for _, path in flat_site.times if path in flat_site.pages]
    assert len(fetched) == 4 * PAGES + 4  # each page once an audit, and robots.txt once a run
