"""Month roll-ups by the daily job (`analytics.months`): the same counters the aggregator
wrote per batch before, a run again changing nothing, a late hit after the roll-up read
exactly (by days) until the next run, a chunk committed during a roll-up, a deleted
website, runs bounded and resumed, and the stats API's answers through all of it."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sitelens.analytics import counting, months
from sitelens.analytics.counting import OTHER, sum_counts
from sitelens.analytics.hit import MONTH_SUFFIX, MONTHLY_NAMES, Hit
from sitelens.core import clock
from sitelens.data import months as stored_months
from sitelens.data import stats as stored_stats
from sitelens.local import gateway
from tests.fixtures.analytics import hit_record, run

MONTH = "2026-10"
CLOSED = datetime(2026, 11, 1, 1, 30, tzinfo=UTC)  # the job's first run after October


@pytest.fixture(autouse=True)
def fresh_container(monkeypatch: pytest.MonkeyPatch) -> None:
    """A container that noted no month yet (each test has new tables)."""
    monkeypatch.setattr(months, "_noted", set())


@pytest.fixture
def moment(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Set the clock of the aggregator and the job: `moment(datetime)`."""

    def set_to(when: datetime) -> None:
        monkeypatch.setattr(clock, "now", lambda: when)
        monkeypatch.setattr(counting, "_now", lambda: int(when.timestamp()))

    set_to(datetime(2026, 10, 31, 12, tzinfo=UTC))  # October still open
    return set_to


@pytest.fixture
def website(analytics: Any) -> dict[str, Any]:
    reply = analytics.post("/api/v1/websites", {"domain": "example.com"})
    assert reply.status == 201
    return dict(reply.data)


def october(website_id: int, count: int = 60) -> list[Hit]:
    """Hits over October's days: pages, sources, countries, an event now and then."""
    found = []
    for n in range(count):
        at = datetime(2026, 10, 1 + n % 31, n % 24, 15, tzinfo=UTC)
        if n % 10 == 9:
            found.append(Hit(website_id=website_id, at=at, page="/", visit=False, event="signup::"))
            continue
        visit = n % 3 == 0
        found.append(
            Hit(
                website_id=website_id,
                at=at,
                page=f"/p{n % 7}",
                visit=visit,
                referrer="google.com" if visit else "",
                browser="Firefox" if n % 2 else "Chrome",
                country="DE" if n % 4 else "FR",
            )
        )
    return found


_batches = iter(range(10**6))


def count(account_id: str, hits: list[Hit]) -> None:
    first = next(_batches) * 1000
    batch = [hit_record(hit, account_id, first + n) for n, hit in enumerate(hits)]
    assert run("HitsQueue", batch) == {"batchItemFailures": []}


def per_batch_roll_ups(hits: list[Hit]) -> dict[tuple[str, str], int]:
    """(series, value) -> count: what the aggregator added to the month roll-ups per batch
    before the job (each daily counter but the hourly ones, the month in place of a day)."""
    found: Counter[tuple[str, str]] = Counter()
    for (_, name, value, day), n in sum_counts(hits).items():
        if name in MONTHLY_NAMES:
            found[(name + MONTH_SUFFIX, day[:7] if value == day else value)] += n
    return dict(found)


def stored_roll_ups(website_id: int, month: str = MONTH) -> dict[tuple[str, str], int]:
    found = {}
    for name in MONTHLY_NAMES:
        series = name + MONTH_SUFFIX
        counters, _ = stored_stats.span_counts(stored_stats.Span(website_id, series, month, month))
        found.update({(series, value): n for _, value, n in counters})
    return found


def stats(analytics: Any, website_id: int, name: str, month: str = MONTH) -> tuple[Any, Any]:
    """The stats API's rows for a whole month, and how many items it read."""
    reply = analytics.get(
        f"/api/v1/stats/{website_id}",
        query={"name": name, "from": f"{month}-01", "to": f"{month}-31", "per_page": 100},
    )
    assert reply.status == 200, reply.body
    return [(row["value"], row["count"]) for row in reply.data]


def read_by_month(website_id: int, name: str = "page") -> bool:
    """Whether the reader would take October from its roll-up."""
    from datetime import date

    from sitelens.analytics import stats as analytics_stats

    extent = analytics_stats.Plan(date(2026, 10, 1), date(2026, 10, 31))
    (daily,), _ = stored_stats.many_counts([extent.days_of(website_id, "pageviews")])
    states, _ = extent.month_states(website_id)
    return bool(analytics_stats.Plan.choose(extent.first, extent.last, daily, states).months)


def test_a_month_is_noted_once_and_rolled_up_as_the_batches_rolled_it_up(
    analytics, account, website, moment
):
    wid = website["id"]
    hits = october(wid)
    count(account.id, hits[:30])
    count(account.id, hits[30:])
    assert stored_months.noted(MONTH, None, 10) == ([(account.id, wid)], None)
    assert stored_roll_ups(wid) == {}  # the aggregator writes days only
    assert not read_by_month(wid)
    by_days = {name: stats(analytics, wid, name) for name in ("page", "event", "country")}

    moment(CLOSED)
    assert months.run(CLOSED) == months.Pass(rolled=1)
    assert stored_roll_ups(wid) == per_batch_roll_ups(hits)
    assert read_by_month(wid)
    assert {name: stats(analytics, wid, name) for name in by_days} == by_days


def test_a_run_again_rewrites_nothing(analytics, account, website, moment, monkeypatch):
    wid = website["id"]
    count(account.id, october(wid))
    moment(CLOSED)
    months.run(CLOSED)
    before = stored_roll_ups(wid)
    writes: list[Any] = []
    monkeypatch.setattr(stored_stats, "write_batch", writes.append)
    monkeypatch.setattr(stored_months, "finish", lambda *args: writes.append(args))
    again = CLOSED + timedelta(days=1)
    assert months.run(again) == months.Pass(whole=1)
    assert months.roll_up(account.id, wid, MONTH)  # forced: the same sums, nothing put
    assert writes == [] and stored_roll_ups(wid) == before


@pytest.mark.parametrize(
    "late",
    [
        {"page": "/late", "visit": True, "country": "IT"},  # a pageview
        {"page": "/", "visit": False, "event": "late::"},  # a custom event: no pageview
    ],
)
def test_a_late_hit_after_the_roll_up_is_read_by_days_until_the_next_run(
    analytics, account, website, moment, late
):
    wid = website["id"]
    count(account.id, october(wid))
    moment(CLOSED)
    months.run(CLOSED)
    assert read_by_month(wid)

    moment(CLOSED + timedelta(hours=5))
    count(account.id, [Hit(website_id=wid, at=datetime(2026, 10, 31, 23, tzinfo=UTC), **late)])
    assert not read_by_month(wid)  # the roll-up knows it changed
    name, value = ("event", "late::") if "event" in late else ("page", "/late")
    assert (value, 1) in stats(analytics, wid, name)
    answers = {n: stats(analytics, wid, n) for n in ("page", "event", "country")}

    moment(CLOSED + timedelta(days=1))
    assert months.run(CLOSED + timedelta(days=1)) == months.Pass(rolled=1)
    assert read_by_month(wid)
    assert {n: stats(analytics, wid, n) for n in answers} == answers


def test_a_chunk_committed_during_a_roll_up_leaves_it_not_whole(
    analytics, account, website, moment, monkeypatch
):
    wid = website["id"]
    count(account.id, october(wid))
    moment(CLOSED)
    real = stored_months.replace

    def late_hit_meanwhile(*args: Any) -> None:
        count(account.id, [Hit(website_id=wid, at=datetime(2026, 10, 30, tzinfo=UTC), page="/",
                               visit=False, event="late::")])  # fmt: skip
        real(*args)

    monkeypatch.setattr(stored_months, "replace", late_hit_meanwhile)
    module = gateway.load_module(gateway.ROOT / "functions/analytics/rollup/app.py")
    with pytest.raises(module.RollupsUnfinished):  # Lambda runs it again, then the DLQ
        module.handler({}, gateway.LambdaContext("rollup-test"))
    assert not read_by_month(wid)
    assert ("late::", 1) in stats(analytics, wid, "event")

    monkeypatch.setattr(stored_months, "replace", real)
    assert module.handler({}, gateway.LambdaContext("rollup-test"))["rolled"] == 1
    assert read_by_month(wid)
    assert ("late::", 1) in stats(analytics, wid, "event")


def test_a_deleted_websites_months_are_left_alone(analytics, account, website, moment):
    wid = website["id"]
    count(account.id, october(wid))
    assert analytics.delete(f"/api/v1/websites/{wid}").status == 200
    moment(CLOSED)
    assert months.run(CLOSED) == months.Pass(gone=1)
    assert stored_roll_ups(wid) == {}


def test_values_past_the_cap_roll_up_under_other(analytics, account, website, moment, monkeypatch):
    monkeypatch.setattr(counting, "MAX_VALUES", 3)
    wid = website["id"]
    hits = october(wid, 70)
    count(account.id, hits)
    by_days = stats(analytics, wid, "page")
    moment(CLOSED)
    months.run(CLOSED)
    pages = {v: n for (s, v), n in stored_roll_ups(wid).items() if s == "page@month"}
    views = Counter(h.page for h in hits if not h.event)
    top = sorted(views, key=lambda page: (-views[page], page))[:3]
    assert pages == {**{page: views[page] for page in top}, OTHER: views.total() - sum(
        views[page] for page in top)}  # fmt: skip
    assert stats(analytics, wid, "page") == by_days  # a crowded month is read by days


def test_runs_are_bounded_and_resume(analytics, account, moment):
    sites = [
        analytics.post("/api/v1/websites", {"domain": f"s{n}.example"}).data["id"] for n in range(3)
    ]
    for wid in sites:
        count(account.id, october(wid, 10))
    moment(CLOSED)
    time_left = iter([600, 600, 0])
    first = months.run(CLOSED, lambda: next(time_left))
    assert (first.rolled, first.left, first.finished) == (2, 1, False)
    assert months.run(CLOSED) == months.Pass(rolled=1, whole=2)


@pytest.mark.parametrize(
    ("now", "due"),
    [
        (datetime(2026, 11, 1, 0, 30, tzinfo=UTC), []),  # October may still get a batch
        (CLOSED, ["2026-10"]),
        (datetime(2026, 11, 23, tzinfo=UTC), ["2026-10"]),  # late hits may still come
        (datetime(2026, 11, 30, tzinfo=UTC), []),
        (datetime(2026, 12, 1, 2, tzinfo=UTC), ["2026-11"]),
    ],
)
def test_a_run_looks_at_the_months_that_may_still_change(now, due):
    assert months.closed_months(now) == due
