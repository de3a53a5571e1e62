"""A Stats API v2 query's time zone and date range, turned into days and UTC instants.

Presets and plain dates are days in the site's zone; their bounds live here, the rest of a
query in `query`.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo

from sitelens.core import clock, errors, timezones

PRESETS: Final = ("day", "24h", "7d", "28d", "30d", "91d", "month", "6mo", "12mo", "year", "all")

MAX_DAYS = 3 * 366 + 1  # three years of partitions, the retention the deployment keeps
MAX_TIMEZONE_LENGTH = 64


def timezone(value: Any) -> str:
    """The IANA time zone name `value`, one of `core.timezones` (a website's rule too); 422
    (`errors.Invalid`) on the field `timezone`."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_TIMEZONE_LENGTH:
        raise errors.Invalid.field("timezone", "The timezone field must be an IANA time zone name.")
    if not timezones.known(value):
        raise errors.Invalid.field("timezone", f"Unknown time zone {value!r}.")
    return value


def date_range(value: Any, now: datetime) -> tuple[date, date, datetime, datetime]:
    """(first day, last day) in the site's zone and the UTC instants [start, end) of a
    query's `date_range`, a preset or two ISO 8601 dates or datetimes; `now` is in the
    site's zone (a `ZoneInfo`). 422 (`errors.Invalid`) on the field `date_range`, also
    for a range over MAX_DAYS days."""
    first, last, start, end = _parse(value, now)
    if (last - first).days + 1 > MAX_DAYS:
        raise errors.Invalid.field(
            "date_range", f"The date range must not cover more than {MAX_DAYS} days."
        )
    return first, last, start, end


def _parse(value: Any, now: datetime) -> tuple[date, date, datetime, datetime]:
    zone = now.tzinfo
    assert isinstance(zone, ZoneInfo)
    today = now.date()
    if isinstance(value, str):
        if value not in PRESETS:
            raise errors.Invalid.field(
                "date_range", f"The date range must be one of: {', '.join(PRESETS)}."
            )
        if value == "24h":
            start = (now - timedelta(hours=24)).astimezone(ZoneInfo("UTC"))
            return (now - timedelta(hours=24)).date(), today, start, now.astimezone(ZoneInfo("UTC"))
        first = _preset_start(value, today)
        return (
            first,
            today,
            _local_midnight(first, zone),
            _local_midnight(today + timedelta(1), zone),
        )
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise errors.Invalid.field(
            "date_range", "The date range must be a preset or two ISO 8601 dates."
        )
    if all(len(v) == 10 for v in value):
        try:
            first, last = (date.fromisoformat(v) for v in value)
        except ValueError:
            raise errors.Invalid.field(
                "date_range", "The dates must be ISO 8601 (YYYY-MM-DD)."
            ) from None
        _check_calendar(first, last)
        if last < first:
            raise errors.Invalid.field(
                "date_range", "The date range must not end before it starts."
            )
        return first, last, _local_midnight(first, zone), _local_midnight(last + timedelta(1), zone)
    try:
        # RFC 3339's `t` and `z` may be lower case; Python reads them upper case only
        start_at, end_at = (datetime.fromisoformat(v.upper()) for v in value)
    except ValueError:
        raise errors.Invalid.field(
            "date_range", "The datetimes must be ISO 8601 with an offset."
        ) from None
    if start_at.tzinfo is None or end_at.tzinfo is None:
        raise errors.Invalid.field("date_range", "The datetimes must be ISO 8601 with an offset.")
    _check_calendar(start_at, end_at)
    if end_at < start_at:
        raise errors.Invalid.field("date_range", "The date range must not end before it starts.")
    # the second datetime is the last instant included, as Plausible's "15:59:59"
    utc = ZoneInfo("UTC")
    return (
        start_at.astimezone(zone).date(),
        end_at.astimezone(zone).date(),
        start_at.astimezone(utc),
        (end_at + timedelta(seconds=1)).astimezone(utc),
    )


def _check_calendar(first: date, last: date) -> None:
    if not (clock.in_calendar(first) and clock.in_calendar(last)):
        raise errors.Invalid.field(
            "date_range",
            f"The date range must lie in the years {clock.FIRST_YEAR} to {clock.LAST_YEAR}.",
        )


def _local_midnight(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(), zone).astimezone(ZoneInfo("UTC"))


def _preset_start(preset: str, today: date) -> date:
    if preset == "day":
        return today
    if preset.endswith("d"):
        return today - timedelta(days=int(preset[:-1]) - 1)
    if preset == "month":
        return today.replace(day=1)
    if preset.endswith("mo"):
        months = int(preset[:-2]) - 1
        year, month = divmod(today.year * 12 + today.month - 1 - months, 12)
        return date(year, month + 1, 1)
    if preset == "year":
        return today.replace(month=1, day=1)
    return today - timedelta(days=MAX_DAYS - 1)  # "all": as far back as the data is kept
