"""Per-account caps on audits, so that one account cannot fill the crawl queue that every
account shares: runs going at once (`SITELENS_AUDIT_ACTIVE_RUNS`, default 3), pages a day
(`SITELENS_AUDIT_DAILY_PAGES`, 200,000: the `max_pages` of the runs started in the last 24
hours) and scheduled audits (`SITELENS_AUDIT_SCHEDULED`, 20); 0 turns a cap off.

A run is admitted before it starts (a new audit's first run, `POST .../runs`, the
scheduler) and a schedule before it is set (create, update): each counted on the account's
usage item (`data.audit_usage`) in one conditional write. Counting reads that item and, only
for what it lists, the states of the runs that may still be going (at most the runs cap)
and, when the schedules are at their cap, the listed audits' schedules (at most that cap).

Beyond a cap nothing is counted or stored: 429 with `Retry-After` for runs and pages, which
free up with time; 422 on `schedule` for scheduled audits, as for an account's keys and
webhook endpoints; 422 on `max_pages` for a run larger than a whole day's pages. The
scheduler leaves an audit due when a cap refuses its run (`audits.schedules`).
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sitelens.core import clock, errors
from sitelens.core.config import settings
from sitelens.data import audit_usage, transactions
from sitelens.data import audits as stored_audits
from sitelens.data.records import Busy

DAY = timedelta(hours=24)  # the window of the pages cap
# A run admitted whose state was never written (its request ended between the two) holds
# its place no longer than this.
UNSTARTED_GRACE = timedelta(minutes=5)
RUNS_RETRY_AFTER = 60  # seconds: runs end at their own pace; ask again in a minute
WRITE_SECONDS = 5.0  # an account's starts at once each win in milliseconds
RETRY_CAP_SECONDS = 0.05
# (a run's state, when it was admitted) -> whether it is still going (`runs.status_of`)
Going = Callable[[dict[str, Any], str], bool]
Usage = dict[str, Any]


class RunsCap(errors.TooManyRequests):
    """429: the account's runs going at once are at its cap."""

    def __init__(self, cap: int) -> None:
        super().__init__(RUNS_RETRY_AFTER)
        self.message = (
            f"The account has {cap} audit runs going, the most it may have at once; start "
            "this one when one of them has finished."
        )


class PagesCap(errors.TooManyRequests):
    """429: the runs the account started in the last 24 hours may crawl its day's pages."""

    def __init__(self, cap: int, used: int, pages: int, retry_after: int) -> None:
        super().__init__(retry_after)
        self.message = (
            f"The audit runs the account started in the last 24 hours may crawl {used} pages; "
            f"{pages} more would pass its cap of {cap} pages a day. Try again in "
            f"{retry_after} seconds, or lower max_pages."
        )


def admit(
    account: str,
    going: Going,
    *,
    crawl: str | None = None,
    pages: int = 0,
    scheduled: int | None = None,
) -> str | None:
    """Count a run about to start (its crawl key and `max_pages`) and/or an audit about to
    have a schedule (its id) on the account's usage; the run's ticket, which gives its
    place back (`release`) should it not start. RunsCap, PagesCap or 422 beyond a cap,
    nothing counted then; Busy (409) when other starts kept coming first."""
    ticket = uuid.uuid4().hex[:16] if crawl is not None else None

    def count(usage: Usage, now: datetime) -> None:
        if crawl is not None:
            _admit_run(usage, now, crawl, pages, going, str(ticket))
        if scheduled is not None:
            _admit_schedule(account, usage, scheduled)

    _change(account, count)
    return ticket


def release(account: str, *, ticket: str | None = None, scheduled: int | None = None) -> None:
    """Uncount a run that did not start (its `admit` ticket, with its pages) and/or an
    audit's schedule."""
    if ticket is None and scheduled is None:
        return

    def uncount(usage: Usage, now: datetime) -> None:
        if ticket is not None:
            for entry in [e for e in usage["going"] if e.get("ticket") == ticket]:
                usage["going"].remove(entry)
                minute = _minute(datetime.fromisoformat(entry["at"]))
                left = usage["pages"].get(minute, 0) - entry["pages"]
                usage["pages"][minute] = left
                if left <= 0:
                    del usage["pages"][minute]
        if scheduled is not None:
            usage["scheduled"] = [i for i in usage["scheduled"] if i != scheduled]

    _change(account, uncount)


def _change(account: str, apply: Callable[[Usage, datetime], None]) -> None:
    for _ in transactions.attempts(seconds=WRITE_SECONDS, cap=RETRY_CAP_SECONDS):
        usage, version = audit_usage.usage(account)
        apply(usage, clock.now())
        if audit_usage.replace(account, usage, version):
            return
    raise Busy()


def _admit_run(
    usage: Usage, now: datetime, crawl: str, pages: int, going: Going, ticket: str
) -> None:
    runs_cap, pages_cap = settings().audit_active_runs, settings().audit_daily_pages
    # without a runs cap nothing is listed (so that nothing is read)
    listed = usage["going"] if runs_cap else []
    kept = [e for e in listed if _still_going(e, now, going)]
    if runs_cap and len(kept) >= runs_cap:
        raise RunsCap(runs_cap)
    since = _minute(now - DAY)
    counted = {minute: n for minute, n in usage["pages"].items() if minute > since}
    if pages_cap:
        if pages > pages_cap:
            raise errors.Invalid.field(
                "max_pages",
                f"The max pages field must not be greater than the account's {pages_cap} "
                "pages a day.",
            )
        used = sum(counted.values())
        if used + pages > pages_cap:
            raise PagesCap(
                pages_cap, used, pages, _pages_free_in(counted, used + pages - pages_cap, now)
            )
    counted[_minute(now)] = counted.get(_minute(now), 0) + pages
    usage["pages"] = counted if pages_cap else {}
    entry = {"crawl": crawl, "at": clock.iso(now), "pages": pages, "ticket": ticket}
    usage["going"] = [*kept, entry] if runs_cap else []


def _still_going(entry: dict[str, Any], now: datetime, going: Going) -> bool:
    state = stored_audits.state(entry["crawl"])
    if state is None:
        return bool(entry["at"] > clock.iso(now - UNSTARTED_GRACE))
    return going(state, entry["at"])


def _pages_free_in(counted: dict[str, int], excess: int, now: datetime) -> int:
    """Seconds until the oldest minutes' pages leave the window and free `excess`."""
    freed = 0
    for minute in sorted(counted):
        freed += counted[minute]
        if freed >= excess:
            leaves = datetime.fromisoformat(f"{minute}:00+00:00") + DAY + timedelta(minutes=1)
            return max(1, math.ceil((leaves - now).total_seconds()))
    return int(DAY.total_seconds())


def _admit_schedule(account: str, usage: Usage, audit_id: int) -> None:
    cap = settings().audit_scheduled
    if not cap:
        usage["scheduled"] = []
        return
    listed = [i for i in usage["scheduled"] if i != audit_id]
    if len(listed) >= cap:  # at the cap: drop audits deleted or unscheduled meanwhile
        found = audit_usage.schedules(account, listed)
        listed = [i for i in listed if found.get(i, "none") != "none"]
    if len(listed) >= cap:
        raise errors.Invalid.field(
            "schedule", f"An account may have at most {cap} scheduled audits."
        )
    usage["scheduled"] = [*listed, audit_id]


def _minute(moment: datetime) -> str:
    return clock.iso(moment)[:16]  # 2026-11-21T09:30
