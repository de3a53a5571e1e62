"""Month roll-ups, written by a daily job from the daily counters once a month has closed.

The aggregator counts days only (`counting`); it notes each website-month it counts
(`note`, once per container and website-month), and for a month that has closed it marks
the month's roll-up changed in the same transaction as the counters (`data.months`).

The job (`run`) looks at each website noted in the months that closed more than
SETTLE_SECONDS ago and may still get late hits (a hit is counted up to
`counting.COUNTABLE_SECONDS` after its time): a month not yet rolled up, or changed since,
is rolled up again from its days, as a SET of sums, never an ADD, so a run repeated or
resumed counts nothing twice. It reads the roll-up's CHANGED first, then the days
(strongly consistent); it marks the roll-up whole as of that CHANGED only if no chunk
committed since (else the next run does it again). A reader (`stats`) uses a month's
roll-up only while it is whole, and its days otherwise, so answers stay exact while a
late hit waits for the next run.

Distinct values are capped as the aggregator caps them (`counting.MAX_VALUES`,
`MAX_VALUE_BYTES`): the month's values with the most hits (then in order) get a counter
of their own; the rest, and the days' own "(other)", count under "(other)".
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sitelens.analytics import counting
from sitelens.analytics.hit import MONTH_SUFFIX, MONTHLY_NAMES
from sitelens.core import clock, metrics
from sitelens.core.log import logger
from sitelens.data import months, stats
from sitelens.data import websites as stored_websites

# A chunk of counters takes at most the aggregator's timeout (30 s) to commit: one built
# before midnight has landed an hour later, and every chunk after that marks the month.
SETTLE_SECONDS = 3600
# How long after a month ends its hits may still be counted, and a day for the last run.
WATCH_SECONDS = counting.COUNTABLE_SECONDS + 86_400
NOTED_KEPT_SECONDS = WATCH_SECONDS + 2 * 86_400
PAGE = 100  # websites a run reads the roll-up states of at once (one BatchGetItem)
# A run starts no roll-up with less time left than this and twice its slowest one so far.
STOP_SECONDS = 5
# Stats whose values are the days: one counter a month, the month's sum.
_TOTALS = ("pageviews", "visitors")


@dataclass
class Pass:
    """What one run did, by website-month."""

    rolled: int = 0  # rolled up (again)
    whole: int = 0  # already rolled up, and unchanged since
    gone: int = 0  # its website was deleted: left alone (the cleanup removes its counters)
    failed: int = 0  # an error, or a chunk committed meanwhile: the next run tries again
    left: int = 0  # not reached before the run's time was up (at least this many)

    @property
    def finished(self) -> bool:
        return not (self.failed or self.left)


def closed_months(now: datetime) -> list[str]:
    """The months (`YYYY-MM`) a run looks at: closed SETTLE_SECONDS ago or more, and
    closed less than WATCH_SECONDS ago; at most two, the oldest first."""
    found = []
    start = date(now.year, now.month, 1)
    for _ in range(3):
        end = datetime(start.year, start.month, 1, tzinfo=UTC)
        start = (start - timedelta(days=1)).replace(day=1)
        age = (now - end).total_seconds()
        if SETTLE_SECONDS <= age <= WATCH_SECONDS:
            found.append(start.strftime("%Y-%m"))
    return sorted(found)


def run(now: datetime | None = None, seconds_left: Callable[[], float] | None = None) -> Pass:
    """Roll up every month that is due (see the module's docstring), until the run's time
    is nearly up; the pass's counts are metrics too."""
    moment = now or clock.now()
    deadline = time.monotonic() + 14 * 60
    left = seconds_left or (lambda: deadline - time.monotonic())
    outcome = Pass()
    slowest = 0.0
    for month in closed_months(moment):
        after: str | None = ""
        while after is not None:
            page, after = months.noted(month, after or None, PAGE)
            found = months.states([(website_id, month) for _, website_id in page])
            for account, website_id in page:
                if found[(website_id, month)].done:
                    outcome.whole += 1
                elif left() < STOP_SECONDS + 2 * slowest:
                    outcome.left += 1
                else:
                    started = time.monotonic()
                    _roll_up_safely(account, website_id, month, outcome)
                    slowest = max(slowest, time.monotonic() - started)
    metrics.count("MonthRollups", outcome.rolled)
    metrics.count("MonthRollupsFailed", outcome.failed, reason="error")
    metrics.count("MonthRollupsFailed", outcome.left, reason="left")
    return outcome


def _roll_up_safely(account: str, website_id: int, month: str, outcome: Pass) -> None:
    try:
        done = roll_up(account, website_id, month)
    except Exception:
        logger.exception("month not rolled up", extra={"website_id": website_id, "month": month})
        outcome.failed += 1
        return
    if done is None:
        outcome.gone += 1
    elif done:
        outcome.rolled += 1
    else:
        outcome.failed += 1


def roll_up(account: str, website_id: int, month: str) -> bool | None:
    """Write a website's month roll-ups from its days; False when a chunk of the month
    committed meanwhile (not whole yet), None when the website is gone.

    A website deleted during a roll-up is cleaned up no sooner than its cleanup queue's
    delay (120 s) later, well after the roll-up's writes (seconds), which it removes."""
    if not stored_websites.exists(account, website_id):
        return None
    state = months.states([(website_id, month)])[(website_id, month)]
    first, last = f"{month}-01", _last_day(month)
    spans = [stats.Span(website_id, name, first, last) for name in MONTHLY_NAMES]
    spans += [stats.Span(website_id, name + MONTH_SUFFIX, month, month) for name in MONTHLY_NAMES]
    found, _ = stats.many_counts(spans, consistent=True)
    days, stored = found[: len(MONTHLY_NAMES)], found[len(MONTHLY_NAMES) :]
    puts: list[tuple[str, str, str, int]] = []
    deletes: list[tuple[str, str, str]] = []
    pageviews = 0
    for name, daily, rolled in zip(MONTHLY_NAMES, days, stored, strict=True):
        wanted = month_counters(name, month, daily)
        if name == "pageviews":  # its counter holds the state too: written last, by `finish`
            pageviews = wanted.get(month, 0)
            continue
        now = {value: count for _, value, count in rolled}
        puts += [(name + MONTH_SUFFIX, month, v, n) for v, n in wanted.items() if now.get(v) != n]
        deletes += [(name + MONTH_SUFFIX, month, v) for v in now if v not in wanted]
    if puts or deletes:
        months.start_rewrite(website_id, month)
        months.replace(website_id, puts, deletes)
    elif state.done and state.count == pageviews:
        return True  # whole as it stands: nothing to write
    return months.finish(website_id, month, pageviews, state.changed)


def month_counters(name: str, month: str, daily: Iterable[tuple[str, str, int]]) -> dict[str, int]:
    """A statistic's month roll-up (value -> count) from its daily counters of the month."""
    sums: Counter[str] = Counter()
    for _, value, count in daily:
        sums[month if name in _TOTALS else value] += count
    if name in counting.UNCAPPED:
        return dict(sums)
    own: dict[str, int] = {}
    size = 0
    for value in sorted(sums, key=lambda v: (-sums[v], v)):
        length = len(value.encode())
        fits = len(own) < counting.MAX_VALUES and size + length <= counting.MAX_VALUE_BYTES
        if value != counting.OTHER and fits:
            own[value] = sums[value]
            size += length
    other = sum(sums.values()) - sum(own.values())
    return {**own, counting.OTHER: other} if other else own


def _last_day(month: str) -> str:
    first = date.fromisoformat(f"{month}-01")
    return ((first + timedelta(days=32)).replace(day=1) - timedelta(days=1)).isoformat()


# -- noting the months counted (the aggregator) -----------------------------------------------

# (account, website id, month) noted by this container. Bounded: cleared past _NOTED_MAX.
_noted: set[tuple[str, int, str]] = set()
_NOTED_MAX = 100_000


def note(counted: Iterable[tuple[str, int, datetime]]) -> None:
    """Note the website-months of counted hits (account, website id, hit time) for the
    job. Not retried: a failure is counted (MonthsNotNoted), and the next batch notes them;
    a month never noted is read by its days."""
    fresh = {(a, w, at.strftime("%Y-%m")) for a, w, at in counted} - _noted
    if not fresh:
        return
    try:
        expires = {m: _month_end(m) + NOTED_KEPT_SECONDS for _, _, m in fresh}
        for month, expires_at in expires.items():
            months.note([f for f in fresh if f[2] == month], expires_at)
    except Exception:
        logger.exception("months not noted", extra={"websites": len(fresh)})
        metrics.count("MonthsNotNoted", len(fresh))
        return
    if len(_noted) > _NOTED_MAX:
        _noted.clear()
    _noted.update(fresh)


def _month_end(month: str) -> int:
    end = date.fromisoformat(_last_day(month)) + timedelta(days=1)
    return int(datetime(end.year, end.month, end.day, tzinfo=UTC).timestamp())
