"""The websites' annotations a time series returns (`include.annotations`): those of the
query's range, each with the time bucket it falls in, so that a chart draws it there.

An annotation's `date` is a day of the website's time zone (`2026-11-25`) or a moment
(`2026-11-25T14:03:00Z`), seen in the query's time zone. Written by
`sitelens.websites.annotations`; read here with one `Query` per website.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sitelens.analytics.warehouse.query import Query
from sitelens.data import annotations as stored_annotations


def _local(value: str, zone: ZoneInfo) -> datetime:
    """An annotation's date as a wall-clock time of the zone (a day: its midnight)."""
    if len(value) == 10:
        return datetime.combine(date.fromisoformat(value), datetime.min.time())
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return moment.astimezone(zone).replace(tzinfo=None)


def bucket(query: Query, at: datetime) -> str:
    """The label of the query's time bucket holding the wall-clock time `at`, as
    `answers.time_labels` names buckets."""
    day = at.date()
    if query.time_dimension == "time:hour":
        return at.strftime("%Y-%m-%d %H:00:00")
    if query.time_dimension == "time:week":
        return max(day - timedelta(days=day.weekday()), query.first_day).isoformat()
    if query.time_dimension == "time:month":
        return day.replace(day=1).isoformat()
    return day.isoformat()


def of_range(account_id: str, query: Query) -> list[dict[str, Any]]:
    """The annotations of the query's websites within its range, by date."""
    zone = ZoneInfo(query.timezone)
    start = query.start.astimezone(zone).replace(tzinfo=None)
    end = query.end.astimezone(zone).replace(tzinfo=None)
    found = []
    for website_id in query.site_ids:
        for record in stored_annotations.of_website(account_id, website_id):
            at = _local(record["date"], zone)
            # a day is in the range when any of it is: a 24h range starts mid-day
            last = at + timedelta(days=1) if len(record["date"]) == 10 else at
            if last <= start or at >= end:
                continue
            found.append(
                {
                    "id": record["id"],
                    "website_id": website_id,
                    "date": record["date"],
                    "text": record["text"],
                    "link": record.get("link") or None,
                    "bucket": bucket(query, max(at, start)),
                }
            )
    return sorted(found, key=lambda item: (item["date"], item["website_id"], item["id"]))
