"""Summing a batch of hits into one increment per stat key."""

from __future__ import annotations

from datetime import UTC, datetime

from sitelens.analytics.counting import sum_counts
from sitelens.analytics.hit import MONTH_SUFFIX, Hit


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 11, day, hour, minute, tzinfo=UTC)


def pageview(website_id: int, when: datetime, page: str = "/", visit: bool = False) -> Hit:
    return Hit(website_id=website_id, at=when, page=page, visit=visit, browser="Firefox")


def daily(totals: dict) -> dict:
    """The day counters of a sum, without the month roll-ups."""
    return {key: n for key, n in totals.items() if not key[1].endswith(MONTH_SUFFIX)}


def test_nothing_to_sum() -> None:
    assert sum_counts([]) == {}


def test_one_entry_per_distinct_key() -> None:
    batch = [
        pageview(1, at(21, 9), "/", visit=True),
        pageview(1, at(21, 9, 15), "/pricing"),
        pageview(1, at(21, 9, 59), "/pricing"),
        pageview(1, at(21, 10), "/pricing", visit=True),
    ]
    assert daily(sum_counts(batch)) == {
        (1, "pageviews", "2026-11-21", "2026-11-21"): 4,
        (1, "pageviews_hour", "09", "2026-11-21"): 3,
        (1, "pageviews_hour", "10", "2026-11-21"): 1,
        (1, "page", "/", "2026-11-21"): 1,
        (1, "page", "/pricing", "2026-11-21"): 3,
        (1, "visitors", "2026-11-21", "2026-11-21"): 2,
        (1, "visitors_hour", "09", "2026-11-21"): 1,
        (1, "visitors_hour", "10", "2026-11-21"): 1,
        (1, "landing_page", "/", "2026-11-21"): 1,
        (1, "landing_page", "/pricing", "2026-11-21"): 1,
        (1, "browser", "Firefox", "2026-11-21"): 2,
    }


def test_days_are_split_at_midnight_utc() -> None:
    totals = sum_counts([pageview(1, at(21, 23, 59)), pageview(1, at(22, 0))])
    assert totals[(1, "pageviews", "2026-11-21", "2026-11-21")] == 1
    assert totals[(1, "pageviews", "2026-11-22", "2026-11-22")] == 1
    assert totals[(1, "pageviews_hour", "23", "2026-11-21")] == 1
    assert totals[(1, "pageviews_hour", "00", "2026-11-22")] == 1
    assert totals[(1, "page", "/", "2026-11-21")] == 1
    assert totals[(1, "page", "/", "2026-11-22")] == 1


def test_same_hour_on_different_days_is_kept_apart() -> None:
    totals = sum_counts([pageview(1, at(21, 9)), pageview(1, at(22, 9)), pageview(1, at(22, 9))])
    assert totals[(1, "pageviews_hour", "09", "2026-11-21")] == 1
    assert totals[(1, "pageviews_hour", "09", "2026-11-22")] == 2


def test_websites_are_kept_apart() -> None:
    totals = sum_counts([pageview(1, at(21, 9)), pageview(2, at(21, 9)), pageview(2, at(21, 9))])
    assert totals[(1, "pageviews", "2026-11-21", "2026-11-21")] == 1
    assert totals[(2, "pageviews", "2026-11-21", "2026-11-21")] == 2


def test_events_count_only_the_event() -> None:
    event = Hit(website_id=1, at=at(21, 9), page="/signup", visit=False, event="signup:pro:plan")
    assert sum_counts([event, event, event]) == {(1, "event", "signup:pro:plan", "2026-11-21"): 3}


def test_a_batch_counts_days_only_the_month_roll_ups_are_the_daily_jobs() -> None:
    batch = [
        pageview(1, at(21, 9), "/", visit=True),
        pageview(1, datetime(2026, 12, 1, tzinfo=UTC), "/pricing"),
    ]
    assert {key[3] for key in sum_counts(batch)} == {"2026-11-21", "2026-12-01"}
    assert not [key for key in sum_counts(batch) if key[1].endswith(MONTH_SUFFIX)]


def test_a_tally_counts_its_weight() -> None:
    tally = Hit(website_id=1, at=at(21, 9), page="", visit=False, excluded="bot", weight=40)
    assert daily(sum_counts([tally, tally])) == {(1, "excluded", "bot", "2026-11-21"): 80}


def test_any_iterable_is_summed_once() -> None:
    totals = sum_counts(pageview(1, at(21, hour)) for hour in range(24))
    assert totals[(1, "pageviews", "2026-11-21", "2026-11-21")] == 24
    assert sorted(
        value for (_, name, value, _), _n in totals.items() if name == "pageviews_hour"
    ) == [f"{hour:02d}" for hour in range(24)]
