"""GET /api/v1/stats/{id}: validation, sums over periods, search, orders, cursors,
isolation, and hits counted end to end (event endpoint -> queue -> aggregator -> stats)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from sitelens.analytics import counting, months
from sitelens.analytics import stats as analytics_stats
from sitelens.analytics.hit import STAT_NAMES, Hit
from sitelens.analytics.inputs import StatsQuery
from sitelens.core import clock
from tests.fixtures.analytics import CHROME, FIREFOX, hit_record, receive, run

NAMES_SENTENCE = "The name field must be one of: " + ", ".join(STAT_NAMES) + "."


@pytest.fixture
def website(analytics) -> dict[str, Any]:
    reply = analytics.post("/api/v1/websites", {"domain": "example.com"})
    assert reply.status == 201
    data: dict[str, Any] = reply.data
    return data


def at(day: int, hour: int = 9, month: int = 11) -> datetime:
    return datetime(2026, month, day, hour, 15, tzinfo=UTC)


def count(account_id: str, hits: list[Hit]) -> None:
    """Count hits the way the aggregator does, as if the event endpoint had queued them,
    then roll their months up as the daily job does once they have closed."""
    batch = [hit_record(hit, account_id, n) for n, hit in enumerate(hits)]
    assert run("HitsQueue", batch) == {"batchItemFailures": []}
    for website_id, month in sorted({(h.website_id, h.at.strftime("%Y-%m")) for h in hits}):
        assert months.roll_up(account_id, website_id, month)


def view(website_id: int, when: datetime, page: str = "/", visit: bool = False, **more: Any) -> Hit:
    return Hit(website_id=website_id, at=when, page=page, visit=visit, **more)


def stats(client: Any, website_id: int, **query: Any) -> Any:
    return client.get(f"/api/v1/stats/{website_id}", query=query)


def rows(reply: Any) -> list[tuple[str, int]]:
    assert reply.status == 200, reply.body
    return [(row["value"], row["count"]) for row in reply.data]


# -- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "field", "sentence"),
    [
        ({}, "name", "The name field is required."),
        ({"name": ""}, "name", "The name field is required."),  # as documented: no statistic
        ({"name": "views"}, "name", NAMES_SENTENCE),
        ({"name": "page", "from": "2026-1-01"}, "from", None),
        ({"name": "page", "from": "21.11.2026"}, "from", None),
        ({"name": "page", "to": "2026-02-30"}, "to", None),
        ({"name": "page", "to": "today"}, "to", None),
        (
            {"name": "page", "from": "2026-11-22", "to": "2026-11-21"},
            "from",
            "The from field must be a date before or equal to to.",
        ),
        (
            {"name": "page", "from": "2025-01-01", "to": "2026-01-02"},
            "to",
            "The period must not be longer than 366 days.",
        ),
        # days whose midnight in some zone falls outside Python's calendar were a 500
        (
            {"name": "page", "from": "9998-12-31", "to": "9999-01-01"},
            "to",
            "The to field must be a day of a year from 1970 to 9998.",
        ),
        (
            {"name": "page", "from": "1969-12-31", "to": "1970-01-01"},
            "from",
            "The from field must be a day of a year from 1970 to 9998.",
        ),
        (
            {"name": "page", "sort_by": "name"},
            "sort_by",
            "The sort by field must be one of: count, value.",
        ),
        ({"name": "page", "sort": "up"}, "sort", "The sort field must be one of: desc, asc."),
        ({"name": "page", "per_page": "20"}, "per_page", None),
        ({"name": "page", "cursor": "abc.def"}, "cursor", "The cursor is invalid."),
    ],
)
def test_invalid_queries_are_422_naming_the_field(analytics, website, query, field, sentence):
    reply = stats(analytics, website["id"], **query)
    assert reply.status == 422
    assert list(reply.body["message"]) == [field]
    if sentence:
        assert reply.body["message"][field] == [sentence]
    if field in ("from", "to") and sentence is None:
        assert reply.body["message"][field] == [
            f"The {field} field must be a date in the format YYYY-MM-DD."
        ]


def test_a_period_of_366_days_is_allowed(analytics, website):
    reply = stats(
        analytics, website["id"], name="pageviews", **{"from": "2028-01-01", "to": "2028-12-31"}
    )
    assert reply.status == 200


def test_unknown_and_other_accounts_websites_are_404(analytics, other_analytics, website):
    for client, website_id in ((other_analytics, website["id"]), (analytics, 99), (analytics, "x")):
        reply = stats(client, website_id, name="page")
        assert reply.status == 404
        assert reply.body == {"message": "Resource not found.", "status": 404}


def test_a_key_is_required(analytics, website):
    reply = analytics.get(f"/api/v1/stats/{website['id']}", query={"name": "page"}, key=None)
    assert reply.status == 401


# -- sums ----------------------------------------------------------------------------------


def test_rows_are_summed_over_the_days_in_the_period(analytics, account, website):
    wid = website["id"]
    count(
        account.id,
        [
            view(wid, at(20), "/a"),
            view(wid, at(21), "/a"),
            view(wid, at(21), "/b"),
            view(wid, at(22), "/a"),
            view(wid, at(30), "/b"),
            view(wid, at(1, month=12), "/a"),
        ],
    )
    period = {"from": "2026-11-21", "to": "2026-11-30"}
    assert rows(stats(analytics, wid, name="page", **period)) == [("/a", 2), ("/b", 2)]
    whole = {"from": "2026-11-01", "to": "2026-12-31"}
    assert rows(stats(analytics, wid, name="page", **whole)) == [("/a", 4), ("/b", 2)]
    one_day = {"from": "2026-11-22", "to": "2026-11-22"}
    assert rows(stats(analytics, wid, name="page", **one_day)) == [("/a", 1)]
    assert rows(stats(analytics, wid, name="pageviews", sort_by="value", sort="asc", **whole)) == [
        ("2026-11-20", 1),
        ("2026-11-21", 2),
        ("2026-11-22", 1),
        ("2026-11-30", 1),
        ("2026-12-01", 1),
    ]
    empty = {"from": "2026-10-01", "to": "2026-10-31"}
    assert rows(stats(analytics, wid, name="page", **empty)) == []


def test_hours_are_summed_over_the_days(analytics, account, website):
    wid = website["id"]
    count(account.id, [view(wid, at(20, 9)), view(wid, at(21, 9)), view(wid, at(21, 17))])
    period = {"from": "2026-11-20", "to": "2026-11-21"}
    reply = stats(analytics, wid, name="pageviews_hour", sort_by="value", sort="asc", **period)
    assert rows(reply) == [("09", 2), ("17", 1)]


def test_the_default_period_is_the_last_30_days(analytics, account, website):
    wid = website["id"]
    today = clock.now().replace(hour=0, minute=1)
    count(
        account.id,
        [
            view(wid, today, "/now"),
            view(wid, today - timedelta(days=29), "/old"),
            view(wid, today - timedelta(days=30), "/older"),
        ],
    )
    reply = stats(analytics, wid, name="page", sort_by="value")
    assert rows(reply) == [("/old", 1), ("/now", 1)]
    assert reply.body["meta"]["path"].endswith(f"/api/v1/stats/{wid}")
    only_to = stats(analytics, wid, name="page", to=today.date().isoformat())
    assert len(rows(only_to)) == 2


def test_search_is_a_case_insensitive_substring(analytics, account, website):
    wid = website["id"]
    count(
        account.id,
        [view(wid, at(21), page) for page in ("/Pricing", "/blog/pricing-2026", "/about")],
    )
    reply = stats(
        analytics,
        wid,
        name="page",
        search="PRICING",
        sort_by="value",
        sort="asc",
        **{"from": "2026-11-21", "to": "2026-11-21"},
    )
    assert rows(reply) == [("/Pricing", 1), ("/blog/pricing-2026", 1)]


def test_both_orders_both_ways(analytics, account, website):
    wid = website["id"]
    hits = [view(wid, at(21), page) for page in ["/b"] * 3 + ["/a"] * 3 + ["/c"] * 5 + ["/d"]]
    count(account.id, hits)
    period = {"from": "2026-11-21", "to": "2026-11-21"}
    by_count = stats(analytics, wid, name="page", **period)
    assert rows(by_count) == [("/c", 5), ("/a", 3), ("/b", 3), ("/d", 1)]  # ties by value
    up = stats(analytics, wid, name="page", sort="asc", **period)
    assert rows(up) == [("/d", 1), ("/a", 3), ("/b", 3), ("/c", 5)]
    by_value = stats(analytics, wid, name="page", sort_by="value", **period)
    assert [value for value, _ in rows(by_value)] == ["/d", "/c", "/b", "/a"]
    by_value_up = stats(analytics, wid, name="page", sort_by="value", sort="asc", **period)
    assert [value for value, _ in rows(by_value_up)] == ["/a", "/b", "/c", "/d"]


# -- distinct values -------------------------------------------------------------------------


def test_values_past_the_cap_are_one_other_row(analytics, account, website, monkeypatch):
    monkeypatch.setattr(counting, "MAX_VALUES", 2)
    wid = website["id"]
    # Each day admits its two most hit values (equal counts: in value order).
    count(account.id, [view(wid, at(21), page) for page in ("/a", "/a", "/b", "/c", "/d")])
    count(account.id, [view(wid, at(22), page) for page in ("/c", "/e", "/f")])
    period = {"from": "2026-11-21", "to": "2026-11-22"}
    assert rows(stats(analytics, wid, name="page", **period)) == [
        ("(other)", 3),
        ("/a", 2),
        ("/b", 1),
        ("/c", 1),
        ("/e", 1),
    ]
    one_day = {"from": "2026-11-22", "to": "2026-11-22"}
    assert rows(stats(analytics, wid, name="page", search="OTHER", **one_day)) == [("(other)", 1)]
    assert rows(stats(analytics, wid, name="pageviews", **period)) == [
        ("2026-11-21", 5),
        ("2026-11-22", 3),
    ]


def many_pages(account_id: str, website_id: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cap of 3 values a day and a month; 40 distinct pages on each of 4 days, 160 in
    the month."""
    monkeypatch.setattr(counting, "MAX_VALUES", 3)
    for day in (18, 19, 20, 21):
        count(account_id, [view(website_id, at(day), f"/?r={day}-{n}") for n in range(40)])


def test_a_period_of_days_reads_at_most_one_item_per_value_and_day(
    analytics, account, website, monkeypatch
):
    """Days times (MAX_VALUES + 1) items, however many distinct values were sent."""
    many_pages(account.id, website["id"], monkeypatch)
    query = StatsQuery.parse({"name": "page", "from": "2026-11-02", "to": "2026-11-30"})
    page = analytics_stats.page(account.id, website["id"], query)
    assert page.cost == {"items_read": 4 * (3 + 1), "requests": 1}
    assert page.records[0] == {"value": "(other)", "count": 4 * 37}  # each day's cap


def test_a_whole_month_is_read_from_its_month_roll_up(analytics, account, website, monkeypatch):
    """One item per value of the month, after the month's and its days' pageviews (which
    show the roll-up is complete)."""
    monkeypatch.setattr(counting, "MAX_VALUES", 3)
    for day in (18, 19, 20, 21):
        count(account.id, [view(website["id"], at(day), page) for page in ("/a", "/b", "/b")])
    query = StatsQuery.parse({"name": "page", "from": "2026-11-01", "to": "2026-11-30"})
    page = analytics_stats.page(account.id, website["id"], query)
    assert page.cost == {"items_read": 4 + 1 + 2, "requests": 3}
    assert page.records == [{"value": "/b", "count": 8}, {"value": "/a", "count": 4}]


def test_a_month_crowded_past_its_cap_is_read_again_by_days(
    analytics, account, website, monkeypatch
):
    """A month's roll-up admits its first values only: one that counted some under
    "(other)" is read by days, which keep their own cap each (as exact as days are)."""
    many_pages(account.id, website["id"], monkeypatch)
    query = StatsQuery.parse({"name": "page", "from": "2026-11-01", "to": "2026-11-30"})
    page = analytics_stats.page(account.id, website["id"], query)
    assert page.cost == {"items_read": 4 + 1 + (3 + 1) + 4 * (3 + 1), "requests": 4}
    assert page.records[0] == {"value": "(other)", "count": 4 * 37}  # as the days have it
    assert (
        sum(row["count"] for row in analytics_stats.every_row(account.id, website["id"], query))
        == 160
    )


def test_a_page_that_rose_late_in_a_crowded_month_is_in_the_share_top(
    analytics, account, website, monkeypatch
):
    monkeypatch.setattr(counting, "MAX_VALUES", 3)
    wid = website["id"]
    count(account.id, [view(wid, at(2), page) for page in ("/a", "/b", "/c")])
    count(account.id, [view(wid, at(20), "/new") for _ in range(50)])  # the month is full
    found = analytics_stats.overview(wid, date(2026, 11, 1), date(2026, 11, 30))
    assert found.ranked["page"][0] == {"value": "/new", "count": 50, "share": 94.3}


def test_a_crowded_month_whose_other_cannot_reach_the_top_is_not_read_again(
    analytics, account, website, monkeypatch
):
    monkeypatch.setattr(counting, "MAX_VALUES", 3)
    wid = website["id"]
    count(account.id, [view(wid, at(2), "/a") for _ in range(100)])
    count(account.id, [view(wid, at(2), page) for page in ("/b", "/c")])
    count(account.id, [view(wid, at(20), "/x")])  # under the month's "(other)": 1
    period = date(2026, 11, 1), date(2026, 11, 30)
    monkeypatch.setattr(analytics_stats, "TOP_ROWS", 1)  # "/x" cannot reach "/a"'s 100
    found = analytics_stats.overview(wid, *period)
    assert found.ranked["page"] == [{"value": "/a", "count": 100, "share": 97.1}]
    kept = found.cost["requests"]
    monkeypatch.setattr(analytics_stats, "TOP_ROWS", 3)  # now "/x" could be third
    again = analytics_stats.overview(wid, *period)
    assert [row["value"] for row in again.ranked["page"]] == ["/a", "/b", "/c"]
    assert again.cost["requests"] > kept  # the month's pages read again by days


def set_month_pageviews(website_id: int, month: str, count: int | None) -> None:
    """Change (None: remove) a month's `pageviews@month` counter, as if counting by month
    had begun during that month (or after it)."""
    from sitelens.core.config import settings
    from sitelens.data.clients import client

    key = {"series": {"S": f"{website_id}#pageviews@month"}, "slot": {"S": f"{month}#{month}"}}
    if count is None:
        client("dynamodb").delete_item(TableName=settings().stats_table, Key=key)
        return
    client("dynamodb").update_item(
        TableName=settings().stats_table,
        Key=key,
        UpdateExpression="SET #count = :n",
        ExpressionAttributeNames={"#count": "count"},
        ExpressionAttributeValues={":n": {"N": str(count)}},
    )


@pytest.mark.parametrize("month_pageviews", [159, None])
def test_a_month_not_counted_whole_by_month_is_read_by_days(
    analytics, account, website, monkeypatch, month_pageviews
):
    many_pages(account.id, website["id"], monkeypatch)
    set_month_pageviews(website["id"], "2026-11", month_pageviews)
    query = StatsQuery.parse({"name": "page", "from": "2026-11-01", "to": "2026-11-30"})
    page = analytics_stats.page(account.id, website["id"], query)
    assert page.records[0] == {"value": "(other)", "count": 4 * 37}  # as the days have it
    assert page.cost["items_read"] == 4 + (1 if month_pageviews else 0) + 4 * (3 + 1)


def test_a_year_reads_its_whole_months_by_month_and_its_edges_by_day(analytics, account, website):
    wid = website["id"]
    months = [(2025, 11)] + [(2025, 12)] + [(2026, m) for m in range(1, 12)]
    count(account.id, [view(wid, datetime(y, m, 15, 9, tzinfo=UTC), "/a") for y, m in months])
    # 2025-11-20 .. 2026-11-19: days of 2025-11, the months 2025-12 to 2026-10, days of 2026-11
    query = StatsQuery.parse({"name": "page", "from": "2025-11-20", "to": "2026-11-19"})
    page = analytics_stats.page(account.id, wid, query)
    assert page.records == [{"value": "/a", "count": 12}]
    # the months' days and roll-ups of pageviews (11 + 11), the roll-up of pages (11), the
    # days at each edge (one hit)
    assert page.cost == {"items_read": 11 + 11 + 11 + 1, "requests": 2 + 1 + 2}
    by_day = analytics_stats.every_row(account.id, wid, query)
    assert by_day == page.records


# -- pages ---------------------------------------------------------------------------------


def follow(analytics: Any, url: str) -> Any:
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
    return analytics.get(parts.path, query=query)


@pytest.mark.parametrize(
    ("sort_by", "sort"), [("count", "desc"), ("count", "asc"), ("value", "desc"), ("value", "asc")]
)
def test_cursors_walk_every_row_once_in_both_directions(analytics, account, website, sort_by, sort):
    wid = website["id"]
    # 23 pages, counts 1..5 with many ties: the order must still be total.
    hits = [view(wid, at(21), f"/p{n:02d}") for n in range(23) for _ in range(n % 5 + 1)]
    count(account.id, hits)
    query = {
        "name": "page",
        "sort_by": sort_by,
        "sort": sort,
        "per_page": 10,
        "from": "2026-11-21",
        "to": "2026-11-21",
    }
    everything = rows(stats(analytics, wid, **{**query, "per_page": 100}))
    assert len(everything) == 23

    pages = [stats(analytics, wid, **query)]
    assert pages[0].body["links"]["prev"] is None
    while pages[-1].body["links"]["next"]:
        pages.append(follow(analytics, pages[-1].body["links"]["next"]))
    assert [len(page.data) for page in pages] == [10, 10, 3]
    assert [row for page in pages for row in rows(page)] == everything
    assert pages[-1].body["meta"]["next_cursor"] is None

    back = [pages[-1]]
    while back[-1].body["links"]["prev"]:
        back.append(follow(analytics, back[-1].body["links"]["prev"]))
    assert [rows(page) for page in reversed(back)] == [rows(page) for page in pages]
    link = urlsplit(pages[0].body["links"]["next"])
    assert parse_qs(link.query)["name"] == ["page"]
    assert parse_qs(link.query)["from"] == ["2026-11-21"]


def test_cursors_are_bound_to_the_query_and_the_website(
    analytics, other_analytics, account, website
):
    wid = website["id"]
    count(account.id, [view(wid, at(21), f"/p{n:02d}") for n in range(15)])
    period = {"from": "2026-11-21", "to": "2026-11-21"}
    token = stats(analytics, wid, name="page", **period).body["meta"]["next_cursor"]
    assert token
    for changed in ({"name": "landing_page"}, {"sort": "asc"}, {"to": "2026-11-22"}):
        reply = stats(analytics, wid, **{"name": "page", **period, **changed, "cursor": token})
        assert reply.status == 422
        assert reply.body["message"] == {"cursor": ["The cursor is invalid."]}
    tampered = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert stats(analytics, wid, name="page", cursor=tampered, **period).status == 422
    other_site = analytics.post("/api/v1/websites", {"domain": "other.example"}).data
    moved = stats(analytics, other_site["id"], name="page", cursor=token, **period)
    assert moved.status == 422


# -- end to end ----------------------------------------------------------------------------


def test_visits_pageviews_and_events_end_to_end(analytics, website):
    """Three pageviews in one visit, a second visit, a custom event; then the stats."""

    def send(form: dict[str, str], ua: str = CHROME) -> None:
        reply = analytics.post(
            "/api/event",
            form,
            key=None,
            headers={"User-Agent": ua, "Accept-Language": "de"},
            source_ip="192.0.2.10",
        )
        assert reply.status == 202, reply.body

    send(
        {
            "page": "https://example.com/",
            "referrer": "https://news.example.org/x",
            "screen_resolution": "1920x1080",
        }
    )
    send({"page": "https://example.com/pricing", "referrer": "https://example.com/"})
    send({"page": "https://example.com/docs", "referrer": "https://www.example.com/pricing"})
    send({"page": "https://example.com/pricing?utm_campaign=launch"}, ua=FIREFOX)
    send(
        {
            "page": "https://example.com/pricing",
            "event[name]": "signup",
            "event[value]": "pro",
            "event[unit]": "plan",
        }
    )
    assert run("HitsQueue", receive("HitsQueue")) == {"batchItemFailures": []}

    wid = website["id"]
    today = clock.now().date().isoformat()

    def only(name: str) -> list[tuple[str, int]]:
        return rows(stats(analytics, wid, name=name, sort_by="value", sort="asc"))

    assert only("pageviews") == [(today, 4)]
    assert only("visitors") == [(today, 2)]
    assert sum(n for _, n in only("pageviews_hour")) == 4
    assert sum(n for _, n in only("visitors_hour")) == 2
    # campaign parameters leave the counted page: one row for /pricing
    assert only("page") == [("/", 1), ("/docs", 1), ("/pricing", 2)]
    assert only("landing_page") == [("/", 1), ("/pricing", 1)]
    assert only("referrer") == [("news.example.org", 1)]
    assert only("browser") == [("Chrome", 1), ("Firefox", 1)]
    assert only("os") == [("Linux", 1), ("Windows", 1)]
    assert only("device") == [("desktop", 2)]
    assert only("language") == [("de", 2)]
    assert only("resolution") == [("1920x1080", 1)]
    assert only("campaign") == [("launch", 1)]
    assert only("event") == [("signup:pro:plan", 1)]
    assert only("country") == only("continent") == only("city") == []
