"""The periods digests report: the last complete ISO week (Monday to Sunday) or calendar
month, in UTC days as the statistics count them, and the period before it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta


@dataclass(frozen=True)
class Period:
    cadence: str  # "weekly" or "monthly"
    label: str  # "2026-W47", "2026-10": one digest per account and label
    first: date
    last: date
    before_first: date
    before_last: date


def due(cadence: str, today: date) -> bool:
    """Whether today is a digest day of the cadence: Mondays, or the 1st of the month."""
    return today.weekday() == 0 if cadence == "weekly" else today.day == 1


def last_complete(cadence: str, today: date) -> Period:
    """The last period of the cadence that ended before today, and the one before it."""
    if cadence == "weekly":
        first = today - timedelta(days=today.weekday() + 7)
        year, week, _ = first.isocalendar()
        return Period(
            cadence,
            f"{year}-W{week:02d}",
            first,
            first + timedelta(days=6),
            first - timedelta(days=7),
            first - timedelta(days=1),
        )
    last = today.replace(day=1) - timedelta(days=1)
    first = last.replace(day=1)
    before_last = first - timedelta(days=1)
    return Period(cadence, f"{first:%Y-%m}", first, last, before_last.replace(day=1), before_last)
