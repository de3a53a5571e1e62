"""Compaction's summaries (totals, visits and pages of each site-day) answer exactly what the raw
rows answer: for whole and partial UTC days, for days with rows still in landing, in any
time zone, and for every question `summaries.plan` sends to them."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from sitelens.analytics.warehouse import answers, layout, query, schema, sql, summaries

pytest.importorskip("duckdb")
from sitelens.local.warehouse import LocalWarehouse

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
DAYS = [f"2026-11-{day}" for day in range(18, 24)]
PAGES = ["/", "/pricing", "/blog/one", "/blog/two", "/docs"]
SOURCES = ["", "Google", "Twitter"]
COUNTRIES = ["DE", "FR", "US"]


def rows_of_day(day: str, rng: random.Random) -> list[dict[str, Any]]:
    """Visits of one UTC day, by visitors whose hash lives that day (as the salt does)."""
    rows = []
    for n in range(25):
        visitor = f"{day}-{n}"  # a daily salt: tomorrow the same person is another hash
        at = datetime.fromisoformat(f"{day}T00:00:00") + timedelta(minutes=rng.randint(0, 1439))
        source, country = rng.choice(SOURCES), rng.choice(COUNTRIES)
        device = rng.choice(["desktop", "mobile"])
        for _ in range(rng.randint(1, 4)):
            name = rng.choice(["pageview"] * 5 + ["signup", "engagement"])
            values: dict[str, Any] = {
                column: "" if kind == "string" else None for column, kind in schema.COLUMNS
            }
            values.update(
                website_id=1,
                hit_id=str(uuid.uuid4()),
                day=at.date().isoformat(),
                ts=at,
                visitor=visitor,
                name=name,
                page=rng.choice(PAGES),
                source=source,
                country=country,
                device=device,
                engagement_ms=30_000 if name == schema.ENGAGEMENT else 0,
                interactive=name not in (schema.PAGEVIEW, schema.ENGAGEMENT),
            )
            rows.append(values)
            at += timedelta(minutes=rng.choice([1, 5, 45]))  # 45: a new visit begins
            if at.date().isoformat() != day:
                break
    return rows


QUESTIONS: list[dict[str, Any]] = [
    {"metrics": ["visitors", "visits", "pageviews", "events", "bounce_rate", "visit_duration"]},
    {"metrics": ["visitors", "views_per_visit", "percentage"], "dimensions": ["visit:country"]},
    {
        "metrics": ["visitors", "visits", "bounce_rate"],
        "dimensions": ["visit:source"],
        "filters": [["is", "visit:country", ["DE"]]],
    },
    {"metrics": ["visits"], "dimensions": ["visit:entry_page", "visit:exit_page"]},
    {"metrics": ["visitors", "bounce_rate"], "dimensions": ["visit:channel"]},
    {"metrics": ["visitors", "pageviews", "events"], "dimensions": ["event:page"]},
    {
        "metrics": ["visitors", "pageviews"],
        "dimensions": ["event:page"],
        "filters": [["contains", "event:page", ["blog"]]],
    },
    {"metrics": ["visitors", "pageviews"], "dimensions": ["time:day"]},
    {"metrics": ["visits", "bounce_rate"], "dimensions": ["time:week", "visit:device"]},
    {"metrics": ["visitors", "events"], "dimensions": ["time:month", "event:page"]},
]


TODAY = date(2026, 11, 24)  # the daily merge folds the days before
STATES = ("merged", "parts", "landing", "mid_merge", "late_part")


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, LocalWarehouse]:
    """The same six days: merged; in hourly parts only; merged but for rows of two days
    still in landing (one a partial first day's, one a whole day's); cut off mid-merge (the
    day's files and summaries put, its parts not deleted yet), with a hit in two parts; and
    merged, then late rows of an old day in a part of their own."""
    rng = random.Random(20)
    by_day = {day: rows_of_day(day, rng) for day in DAYS}
    made = {}
    for state in STATES:
        store = LocalWarehouse(tmp_path_factory.mktemp(state))
        held = []
        for day, rows in by_day.items():
            if state in ("landing", "late_part") and day in ("2026-11-18", "2026-11-21"):
                store.write(rows[: len(rows) // 2])
                held += rows[len(rows) // 2 :]
            else:
                store.write(rows)
        store.compact()
        if state == "mid_merge":
            store.write(by_day["2026-11-20"][:5])  # hits again, hours later: a second part
            store.compact()
            kept = {p: p.read_bytes() for p in (store.root / layout.PARTS).glob("**/*.parquet")}
            store.merge(TODAY)
            for path, data in kept.items():  # the crash: every part still there
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
        elif state != "parts":
            store.merge(TODAY)
        store.write(held)
        if state == "late_part":
            store.compact()
        made[state] = store
    return made


def answered(store: LocalWarehouse, body: dict[str, Any], summarised: bool) -> dict[str, Any]:
    parsed = query.parse(body, NOW)
    assert (summaries.plan(parsed) is not None) == summarised
    return answers.answer(parsed, sql.rows_from(store.run, "duckdb"), body)


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("zone", ["UTC", "Europe/Berlin", "America/Los_Angeles"])
@pytest.mark.parametrize("question", range(len(QUESTIONS)))
def test_summaries_answer_what_raw_rows_answer(stores, monkeypatch, state, zone, question):
    """In every state of the two levels the answers are the same, from summaries or not."""
    body = {"site_id": 1, "date_range": ["2026-11-18", "2026-11-23"], "timezone": zone}
    body.update(QUESTIONS[question])
    timed = any(name.startswith("time:") for name in body.get("dimensions", []))
    summarised = answered(stores[state], body, summarised=zone == "UTC" or not timed)
    monkeypatch.setattr(summaries, "plan", lambda parsed: None)
    raw = answered(stores[state], body, summarised=False)
    assert summarised == raw
    assert raw["results"]
    assert raw == answered(stores["merged"], body, summarised=False)


def test_the_states_are_what_they_say(stores):
    def count(state: str, relation: str) -> int:
        return stores[state].run(f"SELECT COUNT(*) FROM {relation}")[0][0]

    assert count("merged", layout.PARTS) == 0 < count("merged", "daily_totals")
    assert count("parts", "events") == 0 == count("parts", "daily_totals")
    # mid-merge: every part's row is in the day's files too, one hit in two parts
    assert count("mid_merge", layout.PARTS) == count("merged", "events") + 5
    assert count("mid_merge", "events") == count("merged", "events")
    assert count("late_part", "landing") == 0 < count("late_part", layout.PARTS)


def test_a_summary_reads_only_whole_days_without_landing_rows():
    parsed = query.parse(
        {"site_id": 1, "date_range": ["2026-11-18", "2026-11-23"], "metrics": ["visits"]},
        NOW,
        "Europe/Berlin",
    )
    # Berlin's 18 November begins at 23:00 UTC on the 17th and ends at 23:00 on the 23rd
    assert summaries.whole_days(parsed) == (
        datetime(2026, 11, 18).date(),
        datetime(2026, 11, 22).date(),
    )
    statement = sql.statement(parsed, "duckdb", ((1, "2026-11-20"),))
    assert "day BETWEEN '2026-11-18' AND '2026-11-22'" in statement
    assert "website_id = 1 AND day = '2026-11-20'" in statement


def test_questions_a_summary_cannot_answer_exactly_read_raw_rows():
    def plan(**body: Any) -> str | None:
        parsed = query.parse({"site_id": 1, "date_range": "7d", **body}, NOW, "UTC")
        return summaries.plan(parsed)

    assert plan(metrics=["visitors"], dimensions=["time:hour"]) is None  # a visit spans hours
    assert plan(metrics=["bounce_rate"], dimensions=["event:page"]) is None
    assert plan(metrics=["visitors"], filters=[["is", "event:page", ["/"]]]) is None
    assert plan(metrics=["visitors"], filters=[["is", "event:goal", ["signup"]]]) is None
    assert plan(metrics=["visitors"], dimensions=["event:page", "visit:country"]) is None
    assert plan(metrics=["visitors", "bounce_rate"]) == "totals"
    assert plan(metrics=["visitors", "pageviews"], dimensions=["time:day"]) == "totals"
    assert plan(metrics=["visitors"], filters=[["is", "visit:country", ["DE"]]]) == "visits"
    assert plan(metrics=["visitors"], dimensions=["visit:country"]) == "visits"
    assert plan(metrics=["pageviews"], dimensions=["event:page"]) == "pages"


# Questions of rows alone that name a visit's location or device: read from the rows
IDENTITY_QUESTIONS: list[dict[str, Any]] = [
    {
        "metrics": ["visitors", "pageviews"],
        "dimensions": ["event:page"],
        "filters": [["is", "visit:country", ["DE"]]],
    },
    {
        "metrics": ["visitors", "events", "percentage"],
        "dimensions": ["visit:device"],
        "filters": [["contains", "event:page", ["blog"]]],
    },
    {"metrics": ["visitors", "pageviews"], "dimensions": ["visit:country", "time:day"]},
    {
        "metrics": ["visitors"],
        "dimensions": ["event:page"],
        "filters": [["is_not", "visit:device", ["Mobile"]], ["is", "visit:country", ["FR"]]],
    },
]


@pytest.mark.parametrize("zone", ["UTC", "America/Los_Angeles"])
@pytest.mark.parametrize("question", range(len(IDENTITY_QUESTIONS)))
def test_a_visitor_s_location_and_device_are_read_from_rows_as_visits_would_give(
    stores, monkeypatch, zone, question
):
    """Country, browser, OS and device come from the address and agent the visitor hash is
    made of, so each row of a visit carries its visit's: the same answer, without finding
    the visits."""
    body = {"site_id": 1, "date_range": ["2026-11-18", "2026-11-23"], "timezone": zone}
    body.update(IDENTITY_QUESTIONS[question])
    monkeypatch.setattr(summaries, "plan", lambda parsed: None)
    parsed = query.parse(body, NOW)
    assert "found_visits" not in sql.statement(parsed, "duckdb", ())
    from_rows = answered(stores["landing"], body, summarised=False)
    monkeypatch.setattr(sql, "_of_events_only", lambda parsed: False)
    assert "found_visits" in sql.statement(parsed, "duckdb", ())
    assert from_rows == answered(stores["landing"], body, summarised=False)
    assert from_rows["results"]
