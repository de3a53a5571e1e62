"""`?format=csv` on the statistics, reports and projects lists: every row (not one page),
in the list's order and with its filters, RFC 4180 quoting, UTF-8 with a header row, and
cells a spreadsheet would run as formulas neutralised."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from typing import Any

import pytest

from sitelens.analytics.hit import Hit
from sitelens.edge import exports
from tests.fixtures.analytics import hit_record, run
from tests.integration.test_project_delete import add_reports


def parsed(reply: Any) -> list[list[str]]:
    assert reply.status == 200, reply.body
    assert reply.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert reply.headers["Content-Disposition"].startswith('attachment; filename="sitelens-')
    text = reply.body if isinstance(reply.body, str) else str(reply.body)
    assert text.endswith("\r\n")
    return list(csv.reader(io.StringIO(text, newline="")))


def count(account_id: str, website_id: int, pages: list[str]) -> None:
    when = datetime(2026, 11, 20, 9, tzinfo=UTC)
    hits = [Hit(website_id=website_id, at=when, page=page, visit=True) for page in pages]
    batch = [hit_record(hit, account_id, n) for n, hit in enumerate(hits)]
    assert run("HitsQueue", batch) == {"batchItemFailures": []}


def test_a_statistic_exports_every_row_in_the_lists_order(analytics, account):
    site = analytics.post("/api/v1/websites", {"domain": "example.com"}).data
    pages = [f"/p{n:02d}" for n in range(30)] + ["/p00", '/a,"quoted"\nline', "/ünïcode", "=1+1"]
    pages += ["/p00"]
    count(account.id, site["id"], pages)
    query = {"name": "page", "from": "2026-11-01", "to": "2026-11-30"}
    rows = parsed(analytics.get(f"/api/v1/stats/{site['id']}", query={**query, "format": "csv"}))
    assert rows[0] == ["value", "count"]
    assert rows[1] == ["/p00", "3"]
    assert len(rows) == 1 + 33  # every value, not a page of 10
    values = [row[0] for row in rows[1:]]
    assert '/a,"quoted"\nline' in values and "/ünïcode" in values
    assert "'=1+1" in values and "=1+1" not in values
    # the same order as the JSON pages
    json_rows, cursor = [], None
    while True:
        page = analytics.get(
            f"/api/v1/stats/{site['id']}",
            query={**query, "per_page": 25, **({"cursor": cursor} if cursor else {})},
        )
        json_rows += [row["value"] for row in page.data]
        cursor = page.body["meta"]["next_cursor"]
        if cursor is None:
            break
    assert [v.replace("'=", "=", 1) for v in values] == json_rows
    name = analytics.get(f"/api/v1/stats/{site['id']}", query={**query, "format": "csv"})
    assert 'filename="sitelens-' in name.headers["Content-Disposition"]
    assert "-page-2026-11-01-2026-11-30.csv" in name.headers["Content-Disposition"]


def test_a_bad_format_is_422(analytics, seo):
    site = analytics.post("/api/v1/websites", {"domain": "example.com"}).data
    for client, path, query in (
        (analytics, f"/api/v1/stats/{site['id']}", {"name": "page"}),
        (seo, "/api/v1/reports", {}),
        (seo, "/api/v1/projects", {}),
    ):
        reply = client.get(path, query={**query, "format": "xlsx"})
        assert reply.status == 422
        assert reply.body["message"] == {"format": ["The format field must be one of: json, csv."]}


def test_a_cursor_does_not_apply_to_an_export_but_one_of_no_cursor_s_shape_is_422(seo, account):
    """As the documents' `Cursor` pattern says, and as a JSON page answers it; a cursor we
    signed (a page's `next_cursor`, the same parameters) is taken and the export is whole."""
    add_reports(account.id, "example.com", 12, score=85)
    signed = seo.get("/api/v1/reports").body["meta"]["next_cursor"]
    whole = parsed(seo.get("/api/v1/reports", query={"format": "csv", "cursor": signed}))
    assert len(whole) == 1 + 12
    for path in ("/api/v1/reports", "/api/v1/projects", "/api/v1/audits"):
        for cursor in ("garbage", f"{signed}x", "a.b"):
            for query in ({"format": "csv", "cursor": cursor}, {"cursor": cursor}):
                reply = seo.get(path, query=query)
                assert reply.status == 422, (path, query, reply.body)
                assert reply.body["message"] == {"cursor": ["The cursor is invalid."]}


def test_reports_and_projects_export_every_row_with_the_filters(seo, account, other_account):
    add_reports(account.id, "example.com", 27, score=85)
    add_reports(account.id, "other.example", 3, score=40)
    add_reports(other_account.id, "example.com", 2)
    rows = parsed(seo.get("/api/v1/reports", query={"format": "csv", "project": "example.com"}))
    assert rows[0] == [
        "id",
        "url",
        "project",
        "result",
        "score",
        "failed_checks",
        "privacy",
        "password",
        "generated_at",
        "created_at",
        "updated_at",
    ]
    assert len(rows) == 1 + 27
    assert {row[7] for row in rows[1:]} == {"false"}  # `password`, as the JSON list has it
    ids = [int(row[0]) for row in rows[1:]]
    assert ids == sorted(ids, reverse=True)  # the list's default order: newest first
    everything = parsed(seo.get("/api/v1/reports", query={"format": "csv", "sort": "asc"}))
    assert len(everything) == 1 + 30
    projects = parsed(seo.get("/api/v1/projects", query={"format": "csv", "sort_by": "project"}))
    assert projects[0] == ["project", "reports", "score", "created_at"]
    assert [row[:3] for row in projects[1:]] == [
        ["other.example", "3", "40"],
        ["example.com", "27", "85"],
    ]


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ('=HYPERLINK("x")', '\'=HYPERLINK("x")'),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("plain", "plain"),
        (-3, -3),
        (None, ""),
    ],
)
def test_formula_cells_are_neutralised(value, written):
    assert exports.neutralised(value) == written


def test_an_export_too_large_is_422(seo, account, monkeypatch):
    monkeypatch.setattr(exports, "MAX_EXPORT_BYTES", 200)
    add_reports(account.id, "example.com", 5)
    reply = seo.get("/api/v1/reports", query={"format": "csv"})
    assert reply.status == 422
    assert reply.body["message"] == {"format": [exports.TOO_LARGE]}


def test_an_export_reads_a_bounded_number_of_entries(seo, account, monkeypatch):
    """Past MAX_EXPORT_ENTRIES (5,000; 300 here) an export is refused, whatever its size."""
    from sitelens.records import listing
    from tests.fixtures import lists

    monkeypatch.setattr(listing, "MAX_EXPORT_ENTRIES", 300)
    lists.stored_reports(account.id, "example.com", 300)
    rows = parsed(seo.get("/api/v1/reports", query={"format": "csv"}))
    assert len(rows) == 1 + 300  # exactly the bound: every row
    lists.stored_reports(account.id, "example.com", 1)
    reply = seo.get("/api/v1/reports", query={"format": "csv"})
    assert (reply.status, reply.body) == (
        422,
        {"message": {"format": [listing.TOO_MANY]}, "status": 422},
    )
    # a filter narrows it below the bound
    lists.stored_reports(account.id, "small.example", 2)
    rows = parsed(seo.get("/api/v1/reports", query={"format": "csv", "project": "small.example"}))
    assert len(rows) == 1 + 2


def test_a_searched_export_counts_the_entries_it_looks_through(seo, account, monkeypatch):
    from sitelens.data import pages
    from sitelens.records import listing
    from tests.fixtures import lists

    monkeypatch.setattr(listing, "MAX_EXPORT_ENTRIES", 300)
    monkeypatch.setattr(pages, "MAX_FILTERED_READS", 100)  # each page reads 100 entries
    needles = lists.stored_reports(account.id, "needle.example", 2)
    lists.stored_reports(account.id, "example.com", 250)
    counted = lists.count_queries(monkeypatch)
    rows = parsed(seo.get("/api/v1/reports", query={"format": "csv", "search": "needle"}))
    assert [int(row[0]) for row in rows[1:]] == sorted(needles, reverse=True)
    assert sum(counted.scanned) == 252  # three pages cut short, each continued
    lists.stored_reports(account.id, "example.com", 50)
    counted.scanned.clear()
    reply = seo.get("/api/v1/reports", query={"format": "csv", "search": "needle"})
    assert reply.body == {"message": {"format": [listing.TOO_MANY]}, "status": 422}
    assert sum(counted.scanned) == 300  # refused at the bound, not after reading the rest
