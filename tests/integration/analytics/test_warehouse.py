"""Stats API v2 queries over raw events: the numbers a user expects from known visits, on
DuckDB over the Parquet layout (the SQL Athena runs is rendered from the same model)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sitelens.analytics.warehouse import answers, filters, query, schema, sql
from sitelens.core import errors

duckdb = pytest.importorskip("duckdb")
from sitelens.local.warehouse import LocalWarehouse  # noqa: E402

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
DAY = "2026-11-23"


def row(website: int, visitor: str, at: str, name: str = "pageview", **fields: Any) -> dict:
    ts = datetime.fromisoformat(f"{DAY}T{at}") if "T" not in at else datetime.fromisoformat(at)
    values = {column: "" if kind == "string" else None for column, kind in schema.COLUMNS}
    values.update(
        website_id=website,
        hit_id=str(uuid.uuid4()),
        day=ts.date().isoformat(),
        ts=ts,
        visitor=visitor,
        name=name,
        engagement_ms=0,
        interactive=name not in (schema.PAGEVIEW, schema.ENGAGEMENT),
    )
    values.update(fields)
    return values


VISITS = [
    # visitor a: a visit of two pages from Google in Germany, read for 7 minutes ...
    row(1, "a", "10:00:00", page="/", source="Google", country="DE", device="desktop"),
    row(1, "a", "10:05:00", page="/blog/one", source="Google", country="DE", device="desktop"),
    row(1, "a", "10:07:00", "engagement", page="/blog/one", engagement_ms=120_000),
    # ... and, 53 minutes later, a direct visit that bounces after 30 s
    row(1, "a", "11:00:00", page="/", country="DE", device="desktop"),
    row(1, "a", "11:00:30", "engagement", page="/", engagement_ms=30_000),
    # visitor b: from Twitter in France, signs up a minute after landing
    row(1, "b", "10:10:00", page="/pricing", source="Twitter", country="FR", device="mobile"),
    row(1, "b", "10:11:00", "signup", page="/pricing", country="FR"),
    # visitor c: a direct bounce late in the (UTC) evening
    row(1, "c", "23:50:00", page="/", country="DE", device="mobile"),
    # another website's visitor, never counted for website 1
    row(2, "z", "10:00:00", page="/", country="DE"),
]


@pytest.fixture(params=["landing", "landing twice", "compacted", "compacted twice", "sent again"])
def warehouse(tmp_path: Path, request: pytest.FixtureRequest) -> LocalWarehouse:
    """The same rows not compacted yet, compacted, or compacted and then sent again (a
    redelivered message, a Firehose retry) twice; some rows twice in landing (a Firehose
    retry), before compaction or after it: every query answers alike."""
    store = LocalWarehouse(tmp_path / "warehouse")
    store.write(VISITS)
    if request.param.endswith("twice"):
        store.write(VISITS[1:6])
    if request.param not in ("landing", "landing twice"):
        store.compact()
    if request.param == "sent again":
        store.write(VISITS[:4])
        store.write(VISITS[2:])
    return store


def ask(warehouse: LocalWarehouse, **body: Any) -> dict[str, Any]:
    body.setdefault("site_id", 1)
    body.setdefault("date_range", [DAY, DAY])
    parsed = query.parse(body, NOW)
    return answers.answer(parsed, sql.rows_from(warehouse.run, "duckdb"), body)


def test_totals_of_known_visits(warehouse):
    metrics = [
        "visitors",
        "visits",
        "pageviews",
        "events",
        "bounce_rate",
        "visit_duration",
        "views_per_visit",
    ]
    answer = ask(warehouse, metrics=metrics)
    # 3 people, 4 visits, 5 pageviews, 6 events; bounces: a's second visit and c's;
    # durations 420, 30, 60 and 0 s
    assert answer["results"] == [{"dimensions": [], "metrics": [3, 4, 5, 6, 50.0, 128, 1.25]}]


def test_a_breakdown_by_source_ordered_by_visitors(warehouse):
    answer = ask(warehouse, metrics=["visitors", "visits"], dimensions=["visit:source"])
    assert answer["results"] == [
        {"dimensions": ["Direct / None"], "metrics": [2, 2]},
        {"dimensions": ["Google"], "metrics": [1, 1]},
        {"dimensions": ["Twitter"], "metrics": [1, 1]},
    ]


def test_entry_and_exit_pages(warehouse):
    answer = ask(warehouse, metrics=["visits"], dimensions=["visit:entry_page", "visit:exit_page"])
    assert answer["results"] == [
        {"dimensions": ["/", "/"], "metrics": [2]},
        {"dimensions": ["/", "/blog/one"], "metrics": [1]},
        {"dimensions": ["/pricing", "/pricing"], "metrics": [1]},
    ]


def test_filters_on_event_and_visit_dimensions(warehouse):
    blog = ask(
        warehouse,
        metrics=["visitors", "visits", "pageviews"],
        filters=[["contains", "event:page", ["/BLOG"], {"case_sensitive": False}]],
    )
    assert blog["results"][0]["metrics"] == [1, 1, 1]
    not_germany = ask(
        warehouse,
        metrics=["visitors", "pageviews"],
        filters=[["not", ["is", "visit:country", ["DE"]]]],
    )
    assert not_germany["results"][0]["metrics"] == [1, 1]
    either = ask(
        warehouse,
        metrics=["visitors"],
        filters=[
            ["or", [["is", "visit:source", ["Twitter"]], ["matches", "event:page", ["^/blog/"]]]]
        ],
    )
    assert either["results"][0]["metrics"] == [2]


def test_devices_are_shown_as_plausible_names_and_matched_in_any_case(warehouse):
    devices = ask(warehouse, metrics=["visitors"], dimensions=["visit:device"])
    assert devices["results"] == [
        {"dimensions": ["Mobile"], "metrics": [2]},
        {"dimensions": ["Desktop"], "metrics": [1]},
    ]
    for sent in ("Mobile", "mobile", "MOBILE"):
        sources = ask(
            warehouse,
            metrics=["visitors"],
            dimensions=["visit:source"],
            filters=[["is", "visit:device", [sent]]],
        )
        assert sources["results"] == [
            {"dimensions": ["Direct / None"], "metrics": [1]},
            {"dimensions": ["Twitter"], "metrics": [1]},
        ]
    phones = ask(warehouse, metrics=["visitors"], filters=[["matches", "visit:device", ["^mob"]]])
    assert phones["results"][0]["metrics"] == [2]


# event:goal names a website's defined goals: tests/integration/goals/test_goal_queries.py
@pytest.mark.parametrize("goal", ["event:name"])
def test_conversion_rate_of_a_goal(warehouse, goal):
    answer = ask(
        warehouse,
        metrics=["visitors", "events", "conversion_rate"],
        filters=[["is", goal, ["signup"]]],
    )
    assert answer["results"][0]["metrics"] == [1, 1, 33.3]
    goals = ask(
        warehouse,
        metrics=["visitors"],
        dimensions=[goal],
        filters=[["is_not", goal, ["pageview", "engagement"]]],
        order_by=[[goal, "asc"]],
    )
    assert goals["results"] == [{"dimensions": ["signup"], "metrics": [1]}]
    assert goals["query"]["dimensions"] == [goal]  # the query as sent


def test_engagements_are_no_event_of_any_breakdown(warehouse):
    names = ask(warehouse, metrics=["visitors", "events"], dimensions=["event:name"])
    assert names["results"] == [
        {"dimensions": ["pageview"], "metrics": [3, 5]},
        {"dimensions": ["signup"], "metrics": [1, 1]},
    ]
    engaged = ask(warehouse, metrics=["visitors"], filters=[["is", "event:name", ["engagement"]]])
    assert engaged["results"] == [{"dimensions": [], "metrics": [0]}]
    # a's engagement at 10:07 is in hour 10 with its pageview; one left at 11:59 would not
    # make a visitor of hour 11 that saw no page then
    late = [row(1, "d", "10:50:00", page="/"), row(1, "d", "11:05:00", "engagement", page="/")]
    warehouse.write(late)
    hours = ask(
        warehouse,
        metrics=["visitors", "visit_duration"],
        dimensions=["time:hour"],
        filters=[["is", "event:page", ["/"]]],
    )
    by_hour = {r["dimensions"][0][11:13]: r["metrics"] for r in hours["results"]}
    assert by_hour["10"][0] == 2 and by_hour["11"][0] == 1  # a at 10 and 11, d at 10 only


def test_a_time_series_in_the_site_s_time_zone_with_every_label(warehouse):
    answer = ask(
        warehouse,
        metrics=["visitors"],
        dimensions=["time:day"],
        date_range=["2026-11-22", "2026-11-24"],
        timezone="Europe/Berlin",
        include={"time_labels": True, "total_rows": True},
    )
    # 23:50 UTC is 00:50 the next day in Berlin
    assert answer["results"] == [
        {"dimensions": ["2026-11-22"], "metrics": [0]},
        {"dimensions": ["2026-11-23"], "metrics": [2]},
        {"dimensions": ["2026-11-24"], "metrics": [1]},
    ]
    assert answer["meta"]["time_labels"] == ["2026-11-22", "2026-11-23", "2026-11-24"]
    assert answer["meta"]["total_rows"] == 3


def test_weeks_are_named_by_their_monday_or_the_range_s_first_day(warehouse):
    warehouse.write([row(1, "w", "2026-11-19T09:00:00", page="/")])  # a Thursday
    answer = ask(
        warehouse,
        metrics=["visitors"],
        dimensions=["time:week"],
        date_range=["2026-11-18", "2026-11-24"],  # Wednesday to Tuesday
        include={"time_labels": True},
    )
    assert answer["meta"]["time_labels"] == ["2026-11-18", "2026-11-23"]
    assert answer["results"] == [
        {"dimensions": ["2026-11-18"], "metrics": [1]},
        {"dimensions": ["2026-11-23"], "metrics": [3]},
    ]


def test_comparison_with_the_previous_period(warehouse):
    warehouse.write([row(1, "old", "2026-11-22T09:00:00", page="/")])
    answer = ask(
        warehouse, metrics=["visitors"], include={"comparisons": {"mode": "previous_period"}}
    )
    [result] = answer["results"]
    assert result["comparison"] == {"dimensions": [], "metrics": [1], "change": [200]}
    assert answer["meta"]["comparison_date_range"] == ["2026-11-22", "2026-11-22"]


def test_a_change_from_nothing_is_100_percent_and_from_nothing_to_nothing_0(warehouse):
    answer = ask(
        warehouse,
        metrics=["visitors", "bounce_rate"],
        dimensions=["visit:country"],
        include={"comparisons": {"mode": "previous_period"}},
    )
    # no bounce rate before (no visits): no change, as Plausible answers
    assert [r["comparison"]["change"] for r in answer["results"]] == [[100, None], [100, None]]
    empty = ask(
        warehouse,
        metrics=["visitors"],
        date_range=["2026-11-01", "2026-11-01"],
        include={"comparisons": {"mode": "previous_period"}},
    )
    assert empty["results"][0]["comparison"]["change"] == [0]


def test_a_time_series_compares_every_bucket_with_the_one_in_its_place(warehouse):
    # the previous period of 23-24 November is 21-22 November
    warehouse.write(
        [
            row(1, "p", "2026-11-21T09:00:00", page="/"),
            row(1, "q", "2026-11-21T09:30:00", page="/"),
            row(1, "p", "2026-11-22T10:00:00", page="/"),
            row(1, "q", "2026-11-22T10:00:00", page="/"),
            row(1, "r", "2026-11-22T11:00:00", page="/"),
        ]
    )
    answer = ask(
        warehouse,
        metrics=["visitors", "bounce_rate"],
        dimensions=["time:day"],
        date_range=["2026-11-23", "2026-11-24"],
        include={"comparisons": {"mode": "previous_period"}},
    )
    # every day answers, without time_labels too; 23 November: 3 visitors, 2 of 4 visits
    # bounced, against 2 on the 21st, both bounced; the 24th: nobody against 3
    assert answer["results"] == [
        {
            "dimensions": ["2026-11-23"],
            "metrics": [3, 50.0],
            "comparison": {
                "dimensions": ["2026-11-21"],
                "metrics": [2, 100.0],
                "change": [50, -50.0],
            },
        },
        {
            "dimensions": ["2026-11-24"],
            "metrics": [0, 0],
            "comparison": {
                "dimensions": ["2026-11-22"],
                "metrics": [3, 100.0],
                "change": [-100, -100.0],
            },
        },
    ]


@pytest.mark.parametrize(
    ("metric", "now", "before", "change"),
    [
        ("visitors", 1, 3, -67),  # whole percents, rounded half away from zero
        ("visitors", 3, 2, 50),
        ("pageviews", 7, 8, -13),  # -12.5
        ("percentage", 50.0, 12.5, 300),  # a share changes in percent, as in Plausible
        ("visitors", 5, 0, 100),
        ("visitors", 0, 0, 0),
        ("bounce_rate", 40.0, 50.0, -10.0),  # points
        ("bounce_rate", 40.0, 0, None),
        ("conversion_rate", 12.5, 10.0, 2.5),
        ("conversion_rate", 12.5, 0, 12.5),
    ],
)
def test_changes_as_plausible_tells_them(metric, now, before, change):
    assert answers._change(metric, now, before) == change


def test_pagination_and_total_rows(warehouse):
    answer = ask(
        warehouse,
        metrics=["pageviews"],
        dimensions=["event:page"],
        order_by=[["event:page", "asc"]],
        pagination={"limit": 2, "offset": 1},
        include={"total_rows": True},
    )
    assert [r["dimensions"][0] for r in answer["results"]] == ["/blog/one", "/pricing"]
    assert answer["meta"]["total_rows"] == 3
    # a page past the last row is empty, and still tells how many rows there are
    past = ask(
        warehouse,
        metrics=["pageviews"],
        dimensions=["event:page"],
        pagination={"limit": 2, "offset": 4},
        include={"total_rows": True},
    )
    assert (past["results"], past["meta"]["total_rows"]) == ([], 3)
    # with time labels and a second dimension, still the groups before paging
    paged = ask(
        warehouse,
        metrics=["pageviews"],
        dimensions=["time:day", "event:page"],
        pagination={"limit": 1},
        include={"total_rows": True, "time_labels": True},
    )
    assert len(paged["results"]) == 1
    assert paged["meta"]["total_rows"] == 3


def test_a_roll_up_of_two_websites(warehouse):
    answer = ask(warehouse, site_id=[1, 2], metrics=["visitors", "pageviews"])
    assert answer["results"][0]["metrics"] == [4, 6]


def test_values_are_quoted_not_executed(warehouse):
    answer = ask(warehouse, metrics=["visitors"], filters=[["is", "event:page", ["x' OR '1'='1"]]])
    assert answer["results"][0]["metrics"] == [0]


def test_the_same_model_renders_for_athena():
    parsed = query.parse(
        {
            "site_id": 1,
            "metrics": ["visitors", "bounce_rate"],
            "date_range": "30d",
            "dimensions": ["time:day", "visit:source"],
            "filters": [["matches", "event:page", ["^/blog"]]],
        },
        NOW,
    )
    athena = sql.statement(parsed, "athena", ())
    assert "MIN_BY(" in athena and "REGEXP_LIKE(" in athena and "ARG_MIN" not in athena
    assert "day BETWEEN '2026-10-26' AND '2026-11-25'" in athena  # partitions pruned


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"metrics": ["visitors"], "date_range": "7d"}, "site_id"),
        ({"site_id": 1, "date_range": "7d"}, "metrics"),
        ({"site_id": 1, "metrics": ["sessions"], "date_range": "7d"}, "metrics"),
        ({"site_id": 1, "metrics": ["visitors"], "date_range": "8d"}, "date_range"),
        (
            {"site_id": 1, "metrics": ["visitors"], "date_range": ["2026-01-02", "2026-01-01"]},
            "date_range",
        ),
        (
            {
                "site_id": 1,
                "metrics": ["visitors"],
                "date_range": "7d",
                "dimensions": ["visit:city"],
            },
            "dimensions",
        ),
        (
            {
                "site_id": 1,
                "metrics": ["visitors"],
                "date_range": "7d",
                "filters": [["like", "event:page", ["/"]]],
            },
            "filters",
        ),
        (
            {
                "site_id": 1,
                "metrics": ["visitors"],
                "date_range": "7d",
                "filters": [["matches", "event:page", ["("]]],
            },
            "filters",
        ),
        (
            {
                "site_id": 1,
                "metrics": ["visitors"],
                "date_range": "7d",
                "filters": [["matches", "event:page", ["^(?!/admin)"]]],
            },
            "filters",
        ),
        (
            {
                "site_id": 1,
                "metrics": ["visitors"],
                "date_range": "7d",
                "filters": [["matches", "event:page", ["(a)\\1"]]],
            },
            "filters",
        ),
        ({"site_id": 1, "metrics": ["percentage"], "date_range": "7d"}, "metrics"),
        ({"site_id": 1, "metrics": ["conversion_rate"], "date_range": "7d"}, "metrics"),
        (
            {
                "site_id": 1,
                "metrics": ["visitors"],
                "date_range": "all",
                "dimensions": ["time:hour"],
            },
            "dimensions",
        ),
        (
            {"site_id": 1, "metrics": ["visitors"], "date_range": "7d", "timezone": "Mars/Olympus"},
            "timezone",
        ),
        (
            {"site_id": 1, "metrics": ["visitors"], "date_range": "7d", "pagination": {"limit": 0}},
            "pagination",
        ),
        (
            {
                "site_id": 1,
                "metrics": ["visitors"],
                "date_range": "7d",
                "order_by": [["pageviews", "desc"]],
            },
            "order_by",
        ),
        ({"site_id": list(range(1, 60)), "metrics": ["visitors"], "date_range": "7d"}, "site_id"),
        ({"site_id": 1.5, "metrics": ["visitors"], "date_range": "7d"}, "site_id"),
        ({"site_id": "1", "metrics": ["visitors"], "date_range": "7d"}, "site_id"),
        (
            {
                "site_id": 1,
                "metrics": ["visitors"],
                "date_range": "7d",
                "pagination": {"limit": 2.5},
            },
            "pagination",
        ),
    ],
)
def test_invalid_queries_name_the_field(body, field):
    with pytest.raises(errors.Invalid) as raised:
        query.parse(body, NOW)
    assert field in raised.value.message


def test_whole_json_numbers_are_integers_as_json_schema_says():
    body = {"site_id": [1.0, 2], "metrics": ["visitors"], "date_range": "7d"}
    parsed = query.parse({**body, "pagination": {"limit": 2.0, "offset": 1.0}}, NOW)
    assert (parsed.site_ids, parsed.limit, parsed.offset) == ((1, 2), 2, 1)


def test_deeply_nested_filters_are_refused():
    nested: list[Any] = ["is", "event:page", ["/"]]
    for _ in range(filters.MAX_FILTER_DEPTH + 1):
        nested = ["not", nested]
    with pytest.raises(errors.Invalid):
        query.parse(
            {"site_id": 1, "metrics": ["visitors"], "date_range": "7d", "filters": [nested]}, NOW
        )


def test_presets_are_days_of_the_site_s_zone():
    parsed = query.parse(
        {"site_id": 1, "metrics": ["visitors"], "date_range": "7d", "timezone": "America/New_York"},
        NOW,
    )
    assert (parsed.first_day.isoformat(), parsed.last_day.isoformat()) == (
        "2026-11-18",
        "2026-11-24",
    )
    assert parsed.start == datetime(2026, 11, 18, 5, tzinfo=UTC)
    assert parsed.end - parsed.start == timedelta(days=7)


def test_a_pageview_after_the_engagement_of_a_visit_begun_before_the_range_counts(tmp_path):
    """The range opens on an engagement that ends a visit begun the day before; the
    pageview after it starts a visit, and every query counts it alike."""
    store = LocalWarehouse(tmp_path / "edge")
    store.write(
        [
            row(1, "a", "2026-11-22T23:58:00", page="/"),
            row(1, "a", "2026-11-23T00:00:30", "engagement", page="/", engagement_ms=150_000),
            row(1, "a", "2026-11-23T00:02:00", page="/next"),
        ]
    )
    by_visits = ask(store, metrics=["visitors", "visits", "pageviews", "bounce_rate"])
    by_rows = ask(store, metrics=["visitors", "pageviews"])
    by_day = ask(store, metrics=["visitors", "pageviews"], dimensions=["time:day"])
    assert by_visits["results"] == [{"dimensions": [], "metrics": [1, 1, 1, 100.0]}]
    assert by_rows["results"] == [{"dimensions": [], "metrics": [1, 1]}]
    assert by_day["results"] == [{"dimensions": [DAY], "metrics": [1, 1]}]


def test_rows_of_one_instant_count_alike_in_every_query(tmp_path):
    """A pageview and an engagement of the same millisecond: the pageview starts its visit
    whatever order the engine reads them in (visits and rows agree)."""
    store = LocalWarehouse(tmp_path / "ties")
    store.write(
        [
            row(1, "a", "10:00:00", "engagement", page="/", engagement_ms=1_000),
            row(1, "a", "10:00:00", page="/"),
            row(1, "b", "10:00:00", page="/"),
            row(1, "b", "10:00:00", page="/two"),
        ]
    )
    by_visits = ask(store, metrics=["visitors", "visits", "pageviews"])
    by_rows = ask(store, metrics=["visitors", "pageviews"])
    assert by_visits["results"] == [{"dimensions": [], "metrics": [2, 2, 3]}]
    assert by_rows["results"] == [{"dimensions": [], "metrics": [2, 3]}]


@pytest.mark.parametrize("compacted", [False, True], ids=["landing", "compacted"])
def test_a_range_holds_the_rows_of_its_instants_and_no_other(tmp_path, compacted):
    """In UTC a day's range is whole UTC days (compacted rows are then read by their day
    partitions alone, without their times); in Berlin it is not: both hold exactly the rows
    of [start, end)."""
    store = LocalWarehouse(tmp_path / "bounds")
    store.write(
        [
            row(1, "a", "2026-11-22T23:59:59.999", page="/before"),
            row(1, "b", "2026-11-23T00:00:00", page="/first"),
            row(1, "c", "2026-11-23T23:59:59.999", page="/last"),
            row(1, "d", "2026-11-24T00:00:00", page="/after"),
        ]
    )
    if compacted:
        store.compact()
    rows = sql.rows_from(store.run, "duckdb")
    for zone, pages in (("UTC", ["/first", "/last"]), ("Europe/Berlin", ["/before", "/first"])):
        body = {"site_id": 1, "date_range": [DAY, DAY], "metrics": ["pageviews"]}
        body["dimensions"] = ["event:page"]
        answer = answers.answer(query.parse(body, NOW, zone), rows, body)
        assert sorted(r["dimensions"][0] for r in answer["results"]) == pages, zone


def test_a_row_without_a_value_is_not_it_and_is_its_negation(tmp_path):
    """A row whose country is unknown (NULL, as a file from before a column has it) is no
    German row, and is one of the rows that are not German."""
    store = LocalWarehouse(tmp_path / "nulls")
    store.write([row(1, "a", "10:00:00", country="DE"), row(1, "b", "10:00:00", country=None)])
    germany = ask(store, metrics=["visitors"], filters=[["is", "visit:country", ["DE"]]])
    elsewhere = ask(store, metrics=["visitors"], filters=[["not", ["is", "visit:country", ["DE"]]]])
    is_not = ask(store, metrics=["visitors"], filters=[["is_not", "visit:country", ["DE"]]])
    assert germany["results"][0]["metrics"] == [1]
    assert elsewhere["results"][0]["metrics"] == [1]
    assert is_not["results"][0]["metrics"] == [1]
