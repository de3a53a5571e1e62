"""The query API as deployed with WarehouseEngine=clickhouse, through API Gateway events:
its questions go to ClickHouse (chDB in clickhouse-connect's place) and answer as DuckDB
does on the same rows; a question the server stops at Athena's bounds is the same 422."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from sitelens.data import warehouse
from tests.integration.analytics.test_warehouse import DAY, VISITS

pytest.importorskip("duckdb")
from sitelens.local.warehouse import LocalWarehouse

QUESTIONS: list[dict[str, Any]] = [
    {"metrics": ["visitors", "visits", "pageviews", "bounce_rate", "visit_duration"]},
    {"metrics": ["visitors", "pageviews"], "dimensions": ["event:page"]},
    {"metrics": ["visitors", "bounce_rate"], "dimensions": ["visit:source"]},
    {
        "metrics": ["visitors"],
        "dimensions": ["visit:country"],
        "filters": [["is", "visit:device", ["mobile"]]],
    },
    {"metrics": ["pageviews"], "dimensions": ["time:hour"], "timezone": "Europe/Berlin"},
]


class Seen:
    """The client, counting the statements it was sent."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.statements: list[str] = []

    def query(self, sql: str, settings: dict[str, Any] | None = None) -> Any:
        self.statements.append(sql)
        return self.client.query(sql, settings)


@pytest.fixture
def rows_on_both(analytics: Any, tmp_path: Path, clickhouse_db: Any) -> Any:
    """A website of the account and the same rows in DuckDB's warehouse and in ClickHouse."""
    website = analytics.post("/api/v1/websites", {"domain": "house.example"}).data["id"]
    duck = LocalWarehouse(tmp_path / "duck")
    duck.write([{**found, "website_id": website} for found in VISITS])
    clickhouse_db.load(sorted((tmp_path / "duck").glob("landing/*/*.parquet")))
    yield website, duck
    duck.close()


def _answers(analytics: Any, website: int) -> list[Any]:
    found = []
    for question in QUESTIONS:
        body = {"site_id": website, "date_range": [DAY, DAY], **question}
        reply = analytics.post("/api/v1/query", json_body=body)
        assert reply.status == 200, reply.body
        found.append(reply.body["results"])
    return found


def test_the_query_api_answers_on_clickhouse_as_on_duckdb(
    analytics, rows_on_both, deployed_clickhouse, monkeypatch
):
    website, duck = rows_on_both
    seen = Seen(deployed_clickhouse)
    monkeypatch.setattr(warehouse.clickhouse, "_clients", [seen])
    on_clickhouse = _answers(analytics, website)
    assert len(seen.statements) >= len(QUESTIONS)
    # ClickHouse's SQL: the events read FINAL (the landing table, empty there, as it is)
    reading = [statement for statement in seen.statements if "FROM events" in statement]
    assert reading and all(
        statement.count("FROM events") == len(re.findall(r"FROM events( AS \w+)? FINAL", statement))
        for statement in reading
    )
    warehouse.use(warehouse.LocalEngine("duckdb", duck.run, duck.write))
    try:
        on_duckdb = _answers(analytics, website)
    finally:
        warehouse.use(None)
    assert on_clickhouse == on_duckdb
    assert on_clickhouse[0] == [{"dimensions": [], "metrics": [4, 5, 6, 60, 102]}]
    assert all(on_clickhouse), "every question has an answer"


def test_a_question_past_the_bytes_bound_is_422_as_on_athena(
    analytics, rows_on_both, deployed_clickhouse, monkeypatch
):
    website, _ = rows_on_both
    monkeypatch.setattr(warehouse, "MAX_SCANNED_BYTES", 1)  # the server stops it at once
    body = {"site_id": website, "date_range": [DAY, DAY], **QUESTIONS[1]}
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 422, reply.body
    assert list(reply.body["message"]) == ["query"]
    assert "narrow its date range" in reply.body["message"]["query"][0]
    # the bound is the server's: the same question within it answers
    monkeypatch.setattr(warehouse, "MAX_SCANNED_BYTES", 10 * 1024**3)
    assert analytics.post("/api/v1/query", json_body=body).status == 200


def test_a_server_error_that_is_no_bound_is_no_422(
    analytics, rows_on_both, deployed_clickhouse, clickhouse_db
):
    website, _ = rows_on_both
    clickhouse_db.command("DROP TABLE events")
    body = {"site_id": website, "date_range": [DAY, DAY], **QUESTIONS[1]}
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 500
