"""Visitors, visits, bounces and durations end to end: tracking requests as the script sends
them (pageviews, custom events, engagements), through the event function, the queue and the
aggregator, into the warehouse's rows, answered by POST /api/v1/query."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from sitelens.core import clock
from tests.fixtures.analytics import receive, run

pytest.importorskip("duckdb")

CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
ANNA = ("198.51.100.7", CHROME)
BEN = ("203.0.113.9", FIREFOX)


class Browser:
    """What one visitor's tracking script sends, at times the test sets."""

    def __init__(self, analytics: Any, monkeypatch: pytest.MonkeyPatch, who: tuple[str, str]):
        self.analytics, self.monkeypatch = analytics, monkeypatch
        self.ip, self.agent = who

    def send(self, at: str, **form: str) -> None:
        moment = datetime.fromisoformat(f"2026-11-23T{at}").replace(tzinfo=UTC)
        self.monkeypatch.setattr(clock, "now", lambda: moment)
        reply = self.analytics.request(
            "POST",
            "/api/event",
            form=form,
            key=None,
            headers={"User-Agent": self.agent},
            source_ip=self.ip,
        )
        assert reply.status == 202, reply.body

    def view(self, at: str, path: str, referrer: str = "") -> None:
        self.send(at, page=f"https://shop.example{path}", referrer=referrer)

    def leave(self, at: str, path: str, ms: int) -> None:
        self.send(at, page=f"https://shop.example{path}", engagement_ms=str(ms))

    def event(self, at: str, path: str, name: str) -> None:
        self.send(at, page=f"https://shop.example{path}", **{"event[name]": name})


def count_everything() -> None:
    records = receive("HitsQueue")
    assert run("HitsQueue", records) == {"batchItemFailures": []}


def query(analytics: Any, website_id: int, **body: Any) -> Any:
    sent = {"site_id": website_id, "date_range": ["2026-11-23", "2026-11-23"], **body}
    reply = analytics.post("/api/v1/query", json_body=sent)
    assert reply.status == 200, reply.body
    return reply.body["results"]


def test_visits_bounces_and_durations(analytics, monkeypatch, store):
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    anna, ben = Browser(analytics, monkeypatch, ANNA), Browser(analytics, monkeypatch, BEN)
    # Anna: from Google, reads two pages for 5 minutes (one visit, no bounce, 300 s)
    anna.view("10:00:00", "/", "https://www.google.de/")
    anna.view("10:02:00", "/pricing", "https://shop.example/")
    anna.leave("10:05:00", "/pricing", 180_000)
    # Anna again an hour later, from X: one page for 40 s (a second visit, a bounce)
    anna.view("11:00:00", "/blog", "https://t.co/abc")
    anna.leave("11:00:40", "/blog", 40_000)
    # Ben types three URLs and signs up (one visit: same visitor, 3 pageviews)
    ben.view("10:10:00", "/")
    ben.view("10:11:00", "/a")
    ben.view("10:12:00", "/b")
    ben.event("10:12:30", "/b", "signup")
    count_everything()
    [totals] = query(
        analytics,
        site["id"],
        metrics=["visitors", "visits", "pageviews", "bounce_rate", "visit_duration", "events"],
    )
    # 2 visitors, 3 visits, 6 pageviews, 1 bounce of 3, (300 + 40 + 150) / 3 s, and 7
    # events: as in Plausible, pageviews and custom events (engagements are neither)
    assert totals["metrics"] == [2, 3, 6, 33.3, 163, 7]
    sources = query(analytics, site["id"], metrics=["visits"], dimensions=["visit:source"])
    assert {tuple(r["dimensions"]): r["metrics"] for r in sources} == {
        ("Google",): [1],
        ("X",): [1],
        ("Direct / None",): [1],
    }
    entry = query(
        analytics,
        site["id"],
        metrics=["visits", "bounce_rate"],
        dimensions=["visit:entry_page"],
        filters=[["is", "visit:browser", ["Chrome"]]],
    )
    assert {r["dimensions"][0]: r["metrics"] for r in entry} == {"/": [1, 0.0], "/blog": [1, 100.0]}


IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"
)


def test_custom_events_are_broken_down_by_their_visitor_s_device_and_country(
    analytics, monkeypatch, store
):
    """A custom event's row carries its visitor's browser, OS, device and country, as every
    row of a visitor does: conversions by device (asked of rows alone) and a visit of custom
    events alone are told by them, not under ""."""
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    cara = Browser(analytics, monkeypatch, ("85.214.132.117", IPHONE))  # Germany, a phone
    dan = Browser(analytics, monkeypatch, ("81.2.69.142", CHROME))  # Britain, a desktop
    cara.view("10:00:00", "/")
    cara.event("10:01:00", "/", "signup")
    dan.view("10:02:00", "/")
    dan.event("10:40:00", "/", "download")  # 38 minutes on: a visit of this event alone
    count_everything()
    signups = {"metrics": ["visitors", "events"], "filters": [["is", "event:name", ["signup"]]]}
    for dimension, value in (
        ("visit:device", "Mobile"),
        ("visit:browser", "Mobile Safari"),
        ("visit:os", "iOS"),
        ("visit:country", "DE"),
    ):
        found = query(analytics, site["id"], **signups, dimensions=[dimension])
        assert found == [{"dimensions": [value], "metrics": [1, 1]}], dimension
    downloads = query(
        analytics,
        site["id"],
        metrics=["visits"],
        dimensions=["visit:device", "visit:country"],
        filters=[["is", "event:name", ["download"]]],
    )
    assert downloads == [{"dimensions": ["Desktop", "GB"], "metrics": [1]}]
    devices = query(
        analytics, site["id"], metrics=["visitors", "events"], dimensions=["visit:device"]
    )
    assert devices == [
        {"dimensions": ["Desktop"], "metrics": [1, 2]},
        {"dimensions": ["Mobile"], "metrics": [1, 2]},
    ]


@pytest.mark.parametrize("compacted", [False, True])
def test_a_visitor_of_new_york_s_evening_is_one_visitor_across_midnight_utc(
    analytics, monkeypatch, store, compacted
):
    """A visitor hash lives a day of the website's zone: New York's evening spans midnight
    UTC, where the warehouse's days (and visits) end. One person there is one visitor in a
    day's total, in several days' and per page, whether the days are summarised or not."""
    site = analytics.post(
        "/api/v1/websites", {"domain": "shop.example", "timezone": "America/New_York"}
    ).data
    for at, who in (
        ("2026-11-22T17:00:00", BEN),  # noon in New York
        ("2026-11-23T23:30:00", ANNA),  # 18:30 in New York
        ("2026-11-24T00:30:00", ANNA),  # 19:30: a new visit, the same visitor
    ):
        moment = datetime.fromisoformat(at).replace(tzinfo=UTC)
        monkeypatch.setattr(clock, "now", lambda moment=moment: moment)
        reply = analytics.request(
            "POST",
            "/api/event",
            form={"page": "https://shop.example/"},
            key=None,
            headers={"User-Agent": who[1]},
            source_ip=who[0],
        )
        assert reply.status == 202, reply.body
    count_everything()
    if compacted:
        store.compact()  # 2026-11-23 is a whole UTC day of both ranges: its summaries answer
        store.merge(date.max)  # the daily level too, every day taken as closed
    monkeypatch.setattr(clock, "now", lambda: datetime(2026, 11, 26, tzinfo=UTC))
    totals = ["visitors", "visits", "pageviews"]
    [evening] = query(analytics, site["id"], metrics=totals)
    assert evening["metrics"] == [1, 2, 2]
    [both_days] = query(
        analytics, site["id"], metrics=totals, date_range=["2026-11-22", "2026-11-23"]
    )
    assert both_days["metrics"] == [2, 3, 3]
    # asked in UTC, whose days the summaries are of: the hash still spans two of them
    [in_utc] = query(
        analytics,
        site["id"],
        metrics=totals,
        date_range=["2026-11-23", "2026-11-24"],
        timezone="UTC",
    )
    assert in_utc["metrics"] == [1, 2, 2]
    pages = query(
        analytics,
        site["id"],
        metrics=["visitors", "pageviews"],
        dimensions=["event:page"],
        date_range=["2026-11-22", "2026-11-23"],
    )
    assert pages == [{"dimensions": ["/"], "metrics": [2, 3]}]


def test_a_visitor_is_not_linked_across_days(analytics, monkeypatch, store):
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    anna = Browser(analytics, monkeypatch, ANNA)
    anna.view("23:50:00", "/")
    moment = datetime(2026, 11, 24, 0, 10, tzinfo=UTC)
    monkeypatch.setattr(clock, "now", lambda: moment)
    reply = analytics.request(
        "POST",
        "/api/event",
        form={"page": "https://shop.example/next"},
        key=None,
        headers={"User-Agent": CHROME},
        source_ip=ANNA[0],
    )
    assert reply.status == 202
    count_everything()
    store.compact()
    store.merge(date.max)  # the daily level too, every day taken as closed
    visitors = store.run("SELECT DISTINCT visitor FROM events ORDER BY visitor")
    assert len(visitors) == 2  # a new day's salt: not the same visitor
    assert all(len(v) == 32 and ANNA[0] not in v for (v,) in visitors)
    [[two_days]] = [
        r["metrics"]
        for r in query(
            analytics,
            site["id"],
            metrics=["visitors"],
            date_range=["2026-11-23", "2026-11-24"],
        )
    ]
    assert two_days == 2


def test_engagements_and_events_are_not_counted_as_pageviews(analytics, monkeypatch, store):
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    anna = Browser(analytics, monkeypatch, ANNA)
    anna.view("10:00:00", "/")
    anna.leave("10:01:00", "/", 60_000)
    count_everything()
    stats = analytics.get(
        f"/api/v1/stats/{site['id']}",
        query={"name": "pageviews", "from": "2026-11-23", "to": "2026-11-23"},
    )
    assert stats.data == [{"value": "2026-11-23", "count": 1}]
    store.compact()
    store.merge(date.max)  # the daily level too, every day taken as closed
    rows = store.run("SELECT name, page, engagement_ms FROM events ORDER BY ts")
    assert rows == [("pageview", "/", 0), ("engagement", "/", 60_000)]


@pytest.mark.parametrize("sent", ["soon", "", " 5", "-1", "1.5", "1234567890123"])
def test_a_bad_engagement_is_422(analytics, sent):
    analytics.post("/api/v1/websites", {"domain": "shop.example"})
    reply = analytics.request(
        "POST",
        "/api/event",
        form={"page": "https://shop.example/", "engagement_ms": sent},
        key=None,
        headers={"User-Agent": CHROME},
    )
    assert reply.status == 422
    assert list(reply.body["message"]) == ["engagement_ms"]


def test_a_redelivered_batch_adds_no_rows(analytics, monkeypatch, store):
    from sitelens.analytics import counting
    from tests.fixtures.analytics import redelivered

    analytics.post("/api/v1/websites", {"domain": "shop.example"})
    anna = Browser(analytics, monkeypatch, ANNA)
    anna.view("10:00:00", "/")
    anna.leave("10:01:00", "/", 60_000)
    records = receive("HitsQueue")
    assert run("HitsQueue", records) == {"batchItemFailures": []}
    # SQS redelivers after the visibility timeout, when the first batch has ended
    monkeypatch.setattr(counting, "RUNNING_SECONDS", 0)
    assert run("HitsQueue", redelivered(records)) == {"batchItemFailures": []}
    store.compact()
    store.merge(date.max)  # the daily level too, every day taken as closed
    assert store.run("SELECT COUNT(*) FROM events") == [(2,)]


@pytest.mark.parametrize(
    ("host", "name"),
    [
        ("google.com", "Google"),
        ("google.co.uk", "Google"),
        ("news.google.de", "Google"),
        ("bing.com", "Bing"),
        ("duckduckgo.com", "DuckDuckGo"),
        ("t.co", "X"),
        ("l.facebook.com", "Facebook"),
        ("old.reddit.com", "Reddit"),
        ("news.ycombinator.com", "Hacker News"),
        ("blog.example.org", "blog.example.org"),
        ("googleexample.com", "googleexample.com"),
        ("", ""),
    ],
)
def test_sources_group_search_engines_and_social_networks(host, name):
    from sitelens.analytics import sources

    assert sources.source(host) == name


@pytest.mark.parametrize(
    "body",
    [
        {"metrics": ["pageviews"]},
        {"metrics": ["pageviews", "events"]},
        {"metrics": ["events", "pageviews"], "dimensions": ["time:day"]},
        {"metrics": ["pageviews"], "dimensions": ["event:page"]},
        {
            "metrics": ["pageviews"],
            "dimensions": ["event:page"],
            "order_by": [["event:page", "asc"]],
        },
        {
            "metrics": ["pageviews"],
            "dimensions": ["event:page"],
            "pagination": {"limit": 2, "offset": 1},
        },
        {"metrics": ["pageviews"], "dimensions": ["time:day"], "include": {"time_labels": True}},
        {"metrics": ["pageviews"], "include": {"comparisons": {"mode": "previous_period"}}},
    ],
)
def test_the_counters_answer_as_the_warehouse_does(analytics, monkeypatch, store, body):
    from sitelens.analytics import queries, rollups
    from sitelens.analytics.warehouse import query, sql

    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    anna, ben = Browser(analytics, monkeypatch, ANNA), Browser(analytics, monkeypatch, BEN)
    anna.view("10:00:00", "/", "https://www.google.de/")
    anna.view("10:02:00", "/pricing", "https://shop.example/")
    anna.leave("10:05:00", "/pricing", 180_000)
    ben.view("10:10:00", "/")
    ben.view("10:11:00", "/a")
    ben.event("10:12:30", "/a", "signup")
    count_everything()
    sent = {"site_id": site["id"], "date_range": ["2026-11-20", "2026-11-23"], **body}
    parsed = query.parse(sent, datetime(2026, 11, 24, tzinfo=UTC), "UTC")
    assert rollups.answers(parsed)
    assert queries.rows_source(parsed) is rollups.rows
    from sitelens.analytics.warehouse import answers

    fast = answers.answer(parsed, rollups.rows, sent)
    slow = answers.answer(parsed, sql.rows, sent)
    assert fast == slow
    assert fast["results"]


@pytest.mark.parametrize(
    "body",
    [
        {"metrics": ["visitors"]},
        {"metrics": ["pageviews"], "filters": [["is", "visit:country", ["DE"]]]},
        {"metrics": ["pageviews"], "dimensions": ["visit:source"]},
        {"metrics": ["events"], "dimensions": ["event:page"]},
        {"metrics": ["pageviews"], "date_range": ["2026-09-01", "2026-11-23"]},
        {"metrics": ["pageviews"], "timezone": "Europe/Berlin"},
        {"metrics": ["pageviews"], "date_range": "24h"},
    ],
)
def test_what_the_counters_cannot_answer_goes_to_the_warehouse(body):
    from sitelens.analytics import rollups
    from sitelens.analytics.warehouse import query

    sent = {"site_id": 1, "date_range": ["2026-11-20", "2026-11-23"], **body}
    assert not rollups.answers(query.parse(sent, datetime(2026, 11, 24, 12, tzinfo=UTC), "UTC"))
