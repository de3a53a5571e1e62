"""Search Console's query SQL as Athena reads it: the stack's table, pruned by site and day,
rendered from the same statement DuckDB runs (tests/integration/searchconsole runs it)."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlglot

from sitelens.analytics.warehouse import query, search
from sitelens.local import template

pytestmark = __import__("pytest").mark.unit
NOW = datetime(2026, 11, 28, 12, tzinfo=UTC)


def parsed(**fields: object) -> query.Query:
    body = {"site_id": 7, "date_range": ["2026-11-01", "2026-11-20"], **fields}
    return query.parse(body, NOW)


def test_athena_reads_the_stack_s_table_by_site_and_day():
    asked = parsed(
        metrics=["clicks", "ctr", "position"],
        dimensions=["event:page", "time:week"],
        filters=[["contains", "search:query", ["shoes"], {"case_sensitive": False}]],
    )
    text = search.statement(asked, "athena", [])
    tree = sqlglot.parse_one(text, read="athena")
    assert [table.name for table in tree.find_all(sqlglot.exp.Table)] == ["search_console"]
    assert "website_id AS BIGINT) IN (7)" in text
    assert ">= '2026-11-01'" in text and "<= '2026-11-20'" in text
    assert "REGEXP_EXTRACT" in text.upper() and "LOWER(" in text.upper()
    glue = template.load()["Resources"]["SearchConsoleTable"]["Properties"]["TableInput"]
    assert glue["Name"] == search.stored.TABLE
    columns = [column["Name"] for column in glue["StorageDescriptor"]["Columns"]]
    assert columns == [name for name, _ in search.stored.COLUMNS]
