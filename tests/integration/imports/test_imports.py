"""POST/GET/DELETE /api/v1/websites/{id}/imports through API Gateway events, the job on the
tasks queue, and `include.imports` in POST /api/v1/query: each format's known totals
answered exactly, refusals and failures saying why with nothing stored, another account's
website 404, a redelivered job counted once, imported days never counting native ones."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from sitelens.data import warehouse
from tests.fixtures.analytics import run
from tests.fixtures.local_warehouse import local_warehouse  # noqa: F401
from tests.integration.exports.test_event_exports import YESTERDAY, count, tasks_waiting
from tests.integration.imports import files

FIRST = date(2026, 1, 1)
JANUARY = ["2026-01-01", "2026-01-31"]


@pytest.fixture
def served(local_warehouse):  # noqa: F811
    """make serve's engine: imported tables go under the warehouse's folder."""
    engine = warehouse.local_engine()
    assert engine is not None
    warehouse.use(
        warehouse.LocalEngine("duckdb", engine.query, engine.store, root=local_warehouse.root)
    )
    return local_warehouse


def upload(analytics: Any, site: int, body: bytes, name: str, **fields: str) -> Any:
    sent, content_type = files.multipart(body, name, fields)
    return analytics.post(
        f"/api/v1/websites/{site}/imports", body=sent, headers={"Content-Type": content_type}
    )


def imported(analytics: Any, site: int, body: bytes, name: str, **fields: str) -> dict[str, Any]:
    """Upload the file, run its task, and answer the import as GET shows it."""
    reply = upload(analytics, site, body, name, **fields)
    assert reply.status == 202, reply.body
    assert reply.data["status"] == "queued"
    assert run("TasksQueue", tasks_waiting()) == {"batchItemFailures": []}
    return analytics.get(f"/api/v1/websites/{site}/imports/{reply.data['id']}").data


def query(analytics: Any, site: int, **body: Any) -> dict[str, Any]:
    sent = {"site_id": site, "date_range": JANUARY, "include": {"imports": True}, **body}
    reply = analytics.post("/api/v1/query", json_body=sent)
    assert reply.status == 200, reply.body
    return reply.body


def table(answer: dict[str, Any]) -> dict[tuple[str, ...], list[Any]]:
    return {tuple(r["dimensions"]): r["metrics"] for r in answer["results"]}


TOTALS = ["visitors", "visits", "pageviews", "bounce_rate", "visit_duration"]


def new_site(analytics: Any, domain: str) -> int:
    return int(analytics.post("/api/v1/websites", {"domain": domain}).data["id"])


def test_a_plausible_export_is_answered_exactly_with_include_imports(analytics, served):
    site = new_site(analytics, "plausible-import.example")
    analytics.post(f"/api/v1/websites/{site}/goals", {"event_name": "Signup"})
    done = imported(analytics, site, files.plausible_zip(FIRST), "plausible-export.zip")
    assert done["status"] == "done" and done["format"] == "plausible" and done["progress"] == 1
    assert (done["from"], done["to"]) == ("2026-01-01", "2026-01-03")
    assert done["rows"] == 3 + 4 + 4 + 3 + 3 and done["error"] is None
    assert "imported_visitors" in done["tables"] and "imported_custom_events" in done["tables"]

    totals = query(analytics, site, metrics=TOTALS)
    # 35 visitors, 35 visits, 85 pageviews, 15 bounces of 35, 1,500 s over 35 visits
    assert totals["results"] == [{"dimensions": [], "metrics": [35, 35, 85, 42.9, 43]}]
    assert totals["meta"]["imports_included"] is True
    assert "imports_skip_reason" not in totals["meta"]
    sources = query(analytics, site, metrics=["visitors", "visits"], dimensions=["visit:source"])
    assert sources["results"] == [
        {"dimensions": ["Google"], "metrics": [26, 26]},
        {"dimensions": ["Hacker News"], "metrics": [5, 5]},
        {"dimensions": ["Direct / None"], "metrics": [4, 4]},
    ]
    pages = query(analytics, site, metrics=["visitors", "pageviews"], dimensions=["event:page"])
    assert table(pages) == {("/",): [30, 75], ("/pricing",): [8, 10]}
    devices = query(analytics, site, metrics=["visitors"], dimensions=["visit:device"])
    assert table(devices) == {("Mobile",): [20], ("Desktop",): [15]}
    goals = query(analytics, site, metrics=["visitors", "events"], dimensions=["event:goal"])
    assert table(goals) == {("Signup",): [3, 4]}  # the click is no goal of the site
    days = query(analytics, site, metrics=["visitors"], dimensions=["time:day"])
    assert table(days) == {("2026-01-01",): [10], ("2026-01-02",): [20], ("2026-01-03",): [5]}
    without = analytics.post(
        "/api/v1/query", json_body={"site_id": site, "date_range": JANUARY, "metrics": ["visitors"]}
    ).body
    assert without["results"] == [{"dimensions": [], "metrics": [0]}]
    assert "imports_included" not in without["meta"]


def test_a_ga4_report_is_answered_exactly(analytics, served):
    site = new_site(analytics, "ga4-report.example")
    done = imported(analytics, site, files.ga4_report(FIRST), "report.json")
    assert done["status"] == "done" and done["format"] == "ga4_report", done
    assert (done["from"], done["to"]) == ("2026-01-01", "2026-01-02")
    # 10 users, 12 sessions, 30 views; 5 of 12 sessions not engaged; 600 s engaged
    totals = query(analytics, site, metrics=TOTALS)
    assert totals["results"][0]["metrics"] == [10, 12, 30, 41.7, 50]
    countries = query(analytics, site, metrics=["visitors"], dimensions=["visit:country"])
    assert countries["results"] == [
        {"dimensions": ["DE"], "metrics": [8]},
        {"dimensions": ["US"], "metrics": [2]},
    ]


def test_ga4_bigquery_rows_are_counted_as_visits(analytics, served):
    site = new_site(analytics, "ga4-bigquery.example")
    done = imported(analytics, site, files.bigquery_rows(FIRST), "events.ndjson")
    assert done["status"] == "done" and done["format"] == "ga4_bigquery", done
    # two users; three sessions, one of them a single view; 120 s + 0 + 30 s
    totals = query(analytics, site, metrics=[*TOTALS, "events"])
    assert totals["results"][0]["metrics"] == [2, 3, 5, 33.3, 50, 5]
    pages = query(analytics, site, metrics=["pageviews"], dimensions=["event:page"])
    assert table(pages) == {("/",): [3], ("/docs",): [1], ("/pricing",): [1]}
    entry = query(analytics, site, metrics=["visits"], dimensions=["visit:entry_page"])
    assert table(entry) == {("/",): [2], ("/pricing",): [1]}
    where = query(analytics, site, metrics=["visitors"], dimensions=["visit:country"])
    assert table(where) == {("FR",): [2]}


def test_an_umami_export_is_counted_given_its_format(analytics, served):
    site = new_site(analytics, "umami.example")
    done = imported(analytics, site, files.umami_csv(FIRST), "export.csv", format="umami")
    assert done["status"] == "done" and done["format"] == "umami", done
    totals = query(analytics, site, metrics=TOTALS)
    assert totals["results"][0]["metrics"] == [2, 2, 3, 50.0, 60]
    sources = query(analytics, site, metrics=["visitors"], dimensions=["visit:source"])
    assert table(sources) == {("Google",): [1], ("Direct / None",): [1]}
    exits = query(analytics, site, metrics=["visits"], dimensions=["visit:exit_page"])
    assert table(exits) == {("/blog",): [1], ("/",): [1]}


def test_a_broken_zip_fails_saying_why_and_stores_nothing(analytics, served):
    site = new_site(analytics, "broken.example")
    whole = files.plausible_zip(FIRST)
    failed = imported(analytics, site, whole[: len(whole) // 2], "cut.zip")
    assert failed["status"] == "failed" and "zip" in failed["error"], failed
    assert not (served.root / "imported").exists()
    assert not list((served.root / "imports").rglob("upload"))  # the upload is removed
    answer = query(analytics, site, metrics=["visitors"])
    assert answer["meta"]["imports_skip_reason"] == "no_imported_data"
    bad = files.plausible_zip(
        FIRST, {"imported_browsers_20260101_20260103.csv": "date,browser,visitors\nnot a day,x,1\n"}
    )
    failed = imported(analytics, site, bad, "bad.zip")
    assert failed["status"] == "failed" and "imported_browsers" in failed["error"]
    assert not (served.root / "imported").exists()
    unknown = upload(analytics, site, b"just some text\n", "notes.txt")
    assert unknown.status == 202
    run("TasksQueue", tasks_waiting())
    shown = analytics.get(f"/api/v1/websites/{site}/imports/{unknown.data['id']}").data
    assert shown["status"] == "failed" and "none of the formats" in shown["error"]


def test_a_redelivered_job_is_counted_once(analytics, served):
    site = new_site(analytics, "again.example")
    reply = upload(analytics, site, files.plausible_zip(FIRST), "export.zip")
    [task] = tasks_waiting()
    assert run("TasksQueue", [task]) == {"batchItemFailures": []}
    [written] = (served.root / "imported").rglob("imported_visitors/data.parquet")
    before = written.stat().st_mtime_ns
    assert run("TasksQueue", [task]) == {"batchItemFailures": []}  # delivered again
    assert written.stat().st_mtime_ns == before  # finished: nothing written again
    listed = analytics.get(f"/api/v1/websites/{site}/imports").data
    assert [i["id"] for i in listed] == [reply.data["id"]]
    assert query(analytics, site, metrics=["visitors"])["results"][0]["metrics"] == [35]


def test_a_second_import_of_the_same_days_fails_rather_than_count_twice(analytics, served):
    site = new_site(analytics, "twice.example")
    first = imported(analytics, site, files.plausible_zip(FIRST), "a.zip")
    second = imported(analytics, site, files.plausible_zip(FIRST + timedelta(days=2)), "b.zip")
    assert second["status"] == "failed" and str(first["id"]) in second["error"]
    assert query(analytics, site, metrics=["visitors"])["results"][0]["metrics"] == [35]


def test_imported_days_stop_where_native_days_begin(analytics, account, served):
    """Imported rows of three days ending on the first native day: that day is native's."""
    site = new_site(analytics, "overlap.example")
    native_day = YESTERDAY.date()
    count(account.id, site, ["/a", "/b"])  # one visitor's two pageviews, yesterday
    done = imported(analytics, site, files.plausible_zip(native_day - timedelta(days=2)), "o.zip")
    assert done["to"] == native_day.isoformat()
    span = [(native_day - timedelta(days=2)).isoformat(), native_day.isoformat()]
    answer = query(analytics, site, metrics=["visitors"], dimensions=["time:day"], date_range=span)
    assert table(answer) == {
        (span[0],): [10],
        ((native_day - timedelta(days=1)).isoformat(),): [20],
        (span[1],): [1],  # native's 1, not the import's 5 as well
    }
    totals = query(analytics, site, metrics=["visitors", "pageviews"], date_range=span)
    assert totals["results"][0]["metrics"] == [31, 82]  # 10 + 20 + 1; 30 + 50 + 2


def test_a_query_imports_cannot_answer_says_so_and_runs_on_native_data(analytics, served):
    site = new_site(analytics, "skip.example")
    imported(analytics, site, files.plausible_zip(FIRST), "export.zip")
    filtered = query(
        analytics, site, metrics=["visitors"], filters=[["is", "visit:source", ["Google"]]]
    )
    assert filtered["results"][0]["metrics"] == [0]
    assert filtered["meta"]["imports_included"] is False
    assert filtered["meta"]["imports_skip_reason"] == "unsupported_query"
    assert filtered["meta"]["imports_warning"].startswith("Imported stats are not included")
    hourly = query(
        analytics,
        site,
        metrics=["visitors"],
        dimensions=["time:hour"],
        date_range=["2026-01-01", "2026-01-02"],
    )
    assert hourly["meta"]["imports_skip_reason"] == "unsupported_interval"
    rate = query(analytics, site, metrics=["bounce_rate"], dimensions=["event:page"])
    assert rate["meta"]["imports_skip_reason"] == "unsupported_query"
    later = query(analytics, site, metrics=["visitors"], date_range=["2026-02-01", "2026-02-28"])
    assert later["meta"]["imports_skip_reason"] == "out_of_range"


def test_deleting_an_import_removes_its_rows(analytics, served):
    site = new_site(analytics, "delete.example")
    done = imported(analytics, site, files.plausible_zip(FIRST), "export.zip")
    reply = analytics.delete(f"/api/v1/websites/{site}/imports/{done['id']}")
    assert reply.status == 200 and reply.body["deleted"] is True
    assert analytics.get(f"/api/v1/websites/{site}/imports/{done['id']}").status == 404
    assert not list((served.root / "imported").rglob("*.parquet"))
    answer = query(analytics, site, metrics=["visitors"])
    assert answer["results"][0]["metrics"] == [0]
    assert answer["meta"]["imports_skip_reason"] == "no_imported_data"


def test_another_account_s_website_and_import_are_404(analytics, other_analytics, served):
    site = new_site(analytics, "mine.example")
    done = imported(analytics, site, files.plausible_zip(FIRST), "export.zip")
    assert upload(other_analytics, site, files.plausible_zip(FIRST), "x.zip").status == 404
    assert other_analytics.get(f"/api/v1/websites/{site}/imports").status == 404
    path = f"/api/v1/websites/{site}/imports/{done['id']}"
    assert other_analytics.get(path).status == 404
    assert other_analytics.delete(path).status == 404
    theirs = new_site(other_analytics, "theirs.example")
    assert analytics.get(f"/api/v1/websites/{theirs}/imports/{done['id']}").status == 404
    assert analytics.get(path).data["status"] == "done"  # still there


@pytest.mark.parametrize(
    ("body", "content_type", "status", "field"),
    [
        (b'{"format": "plausible"}', "application/json", 422, "source"),
        (
            b'--b\r\nContent-Disposition: form-data; name="format"\r\n\r\numami\r\n--b--\r\n',
            "multipart/form-data; boundary=b",
            422,
            "file",
        ),
        (
            b'{"source": {"role_arn": "x", "bucket": "b", "key": "k"}}',
            "application/json",
            422,
            "source",
        ),
        (b'{"format": "csv"}', "application/json", 422, "format"),
    ],
)
def test_a_request_without_a_readable_source_is_422(
    analytics, served, body, content_type, status, field
):
    site = new_site(analytics, "refused.example")
    reply = analytics.post(
        f"/api/v1/websites/{site}/imports", body=body, headers={"Content-Type": content_type}
    )
    assert reply.status == status, reply.body
    assert field in str(reply.body["message"])
    assert tasks_waiting() == []


def test_a_file_over_the_gateway_s_bound_is_413(analytics, served):
    site = new_site(analytics, "large.example")
    reply = upload(analytics, site, b"x" * (4 * 1024 * 1024 + 1), "large.csv")
    assert reply.status == 413
    assert tasks_waiting() == []


def test_include_imports_must_be_a_boolean(analytics, served):
    site = new_site(analytics, "flag.example")
    sent = {
        "site_id": site,
        "date_range": JANUARY,
        "metrics": ["visitors"],
        "include": {"imports": "yes"},
    }
    reply = analytics.post("/api/v1/query", json_body=sent)
    assert reply.status == 422 and "include" in reply.body["message"]


def test_on_athena_a_site_without_imports_says_so(analytics, aws_env):
    site = new_site(analytics, "athena.example")
    sent = {
        "site_id": site,
        "date_range": JANUARY,
        "metrics": ["visitors"],
        "include": {"imports": True},
    }
    reply = analytics.post("/api/v1/query", json_body=sent)
    assert reply.status == 200, reply.body  # no longer refused off DuckDB
    assert reply.body["meta"]["imports_skip_reason"] == "no_imported_data"


def test_two_sites_imports_add_up_in_one_query(analytics, served):
    first = new_site(analytics, "one-of-two.example")
    second = new_site(analytics, "two-of-two.example")
    imported(analytics, first, files.plausible_zip(FIRST), "a.zip")
    imported(analytics, second, files.ga4_report(FIRST), "b.json")
    both = query(analytics, [first, second], metrics=["visitors", "visits"])
    assert both["results"][0]["metrics"] == [35 + 10, 35 + 12]
    weeks = query(analytics, first, metrics=["pageviews"], dimensions=["time:week"])
    assert table(weeks) == {("2026-01-01",): [85]}  # the week begun before the range: its first day
