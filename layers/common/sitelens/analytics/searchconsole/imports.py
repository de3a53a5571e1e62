"""The Search Console import: a task of the tasks queue (`run_batch`) that brings a
connected website's `searchAnalytics.query` rows into its warehouse table, a day at a time
(docs/search-console.md).

- The window: Search Console's last 16 months (`WINDOW_DAYS`), up to `DELAY_DAYS` ago, as
  its final data has a 2-3 day delay. A first import (on connect) backfills the whole
  window; the daily schedule (`queue_due`) imports the days since, and the last
  `REFRESH_DAYS` again, replacing them.
- The days with data are asked first (one query by date); each is read by pages of
  `ROW_LIMIT` rows (`startRow` on) until a short page, then written whole
  (`data.search_console.put_day`): re-importing a day replaces its rows, never adds to
  them. The checkpoint (`imported_through`) advances after each day.
- Quotas: a 429 (RESOURCE_EXHAUSTED) stops the run; the connection waits
  (`resume_after`, doubling from `BACKOFF_SECONDS`) and a delayed task resumes it from the
  checkpoint. A revoked grant (401, `invalid_grant`) fails the import, saying so in GET's
  `last_import` (the daily run tries once a day, until the website is connected again).
- A run stops after `RUN_SECONDS` and queues its own continuation, so a backfill of a large
  property fits in the tasks function's 300 s runs.
"""

from __future__ import annotations

import json
import time
from datetime import date, datetime, timedelta
from typing import Any, Final

from sitelens.analytics.searchconsole import google
from sitelens.core import clock, metrics, task_batches
from sitelens.core.log import logger
from sitelens.data import queues
from sitelens.data import search_console as stored
from sitelens.tokens import sealing

WINDOW_DAYS: Final = 486  # 16 months of Search Console's history (16 x 30.4 days)
DELAY_DAYS: Final = 3  # final data ends three days ago (Google: "2-3 days")
REFRESH_DAYS: Final = 2  # the daily run imports the last two imported days again
ROW_LIMIT: Final = 25_000  # Search Console's most rows a request
DIMENSIONS: Final = ("page", "query", "country", "device")  # a day at a time: date is the day's
BACKOFF_SECONDS: Final = 60  # a first 429 waits a minute, then 2, 4... up to SQS's 15
MAX_BACKOFF_SECONDS: Final = 900
RUN_SECONDS: Final = 150.0  # then the run queues its continuation (the function has 300 s)


def window(today: date) -> tuple[date, date]:
    """The first and last day an import reads, today."""
    last = today - timedelta(days=DELAY_DAYS)
    return today - timedelta(days=WINDOW_DAYS), last


def run_batch(records: list[dict[str, Any]]) -> list[str]:
    """Run the import tasks of a batch (SQS records); the message ids to deliver again."""
    return task_batches.run_each(
        records,
        queues.search_console_task,
        run,
        "SearchConsoleImportsFailed",
        "search console import",
    )


def run(account: str, website_id: int, deadline: float | None = None) -> str:
    """Import the website's days from its checkpoint on; the status it ends in."""
    record = stored.get(account, website_id)
    if record is None:
        return "gone"  # disconnected since it was queued
    now = clock.now()
    waiting = record.get("resume_after")
    if waiting and waiting > clock.iso(now + timedelta(seconds=5)):
        # a 429's wait is not over (a daily run, a POST .../imports): resume when it is
        left = (datetime.fromisoformat(waiting.replace("Z", "+00:00")) - now).total_seconds()
        queues.send_search_console_import(account, website_id, int(left) + 1)
        return "waiting"
    first, last = window(now.date())
    through = record.get("imported_through")
    start = max(first, date.fromisoformat(through) + timedelta(days=1)) if through else first
    if through and record.get("import_status") == "done":
        start = max(first, start - timedelta(days=REFRESH_DAYS))  # the recent days again
    stored.set_fields(account, website_id, {"import_status": "running", "import_error": None})
    deadline = deadline if deadline is not None else time.monotonic() + RUN_SECONDS
    rows = days = 0
    day = start
    try:
        token = _access_token(record)
        having = _days_with_data(token, record, start, last) if start <= last else set()
        while day <= last:
            if time.monotonic() > deadline:
                stored.set_fields(account, website_id, {"import_status": "queued"})
                queues.send_search_console_import(account, website_id)
                return "continued"
            if day.isoformat() in having:  # a day without data has no rows to replace
                rows += stored.put_day(website_id, day.isoformat(), _day_rows(token, record, day))
                days += 1
                stored.set_fields(account, website_id, _progress(day, rows, days))
            day += timedelta(days=1)
    except google.GoogleError as err:
        return _refused(account, website_id, record, err)
    done = {
        **_progress(last, rows, days),
        "import_status": "done",
        "import_finished_at": clock.iso(clock.now()),
        "backoff_seconds": 0,
        "resume_after": None,
    }
    stored.set_fields(account, website_id, done)
    metrics.count("SearchConsoleRows", rows)
    return "done"


def _progress(day: date, rows: int, days: int) -> dict[str, Any]:
    return {
        "imported_through": day.isoformat(),
        "import_rows": rows,
        "import_days": days,
    }


def _access_token(record: dict[str, Any]) -> str:
    secret = sealing.unseal(record["secret"])
    if record["method"] == "service_account":
        return google.access_token(key=json.loads(secret))
    return google.access_token(refresh_token=secret)


def _days_with_data(token: str, record: dict[str, Any], first: date, last: date) -> set[str]:
    """The days of the range Search Console has data for: one query by date, as Google
    advises before importing ("Verify the presence of data")."""
    body = {
        "startDate": first.isoformat(),
        "endDate": last.isoformat(),
        "dimensions": ["date"],
        "rowLimit": ROW_LIMIT,
        "dataState": "final",
    }
    return {str(row["keys"][0]) for row in google.query(token, record["property"], body)}


def _day_rows(token: str, record: dict[str, Any], day: date) -> list[tuple[Any, ...]]:
    """Every row of the property's day, page by page (`startRow`), in `stored.COLUMNS`."""
    found: list[tuple[Any, ...]] = []
    while True:
        body = {
            "startDate": day.isoformat(),
            "endDate": day.isoformat(),
            "dimensions": list(DIMENSIONS),
            "rowLimit": ROW_LIMIT,
            "startRow": len(found),
            "dataState": "final",
            "type": "web",
        }
        page = google.query(token, record["property"], body)
        for row in page:
            page_url, query, country, device = row["keys"]
            found.append(
                (
                    day.isoformat(),
                    page_url,
                    query,
                    country,
                    device,
                    int(row["clicks"]),
                    int(row["impressions"]),
                    float(row["ctr"]),
                    float(row["position"]),
                )
            )
        if len(page) < ROW_LIMIT:
            return found


def _refused(account: str, website_id: int, record: dict[str, Any], err: google.GoogleError) -> str:
    """Google said no: wait and resume on a quota answer; fail on anything else."""
    if err.quota:
        wait = min(
            MAX_BACKOFF_SECONDS, max(BACKOFF_SECONDS, 2 * int(record.get("backoff_seconds") or 0))
        )
        resume = clock.now() + timedelta(seconds=wait)
        stored.set_fields(
            account,
            website_id,
            {
                "import_status": "waiting",
                "import_error": f"Search Console's quota was reached ({err.status} {err.reason}): "
                f"the import resumes after {clock.iso(resume)}.",
                "backoff_seconds": wait,
                "resume_after": clock.iso(resume),
            },
        )
        queues.send_search_console_import(account, website_id, wait)
        metrics.count("SearchConsoleQuotaWaits", 1)
        return "waiting"
    why = (
        f"Google refused the connection's grant ({err.status} {err.reason}): connect the "
        "website again."
        if err.revoked
        else f"Search Console refused the import ({err.status} {err.reason}: {err.message[:200]})."
    )
    logger.warning(
        "search console import refused", extra={"website_id": website_id, "status": err.status}
    )
    metrics.count("SearchConsoleImportsFailed", 1, reason="refused")
    stored.set_fields(
        account,
        website_id,
        {
            "import_status": "failed",
            "import_error": why,
            "import_finished_at": clock.iso(clock.now()),
        },
    )
    return "failed"


def queue_due(now: datetime | None = None) -> int:
    """The daily schedule: queue an import of every connected website; how many."""
    queued = 0
    for account, website_id in stored.connected():
        queues.send_search_console_import(account, website_id)
        queued += 1
    return queued
