"""Time as the contract writes it: ISO-8601 UTC with microseconds."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Final

# The years a request may name a day or a moment of. Any zone's midnight of such a day, or
# any offset of such a moment, stays inside Python's datetime (years 1 to 9999), and nothing
# before 1970 was counted.
FIRST_YEAR: Final = 1970
LAST_YEAR: Final = 9998
YEARS: Final = f"of a year from {FIRST_YEAR} to {LAST_YEAR}"


def now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """`2026-11-21T09:30:00.000000Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def now_iso() -> str:
    return iso(now())


def after(previous: str) -> str:
    """Now, or just after `previous` when this container's clock is behind the one that
    wrote it: a record's `updated_at` never goes backwards."""
    current = now()
    last = datetime.fromisoformat(previous)  # as `iso` writes it, Z and all
    return iso(max(current, last + timedelta(microseconds=1)))


def in_calendar(day: date) -> bool:
    """Whether a day, or a moment's day (a datetime is a date), is of a year from
    `FIRST_YEAR` to `LAST_YEAR`."""
    return FIRST_YEAR <= day.year <= LAST_YEAR


def moment(text: str) -> datetime | None:
    """An ISO 8601 date and time as a request sends it (RFC 3339's lower-case `t` and `z`
    too), in UTC when it names no offset; None when it is none, or not `in_calendar`."""
    try:
        found = datetime.fromisoformat(text.strip().upper())
    except ValueError:
        return None
    if found.tzinfo is None:
        found = found.replace(tzinfo=UTC)
    return found if in_calendar(found) else None
