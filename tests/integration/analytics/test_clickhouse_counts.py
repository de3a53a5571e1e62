"""A website counted in ClickHouse (ClickHouseCountedSites, under WarehouseEngine=
clickhouse): its hits go into `counted_hits`, whose materialised views are its counters and
presences, in place of DynamoDB's items. The stats API and realtime answer for it exactly
what they answer for a website counted in DynamoDB from the same hits: through
redeliveries, and a batch killed between its insert and its commit mark. On chDB, the
real engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3
import pytest

from sitelens.analytics.hit import Hit
from sitelens.core import config
from sitelens.core.config import settings
from sitelens.data import clickhouse_counts, stats, warehouse
from sitelens.local.warehouse import LocalWarehouse
from tests.fixtures.analytics import receive, redelivered, run
from tests.integration.analytics.test_realtime import send

pytest.importorskip("chdb", reason="chDB (ClickHouse in process) is a dev dependency")

VISITS = [  # (address, seconds ago, page, referrer)
    ("198.51.100.1", 70, "/", "https://www.google.com/"),
    ("198.51.100.1", 20, "/pricing", ""),
    ("198.51.100.2", 40, "/", "https://news.ycombinator.com/"),
    ("198.51.100.3", 10, "/docs", ""),
]
NAMES = ["pageviews", "page", "referrer", "visitors", "browser"]


@pytest.fixture
def two_sites(
    analytics: Any, deployed_clickhouse: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Any:
    """A website counted in DynamoDB and one counted in ClickHouse, each sent the same hits
    (queued, not counted yet); the warehouse's rows go to files on disk."""
    rows = LocalWarehouse(tmp_path / "warehouse")
    warehouse.use(warehouse.LocalEngine("duckdb", rows.run, rows.write, rows.compact))
    kept = analytics.post("/api/v1/websites", {"domain": "kept.example"}).data
    moved = analytics.post("/api/v1/websites", {"domain": "moved.example"}).data
    monkeypatch.setenv("SITELENS_CLICKHOUSE_COUNTED_SITES", f"{moved['id']}")
    config.reset()
    for site in (kept, moved):
        for address, ago, page, referrer in VISITS:
            form = {"page": f"https://{site['domain']}{page}", "referrer": referrer}
            send(analytics, monkeypatch, address, ago, **form)
    yield kept, moved
    warehouse.use(None)
    rows.close()


def _answers(analytics: Any, site: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name in NAMES:
        reply = analytics.get(f"/api/v1/stats/{site['id']}", query={"name": name})
        assert reply.status == 200, reply.body
        found[name] = sorted((row["value"], row["count"]) for row in reply.data)
    reply = analytics.get(f"/api/v1/stats/{site['id']}/realtime")
    assert reply.status == 200, reply.body
    found["realtime"] = reply.data
    return found


def _counter_items(site: dict[str, Any]) -> int:
    answer = boto3.client("dynamodb").query(
        TableName=settings().stats_table,
        KeyConditionExpression="series = :series",
        ExpressionAttributeValues={":series": {"S": f"{site['id']}#pageviews"}},
    )
    return len(answer["Items"])


def _comparable(found: dict[str, Any], site: dict[str, Any]) -> dict[str, Any]:
    """The answers with the website's own domain out of the pages' and referrers' values."""
    return {
        name: [(value.replace(site["domain"], "site"), count) for value, count in rows]
        if name != "realtime"
        else rows
        for name, rows in found.items()
    }


def test_counted_in_clickhouse_answers_as_counted_in_dynamodb(analytics, two_sites, monkeypatch):
    kept, moved = two_sites
    records = receive("HitsQueue")
    assert run("HitsQueue", records) == {"batchItemFailures": []}
    monkeypatch.setattr("sitelens.analytics.counting._now", _later)  # the first is over
    assert run("HitsQueue", redelivered(records)) == {"batchItemFailures": []}  # once each

    on_dynamodb, on_clickhouse = _answers(analytics, kept), _answers(analytics, moved)
    assert on_dynamodb["pageviews"] and on_dynamodb["realtime"]["visitors"] == 3
    assert _comparable(on_clickhouse, moved) == _comparable(on_dynamodb, kept)
    # nothing of the moved site in DynamoDB's counters or presences
    assert _counter_items(kept) and not _counter_items(moved)
    live = boto3.client("dynamodb").query(
        TableName=settings().stats_table,
        KeyConditionExpression="series = :series",
        ExpressionAttributeValues={":series": {"S": f"live#{moved['id']}"}},
    )
    assert not live["Items"]


def test_a_batch_killed_after_its_insert_counts_once_when_delivered_again(
    analytics, two_sites, monkeypatch
):
    kept, moved = two_sites
    records = receive("HitsQueue")
    mark = stats.mark_committed

    def killed(*args: Any) -> None:
        raise RuntimeError("the function was stopped before its commit mark")

    monkeypatch.setattr(stats, "mark_committed", killed)
    answer = run("HitsQueue", records)
    moved_ids = {
        r["messageId"] for r in records if Hit.from_json(r["body"]).website_id == moved["id"]
    }
    retried = {failure["itemIdentifier"] for failure in answer["batchItemFailures"]}
    assert moved_ids and moved_ids <= retried  # its hits come back: no commit mark
    monkeypatch.setattr(stats, "mark_committed", mark)
    # three timeouts later the killed batch is over: its hits are added again, and the
    # insert finds them in already
    monkeypatch.setattr("sitelens.analytics.counting._now", _later)
    assert run("HitsQueue", redelivered(records)) == {"batchItemFailures": []}
    # the counters once each (realtime, written apart, is the first test's)
    on_clickhouse = _comparable(_answers(analytics, moved), moved)
    on_dynamodb = _comparable(_answers(analytics, kept), kept)
    assert {n: on_clickhouse[n] for n in NAMES} == {n: on_dynamodb[n] for n in NAMES}
    assert on_clickhouse["pageviews"][0][1] == len(VISITS)


def _later() -> int:
    import time

    from sitelens.analytics import counting

    return int(time.time()) + counting.RUNNING_SECONDS + 1


def test_the_insert_takes_only_the_hits_not_in_yet(deployed_clickhouse):
    hit = clickhouse_counts.CountedHit(
        website_id=7,
        hit_id="h1",
        at=1_795_000_000,
        visitor="v",
        page="/it's",
        source="",
        counters=(("pageviews", "2026-11-18", "2026-11-18"), ("page", "/it's", "2026-11-18")),
    )
    for _ in range(2):
        clickhouse_counts.insert([hit])
    assert clickhouse_counts.span_counts(7, "page", "2026-11-18", "2026-11-18") == [
        ("2026-11-18", "/it's", 1)
    ]
