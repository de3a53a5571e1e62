"""`include.imports` on every engine: the same questions answered alike on DuckDB (make
serve) and on ClickHouse as deployed (chDB in the server's place, reading the imported
files where it reads the bucket); on Athena the rendered statement reads the Glue tables
template.yaml declares, by their columns and partition keys, and those tables find their
partitions by projection where the import job writes its files."""

from __future__ import annotations

import shutil
from datetime import timedelta
from typing import Any

import pytest
import sqlglot
from sqlglot import exp

from sitelens.analytics.imports import queried, sums, tables
from sitelens.analytics.warehouse import query as warehouse_query
from sitelens.core import config
from sitelens.data import clickhouse, warehouse
from sitelens.data import imports as stored_imports
from sitelens.local import template
from tests.integration.exports.test_event_exports import YESTERDAY, count
from tests.integration.imports import files
from tests.integration.imports.test_imports import imported, new_site, served  # noqa: F401

RESOURCES = template.load()["Resources"]
NATIVE_DAY = YESTERDAY.date()
FIRST = NATIVE_DAY - timedelta(days=2)  # the import's days end on the first native day
QUESTIONS: dict[str, dict[str, Any]] = {
    "totals": {
        "metrics": ["visitors", "visits", "pageviews", "bounce_rate", "visit_duration", "events"]
    },
    "days": {"metrics": ["visitors", "pageviews"], "dimensions": ["time:day"]},
    "weeks": {"metrics": ["visitors"], "dimensions": ["time:week"]},
    "months": {"metrics": ["pageviews", "views_per_visit"], "dimensions": ["time:month"]},
    "sources": {"metrics": ["visitors", "visits", "bounce_rate"], "dimensions": ["visit:source"]},
    "pages": {"metrics": ["visitors", "pageviews"], "dimensions": ["event:page"]},
    "entry_pages": {"metrics": ["visits"], "dimensions": ["visit:entry_page"]},
    "devices_by_day": {"metrics": ["visitors"], "dimensions": ["time:day", "visit:device"]},
    "countries": {"metrics": ["visitors"], "dimensions": ["visit:country"]},
    "goals": {"metrics": ["visitors", "events"], "dimensions": ["event:goal"]},
}


def glue_table(table: str) -> dict[str, Any]:
    [found] = [
        resource["Properties"]["TableInput"]
        for resource in RESOURCES.values()
        if resource["Type"] == "AWS::Glue::Table"
        and resource["Properties"]["TableInput"]["Name"] == table
    ]
    return found


def _glue_type(column: str, table: str) -> str:
    texts, _counts = tables.TABLES[table]
    return "date" if column == "date" else "string" if column in texts else "bigint"


def test_each_imported_table_is_a_glue_table_with_projection_where_the_job_writes():
    grants = RESOURCES["QueryFunction"]["Properties"]["Policies"][1]["Statement"]
    readable = str(grants)
    for table in tables.TABLES:
        found = glue_table(table)
        columns = [(c["Name"], c["Type"]) for c in found["StorageDescriptor"]["Columns"]]
        assert columns == [(c, _glue_type(c, table)) for c in tables.columns(table)], table
        keys = [(k["Name"], k["Type"]) for k in found["PartitionKeys"]]
        assert keys == [("website_id", "bigint"), ("import_id", "bigint")]
        parameters = found["Parameters"]
        assert parameters["projection.enabled"] == "true"
        assert parameters["projection.import_id.type"] == "integer"
        low, high = parameters["projection.import_id.range"].split(",")
        assert int(low) <= 1_764_000_000_000_000 < int(high)  # the ids `jobs.create` makes
        location = parameters["storage.location.template"]["Fn::Sub"]
        folder = stored_imports.table_key(7, 9, table).removesuffix(stored_imports.FILE)
        expected = folder.replace("=7/", "=${!website_id}/").replace("=9/", "=${!import_id}/")
        assert location == "s3://${EventsBucket}/" + expected
        assert f"${{EventsDatabase}}/{table}" in readable  # the query function may read it
    assert "${EventsBucket.Arn}/imported/*" in readable


def _imported_of(site: int, ids: list[int], clip: str | None) -> sums.Sites:
    return {site: (ids, clip)}


@pytest.mark.parametrize("name", QUESTIONS)
def test_athena_s_statement_reads_the_glue_tables_columns_and_partitions(name):
    body = {"site_id": [3, 4], "date_range": ["2026-01-01", "2026-01-31"], **QUESTIONS[name]}
    parsed = warehouse_query.parse(body, YESTERDAY)
    imported = {3: ([11, 12], "2026-01-20"), 4: ([13], None)}
    others = [d for d in parsed.dimensions if not d.startswith("time:")]
    table, column = queried.TABLE_OF[others[0] if others else None]
    text = sums.statement(parsed, imported, table, column, queried._sums(table), "athena")
    assert text is not None
    tree = sqlglot.parse_one(text, read="athena")
    assert {t.name for t in tree.find_all(exp.Table)} == {table}  # one Glue table, no file
    found = glue_table(table)
    known = {c["Name"] for c in [*found["StorageDescriptor"]["Columns"], *found["PartitionKeys"]]}
    assert {c.name for c in tree.find_all(exp.Column)} <= known
    # the partitions by constants, as projection needs; the clip on the first site only
    assert "WHERE website_id = 3 AND import_id IN (11, 12)" in text
    assert "WHERE website_id = 4 AND import_id IN (13)" in text
    assert text.count("< CAST('2026-01-20' AS DATE)") == 1


def test_no_statement_when_no_import_holds_the_table():
    body = {"site_id": 3, "date_range": ["2026-01-01", "2026-01-31"], "metrics": ["visitors"]}
    parsed = warehouse_query.parse(body, YESTERDAY)
    sums_of = queried._sums("imported_visitors")
    for dialect in ("athena", "clickhouse"):
        empty = _imported_of(3, [], None)
        assert sums.statement(parsed, empty, "imported_visitors", "", sums_of, dialect) is None


@pytest.mark.slow  # about 8 s: ten questions on two engines through the API
def test_clickhouse_answers_include_imports_as_duckdb(
    analytics,
    account,
    served,  # noqa: F811
    clickhouse_db,
    bucket_files,
    monkeypatch,
):
    site = new_site(analytics, "both-engines.example")
    analytics.post(f"/api/v1/websites/{site}/goals", {"event_name": "Signup"})
    count(account.id, site, ["/a", "/b"])  # native from yesterday: the import's last day isn't
    done = imported(analytics, site, files.plausible_zip(FIRST), "both.zip")
    assert done["status"] == "done" and done["to"] == NATIVE_DAY.isoformat()
    span = [(FIRST - timedelta(days=3)).isoformat(), NATIVE_DAY.isoformat()]

    def answers() -> dict[str, Any]:
        found = {}
        for name, question in QUESTIONS.items():
            sent = {"site_id": site, "date_range": span, "include": {"imports": True}}
            reply = analytics.post("/api/v1/query", json_body={**sent, **question})
            assert reply.status == 200, (name, reply.body)
            found[name] = {"results": reply.body["results"], "meta": reply.body["meta"]}
        return found

    on_duckdb = answers()
    assert on_duckdb["totals"]["meta"]["imports_included"] is True
    assert on_duckdb["days"]["results"][-1] == {"dimensions": [span[1]], "metrics": [1, 2]}
    assert on_duckdb["goals"]["results"] == [{"dimensions": ["Signup"], "metrics": [3, 4]}]

    # the same rows on ClickHouse as deployed: the imported files where the bucket is
    shutil.copytree(served.root / stored_imports.TABLES, bucket_files / stored_imports.TABLES)
    clickhouse_db.load(sorted(served.root.glob("landing/*/*.parquet")))
    from sitelens.local.clickhouse import Client

    monkeypatch.setenv("SITELENS_WAREHOUSE_ENGINE", "clickhouse")
    monkeypatch.setenv("SITELENS_EVENTS_BUCKET", "sitelens-events")  # as the template sets
    config.reset()
    saved = warehouse.local_engine()
    warehouse.use(None)
    clickhouse.use(Client(clickhouse_db, bucket_files))
    try:
        assert answers() == on_duckdb
    finally:
        clickhouse.use(None)
        warehouse.use(saved)
        monkeypatch.delenv("SITELENS_WAREHOUSE_ENGINE")
        config.reset()


def test_on_clickhouse_an_import_whose_files_are_gone_reads_as_no_rows(
    aws_env, clickhouse_db, tmp_path, monkeypatch
):
    """A query between an import's files' removal and its record's (DELETE) answers."""
    monkeypatch.setenv("SITELENS_EVENTS_BUCKET", "sitelens-events")
    config.reset()
    from sitelens.local.clickhouse import Client

    body = {"site_id": 3, "date_range": ["2026-01-01", "2026-01-31"], "metrics": ["visitors"]}
    parsed = warehouse_query.parse(body, YESTERDAY)
    sums_of = queried._sums("imported_visitors")
    imported_rows = _imported_of(3, [11], None)
    text = sums.statement(parsed, imported_rows, "imported_visitors", "", sums_of, "clickhouse")
    assert text is not None
    [sums_row] = Client(clickhouse_db, tmp_path).query(text).result_rows
    assert set(sums_row) == {None}  # no file, no error: sums of nothing
