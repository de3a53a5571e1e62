"""GET /api/v1/websites/{id}/crawls/unvisited: pages crawlers fetched that no visitor saw
(the counters' pageviews), joined with the website's latest done audit of its host."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import boto3
import pytest

from sitelens.analytics.hit import Hit
from sitelens.core.config import settings
from sitelens.data import audits as stored_audits
from sitelens.data.items import to_item
from tests.fixtures.analytics import hit_record, run
from tests.integration.crawls.test_crawl_logs import (  # noqa: F401 - fixtures, by name
    AHREFS,
    ELSEWHERE,
    GPT_ADDRESS,
    GPTBOT,
    combined,
    dns,
    local_warehouse,
    send,
    served,
)

NOW = datetime.now(UTC).replace(microsecond=0)
pytestmark = pytest.mark.usefixtures("served")


def visit(account_id: str, website_id: int, page: str) -> None:
    hit = Hit(website_id=website_id, at=NOW - timedelta(minutes=5), page=page, visit=True)
    assert run("HitsQueue", [hit_record(hit, account_id, 0)]) == {"batchItemFailures": []}


def audited(account_id: str, url: str, pages: list[str]) -> None:
    """A done run of an audit of `url` that crawled `pages` (as its records hold them)."""
    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    runs = [{"run": 1, "status": "done", "finished_at": NOW.isoformat()}]
    record = {"account": account_id, "id": 7, "url": url, "run": 1, "privacy": 0,
              "share_id": "s7", "runs": json.dumps(runs)}  # fmt: skip
    dynamodb.put_item(TableName=settings().audits_table, Item=to_item(record))
    crawl = stored_audits.crawl_key(account_id, 7, 1)
    for page in pages:
        item = {"crawl": crawl, "key": stored_audits.PAGE + page, "url": page, "state": "fetched"}
        dynamodb.put_item(TableName=settings().audit_crawls_table, Item=to_item(item))


def test_crawled_pages_without_a_visit_with_their_audit(analytics, account):
    site = int(analytics.post("/api/v1/websites", {"domain": "crawled.example"}).data["id"])
    today = NOW - timedelta(minutes=10)
    log = "\n".join(
        [
            combined(GPT_ADDRESS, GPTBOT, "/", at=today),
            combined(GPT_ADDRESS, GPTBOT, "/old", at=today),
            combined(ELSEWHERE, AHREFS, "/old", at=today),
            combined(ELSEWHERE, AHREFS, "/orphan", at=today),
        ]
    )
    assert send(analytics, site, log).status == 200
    visit(account.id, site, "/")
    audited(account.id, "https://crawled.example/", ["https://crawled.example/old"])
    answer = analytics.get(f"/api/v1/websites/{site}/crawls/unvisited", query={"days": "7"})
    assert answer.status == 200, answer.body
    assert [(r["page"], r["crawls"], r["bots"], r["in_audit"]) for r in answer.body["data"]] == [
        ("/old", 2, ["AhrefsBot", "GPTBot"], True),
        ("/orphan", 1, ["AhrefsBot"], False),
    ]
    assert answer.body["audit"] == {"id": 7, "run": 1}
    assert answer.body["days"] == 7


def test_without_an_audit_and_for_another_account(analytics, other_analytics):
    site = int(analytics.post("/api/v1/websites", {"domain": "plain.example"}).data["id"])
    answer = analytics.get(f"/api/v1/websites/{site}/crawls/unvisited")
    assert answer.status == 200
    assert (answer.body["data"], answer.body["audit"]) == ([], None)
    assert other_analytics.get(f"/api/v1/websites/{site}/crawls/unvisited").status == 404
    bad = analytics.get(f"/api/v1/websites/{site}/crawls/unvisited", query={"days": "400"})
    assert bad.status == 422
