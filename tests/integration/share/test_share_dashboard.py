"""One set of numbers everywhere: the share dashboard (JSON and page) and the email digests
give `POST /api/v1/query`'s figures for the same days, from visits sent as the script sends
them (through the event function, the queue and the aggregator into a local warehouse),
all through API Gateway events on moto. A dashboard is kept a while and computed a bounded
number of times an hour."""

from __future__ import annotations

import html
import json
import re
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sitelens.analytics import dashboard
from sitelens.core import clock, config
from sitelens.data import dashboards, warehouse
from sitelens.digests import composing, of_label
from tests.conftest import Client
from tests.fixtures.analytics import receive, run
from tests.fixtures.local_warehouse import local_warehouse  # noqa: F401

CHROME = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
DAYS = ("2026-11-23", "2026-11-24")  # a Monday and Tuesday: ISO week 2026-W48
NOW = datetime(2026, 11, 24, 18, 0, tzinfo=UTC)
pytestmark = pytest.mark.usefixtures("local_warehouse")


@pytest.fixture
def public(account) -> Client:
    """A caller with no key."""
    return Client("AnalyticsApi", None)


class Visitor:
    """What one visitor's tracking script sends to shop.example, at times the test sets."""

    def __init__(self, analytics: Client, monkeypatch: pytest.MonkeyPatch, ip: str, agent: str):
        self.analytics, self.monkeypatch, self.ip, self.agent = analytics, monkeypatch, ip, agent

    def send(self, at: str, path: str, **form: str) -> None:
        moment = datetime.fromisoformat(at).replace(tzinfo=UTC)
        self.monkeypatch.setattr(clock, "now", lambda: moment)
        reply = self.analytics.request(
            "POST",
            "/api/event",
            form={"page": f"https://shop.example{path}", **form},
            key=None,
            headers={"User-Agent": self.agent},
            source_ip=self.ip,
        )
        assert reply.status == 202, reply.body


def count_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """The aggregator's run after the visits (the warehouse lands rows by the hour they
    arrive), and the share page's "today"."""
    monkeypatch.setattr(clock, "now", lambda: NOW)
    assert run("HitsQueue", receive("HitsQueue")) == {"batchItemFailures": []}


def typist(analytics: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    """One person typing four URLs, one after another: 1 visitor, 1 visit, 4 pageviews."""
    anna = Visitor(analytics, monkeypatch, "198.51.100.7", CHROME)
    for minute, path in enumerate(("/", "/pricing", "/blog", "/about")):
        anna.send(f"{DAYS[0]}T10:0{minute}:00", path)


def ask(analytics: Client, site: int, **body: Any) -> dict[str, Any]:
    reply = analytics.post("/api/v1/query", json_body={"site_id": site, **body})
    assert reply.status == 200, reply.body
    answer: dict[str, Any] = reply.body
    return answer


def share(public: Client, domain: str = "shop.example", **query: str) -> Any:
    reply = public.get(
        f"/api/v1/share/websites/{domain}",
        query=query or dict(zip(("from", "to"), DAYS, strict=True)),
    )
    assert reply.status == 200, reply.body
    return reply.data


def test_one_person_typing_four_urls_is_one_visitor_everywhere(
    analytics, account, public, monkeypatch
):
    analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1}).data
    typist(analytics, monkeypatch)
    count_everything(monkeypatch)
    totals = share(public)["totals"]
    assert {name: totals[name]["value"] for name in ("visitors", "visits", "pageviews")} == {
        "visitors": 1,
        "visits": 1,
        "pageviews": 4,
    }
    assert totals["views_per_visit"]["value"] == 4
    page = public.get("/share/shop.example", query={"from": DAYS[0], "to": DAYS[1]})
    assert page.status == 200
    assert re.search(r'id="total-visitors">1<', page.body)
    assert re.search(r'id="total-visits">1<', page.body)
    assert re.search(r'id="total-pageviews">4<', page.body)
    # the digest of the week says the same
    monkeypatch.setenv("SITELENS_ANALYTICS_BASE_URL", "https://api.test")
    config.reset()
    message = composing.digest(account.id, "o@example.com", of_label("2026-W48"))
    assert message is not None
    text = message.get_body(("plain",)).get_content()
    assert "Unique visitors: 1 (+100%; 0 the period before)" in text
    assert "Visits: 1 (" in text and "Pageviews: 4 (" in text


def visits(analytics: Client, monkeypatch: pytest.MonkeyPatch) -> int:
    """shop.example with two goals, an annotation, and four visitors over three days."""
    site = analytics.post("/api/v1/websites", {"domain": "shop.example", "email": 1}).data
    goals = f"/api/v1/websites/{site['id']}/goals"
    assert analytics.post(goals, {"event_name": "signup"}).status == 201
    assert analytics.post(goals, json_body={"page_path": "/pricing"}).status == 201
    note = {"date": DAYS[0], "text": "Deploy v2", "link": "https://ci.example/runs/7"}
    assert analytics.post(f"/api/v1/websites/{site['id']}/annotations", note).status == 201
    typist(analytics, monkeypatch)
    anna = Visitor(analytics, monkeypatch, "198.51.100.7", CHROME)
    vitals = {"lcp": "1800", "inp": "90", "cls": "0.05", "fcp": "900", "ttfb": "200"}
    anna.send(f"{DAYS[0]}T10:05:00", "/about", engagement_ms="60000", **vitals)
    ben = Visitor(analytics, monkeypatch, "203.0.113.9", FIREFOX)
    ben.send(f"{DAYS[0]}T12:00:00", "/", referrer="https://www.google.com/")
    ben.send(f"{DAYS[0]}T12:00:30", "/", **{"event[name]": "signup"})
    ben.send(f"{DAYS[0]}T12:00:40", "/", engagement_ms="40000")
    cleo = Visitor(analytics, monkeypatch, "192.0.2.44", FIREFOX)
    cleo.send(f"{DAYS[1]}T09:00:00", "/pricing", referrer="https://t.co/abc")
    dan = Visitor(analytics, monkeypatch, "192.0.2.45", CHROME)  # the period before
    dan.send("2026-11-21T09:00:00", "/")
    count_everything(monkeypatch)
    return int(site["id"])


def test_every_figure_of_the_share_dashboard_and_digest_is_the_query_api_s(
    analytics, account, public, monkeypatch
):
    site = visits(analytics, monkeypatch)
    shown = share(public)
    days = list(DAYS)
    totals = ask(
        analytics,
        site,
        metrics=list(dashboard.TOTALS),
        date_range=days,
        include={"comparisons": {"mode": "previous_period"}},
    )
    [row] = totals["results"]
    for n, name in enumerate(dashboard.TOTALS):
        assert shown["totals"][name] == {
            "value": row["metrics"][n],
            "previous": row["comparison"]["metrics"][n],
            "change": row["comparison"]["change"][n],
        }, name
    assert shown["totals"]["visitors"]["value"] == 3  # Anna, Ben, Cleo; Dan came before
    assert shown["totals"]["visitors"]["previous"] == 1
    assert shown["comparison_date_range"] == totals["meta"]["comparison_date_range"]
    series = ask(
        analytics,
        site,
        metrics=["visitors", "visits", "pageviews"],
        date_range=days,
        dimensions=["time:day"],
        include={"time_labels": True, "annotations": True},
    )
    assert shown["series"] == {
        "days": series["meta"]["time_labels"],
        "visitors": [r["metrics"][0] for r in series["results"]],
        "visits": [r["metrics"][1] for r in series["results"]],
        "pageviews": [r["metrics"][2] for r in series["results"]],
    }
    assert shown["annotations"] == series["meta"]["annotations"]
    assert [note["text"] for note in shown["annotations"]] == ["Deploy v2"]
    for name, (dimension, metrics) in dashboard.BREAKDOWNS.items():
        asked = ask(
            analytics,
            site,
            metrics=list(metrics),
            date_range=days,
            dimensions=[dimension],
            pagination={"limit": 10},
        )
        assert shown[name] == [
            {"value": r["dimensions"][0], **dict(zip(metrics, r["metrics"], strict=True))}
            for r in asked["results"]
        ], name
    assert {r["value"]: r["visitors"] for r in shown["sources"]}["Google"] == 1
    assert {r["value"]: r["pageviews"] for r in shown["pages"]}["/pricing"] == 2
    goals = ask(
        analytics,
        site,
        metrics=["visitors", "events", "conversion_rate"],
        date_range=days,
        dimensions=["event:goal"],
    )
    assert shown["goals"] == [
        {
            "goal": r["dimensions"][0],
            "visitors": r["metrics"][0],
            "events": r["metrics"][1],
            "conversion_rate": r["metrics"][2],
        }
        for r in goals["results"]
    ]
    assert {g["goal"] for g in shown["goals"]} == {"signup", "Visit /pricing"}
    events = ask(
        analytics,
        site,
        metrics=["visitors", "events"],
        date_range=days,
        dimensions=["event:name"],
        filters=[["is_not", "event:name", ["pageview"]]],
    )
    assert shown["events"] == [
        {"name": r["dimensions"][0], "visitors": r["metrics"][0], "events": r["metrics"][1]}
        for r in events["results"]
    ]
    vitals = ask(analytics, site, metrics=list(dashboard.VITAL_METRICS), date_range=days)
    measured = dict(zip(dashboard.VITAL_METRICS, vitals["results"][0]["metrics"], strict=True))
    assert shown["vitals"]["lcp"] == {
        "p75": measured["p75_lcp"],
        "good": measured["lcp_good"],
        "needs_improvement": measured["lcp_needs_improvement"],
        "poor": measured["lcp_poor"],
    }
    assert shown["vitals"]["lcp"]["p75"] == 1800
    assert shown["realtime"] == {"visitors": 0}  # nobody in the last five minutes

    # the page shows the same figures, and the annotation under and on its chart
    page = public.get("/share/shop.example", query={"from": DAYS[0], "to": DAYS[1]})
    assert page.status == 200
    for name in ("visitors", "visits", "pageviews"):
        assert f'id="total-{name}">{shown["totals"][name]["value"]:,}<' in page.body
    assert 'id="change-visitors"' in page.body and ">+200%<" in page.body
    chart = re.search(r'<script type="application/json" id="chart-data">(.*?)</script>', page.body)
    assert chart is not None
    drawn = json.loads(html.unescape(chart[1]))
    assert drawn["visitors"] == shown["series"]["visitors"]
    assert [note["text"] for note in drawn["annotations"]] == ["Deploy v2"]
    assert 'href="https://ci.example/runs/7"' in page.body and "Deploy v2</a>" in page.body
    assert 'id="goals"' in page.body and 'id="vital-lcp"' in page.body

    # the week's digest says what the query API says of the week
    monkeypatch.setenv("SITELENS_ANALYTICS_BASE_URL", "https://api.test")
    config.reset()
    message = composing.digest(account.id, "o@example.com", of_label("2026-W48"))
    assert message is not None
    text = message.get_body(("plain",)).get_content()
    [row] = ask(
        analytics,
        site,
        metrics=list(composing.FIGURES),
        date_range=["2026-11-23", "2026-11-29"],
        include={"comparisons": {"mode": "previous_period"}},
    )["results"]
    now = dict(zip(composing.FIGURES, row["metrics"], strict=True))
    before = dict(zip(composing.FIGURES, row["comparison"]["metrics"], strict=True))
    change = dict(zip(composing.FIGURES, row["comparison"]["change"], strict=True))
    for name, title in composing.FIGURES.items():
        if name in ("visitors", "visits", "pageviews"):
            line = f"{title}: {now[name]} (+{change[name]}%; {before[name]} the period before)"
            assert line in text, name
    assert f"Bounce rate: {now['bounce_rate']:g}% (" in text
    assert (now["visitors"], before["visitors"]) == (3, 1)
    assert "against as many days before (2026-11-16 to 2026-11-22)" in text


def test_a_dashboard_is_kept_and_computed_a_bounded_number_of_times(
    analytics, public, monkeypatch, request
):
    analytics.post("/api/v1/websites", {"domain": "shop.example"})
    typist(analytics, monkeypatch)
    count_everything(monkeypatch)
    statements: list[str] = []
    store = request.getfixturevalue("local_warehouse")
    engine = store.run

    def counted(sql: str) -> Any:
        statements.append(sql)
        return engine(sql)

    warehouse.use(warehouse.LocalEngine("duckdb", counted, store.write))
    first = share(public)
    asked = len(statements)
    assert 0 < asked <= 2 * (len(dashboard.questions({"id": 1}, *map(_day, DAYS))) + 1)
    again = share(public)  # kept: no warehouse query at all
    assert len(statements) == asked and again["computed_at"] == first["computed_at"]
    # every view a computation, at most two an hour: then the kept copy, else 429
    monkeypatch.setattr(dashboard, "FRESH_SECONDS", 0)
    monkeypatch.setattr(dashboard, "COMPUTATIONS_PER_HOUR", 2)
    second = share(public)
    assert len(statements) == 2 * asked
    third = share(public)
    assert len(statements) == 2 * asked and third["computed_at"] == second["computed_at"]
    other = public.get(
        "/api/v1/share/websites/shop.example", query={"from": DAYS[0], "to": DAYS[0]}
    )
    assert other.status == 429 and int(other.headers["Retry-After"]) <= 3600
    assert len(statements) == 2 * asked


def _day(text: str) -> Any:
    return datetime.fromisoformat(text).date()


def test_visitors_now_are_the_realtime_api_s(analytics, public, monkeypatch):
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data
    for ip, ago in (("198.51.100.1", 60), ("198.51.100.2", 20)):
        moment = datetime.now(UTC) - timedelta(seconds=ago)
        Visitor(analytics, monkeypatch, ip, CHROME).send(moment.isoformat()[:19], "/")
    assert run("HitsQueue", receive("HitsQueue")) == {"batchItemFailures": []}
    monkeypatch.undo()
    realtime = analytics.get(f"/api/v1/stats/{site['id']}/realtime").data
    assert (
        share(public, period="7d")["realtime"]
        == {"visitors": realtime["visitors"]}
        == {"visitors": 2}
    )


def test_who_may_read_a_dashboard_and_bad_periods(analytics, public):
    analytics.post("/api/v1/websites", {"domain": "private.example", "privacy": 1})
    analytics.post(
        "/api/v1/websites",
        {"domain": "locked.example", "privacy": 2, "password": "correct-horse"},
    )
    analytics.post("/api/v1/websites", {"domain": "open.example"})
    missing = public.get("/api/v1/share/websites/private.example")
    assert missing.status == 404
    assert missing.body == public.get("/api/v1/share/websites/nothing.example").body
    assert public.get("/api/v1/share/websites/locked.example").status == 401
    token = public.post(
        "/api/v1/share/websites/locked.example/unlock", {"password": "correct-horse"}
    ).data["token"]
    opened = public.get("/api/v1/share/websites/locked.example", key=token)
    assert opened.status == 200 and opened.data["totals"]["visitors"]["value"] == 0
    bad = public.get("/api/v1/share/websites/open.example", query={"period": "forever"})
    assert bad.status == 422 and list(bad.body["message"]) == ["period"]
    backwards = public.get(
        "/api/v1/share/websites/open.example", query={"from": "2026-11-20", "to": "2026-11-10"}
    )
    assert backwards.status == 422


@pytest.mark.parametrize(
    ("zone", "hour", "last"),
    [
        ("America/Los_Angeles", "2026-11-25T03:00", "2026-11-24"),  # 19:00 the day before
        ("UTC", "2026-11-25T03:00", "2026-11-25"),
        ("Asia/Tokyo", "2026-11-24T20:00", "2026-11-25"),  # 05:00 the day after
    ],
)
def test_a_preset_period_ends_today_in_the_website_s_time_zone(
    analytics, public, monkeypatch, zone, hour, last
):
    """A preset ends today where the website is, whose days the dashboard reads: at 03:00
    UTC California's "last 7 days" end the evening before, not on a day not begun there."""
    analytics.post("/api/v1/websites", {"domain": "shop.example", "timezone": zone})
    moment = datetime.fromisoformat(hour).replace(tzinfo=UTC)
    monkeypatch.setattr(clock, "now", lambda: moment)
    shown = public.get("/api/v1/share/websites/shop.example", query={"period": "7d"})
    assert shown.status == 200, shown.body
    first = (datetime.fromisoformat(last) - timedelta(days=6)).date().isoformat()
    assert shown.data["date_range"] == [first, last]
    assert shown.data["series"]["days"][-1] == last


def test_a_period_without_its_end_is_bounded_in_the_website_s_days(analytics, public, monkeypatch):
    """`from` alone ends today where the website is: in Tokyo, past midnight UTC's day,
    366 days from a year ago are 367 there, beyond the bound (422 on `to`)."""
    analytics.post("/api/v1/websites", {"domain": "shop.example", "timezone": "Asia/Tokyo"})
    monkeypatch.setattr(clock, "now", lambda: datetime(2026, 11, 26, 20, 0, tzinfo=UTC))
    for first, status in (("2025-11-27", 200), ("2025-11-26", 422)):
        shown = public.get("/api/v1/share/websites/shop.example", query={"from": first})
        assert shown.status == status, shown.body
    assert list(shown.body["message"]) == ["to"]
    # ... and in California, a day behind UTC's, 366 of its days are not refused
    analytics.post(
        "/api/v1/websites", {"domain": "west.example", "timezone": "America/Los_Angeles"}
    )
    monkeypatch.setattr(clock, "now", lambda: datetime(2026, 11, 25, 3, 0, tzinfo=UTC))
    west = public.get("/api/v1/share/websites/west.example", query={"from": "2025-11-24"})
    assert west.status == 200, west.body
    assert west.data["date_range"] == ["2025-11-24", "2026-11-24"]


def test_views_meanwhile_wait_for_the_one_computing(analytics, public, monkeypatch):
    """While one view computes a website's days (its claim), another answers that view's
    figures once kept, without asking the warehouse itself; none kept in time: 429. A
    claim left by a view that died (stale) does not hold anyone."""
    site = analytics.post("/api/v1/websites", {"domain": "shop.example"}).data["id"]
    monkeypatch.setattr(clock, "now", lambda: NOW)
    first, last = (_day(day) for day in DAYS)
    assert dashboards.claim(site, first, last, time.time(), 30)  # another view computes
    assert not dashboards.claim(site, first, last, time.time(), 30)
    asked: list[str] = []
    monkeypatch.setattr(dashboard, "compute", lambda *a: asked.append("computed") or {})
    monkeypatch.setattr(dashboard, "WAIT_SECONDS", 5.0)
    theirs = {"date_range": list(DAYS), "from": "the other view"}
    later = threading.Timer(0.3, dashboards.put, (site, first, last, theirs, time.time()))
    later.start()
    assert share(public)["from"] == "the other view" and asked == []
    later.join()
    dashboards.release(site, first, last)
    monkeypatch.setattr(dashboard, "WAIT_SECONDS", 0.3)
    monday, tuesday = first, last
    assert dashboards.claim(site, monday, monday, time.time(), 30)  # held, never kept
    held = share_of(public, monday)
    assert held.status == 429 and held.headers["Retry-After"] == "5" and asked == []
    assert dashboards.claim(site, tuesday, tuesday, time.time(), -1)  # its view died
    assert share_of(public, tuesday).status == 200 and asked == ["computed"]


def share_of(public: Client, day: Any) -> Any:
    return public.get(
        "/api/v1/share/websites/shop.example", query={"from": str(day), "to": str(day)}
    )
